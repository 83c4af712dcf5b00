// A plan's migrated tables catch up with their Hive side: one syncTable activity per table in a
// sliding window (window.ts), each a metadata-only snapshot or a refusal; the counts and per-table
// outcomes are returned, and the search attributes / current details let the Temporal UI show it.
// Started by `migrate sync` (id `sync/<plan id>/<stamp>`) or by the plan's sync schedule.
import { defineQuery, setCurrentDetails, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { TableSyncOutcome } from '../activities/index';
import type { PlanTablesInput } from './common';
import { activities, failureOf, planId, SA } from './common';
import { SlidingWindow, windowLimit } from './window';

/** `concurrency`: tables synced at once, default 4. */
export type SyncInput = PlanTablesInput;

export interface SyncCounts {
  readonly inSync: number;
  readonly committed: number;
  readonly refused: number;
}

export interface SyncRunResult {
  readonly planHash: string;
  /** The plan id (what `migrate sync --direct` reports as `plan`). */
  readonly plan: string;
  readonly status: 'synced' | 'refused';
  readonly counts: SyncCounts;
  readonly tables: readonly TableSyncOutcome[];
}

export const syncStatusQuery = defineQuery<{ tables: number; done: number } & SyncCounts>('syncStatus');

const countsOf = (done: readonly TableSyncOutcome[]): SyncCounts => ({
  inSync: done.filter((o) => o.ok && o.result.commit === null).length,
  committed: done.filter((o) => o.ok && o.result.commit !== null).length,
  refused: done.filter((o) => !o.ok).length,
});

/** Named tables that are not migrated tables of the plan (in the scope asked for): refused, not silently skipped. */
const unknownOf = (input: SyncInput, scope: readonly string[]): TableSyncOutcome[] =>
  (input.tables ?? [])
    .filter((t) => !scope.includes(t))
    .map((table) => ({
      table,
      ok: false,
      error: { code: 'USAGE', message: `${table} is not a migrated table of plan ${planId(input.planHash)} in this scope` },
    }));

export async function syncWorkflow(input: SyncInput): Promise<SyncRunResult> {
  const { short, long } = activities(input.timeouts);
  const scope = await short.validationScope(input.planHash, input.waves ?? [], input.tables ?? []);
  const done: TableSyncOutcome[] = unknownOf(input, scope.tables);
  const total = scope.tables.length + done.length;
  setHandler(syncStatusQuery, () => ({ tables: total, done: done.length, ...countsOf(done) }));
  const waves = input.waves ?? [];
  upsertSearchAttributes([
    { key: SA.plan, value: planId(input.planHash) },
    ...(waves.length === 1 ? [{ key: SA.wave, value: waves[0] as number }] : []),
    { key: SA.team, value: scope.teams },
    { key: SA.status, value: 'syncing' },
  ]);
  const window = new SlidingWindow<TableSyncOutcome>(windowLimit(input.concurrency, 4));
  const details = (): void => {
    const c = countsOf(done);
    setCurrentDetails(
      `Syncing plan \`${planId(input.planHash)}\`: ${done.length}/${total} tables · ${c.committed} snapshot(s) committed · ${c.inSync} in sync · ${c.refused} refused`,
    );
  };
  details();
  for (let cursor = 0; cursor < scope.tables.length || window.size > 0; ) {
    while (cursor < scope.tables.length && !window.full) {
      const tableId = scope.tables[cursor++] as string;
      window.add(tableId, long.syncTable(input.planHash, tableId), (e) => ({ table: tableId, ok: false, error: failureOf(e) }));
    }
    done.push(await window.next());
    details();
  }
  const counts = countsOf(done);
  const status = counts.refused > 0 ? 'refused' : 'synced';
  upsertSearchAttributes([{ key: SA.status, value: status }]);
  return { planHash: input.planHash, plan: planId(input.planHash), status, counts, tables: done };
}
