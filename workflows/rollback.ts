// Undo one wave: its tables one at a time in reverse order (dependents first); a table that cannot
// be rolled back is reported with its code, the others still are. A table fenced by cutover is
// unfenced first (activities/cutover.ts unfenceTable), then rolled back like any other; a table whose
// Iceberg appends were put back into Hive is listed with what was put back (the rollbackTable
// activity's result: the same commands). Still-migrated views of later waves that read the wave
// refuse it (ROLLBACK_ORDER, before anything changes) unless `withDependentViews` rolls them back first.
import { patched, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { PutBackOutcome } from '../activities/undo';
import type { Timeouts } from './common';
import { activities, failureOf, markTeams, planId, refusal, SA, UI_TRUTH_PATCH } from './common';

export interface RollbackInput {
  readonly timeouts?: Timeouts;
  readonly planHash: string;
  readonly wave: number;
  readonly force: boolean;
  readonly by: string;
  /** Roll back the still-migrated views of later waves that read the wave first; unset: such views refuse the rollback (ROLLBACK_ORDER). */
  readonly withDependentViews?: boolean;
}

export interface RollbackResult {
  readonly wave: number;
  readonly rolledBack: readonly string[];
  readonly refused: readonly { tableId: string; code: string; message: string }[];
  /** Tables whose Iceberg appends since ours were registered back into Hive (absent in runs before it existed). */
  readonly putBack?: readonly ({ tableId: string } & PutBackOutcome)[];
  /** Views of later waves rolled back first (--with-dependent-views; absent in runs before it existed). */
  readonly dependentViews?: readonly string[];
}

/** Workflows started before cutover existed replay without the unfence step. */
export const UNFENCE_PATCH = 'rollback-unfence-before-undo';
/** Workflows started before the rollback order existed replay without its check. */
export const ORDER_PATCH = 'rollback-dependent-views-first';

/** The views to roll back first (empty: none read the wave), or the coded refusal that fails the workflow. */
async function viewsFirst(input: RollbackInput): Promise<string[]> {
  if (!patched(ORDER_PATCH)) return [];
  try {
    return await activities(input.timeouts).short.rollbackOrder(input.planHash, input.wave, input.withDependentViews === true);
  } catch (e) {
    const f = failureOf(e);
    throw refusal(f.code, f.message);
  }
}

export async function rollbackWaveWorkflow(input: RollbackInput): Promise<RollbackResult> {
  const { short } = activities(input.timeouts);
  const truth = patched(UI_TRUTH_PATCH);
  const tables = await short.migratedTables(input.planHash, input.wave);
  const first = await viewsFirst(input);
  // The tables' teams on this workflow: a team's filter finds the rollback of its tables.
  if (truth) await markTeams(input.planHash, input.wave, tables, input.timeouts);
  const rolledBack: string[] = [];
  const refused: { tableId: string; code: string; message: string }[] = [];
  const putBack: ({ tableId: string } & PutBackOutcome)[] = [];
  for (const tableId of first) {
    setCurrentDetails(`Rolling back wave ${input.wave} of plan \`${planId(input.planHash)}\`: first the view ${tableId} that reads it`);
    try {
      await short.rollbackTable({ planHash: input.planHash, tableId }, input.force, input.by);
      rolledBack.push(tableId);
    } catch (e) {
      refused.push({ tableId, ...failureOf(e) });
    }
  }
  // A dependent view left in place keeps the wave's tables where they are.
  const blocked = refused.length > 0;
  // Reverse order of the wave (dependents first), one at a time: rollback is rare and careful.
  for (const tableId of [...tables].reverse()) {
    if (blocked) {
      refused.push({ tableId, code: 'ROLLBACK_ORDER', message: `${tableId}: not rolled back: a view that reads the wave was refused` });
      continue;
    }
    setCurrentDetails(
      `Rolling back wave ${input.wave} of plan \`${planId(input.planHash)}\`: ${rolledBack.length + refused.length} of ${tables.length} tables done · now ${tableId}`,
    );
    try {
      // A fenced or cut-over table (migrate cutover): its Hive table back under its name first.
      if (patched(UNFENCE_PATCH)) await short.unfenceTable({ planHash: input.planHash, tableId }, input.by, input.force);
      const r = await short.rollbackTable({ planHash: input.planHash, tableId }, input.force, input.by);
      rolledBack.push(tableId);
      if (r.putBack !== undefined) putBack.push({ tableId, ...r.putBack });
    } catch (e) {
      refused.push({ tableId, ...failureOf(e) });
    }
  }
  const status = refused.length === 0 ? 'rolled-back' : 'rollback-incomplete';
  upsertSearchAttributes([{ key: SA.status, value: status }]);
  setCurrentDetails(
    `Wave ${input.wave} of plan \`${planId(input.planHash)}\` ${status}: ${rolledBack.length} of ${tables.length} tables rolled back`,
  );
  return { wave: input.wave, rolledBack, refused, putBack, ...(first.length > 0 ? { dependentViews: first } : {}) };
}
