// Runs the shipped Spark job (jobs/rewrite.py) for one table as a child process: the configured
// spark-submit argv + `<job> --spec F --result F`, in its own process group so a cancel (or the
// deadline) kills spark-submit, its JVM and its Python workers together. Progress events (one JSON
// line each on the job's stdout) go to `onEvent` (the activity heartbeats with them); the job's
// stderr goes to a log file next to the spec. The result file is the job's manifest.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ErrorCode, MigrationError } from '../core/errors';
import type { RewriteSpec } from '../core/rewrite/spec';
import type { RewriteResult, RunJobOptions } from '../core/engine-port/jobs';

/** Where the shipped job lives: `jobs/rewrite.py` beside `dist/` (packaged) or the source tree. */
export function rewriteJobPath(): string {
  const candidates = [path.resolve(__dirname, '..', 'jobs', 'rewrite.py'), path.resolve(__dirname, '..', '..', 'jobs', 'rewrite.py')];
  const found = candidates.find((c) => existsSync(c));
  if (found === undefined) throw new MigrationError(ErrorCode.INTERNAL, `the rewrite job is missing (looked in ${candidates.join(', ')})`);
  return found;
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * A worker killed while its job ran leaves the job running (its own process group, recorded in
 * `<jobId>.pid`): kill that group and wait until it is gone, so one job at a time writes under the
 * job's location. Same host only (docs/migrating.md: a cluster's job is ended by its own deadline).
 */
export async function stopRewriteJob(workDir: string, jobId: string): Promise<boolean> {
  const pidFile = path.join(workDir, `${jobId}.pid`);
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  rmSync(pidFile, { force: true });
  if (!Number.isInteger(pid) || pid <= 1) return false;
  killGroup(pid);
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(-pid, 0);
    } catch {
      return true; // the group is gone
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/** Whose job it is, for its coded failure: `${tableId}: ${what} ${jobId} ${why}`. */
export interface JobLabel {
  readonly tableId: string;
  readonly what: string;
  readonly code: ErrorCode;
}

function failed(spec: { readonly jobId: string }, who: JobLabel, why: string, log: string): MigrationError {
  return new MigrationError(who.code, `${who.tableId}: ${who.what} ${spec.jobId} ${why} (log: ${log})`, {
    tableId: who.tableId,
    jobId: spec.jobId,
    log,
  });
}

/** Start the job, wait for it, return its result file. Killed (group) on abort or after timeoutMs. */
export function runRewriteJob(spec: RewriteSpec, o: RunJobOptions): Promise<RewriteResult> {
  return runSparkJob<RewriteResult>(spec, { tableId: spec.source.table, what: 'rewrite job', code: ErrorCode.REWRITE_JOB_FAILED }, o);
}

/**
 * Any shipped Spark job (`o.job`, default jobs/rewrite.py) with the spec/result file convention:
 * `<command> <job> --spec <workDir>/<jobId>.spec.json --result <workDir>/<jobId>.result.json`.
 */
export async function runSparkJob<R>(spec: { readonly jobId: string }, who: JobLabel, o: RunJobOptions): Promise<R> {
  mkdirSync(o.workDir, { recursive: true });
  const specFile = path.join(o.workDir, `${spec.jobId}.spec.json`);
  const resultFile = path.join(o.workDir, `${spec.jobId}.result.json`);
  const log = path.join(o.workDir, `${spec.jobId}.log`);
  writeFileSync(specFile, JSON.stringify(spec, null, 2));
  rmSync(resultFile, { force: true }); // a killed earlier run's result must not be read as this one's
  const pidFile = path.join(o.workDir, `${spec.jobId}.pid`);
  await stopRewriteJob(o.workDir, spec.jobId);
  const [bin, ...args] = o.command;
  if (bin === undefined) throw failed(spec, who, 'has no command', log);
  const child = spawn(bin, [...args, o.job ?? rewriteJobPath(), '--spec', specFile, '--result', resultFile], {
    env: { ...process.env, ...o.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid !== undefined) writeFileSync(pidFile, `${child.pid}\n`);
  const err = createWriteStream(log, { flags: 'a' });
  child.stderr.pipe(err);
  let buf = '';
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      err.write(`${line}\n`);
      try {
        o.onEvent?.(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // A non-JSON line (a tool printing to stdout): logged only.
      }
    }
  });
  const stop = (): void => killGroup(child.pid);
  o.signal?.addEventListener('abort', stop, { once: true });
  const timer = setTimeout(stop, o.timeoutMs);
  const exit = await new Promise<{ code: number | null; signal: string | null; error?: Error }>((resolve) => {
    child.once('error', (e) => resolve({ code: null, signal: null, error: e }));
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  clearTimeout(timer);
  o.signal?.removeEventListener('abort', stop);
  err.end();
  rmSync(pidFile, { force: true });
  if (o.signal?.aborted === true) throw failed(spec, who, 'was killed: the step was cancelled', log);
  if (exit.error !== undefined) throw failed(spec, who, `could not start: ${exit.error.message}`, log);
  if (!existsSync(resultFile)) throw failed(spec, who, `exited ${exit.code ?? exit.signal ?? '?'} without a result`, log);
  return JSON.parse(readFileSync(resultFile, 'utf8')) as R;
}
