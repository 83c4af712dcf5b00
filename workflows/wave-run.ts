// What a wave run holds while its tables go through (the counts carried across continue-as-new,
// the failed list, the cancellation flag) and the start of one table in its own table workflow, as
// the one-table loop (wave.ts) and the batched loop (wave-batched.ts) share them.
import { ChildWorkflowCancellationType, isCancellation, ParentClosePolicy, setCurrentDetails, startChild } from '@temporalio/workflow';
import type { SearchAttributePair } from '@temporalio/common';
import type { BatchTableOutcome, TableOutcome } from '../activities/index';
import type { Timeouts } from './common';
import { failureOf, planId, tableWorkflowId } from './common';
import { tableWorkflow } from './table';
import type { SlidingWindow } from './window';

export interface WaveInput {
  readonly planHash: string;
  readonly wave: number;
  readonly teams: readonly string[];
  /** Tables migrating at once (sliding window of child workflows, or of batches). */
  readonly concurrency: number;
  /**
   * Tables per apply activity (patch `apply-batched-tables`): 1 or unset, each table runs in its own
   * table workflow; more, the tables go to applyTables activities in batches of this many (at most
   * 50), and only a view, a rewrite-path table or a table with a transient failure gets its own
   * table workflow.
   */
  readonly tablesPerActivity?: number;
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

export type ChildExtras = { typedSearchAttributes?: SearchAttributePair[]; staticDetails?: string };

/** A wave run's progress; the loops move `cursor` and the counts, `settle` takes each table's end. */
export interface WaveRun {
  readonly input: WaveInput;
  readonly tables: readonly string[];
  readonly childOptions: (tableId: string) => ChildExtras;
  /** The next table of `tables` to start. */
  cursor: number;
  /** Tables ended (migrated, skipped or failed), over every run of the wave. */
  done: number;
  skipped: number;
  /** Tables a cancelled batch never started (nothing was written for them). */
  unstarted: number;
  /** Tables in flight now. */
  running: number;
  cancelled: boolean;
  readonly failed: { tableId: string; code: string }[];
  readonly settle: (r: TableOutcome) => Promise<void>;
  readonly details: () => void;
}

/** A child that ended without an outcome (terminated, timed out, failed outside its steps). */
export const ended = (tableId: string, e: unknown): TableOutcome => {
  const f = failureOf(e);
  const code = isCancellation(e) ? 'CANCELLED' : f.code === 'INTERNAL' ? 'TABLE_WORKFLOW_ENDED' : f.code;
  return { tableId, status: 'failed', code, message: `table workflow ended without an outcome: ${f.message}`, ended: true };
};

/** The wave's current details for the Temporal UI: its counts and the first failed tables. */
export function details(run: WaveRun): void {
  const { input, tables, failed } = run;
  setCurrentDetails(
    `**Wave ${input.wave}** of plan \`${planId(input.planHash)}\`: ${run.done} of ${tables.length} tables done\n\n| tables | migrated | views (unchanged) | failed | running |\n|---|---|---|---|---|\n| ${tables.length} | ${run.done - failed.length - run.skipped} | ${run.skipped} | ${failed.length} | ${run.running} |\n${
      failed.length > 0
        ? `\nFailed: ${failed
            .slice(0, 20)
            .map((f) => `\`${f.tableId}\` (${f.code})`)
            .join(', ')}\n`
        : ''
    }`,
  );
}

/**
 * Start `tableId` in its own table workflow, in the window (its outcome keyed by the table). False
 * when the wave's cancellation stopped the start (nothing started); a start that fails otherwise
 * settles the table as failed.
 */
export async function startTable(run: WaveRun, window: SlidingWindow<BatchTableOutcome[]>, tableId: string): Promise<boolean> {
  const { input } = run;
  try {
    const handle = await startChild(tableWorkflow, {
      args: [{ planHash: input.planHash, tableId, timeouts: input.timeouts }],
      workflowId: tableWorkflowId(input.planHash, input.wave, tableId),
      staticSummary: `migrate ${tableId}`,
      ...run.childOptions(tableId),
      // Closing or cancelling the wave asks each table to stop, and waits for its compensations.
      cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    });
    run.running++;
    window.add(
      tableId,
      handle.result().then((o) => [o]),
      (e) => [ended(tableId, e)],
    );
    return true;
  } catch (e) {
    if (isCancellation(e)) {
      run.cancelled = true;
      return false;
    }
    await run.settle(ended(tableId, e));
    return true;
  }
}
