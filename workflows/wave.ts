// One wave: its tables as child tableWorkflows in a sliding window, continuing-as-new before the
// history grows large. It always ends: a child that fails, is terminated or times out counts as a
// failed table (its state record says so), and a cancelled wave starts nothing new, lets the tables
// in flight run their compensations, and ends `cancelled`.
import {
  CancellationScope,
  ChildWorkflowCancellationType,
  continueAsNew,
  defineQuery,
  isCancellation,
  ParentClosePolicy,
  patched,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { SearchAttributePair } from '@temporalio/common';
import type { TableOutcome } from '../activities/index';
import type { Timeouts } from './common';
import { activities, failureOf, planId, SA, tableWorkflowId, UI_TRUTH_PATCH } from './common';
import { readBackWave } from './readback';
import { tableWorkflow } from './table';
import { SlidingWindow, windowLimit } from './window';

export interface WaveInput {
  readonly planHash: string;
  readonly wave: number;
  readonly teams: readonly string[];
  /** Tables migrating at once (sliding window of child workflows). */
  readonly concurrency: number;
  readonly timeouts?: Timeouts;
  /** Carried across continue-as-new. */
  readonly cursor?: number;
  readonly done?: number;
  readonly skipped?: number;
  readonly failed?: readonly { tableId: string; code: string }[];
}

export interface WaveResult {
  readonly wave: number;
  readonly tables: number;
  readonly migrated: number;
  readonly skipped: number;
  readonly failed: readonly { tableId: string; code: string }[];
  /** Tables a cancellation kept from starting (nothing was written for them). */
  readonly notStarted?: number;
  readonly status: 'succeeded' | 'failed' | 'cancelled';
}

export const waveStatusQuery = defineQuery<{ wave: number; tables: number; done: number; failed: number; running: number }>('waveStatus');

/** A child that ended without an outcome (terminated, timed out, failed outside its steps). */
const ended = (tableId: string, e: unknown): TableOutcome => {
  const f = failureOf(e);
  const code = isCancellation(e) ? 'CANCELLED' : f.code === 'INTERNAL' ? 'TABLE_WORKFLOW_ENDED' : f.code;
  return { tableId, status: 'failed', code, message: `table workflow ended without an outcome: ${f.message}`, ended: true };
};

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

type ChildExtras = { typedSearchAttributes?: SearchAttributePair[]; staticDetails?: string };

export async function waveWorkflow(input: WaveInput): Promise<WaveResult> {
  const { short } = activities(input.timeouts);
  const { tables, childOptions } = await waveMembers(input);
  let cursor = input.cursor ?? 0;
  let done = input.done ?? 0;
  let skipped = input.skipped ?? 0;
  let cancelled = false;
  const failed = [...(input.failed ?? [])];
  const window = new SlidingWindow<TableOutcome>(windowLimit(input.concurrency, 8));
  // Cancelling the wave cancels its children (they compensate); here it only stops new starts.
  CancellationScope.current().cancelRequested.catch(() => void (cancelled = true));
  setHandler(waveStatusQuery, () => ({ wave: input.wave, tables: tables.length, done, failed: failed.length, running: window.size }));
  upsertSearchAttributes([{ key: SA.status, value: 'running' }]);
  const details = (): void =>
    setCurrentDetails(
      `**Wave ${input.wave}** of plan \`${planId(input.planHash)}\`: ${done} of ${tables.length} tables done\n\n| tables | migrated | views (unchanged) | failed | running |\n|---|---|---|---|---|\n| ${tables.length} | ${done - failed.length - skipped} | ${skipped} | ${failed.length} | ${window.size} |\n${
        failed.length > 0
          ? `\nFailed: ${failed
              .slice(0, 20)
              .map((f) => `\`${f.tableId}\` (${f.code})`)
              .join(', ')}\n`
          : ''
      }`,
    );
  const settle = async (r: TableOutcome): Promise<void> => {
    done++;
    if (r.status === 'failed') failed.push({ tableId: r.tableId, code: r.code });
    if (r.status === 'skipped') skipped++;
    // A child that ended without running its own failure path: its state record says so now.
    if (r.status === 'failed' && r.ended === true) {
      await CancellationScope.nonCancellable(() => short.markFailed({ planHash: input.planHash, tableId: r.tableId }, r.code, r.message));
    }
  };
  details();
  while ((cursor < tables.length && !cancelled) || window.size > 0) {
    while (!cancelled && cursor < tables.length && !window.full) {
      const tableId = tables[cursor++] as string;
      try {
        const handle = await startChild(tableWorkflow, {
          args: [{ planHash: input.planHash, tableId, timeouts: input.timeouts }],
          workflowId: tableWorkflowId(input.planHash, input.wave, tableId),
          staticSummary: `migrate ${tableId}`,
          ...childOptions(tableId),
          // Closing or cancelling the wave asks each table to stop, and waits for its compensations.
          cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
          parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        });
        window.add(tableId, handle.result(), (e) => ended(tableId, e));
      } catch (e) {
        if (isCancellation(e)) {
          cancelled = true;
          cursor--;
        } else await settle(ended(tableId, e));
      }
    }
    if (window.size === 0) continue;
    await settle(await window.next());
    details();
    if (!cancelled && workflowInfo().continueAsNewSuggested && cursor < tables.length) {
      // Drain the window, then start over with a cursor (the table list is re-read by reference).
      while (window.size > 0) await settle(await window.next());
      if (!cancelled) await continueAsNew<typeof waveWorkflow>({ ...input, cursor, done, skipped, failed });
    }
  }
  // The read-back proof of the wave's migrated tables (validation.readBack; none when off); histories recorded before it skip it.
  if (!cancelled && patched('readback-proof')) {
    const lost = await readBackWave(input.planHash, input.wave, input.timeouts);
    failed.push(...lost);
  }
  const status = cancelled ? 'cancelled' : failed.length === 0 ? 'succeeded' : 'failed';
  upsertSearchAttributes([{ key: SA.status, value: status }]);
  details();
  const notStarted = tables.length - cursor;
  return {
    wave: input.wave,
    tables: tables.length,
    migrated: done - failed.length - skipped,
    skipped,
    failed,
    ...(notStarted > 0 ? { notStarted } : {}),
    status,
  };
}
