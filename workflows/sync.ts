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
import type { BatchSyncOutcome, TableSyncOutcome } from '../activities/index';
import type { PlanTablesInput } from './common';
import { activities, failureOf, planId, SA } from './common';
import { SlidingWindow, windowLimit } from './window';

/** What a run hands the next one when it continues as new. */
export interface SyncCarry {
  /** The tables still to sync, in order. */
  readonly remaining: readonly string[];
  /** Every outcome so far (the last run returns them all). */
  readonly done: readonly TableSyncOutcome[];
  /** When each outcome in `done` came back (workflow time, ISO-8601; the syncStatus query's per-table `at`). Absent in carries from before it: those show the continued run's start. */
  readonly doneAt?: readonly string[];
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
  /** Tables per activity (default DEFAULT_SYNC_BATCH; 1 = one activity per table). */
  readonly batch?: number;
  /** Set by continue-as-new only. */
  readonly carried?: SyncCarry;
}

/**
 * Tables per syncTables activity (patch `sync-batched-tables`): Temporal's cost per activity
 * (schedule, start, complete, the workflow task) shared by this many tables; the window of
 * `concurrency` tables runs ceil(concurrency / batch) activities at once.
 */
export const DEFAULT_SYNC_BATCH = 4;
/** The patch that marks histories whose tables go in batches (workflows started before it run one activity per table). */
export const SYNC_BATCH_PATCH = 'sync-batched-tables';

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

/** One synced table as the `syncStatus` query shows it (what the sync found behind and committed, or the refusal's code). */
export interface SyncTableProgress {
  readonly table: string;
  readonly ok: boolean;
  /** When its outcome came back (workflow time, ISO-8601). */
  readonly at: string;
  readonly status?: string;
  readonly snapshotId?: string | null;
  readonly filesAdded?: number;
  readonly filesRemoved?: number;
  readonly partitionsAdded?: number;
  readonly partitionsChanged?: number;
  readonly code?: string;
}

export interface SyncStatus extends SyncCounts {
  readonly tables: number;
  readonly done: number;
  /** Files and partitions the committed snapshots caught up so far. */
  readonly filesAdded: number;
  readonly filesRemoved: number;
  readonly partitionsChanged: number;
  /** When the last table finished (null before the first). */
  readonly lastSyncAt: string | null;
  /** Every finished table, in the order they finished. */
  readonly perTable: readonly SyncTableProgress[];
}

export const syncStatusQuery = defineQuery<SyncStatus>('syncStatus');

const progressOf = (o: TableSyncOutcome, at: string): SyncTableProgress =>
  o.ok
    ? {
        table: o.table,
        ok: true,
        at,
        status: o.result.status,
        snapshotId: o.result.snapshotId,
        filesAdded: o.result.filesAdded,
        filesRemoved: o.result.filesRemoved,
        partitionsAdded: o.result.partitionsAdded,
        partitionsChanged: o.result.partitionsChanged,
      }
    : { table: o.table, ok: false, at, code: o.error.code };

function statusOf(total: number, done: readonly TableSyncOutcome[], perTable: readonly SyncTableProgress[]): SyncStatus {
  const sum = (f: (p: SyncTableProgress) => number | undefined): number => perTable.reduce((s, p) => s + (f(p) ?? 0), 0);
  return {
    tables: total,
    done: done.length,
    ...countsOf(done),
    filesAdded: sum((p) => p.filesAdded),
    filesRemoved: sum((p) => p.filesRemoved),
    partitionsChanged: sum((p) => p.partitionsChanged),
    lastSyncAt: perTable[perTable.length - 1]?.at ?? null,
    perTable,
  };
}

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
  // Date.now() is the workflow's clock here (deterministic: the task's start time).
  const now = new Date(Date.now()).toISOString();
  if (c !== undefined) {
    // The per-table progress survives continue-as-new: rebuilt from the carried outcomes and their times.
    const perTable = c.done.map((o, i) => progressOf(o, c.doneAt?.[i] ?? now));
    return { tables: c.remaining, teams: c.teams, done: [...c.done], perTable, total: c.total, runs: c.runs };
  }
  const scope = await short.validationScope(input.planHash, input.waves ?? [], input.tables ?? []);
  const done = unknownOf(input, scope.tables);
  const perTable = done.map((o) => progressOf(o, now));
  return { tables: scope.tables, teams: scope.teams, done, perTable, total: scope.tables.length + done.length, runs: 0 };
}

export async function syncWorkflow(input: SyncInput): Promise<SyncRunResult> {
  const { short, long } = activities(input.timeouts);
  const run = await startOf(input, short);
  const { done, perTable, total } = run;
  setHandler(syncStatusQuery, () => statusOf(total, done, perTable));
  const waves = input.waves ?? [];
  upsertSearchAttributes([
    { key: SA.plan, value: planId(input.planHash) },
    ...(waves.length === 1 ? [{ key: SA.wave, value: waves[0] as number }] : []),
    { key: SA.team, value: [...run.teams] },
    { key: SA.status, value: 'syncing' },
  ]);
  const record = (o: TableSyncOutcome): void => {
    done.push(o);
    perTable.push(progressOf(o, new Date(Date.now()).toISOString()));
  };
  const details = (): void => {
    const s = statusOf(total, done, perTable);
    const runs = run.runs > 0 ? ` · run ${run.runs + 1}` : '';
    setCurrentDetails(
      `Syncing plan \`${planId(input.planHash)}\`: ${done.length}/${total} tables · ${s.committed} snapshot(s) committed (+${s.filesAdded} file(s), −${s.filesRemoved}, ${s.partitionsChanged} partition(s)) · ${s.inSync} in sync · ${s.refused} refused${s.lastSyncAt !== null ? ` · last table synced ${s.lastSyncAt}` : ''}${runs}`,
    );
  };
  details();
  const loop = { input, run, long, record, details, carry: (remaining: readonly string[]) => carryOf(run, remaining, done, perTable) };
  // Checked once, first: histories from before the patch replay their one-activity-per-table loop unchanged.
  if (patched(SYNC_BATCH_PATCH)) await batchedLoop(loop);
  else await perTableLoop(loop);
  const counts = countsOf(done);
  const status = counts.refused > 0 ? 'refused' : 'synced';
  upsertSearchAttributes([{ key: SA.status, value: status }]);
  return { planHash: input.planHash, plan: planId(input.planHash), status, counts, tables: done };
}

interface Loop {
  readonly input: SyncInput;
  readonly run: Awaited<ReturnType<typeof startOf>>;
  readonly long: ReturnType<typeof activities>['long'];
  /** One table's outcome into the run's results and progress. */
  readonly record: (o: TableSyncOutcome) => void;
  readonly details: () => void;
  readonly carry: (remaining: readonly string[]) => SyncCarry;
}

function carryOf(
  run: Awaited<ReturnType<typeof startOf>>,
  remaining: readonly string[],
  done: readonly TableSyncOutcome[],
  perTable: readonly SyncTableProgress[],
): SyncCarry {
  return { remaining, done, doneAt: perTable.map((p) => p.at), teams: run.teams, total: run.total, runs: run.runs + 1 };
}

/** Before the batch patch: one syncTable activity per table in a sliding window of `concurrency`. */
async function perTableLoop(l: Loop): Promise<void> {
  const { input, run, long } = l;
  const window = new SlidingWindow<TableSyncOutcome>(windowLimit(input.concurrency, 4));
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
    l.record(await window.next());
    l.details();
    if (!rotate && cursor < run.tables.length && workflowInfo().continueAsNewSuggested) rotate = patched(SYNC_CONTINUE_AS_NEW_PATCH);
    if (rotate && window.size === 0) await continueAsNew<typeof syncWorkflow>({ ...input, carried: l.carry(run.tables.slice(cursor)) });
  }
}

/**
 * Batches of `batch` tables per syncTables activity, ceil(concurrency / batch) at once; a table a
 * batch hands back with `retry` (a transient failure) is synced again alone by syncTable, under
 * Temporal's retry policy. The run continues as new after `tablesPerRun` tables, its window and
 * retries drained first.
 */
async function batchedLoop(l: Loop): Promise<void> {
  const { input, run, long } = l;
  const batch = Math.max(1, Math.min(input.batch ?? DEFAULT_SYNC_BATCH, 50));
  const window = new SlidingWindow<BatchSyncOutcome[]>(Math.ceil(windowLimit(input.concurrency, 4) / batch));
  const perRun = Math.max(1, input.tablesPerRun ?? DEFAULT_TABLES_PER_RUN);
  const retries: string[] = [];
  let rotate = false;
  let cursor = 0;
  while (cursor < run.tables.length || retries.length > 0 || window.size > 0) {
    while (!window.full && (retries.length > 0 || (cursor < run.tables.length && !rotate))) {
      const again = retries.shift();
      if (again !== undefined) {
        window.add(
          `retry:${again}`,
          long.syncTable(input.planHash, again).then((o) => [o]),
          (e) => [{ table: again, ok: false, error: failureOf(e) }],
        );
      } else if (cursor >= perRun) rotate = true;
      else {
        // A batch never takes a run past its budget of tables.
        const tables = run.tables.slice(cursor, cursor + Math.min(batch, perRun - cursor));
        cursor += tables.length;
        window.add(`batch:${tables[0] as string}`, long.syncTables(input.planHash, tables), (e) =>
          tables.map((table) => ({ table, ok: false, error: failureOf(e) })),
        );
      }
    }
    // Empty only when the run's budget is spent with nothing left running: straight to continue-as-new.
    if (window.size > 0) {
      for (const o of await window.next()) {
        if (o.retry === true) retries.push(o.table);
        else l.record(o.ok ? { table: o.table, ok: true, result: o.result } : { table: o.table, ok: false, error: o.error });
      }
      l.details();
    }
    if (!rotate && cursor < run.tables.length && workflowInfo().continueAsNewSuggested) rotate = true;
    if (rotate && window.size === 0 && retries.length === 0)
      await continueAsNew<typeof syncWorkflow>({ ...input, carried: l.carry(run.tables.slice(cursor)) });
  }
}
