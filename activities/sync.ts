// The sync workflow's one step: a migrated table catches up with its Hive side (one metadata-only
// snapshot, audited) through ActivityDeps.engine.syncMigratedTable — the same per-table code as
// `migrate sync --direct` (engine/sync-record.ts). A refusal (SYNC_FOREIGN_COMMITS, SOURCE_CHANGED,
// …) comes back as an outcome; a retryable error throws so Temporal retries the step, which finds
// its own create-only files and the catalog's already-committed answer (one snapshot per change).
import { Context } from '@temporalio/activity';
import { MigrationError } from '../core/errors';
import type { TableSyncOutcome } from '../core/engine-port/sync';
import type { SyncOutcomeRow } from '../core/state/store';
import type { Ctx } from '../ops/context';
import { heartbeatWith, stepKey } from './runtime';

export type { SyncOutcomeRow, TableSyncOutcome };

/**
 * One table of a batch as the sync workflow gets it back: its outcome, or — `retry` — a transient
 * failure the workflow hands to a single-table syncTable activity (Temporal's retry policy then
 * applies to that table alone).
 */
export type BatchSyncOutcome = TableSyncOutcome & { readonly retry?: boolean };

/** The activity's Temporal context, or undefined outside a worker (unit tests). */
function activityCtx(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

export function syncActivities(c: Ctx) {
  const { deps } = c;
  const one = async (planHash: string, tableId: string): Promise<TableSyncOutcome> => {
    const rec = await deps.state.getTable(planHash, tableId);
    if (rec.status === 'fenced' || rec.status === 'cutover')
      return {
        table: tableId,
        ok: false,
        error: {
          code: 'SYNC_CUT_OVER',
          message: `${tableId} is ${rec.status === 'cutover' ? 'cut over' : 'being cut over (fenced)'}: Iceberg is its source now; nothing to sync`,
        },
      };
    if (rec.status !== 'migrated')
      return { table: tableId, ok: false, error: { code: 'USAGE', message: `${tableId} is ${rec.status}, not migrated` } };
    const sync = {
      ...deps,
      actor: { actor: deps.actor },
      stepKey,
      footerConcurrency: deps.write?.footerConcurrency,
      readersRequired: deps.write?.readersRequired,
      locationFence: deps.assessOptions?.locationFence,
      failpoint: (name: string) => c.failpoint(name, tableId),
    };
    return deps.engine.syncMigratedTable(sync, await c.plan(planHash), rec);
  };
  return {
    /**
     * Page finished outcomes out of the sync workflow into the state store, keyed by (workflow id,
     * table): the workflow carries only counts (workflows/sync.ts, patch `sync-paged-outcomes`), and
     * a retried attempt writes the same rows.
     */
    async recordSyncOutcomes(workflowId: string, planHash: string, rows: readonly SyncOutcomeRow[]): Promise<void> {
      await deps.state.putSyncOutcomes(workflowId, planHash, rows);
    },

    /** Sync one migrated table of the plan; heartbeats (activities/index.ts) while footers are read. */
    syncTable: one,

    /**
     * Sync a batch of migrated tables at once (the sync workflow's unit since the
     * `sync-batched-tables` patch: one activity per few tables costs Temporal a fraction of one per
     * table). Each finished table's outcome goes into the heartbeat details, so a retry after a
     * killed worker skips the tables already done and reports them as they were. A table whose sync
     * fails transiently comes back with `retry` (the workflow retries it alone); any other failure
     * is its outcome, as with syncTable.
     */
    async syncTables(planHash: string, tableIds: readonly string[]): Promise<BatchSyncOutcome[]> {
      const ctx = activityCtx();
      const prior = (ctx?.info.heartbeatDetails as BatchSyncOutcome[] | undefined) ?? [];
      const done = new Map<string, BatchSyncOutcome>(
        prior.filter((o) => tableIds.includes(o.table) && o.retry !== true).map((o) => [o.table, o]),
      );
      return Promise.all(
        tableIds.map(async (tableId): Promise<BatchSyncOutcome> => {
          const known = done.get(tableId);
          if (known !== undefined) return known;
          let o: BatchSyncOutcome;
          try {
            o = await one(planHash, tableId);
          } catch (e) {
            if (e instanceof MigrationError && !e.retryable) o = { table: tableId, ok: false, error: { code: e.code, message: e.message } };
            else {
              const code = e instanceof MigrationError ? e.code : 'INTERNAL';
              return { table: tableId, ok: false, error: { code, message: (e as Error).message }, retry: true };
            }
          }
          done.set(tableId, o);
          if (ctx !== undefined) heartbeatWith(ctx, [...done.values()]);
          return o;
        }),
      );
    },
  };
}
