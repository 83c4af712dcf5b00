// The sync workflow's one step: a migrated table catches up with its Hive side (one metadata-only
// snapshot, audited) through ActivityDeps.engine.syncMigratedTable — the same per-table code as
// `migrate sync --direct` (engine/sync-record.ts). A refusal (SYNC_FOREIGN_COMMITS, SOURCE_CHANGED,
// …) comes back as an outcome; a retryable error throws so Temporal retries the step, which finds
// its own create-only files and the catalog's already-committed answer (one snapshot per change).
import type { TableSyncOutcome } from '../engine/sync-record';
import type { Ctx } from './context';

export type { TableSyncOutcome };

export function syncActivities(c: Ctx) {
  const { deps } = c;
  return {
    /** Sync one migrated table of the plan; heartbeats (activities/index.ts) while footers are read. */
    async syncTable(planHash: string, tableId: string): Promise<TableSyncOutcome> {
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
        footerConcurrency: deps.write?.footerConcurrency,
        failpoint: (name: string) => c.failpoint(name, tableId),
      };
      return deps.engine.syncMigratedTable(sync, await c.plan(planHash), rec);
    },
  };
}
