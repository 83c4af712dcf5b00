// Apply in batches: one activity takes several tables of a wave through the forward steps a table
// workflow runs (save the original and write our metadata, register, validate), at once. A table
// whose step fails for good, or that is in flight when the wave is cancelled, has its compensations
// run here in reverse and its failure recorded, as its table workflow would. A view, a rewrite-path
// table or a transient failure is handed back: the wave runs that table in its own table workflow,
// which resumes from the record (every step does only what is missing).
// Each finished table's outcome is heartbeated, so a retry of the batch (a worker killed mid-batch)
// skips the tables already done and reports them as they were.
import { ApplicationFailure } from '@temporalio/activity';
import { MigrationError } from '../core/errors';
import { compensationEnd } from '../core/state/compensation';
import type { Ctx, TableRef } from '../ops/context';
import { activityCtx, heartbeatWith } from './runtime';
import type { BatchTableOutcome } from './outcome';
import type { tableSteps } from '../ops/table';
import type { undoOps } from '../ops/undo';

type Steps = ReturnType<typeof tableSteps>;
type Undo = ReturnType<typeof undoOps>;
type UndoStep = { readonly what: string; readonly run: () => Promise<unknown> };

/** Thrown between a table's steps once the wave asked the batch to stop. */
class Stop extends Error {}

/** The coded failure of a step, or null when it is transient (a retryable code, or no code at all). */
function finalFailure(e: unknown): { code: string; message: string } | null {
  if (e instanceof MigrationError && !e.retryable) return { code: e.code, message: e.message };
  if (e instanceof ApplicationFailure && e.nonRetryable && e.type) return { code: e.type, message: e.message };
  return null;
}

/** A failure's code: a MigrationError's, a coded ApplicationFailure's, else INTERNAL. */
const codeOf = (e: unknown): string =>
  e instanceof MigrationError ? e.code : e instanceof ApplicationFailure && e.type ? e.type : 'INTERNAL';

/** Run every undo in reverse, each on its own; what could not finish is named. */
async function compensate(undo: readonly UndoStep[]): Promise<string[]> {
  const incomplete: string[] = [];
  for (const step of [...undo].reverse()) {
    try {
      await step.run();
    } catch (e) {
      incomplete.push(`${step.what}: ${codeOf(e)}: ${(e as Error).message}`);
    }
  }
  return incomplete;
}

/** One table of the batch, start to end (or to its handoff). */
async function applyOne(steps: Steps, undo: Undo, ref: TableRef, stopped: () => boolean): Promise<BatchTableOutcome> {
  const t = ref.tableId;
  if (stopped()) return { tableId: t, status: 'not-started' };
  const undone: UndoStep[] = [{ what: 'delete our metadata', run: () => undo.deleteMetadata(ref) }];
  const checkpoint = (): void => {
    if (stopped()) throw new Stop();
  };
  try {
    // A batch heartbeats its outcomes: the write step's progress is not sent (the keep-alive repeats the outcomes).
    const w = await steps.saveOriginalAndWrite(ref, () => undefined);
    if (w.view) return { tableId: t, status: 'handoff', reason: 'view' };
    if (w.rewrite === true) return { tableId: t, status: 'handoff', reason: 'rewrite' };
    checkpoint();
    undone.push({ what: 'unregister', run: () => undo.unregisterTable(ref) });
    await steps.registerTable(ref);
    checkpoint();
    await steps.validateTable(ref);
    return { tableId: t, status: 'migrated' };
  } catch (e) {
    // Once the wave asked the batch to stop, any failure of the step (a cancelled sleep, a refused call) is that cancellation.
    const f =
      e instanceof Stop || stopped()
        ? { code: 'CANCELLED', message: `${t}: cancelled while migrating; its steps were undone` }
        : finalFailure(e);
    if (f === null) {
      return { tableId: t, status: 'handoff', reason: 'retry', code: codeOf(e), message: (e as Error).message };
    }
    const end = compensationEnd(f, await compensate(undone), ref.planHash);
    try {
      await undo.markFailed(ref, end.code, end.message);
    } catch {
      // Not recorded: the wave records it (its markFailed activity, under Temporal's retries).
      return { tableId: t, status: 'failed', ...end, ended: true };
    }
    return { tableId: t, status: 'failed', ...end };
  }
}

export function applyBatchActivities(c: Ctx, steps: Steps, undo: Undo) {
  return {
    /**
     * A batch of a wave's tables (the wave's unit when the plan runs with more than one table per
     * activity): every table's outcome, in the order asked.
     */
    async applyTables(planHash: string, tableIds: readonly string[]): Promise<BatchTableOutcome[]> {
      const ctx = activityCtx();
      const prior = (ctx?.info.heartbeatDetails as BatchTableOutcome[] | undefined) ?? [];
      const again = (o: BatchTableOutcome): boolean => o.status === 'not-started' || (o.status === 'handoff' && o.reason === 'retry');
      const done = new Map<string, BatchTableOutcome>(
        prior.filter((o) => tableIds.includes(o.tableId) && !again(o)).map((o) => [o.tableId, o]),
      );
      const stopped = (): boolean => ctx?.cancellationSignal.aborted === true;
      return Promise.all(
        tableIds.map(async (tableId): Promise<BatchTableOutcome> => {
          const known = done.get(tableId);
          if (known !== undefined) return known;
          const o = await applyOne(steps, undo, { planHash, tableId }, stopped);
          if (!again(o)) done.set(tableId, o);
          if (ctx !== undefined) heartbeatWith(ctx, [...done.values()]);
          c.failpoint('after-batch-table', tableId);
          return o;
        }),
      );
    },
  };
}
