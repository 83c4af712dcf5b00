// A wave's tables in batches (WaveInput.tablesPerActivity > 1): each batch is one applyTables
// activity (activities/apply-batch.ts) that takes its tables through the forward steps and, for a
// table that fails for good or is in flight at a cancellation, through its compensations; about
// `concurrency` tables are in flight (ceil(concurrency / batch) batches). A table a batch hands back
// (a view, a rewrite-path table, a transient failure) runs alone in its own table workflow, which
// resumes from its record. Temporal's cost per table (schedule, start and complete of three
// activities, a child workflow and its tasks) is shared by the batch.
import { CancellationScope, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { BatchTableOutcome, TableOutcome } from '../activities/index';
import { activities, activityOptions, failureOf } from './common';
import { compensate, forwardUndo } from './table';
import type { WaveRun } from './wave-run';
import { startTable } from './wave-run';
import { SlidingWindow, windowLimit } from './window';

/** The patch that marks wave histories whose tables went in batches. */
export const APPLY_BATCH_PATCH = 'apply-batched-tables';

/**
 * A table whose batch could not say how it ended, once the wave is cancelled: its compensations run
 * from the workflow (each undo is a no-op for what was never done) and it ends CANCELLED.
 */
async function undoCancelled(run: WaveRun, tableId: string): Promise<TableOutcome> {
  const input = { planHash: run.input.planHash, tableId, timeouts: run.input.timeouts };
  const { deleteOurs, unregister } = forwardUndo(input);
  return CancellationScope.nonCancellable(() =>
    compensate(input, [deleteOurs, unregister], {
      code: 'CANCELLED',
      message: `${tableId}: cancelled while migrating; its steps were undone`,
    }),
  );
}

/**
 * The wave's tables in batches of `batch`. True when the run should continue as new (Temporal
 * suggested it; the batches and the tables handed back have ended, tables are left).
 */
export async function batchedLoop(run: WaveRun, batch: number): Promise<boolean> {
  const { input } = run;
  const { long } = activities(input.timeouts);
  const o = activityOptions(input.timeouts);
  const window = new SlidingWindow<BatchTableOutcome[]>(Math.ceil(windowLimit(input.concurrency, 8) / batch));
  const alone: string[] = [];
  let rotate = false;
  const take = async (out: BatchTableOutcome): Promise<void> => {
    run.running--;
    if (out.status === 'not-started') run.unstarted++;
    else if (out.status !== 'handoff') await run.settle(out);
    else if (run.cancelled) await run.settle(await undoCancelled(run, out.tableId));
    else alone.push(out.tableId);
  };
  for (;;) {
    while (!run.cancelled && !window.full) {
      const tableId = alone.shift();
      if (tableId !== undefined) {
        if (!(await startTable(run, window, tableId))) alone.unshift(tableId);
        continue;
      }
      if (rotate || run.cursor >= run.tables.length) break;
      const tables = run.tables.slice(run.cursor, run.cursor + batch);
      run.cursor += tables.length;
      run.running += tables.length;
      const first = tables[0] as string;
      const summary = `migrate ${tables.length} table(s): ${first}${tables.length > 1 ? ` … ${tables[tables.length - 1] as string}` : ''}`;
      window.add(
        `batch:${first}`,
        long.applyTables.executeWithOptions({ ...o.long, summary }, [input.planHash, tables]),
        // The batch ended without outcomes (its retries spent, or cancelled while a worker died):
        // each table goes on alone and resumes from its record — or, cancelled, is undone.
        (e) =>
          tables.map(
            (t): BatchTableOutcome => ({
              tableId: t,
              status: 'handoff',
              reason: 'retry',
              ...failureOf(e),
              ...(isCancellation(e) ? { code: 'CANCELLED' } : {}),
            }),
          ),
      );
    }
    if (window.size === 0) break;
    for (const out of await window.next()) await take(out);
    run.details();
    if (!rotate && !run.cancelled && run.cursor < run.tables.length && workflowInfo().continueAsNewSuggested) rotate = true;
  }
  // Cancelled with tables handed back and not started alone: undone here.
  for (const tableId of alone.splice(0)) await run.settle(await undoCancelled(run, tableId));
  return rotate && !run.cancelled && run.cursor < run.tables.length;
}
