// Bounded parallel lanes for the stack's installs and starts. Dev tooling.
import { StackError } from './util';

export interface LaneJob {
  readonly name: string;
  /** Jobs (by name, among the same run) that must have finished first. */
  readonly after: readonly string[];
  /** Jobs sharing a group never run at the same time (Go builds: each one saturates the cores). */
  readonly group?: string;
  readonly run: () => Promise<void>;
}

/** How many lanes: HIM_STACK_JOBS (1..16), default 3. */
export function laneWidth(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.HIM_STACK_JOBS;
  if (raw === undefined || raw === '') return 3;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 16)
    throw new StackError('CONFIG_INVALID', `HIM_STACK_JOBS must be an integer 1..16, got '${raw}'`);
  return n;
}

/**
 * Runs `jobs` at most `width` at a time. A job starts once everything in its `after` has finished
 * and no other job of its group runs; among the ready ones the earliest in the list goes first.
 * After the first failure nothing new starts; the running jobs finish and that first error is thrown.
 */
export async function runLanes(jobs: readonly LaneJob[], width: number): Promise<void> {
  const names = new Set(jobs.map((j) => j.name));
  const done = new Set<string>();
  const busyGroups = new Set<string>();
  const pending = [...jobs];
  let running = 0;
  let failure: { error: unknown } | undefined;
  await new Promise<void>((resolve) => {
    const ready = (j: LaneJob): boolean =>
      j.after.every((d) => done.has(d) || !names.has(d)) && (j.group === undefined || !busyGroups.has(j.group));
    const pump = (): void => {
      while (failure === undefined && running < width) {
        const i = pending.findIndex(ready);
        if (i < 0) break;
        const job = pending.splice(i, 1)[0] as LaneJob;
        running++;
        if (job.group !== undefined) busyGroups.add(job.group);
        job
          .run()
          .then(
            () => void done.add(job.name),
            (error: unknown) => void (failure ??= { error }),
          )
          .finally(() => {
            running--;
            if (job.group !== undefined) busyGroups.delete(job.group);
            pump();
          });
      }
      if (running === 0) resolve();
    };
    pump();
  });
  if (failure !== undefined) throw failure.error;
  if (pending.length > 0)
    throw new StackError('MANIFEST_INVALID', `cannot order ${pending.map((j) => j.name).join(', ')}: a dependency cycle or an unknown job`);
}
