// A plan's migrated tables catch up with their Hive side: one syncTable activity per table in a
// sliding window (window.ts), each a metadata-only snapshot or a refusal; the counts and per-table
// outcomes are returned, and the search attributes / current details let the Temporal UI show it.
// Started by `migrate sync` (id `sync/<plan id>/<stamp>`) or by the plan's sync schedule. The
// history stays bounded: after `tablesPerRun` tables (or when Temporal suggests it) a run lets its
// window drain and continues as new with the tables still to sync and the outcomes so far.
import {
  continueAsNew,
  defineQuery,
  patched,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { TableSyncOutcome } from '../activities/index';
import type { PlanTablesInput } from './common';
import { activities, failureOf, planId, SA } from './common';
import { SlidingWindow, windowLimit } from './window';

/** What a run hands the next one when it continues as new. */
export interface SyncCarry {
  /** The tables still to sync, in order. */
  readonly remaining: readonly string[];
  /** Every outcome so far (the last run returns them all). */
  readonly done: readonly TableSyncOutcome[];
  readonly teams: readonly string[];
  /** Tables in the whole sync (the status query's denominator). */
  readonly total: number;
  /** Runs before this one. */
  readonly runs: number;
}

/** `concurrency`: tables synced at once, default 4. */
export interface SyncInput extends PlanTablesInput {
  /** Tables one run syncs before it continues as new (default DEFAULT_TABLES_PER_RUN). */
  readonly tablesPerRun?: number;
  /** Set by continue-as-new only. */
  readonly carried?: SyncCarry;
}

/** A run's table budget: ~7 history events per table keeps a run of this many well under Temporal's limits. */
export const DEFAULT_TABLES_PER_RUN = 500;
/** The patch that marks histories whose runs may continue as new (workflows started before it never do). */
export const SYNC_CONTINUE_AS_NEW_PATCH = 'sync-continue-as-new';

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

/** The tables this run syncs and the outcomes it starts from (a first run asks for the scope; a continued run is handed it). */
async function startOf(input: SyncInput, short: ReturnType<typeof activities>['short']) {
  const c = input.carried;
  if (c !== undefined) return { tables: c.remaining, teams: c.teams, done: [...c.done], total: c.total, runs: c.runs };
  const scope = await short.validationScope(input.planHash, input.waves ?? [], input.tables ?? []);
  const done = unknownOf(input, scope.tables);
  return { tables: scope.tables, teams: scope.teams, done, total: scope.tables.length + done.length, runs: 0 };
}

export async function syncWorkflow(input: SyncInput): Promise<SyncRunResult> {
  const { short, long } = activities(input.timeouts);
  const run = await startOf(input, short);
  const { done, total } = run;
  setHandler(syncStatusQuery, () => ({ tables: total, done: done.length, ...countsOf(done) }));
  const waves = input.waves ?? [];
  upsertSearchAttributes([
    { key: SA.plan, value: planId(input.planHash) },
    ...(waves.length === 1 ? [{ key: SA.wave, value: waves[0] as number }] : []),
    { key: SA.team, value: [...run.teams] },
    { key: SA.status, value: 'syncing' },
  ]);
  const window = new SlidingWindow<TableSyncOutcome>(windowLimit(input.concurrency, 4));
  const details = (): void => {
    const c = countsOf(done);
    const runs = run.runs > 0 ? ` · run ${run.runs + 1}` : '';
    setCurrentDetails(
      `Syncing plan \`${planId(input.planHash)}\`: ${done.length}/${total} tables · ${c.committed} snapshot(s) committed · ${c.inSync} in sync · ${c.refused} refused${runs}`,
    );
  };
  details();
  const perRun = Math.max(1, input.tablesPerRun ?? DEFAULT_TABLES_PER_RUN);
  let rotate = false;
  let cursor = 0;
  while (cursor < run.tables.length || window.size > 0) {
    while (cursor < run.tables.length && !window.full && !rotate) {
      // The budget is checked (and the patch marked) only once it is spent: histories from before the patch replay unchanged.
      if (cursor >= perRun && patched(SYNC_CONTINUE_AS_NEW_PATCH)) rotate = true;
      else {
        const tableId = run.tables[cursor++] as string;
        window.add(tableId, long.syncTable(input.planHash, tableId), (e) => ({ table: tableId, ok: false, error: failureOf(e) }));
      }
    }
    done.push(await window.next());
    details();
    if (!rotate && cursor < run.tables.length && workflowInfo().continueAsNewSuggested) rotate = patched(SYNC_CONTINUE_AS_NEW_PATCH);
    if (rotate && window.size === 0) {
      const carried: SyncCarry = { remaining: run.tables.slice(cursor), done, teams: run.teams, total, runs: run.runs + 1 };
      await continueAsNew<typeof syncWorkflow>({ ...input, carried });
    }
  }
  const counts = countsOf(done);
  const status = counts.refused > 0 ? 'refused' : 'synced';
  upsertSearchAttributes([{ key: SA.status, value: status }]);
  return { planHash: input.planHash, plan: planId(input.planHash), status, counts, tables: done };
}
