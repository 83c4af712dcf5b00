// A plan's migrated tables catch up with their Hive side: syncTables activities over batches of
// tables in a sliding window (window.ts), each table a metadata-only snapshot or a refusal; the
// per-table outcomes go to the state store (recordSyncOutcomes, sync-book.ts) and the counts are
// returned with the workflow id they are stored under; the search attributes / current details
// let the Temporal UI show it. Started by `migrate sync` (id `sync/<plan id>/<stamp>`) or by the
// plan's sync schedule. The history stays bounded: after `tablesPerRun` tables (or when Temporal
// suggests it) a run lets its window drain and continues as new with the tables still to sync and
// the counts so far. Histories from before patch `sync-paged-outcomes` keep every outcome in the
// workflow (returned and carried).
import {
  continueAsNew,
  defineQuery,
  patched,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { BatchSyncOutcome, SyncOutcomeRow, TableSyncOutcome } from '../activities/index';
import type { PlanTablesInput } from './common';
import { activities, failureOf, planId, SA } from './common';
import type { SyncBook, SyncCounts, SyncOutcomesRef, SyncStatus, SyncTableProgress, SyncTally } from './sync-book';
import { EMPTY_TALLY, FullBook, PagedBook, progressOf, SYNC_PAGED_PATCH } from './sync-book';
import { SlidingWindow, windowLimit } from './window';

/** What a run hands the next one when it continues as new. */
export interface SyncCarry {
  /** The tables still to sync, in order. */
  readonly remaining: readonly string[];
  /** Every outcome so far (the last run returns them all): carries from before patch `sync-paged-outcomes` only. */
  readonly done?: readonly TableSyncOutcome[];
  /** When each outcome in `done` came back (workflow time, ISO-8601; the syncStatus query's per-table `at`). Absent in carries from before it: those show the continued run's start. */
  readonly doneAt?: readonly string[];
  /** Paged: the counts so far (the outcomes are in the state store) and the newest finished tables for the syncStatus query. */
  readonly tally?: SyncTally;
  readonly recent?: readonly SyncTableProgress[];
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

export interface SyncRunResult {
  readonly planHash: string;
  /** The plan id (what `migrate sync --direct` reports as `plan`). */
  readonly plan: string;
  readonly status: 'synced' | 'refused';
  readonly counts: SyncCounts;
  /** Every table's outcome: only in results of workflows from before patch `sync-paged-outcomes`. */
  readonly tables?: readonly TableSyncOutcome[];
  /** Paged: where every table's outcome is (the state store, by this workflow id; app/sync/workflow.ts reads them). */
  readonly outcomes?: SyncOutcomesRef;
  /** Paged: refusals by error code and finished tables by sync status. */
  readonly codes?: Readonly<Record<string, number>>;
  readonly statuses?: Readonly<Record<string, number>>;
}

export const syncStatusQuery = defineQuery<SyncStatus>('syncStatus');

/** Named tables that are not migrated tables of the plan (in the scope asked for): refused, not silently skipped. */
const unknownOf = (input: SyncInput, scope: readonly string[], once: boolean): TableSyncOutcome[] =>
  (once ? [...new Set(input.tables ?? [])] : (input.tables ?? []))
    .filter((t) => !scope.includes(t))
    .map((table) => ({
      table,
      ok: false,
      error: { code: 'USAGE', message: `${table} is not a migrated table of plan ${planId(input.planHash)} in this scope` },
    }));

/** The tables this run syncs and the outcomes it starts from (a first run asks for the scope; a continued run is handed it). */
async function startOf(input: SyncInput, short: ReturnType<typeof activities>['short'], paged: boolean) {
  const c = input.carried;
  if (c !== undefined)
    return { tables: c.remaining, teams: c.teams, done: [...(c.done ?? [])], doneAt: c.doneAt, total: c.total, runs: c.runs };
  const scope = await short.validationScope(input.planHash, input.waves ?? [], input.tables ?? []);
  // A named table given twice is one outcome when they are keyed by table (paged).
  const done = unknownOf(input, scope.tables, paged);
  return { tables: scope.tables, teams: scope.teams, done, doneAt: undefined, total: scope.tables.length + done.length, runs: 0 };
}

type Run = Awaited<ReturnType<typeof startOf>>;

/**
 * The run's book of finished tables. Paged: a carry from a run on older code (every outcome in
 * `done`) is folded in — its outcomes written to the state store in finish order, then counted.
 */
async function bookOf(input: SyncInput, run: Run, paged: boolean, short: ReturnType<typeof activities>['short']): Promise<SyncBook> {
  // Date.now() is the workflow's clock here (deterministic: the task's start time).
  const now = new Date(Date.now()).toISOString();
  const at = (i: number): string => run.doneAt?.[i] ?? now;
  if (!paged)
    return new FullBook(
      run.total,
      [...run.done],
      run.done.map((o, i) => progressOf(o, at(i))),
    );
  const workflowId = workflowInfo().workflowId;
  const c = input.carried;
  const write = (rows: readonly SyncOutcomeRow[]) => short.recordSyncOutcomes(workflowId, input.planHash, rows);
  const book = new PagedBook(run.total, workflowId, c?.tally ?? EMPTY_TALLY, [...(c?.recent ?? [])], write);
  run.done.forEach((o, i) => book.record(o, at(i)));
  await book.flush(true);
  return book;
}

export async function syncWorkflow(input: SyncInput): Promise<SyncRunResult> {
  const { short, long } = activities(input.timeouts);
  // Checked once, first: histories from before the patch keep every outcome in the workflow.
  const paged = patched(SYNC_PAGED_PATCH);
  const run = await startOf(input, short, paged);
  const book = await bookOf(input, run, paged, short);
  setHandler(syncStatusQuery, () => book.status());
  const waves = input.waves ?? [];
  upsertSearchAttributes([
    { key: SA.plan, value: planId(input.planHash) },
    ...(waves.length === 1 ? [{ key: SA.wave, value: waves[0] as number }] : []),
    { key: SA.team, value: [...run.teams] },
    { key: SA.status, value: 'syncing' },
  ]);
  const details = (): void => {
    const s = book.status();
    const runs = run.runs > 0 ? ` · run ${run.runs + 1}` : '';
    setCurrentDetails(
      `Syncing plan \`${planId(input.planHash)}\`: ${s.done}/${s.tables} tables · ${s.committed} snapshot(s) committed (+${s.filesAdded} file(s), −${s.filesRemoved}, ${s.partitionsChanged} partition(s)) · ${s.inSync} in sync · ${s.refused} refused${s.lastSyncAt !== null ? ` · last table synced ${s.lastSyncAt}` : ''}${runs}`,
    );
  };
  details();
  const loop: Loop = { input, run, long, book, details, carry: (remaining) => carryOf(run, remaining, book) };
  // Checked once, first: histories from before the patch replay their one-activity-per-table loop unchanged.
  if (patched(SYNC_BATCH_PATCH)) await batchedLoop(loop);
  else await perTableLoop(loop);
  if (book.paged) await book.flush(true);
  const counts = book.counts();
  const status = counts.refused > 0 ? 'refused' : 'synced';
  upsertSearchAttributes([{ key: SA.status, value: status }]);
  const head = { planHash: input.planHash, plan: planId(input.planHash), status, counts } as const;
  return book.paged ? { ...head, outcomes: book.outcomes, ...book.summary() } : { ...head, tables: book.done };
}

interface Loop {
  readonly input: SyncInput;
  readonly run: Run;
  readonly long: ReturnType<typeof activities>['long'];
  /** The run's finished tables. */
  readonly book: SyncBook;
  readonly details: () => void;
  readonly carry: (remaining: readonly string[]) => SyncCarry;
}

function carryOf(run: Run, remaining: readonly string[], book: SyncBook): SyncCarry {
  return { remaining, ...book.carry(), teams: run.teams, total: run.total, runs: run.runs + 1 };
}

/** One table's outcome into the run's book, at the workflow's time. */
const record = (l: Loop, o: TableSyncOutcome): void => l.book.record(o, new Date(Date.now()).toISOString());

/** Paged: the outcomes written once a page is full (`force`: all of them, before continue-as-new). */
async function flush(l: Loop, force: boolean): Promise<void> {
  if (l.book.paged) await l.book.flush(force);
}

/** Continue as new with the tables not started yet (paged: every outcome written first). */
async function rotateRun(l: Loop, remaining: readonly string[]): Promise<never> {
  await flush(l, true);
  return continueAsNew<typeof syncWorkflow>({ ...l.input, carried: l.carry(remaining) });
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
    record(l, await window.next());
    l.details();
    await flush(l, false);
    if (!rotate && cursor < run.tables.length && workflowInfo().continueAsNewSuggested) rotate = patched(SYNC_CONTINUE_AS_NEW_PATCH);
    if (rotate && window.size === 0) await rotateRun(l, run.tables.slice(cursor));
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
        else record(l, o.ok ? { table: o.table, ok: true, result: o.result } : { table: o.table, ok: false, error: o.error });
      }
      l.details();
      await flush(l, false);
    }
    if (!rotate && cursor < run.tables.length && workflowInfo().continueAsNewSuggested) rotate = true;
    if (rotate && window.size === 0 && retries.length === 0) await rotateRun(l, run.tables.slice(cursor));
  }
}
