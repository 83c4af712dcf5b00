// Runs the shipped read-back proof (jobs/readback.py) for a batch of tables through the same
// process runner as the rewrite job (rewrite-job.ts runSparkJob: the configured spark-submit argv,
// its own process group killed on cancel or deadline, progress lines to `onEvent`, stderr to a log,
// the result file read back). Failures are READBACK_FAILED.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ErrorCode, MigrationError } from '../core/errors';
import type { ReadBackResult, ReadBackSpec } from '../core/validate/readback-spec';
import type { RunJobOptions } from '../core/engine-port/jobs';
import { runSparkJob } from './rewrite-job';

/** Where the shipped job lives: `jobs/readback.py` beside `dist/` (packaged) or the source tree. */
export function readBackJobPath(): string {
  const candidates = [path.resolve(__dirname, '..', 'jobs', 'readback.py'), path.resolve(__dirname, '..', '..', 'jobs', 'readback.py')];
  const found = candidates.find((c) => existsSync(c));
  if (found === undefined)
    throw new MigrationError(ErrorCode.INTERNAL, `the read-back job is missing (looked in ${candidates.join(', ')})`);
  return found;
}

/** Start the job (one Spark session for every table of the spec), wait for it, return its result file. Killed (group) on abort or after timeoutMs. */
export function runReadBackJob(spec: ReadBackSpec, tableId: string, o: RunJobOptions): Promise<ReadBackResult> {
  return runSparkJob<ReadBackResult>(
    spec,
    { tableId, what: 'read-back job', code: ErrorCode.READBACK_FAILED },
    { ...o, job: o.job ?? readBackJobPath() },
  );
}
