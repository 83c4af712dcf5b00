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

export async function syncWorkflow(input: SyncInput): Promise<SyncRunResult> {
  const { short, long } = activities(input.timeouts);
  const scope = await short.validationScope(input.planHash, input.waves ?? [], input.tables ?? []);
  const done: TableSyncOutcome[] = unknownOf(input, scope.tables);
  const total = scope.tables.length + done.length;
  // Date.now() is the workflow's clock here (deterministic: the task's start time).
  const perTable: SyncTableProgress[] = done.map((o) => progressOf(o, new Date(Date.now()).toISOString()));
  setHandler(syncStatusQuery, () => statusOf(total, done, perTable));
  const waves = input.waves ?? [];
  upsertSearchAttributes([
    { key: SA.plan, value: planId(input.planHash) },
    ...(waves.length === 1 ? [{ key: SA.wave, value: waves[0] as number }] : []),
    { key: SA.team, value: scope.teams },
    { key: SA.status, value: 'syncing' },
  ]);
  const window = new SlidingWindow<TableSyncOutcome>(windowLimit(input.concurrency, 4));
  const details = (): void => {
    const s = statusOf(total, done, perTable);
    setCurrentDetails(
      `Syncing plan \`${planId(input.planHash)}\`: ${done.length}/${total} tables · ${s.committed} snapshot(s) committed (+${s.filesAdded} file(s), −${s.filesRemoved}, ${s.partitionsChanged} partition(s)) · ${s.inSync} in sync · ${s.refused} refused${s.lastSyncAt !== null ? ` · last table synced ${s.lastSyncAt}` : ''}`,
    );
  };
  details();
  for (let cursor = 0; cursor < scope.tables.length || window.size > 0; ) {
    while (cursor < scope.tables.length && !window.full) {
      const tableId = scope.tables[cursor++] as string;
      window.add(tableId, long.syncTable(input.planHash, tableId), (e) => ({ table: tableId, ok: false, error: failureOf(e) }));
    }
    const o = await window.next();
    done.push(o);
    perTable.push(progressOf(o, new Date(Date.now()).toISOString()));
    details();
  }
  const counts = countsOf(done);
  const status = counts.refused > 0 ? 'refused' : 'synced';
  upsertSearchAttributes([{ key: SA.status, value: status }]);
  return { planHash: input.planHash, plan: planId(input.planHash), status, counts, tables: done };
}
