// Runs the shipped view check (jobs/view_check.py) for one created Iceberg view through the same
// process runner as the rewrite job (rewrite-job.ts runSparkJob: the configured spark-submit argv,
// its own process group killed on cancel or deadline, progress lines to `onEvent`, stderr to a log,
// the result file read back). Failures are VIEW_CHECK_FAILED.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ErrorCode, MigrationError } from '../core/errors';
import type { ViewCheckResult, ViewCheckSpec } from '../core/view/check-spec';
import type { RunJobOptions } from '../core/engine-port/jobs';
import { runSparkJob } from './rewrite-job';

/** Where the shipped job lives: `jobs/view_check.py` beside `dist/` (packaged) or the source tree. */
export function viewCheckJobPath(): string {
  const candidates = [path.resolve(__dirname, '..', 'jobs', 'view_check.py'), path.resolve(__dirname, '..', '..', 'jobs', 'view_check.py')];
  const found = candidates.find((c) => existsSync(c));
  if (found === undefined)
    throw new MigrationError(ErrorCode.INTERNAL, `the view check job is missing (looked in ${candidates.join(', ')})`);
  return found;
}

/** Start the check, wait for it, return its result file. Killed (group) on abort or after timeoutMs. */
export function runViewCheckJob(spec: ViewCheckSpec, tableId: string, o: RunJobOptions): Promise<ViewCheckResult> {
  return runSparkJob<ViewCheckResult>(
    spec,
    { tableId, what: 'view check job', code: ErrorCode.VIEW_CHECK_FAILED },
    { ...o, job: o.job ?? viewCheckJobPath() },
  );
}
