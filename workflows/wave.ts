// One wave: its tables as child tableWorkflows in a sliding window, continuing-as-new before the
// history grows large. It always ends: a child that fails, is terminated or times out counts as a
// failed table (its state record says so), and a cancelled wave starts nothing new, lets the tables
// in flight run their compensations, and ends `cancelled`.
import {
  CancellationScope,
  continueAsNew,
  defineQuery,
  patched,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { BatchTableOutcome } from '../activities/index';
import { activities, planId, SA, UI_TRUTH_PATCH } from './common';
import { readBackWave } from './readback';
import { APPLY_BATCH_PATCH, batchedLoop } from './wave-batched';
import type { ChildExtras, WaveInput, WaveResult, WaveRun } from './wave-run';
import { details, startTable } from './wave-run';
import { SlidingWindow, windowLimit } from './window';

export const waveStatusQuery = defineQuery<{ wave: number; tables: number; done: number; failed: number; running: number }>('waveStatus');

/**
 * The wave's tables in plan order, and each one's search attributes at start (plan, wave, its team,
 * its name, `running`): none for histories recorded before UI_TRUTH_PATCH.
 */
async function waveMembers(input: WaveInput): Promise<{ tables: string[]; childOptions: (tableId: string) => ChildExtras }> {
  const { short } = activities(input.timeouts);
  if (!patched(UI_TRUTH_PATCH)) return { tables: await short.waveTables(input.planHash, input.wave), childOptions: () => ({}) };
  const members = await short.waveMembers(input.planHash, input.wave);
  const team = new Map(members.map((m) => [m.id, m.team]));
  return {
    tables: members.map((m) => m.id),
    childOptions: (tableId) => ({
      typedSearchAttributes: [
        { key: SA.plan, value: planId(input.planHash) },
        { key: SA.wave, value: input.wave },
        { key: SA.team, value: [team.get(tableId) ?? 'unowned'] },
        { key: SA.table, value: tableId },
        { key: SA.status, value: 'running' },
      ],
      staticDetails: `Table \`${tableId}\` (team \`${team.get(tableId) ?? 'unowned'}\`) of wave ${input.wave} of plan \`${planId(input.planHash)}\``,
    }),
  };
}

/**
 * One table per table workflow, `concurrency` at once. True when the run should continue as new
 * (Temporal suggested it; the window is drained, tables are left).
 */
async function childLoop(run: WaveRun): Promise<boolean> {
  const window = new SlidingWindow<BatchTableOutcome[]>(windowLimit(run.input.concurrency, 8));
  const take = async (): Promise<void> => {
    // Only table workflows' outcomes here (no batch hands a table back in this loop).
    for (const o of await window.next()) {
      run.running--;
      if (o.status !== 'handoff' && o.status !== 'not-started') await run.settle(o);
    }
  };
  while ((run.cursor < run.tables.length && !run.cancelled) || window.size > 0) {
    while (!run.cancelled && run.cursor < run.tables.length && !window.full) {
      const tableId = run.tables[run.cursor++] as string;
      if (!(await startTable(run, window, tableId))) run.cursor--;
    }
    if (window.size === 0) continue;
    await take();
    run.details();
    if (!run.cancelled && workflowInfo().continueAsNewSuggested && run.cursor < run.tables.length) {
      // Drain the window, then start over with a cursor (the table list is re-read by reference).
      while (window.size > 0) await take();
      if (!run.cancelled) return true;
    }
  }
  return false;
}

export async function waveWorkflow(input: WaveInput): Promise<WaveResult> {
  const { short } = activities(input.timeouts);
  const { tables, childOptions } = await waveMembers(input);
  const failed = [...(input.failed ?? [])];
  const run: WaveRun = {
    input,
    tables,
    childOptions,
    cursor: input.cursor ?? 0,
    done: input.done ?? 0,
    skipped: input.skipped ?? 0,
    unstarted: 0,
    running: 0,
    cancelled: false,
    failed,
    settle: async (r) => {
      run.done++;
      if (r.status === 'failed') failed.push({ tableId: r.tableId, code: r.code });
      if (r.status === 'skipped') run.skipped++;
      // A table that ended without its failure recorded: its state record says so now.
      if (r.status === 'failed' && r.ended === true) {
        await CancellationScope.nonCancellable(() => short.markFailed({ planHash: input.planHash, tableId: r.tableId }, r.code, r.message));
      }
    },
    details: () => details(run),
  };
  // Cancelling the wave cancels its children and activities (they compensate); here it only stops new starts.
  CancellationScope.current().cancelRequested.catch(() => void (run.cancelled = true));
  setHandler(waveStatusQuery, () => ({
    wave: input.wave,
    tables: tables.length,
    done: run.done,
    failed: failed.length,
    running: run.running,
  }));
  upsertSearchAttributes([{ key: SA.status, value: 'running' }]);
  run.details();
  const batch = Math.min(input.tablesPerActivity ?? 1, 50);
  // Checked only when batches were asked for: histories recorded before it (and one-table runs) replay unchanged.
  const rotate = batch > 1 && patched(APPLY_BATCH_PATCH) ? await batchedLoop(run, batch) : await childLoop(run);
  if (rotate) {
    const { cursor, done, skipped } = run;
    await continueAsNew<typeof waveWorkflow>({ ...input, cursor, done, skipped, failed });
  }
  // The read-back proof of the wave's migrated tables (validation.readBack; none when off); histories recorded before it skip it.
  if (!run.cancelled && patched('readback-proof')) {
    const lost = await readBackWave(input.planHash, input.wave, input.timeouts);
    failed.push(...lost);
  }
  const status = run.cancelled ? 'cancelled' : failed.length === 0 ? 'succeeded' : 'failed';
  upsertSearchAttributes([{ key: SA.status, value: status }]);
  run.details();
  const notStarted = tables.length - run.cursor + run.unstarted;
  return {
    wave: input.wave,
    tables: tables.length,
    migrated: run.done - failed.length - run.skipped,
    skipped: run.skipped,
    failed,
    ...(notStarted > 0 ? { notStarted } : {}),
    status,
  };
}
