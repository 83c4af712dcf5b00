// Undo one wave: its tables one at a time in reverse order (dependents first); a table that cannot
// be rolled back is reported with its code, the others still are. A table fenced by cutover is
// unfenced first (activities/cutover.ts unfenceTable), then rolled back like any other; a table whose
// Iceberg appends were put back into Hive is listed with what was put back (the rollbackTable
// activity's result: the same commands).
import { patched, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { PutBackOutcome } from '../activities/undo';
import type { Timeouts } from './common';
import { activities, failureOf, markTeams, planId, SA, UI_TRUTH_PATCH } from './common';

export interface RollbackInput {
  readonly timeouts?: Timeouts;
  readonly planHash: string;
  readonly wave: number;
  readonly force: boolean;
  readonly by: string;
}

export interface RollbackResult {
  readonly wave: number;
  readonly rolledBack: readonly string[];
  readonly refused: readonly { tableId: string; code: string; message: string }[];
  /** Tables whose Iceberg appends since ours were registered back into Hive (absent in runs before it existed). */
  readonly putBack?: readonly ({ tableId: string } & PutBackOutcome)[];
}

/** Workflows started before cutover existed replay without the unfence step. */
export const UNFENCE_PATCH = 'rollback-unfence-before-undo';

export async function rollbackWaveWorkflow(input: RollbackInput): Promise<RollbackResult> {
  const { short } = activities(input.timeouts);
  const truth = patched(UI_TRUTH_PATCH);
  const tables = await short.migratedTables(input.planHash, input.wave);
  // The tables' teams on this workflow: a team's filter finds the rollback of its tables.
  if (truth) await markTeams(input.planHash, input.wave, tables, input.timeouts);
  const rolledBack: string[] = [];
  const refused: { tableId: string; code: string; message: string }[] = [];
  const putBack: ({ tableId: string } & PutBackOutcome)[] = [];
  // Reverse order of the wave (dependents first), one at a time: rollback is rare and careful.
  for (const tableId of [...tables].reverse()) {
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
  return { wave: input.wave, rolledBack, refused, putBack };
}
