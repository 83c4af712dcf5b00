// `migrate sync --direct`, in this process (no Temporal): the migrated tables of a plan whose Hive
// side kept changing get one new Iceberg snapshot each, metadata-only. The per-table work (source
// check, sync, audited record) is the engine port's syncMigratedTable (engine/sync-record.ts), shared with the worker's syncTable activity
// (the default path: app/sync/workflow.ts). A table that fails does not stop the others.
import type { IcebergCatalog } from '../../core/catalog/catalog';
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { HmsReader } from '../../core/hive/model';
import { planId } from '../../core/plan/ids';
import type { PlanFile } from '../../core/plan/plan-file';
import type { StateStore, TableRecord } from '../../core/state/store';
import { mapOrdered } from '../../core/ordered-pool';
import type { ConversionEngine } from '../../core/engine-port/conversion-engine';
import type { TableSyncOutcome } from '../../core/engine-port/sync';
import { actorOf } from '../runtime/identity';
import { locationFenceOf } from '../runtime/assess-options';
import type { Stores } from '../runtime/runtime';
import { withMigratedTables } from '../runtime/plan-tables';
import { toolVersion } from '../runtime/runtime';

export interface SyncScope {
  /** Wave numbers; empty = every wave. */
  readonly waves: readonly number[];
  /** `db.table` ids; empty = every migrated table of the plan (in those waves). */
  readonly tables: readonly string[];
  /** Tables synced at once. */
  readonly concurrency: number;
  readonly footerConcurrency: number;
}

export type { TableSyncOutcome };

export interface SyncReport {
  readonly plan: string;
  readonly tables: readonly TableSyncOutcome[];
}

interface Ctx {
  readonly config: MigrateConfig;
  readonly engine: ConversionEngine;
  readonly state: StateStore;
  readonly hms: HmsReader;
  readonly stores: Stores;
  readonly catalog: IcebergCatalog;
  readonly plan: PlanFile;
  readonly scope: SyncScope;
}

/** The records in scope; none, or a named table that is not one of them, is a USAGE error (both paths check this first). */
export function inScope(records: readonly TableRecord[], planHash: string, scope: Pick<SyncScope, 'waves' | 'tables'>): TableRecord[] {
  const kept = records.filter(
    (t) =>
      t.status === 'migrated' &&
      (scope.waves.length === 0 || scope.waves.includes(t.wave)) &&
      (scope.tables.length === 0 || scope.tables.includes(t.tableId)),
  );
  const cut = records.filter((t) => (t.status === 'fenced' || t.status === 'cutover') && scope.tables.includes(t.tableId));
  if (cut.length > 0)
    throw new MigrationError(
      ErrorCode.SYNC_CUT_OVER,
      `${cut.map((t) => `${t.tableId} (${t.status})`).join(', ')}: cut over by migrate cutover; Iceberg is the source now, there is nothing to sync`,
      { plan: planId(planHash), tables: cut.map((t) => t.tableId) },
    );
  const unknown = scope.tables.filter((t) => !kept.some((r) => r.tableId === t));
  if (unknown.length > 0)
    throw new MigrationError(ErrorCode.USAGE, `no migrated table of plan ${planId(planHash)} named ${unknown.join(', ')}`, {
      plan: planId(planHash),
      tables: unknown,
    });
  return kept;
}

/** Sync every migrated table of `plan` in scope, in this process (`migrate sync --direct`). */
export async function syncNow(config: MigrateConfig, plan: string, scope: SyncScope, engine: ConversionEngine): Promise<SyncReport> {
  const any = (): boolean => true;
  return withMigratedTables(config, plan, any, async ({ state, hms, stores, catalog, planHash, plan: p, records }) => {
    const kept = inScope(records, planHash, scope);
    if (kept.length === 0) throw new MigrationError(ErrorCode.USAGE, `no migrated table of plan ${planId(planHash)} matches the scope`);
    const ctx: Ctx = { config, engine, state, hms, stores, catalog, plan: p, scope };
    const tables: TableSyncOutcome[] = [];
    for await (const o of mapOrdered(kept, scope.concurrency, (rec) => syncOne(ctx, rec))) tables.push(o);
    return { plan: planId(planHash), tables };
  });
}

/** A retryable failure (connection, timeout) of one table is reported too: the others go on. */
async function syncOne(ctx: Ctx, rec: TableRecord): Promise<TableSyncOutcome> {
  try {
    return await syncRecord(ctx, rec);
  } catch (e) {
    if (!(e instanceof MigrationError)) throw e;
    return { table: rec.tableId, ok: false, error: { code: e.code, message: e.message } };
  }
}

function syncRecord(ctx: Ctx, rec: TableRecord): Promise<TableSyncOutcome> {
  const deps = {
    state: ctx.state,
    hms: ctx.hms,
    catalog: ctx.catalog,
    storeFor: ctx.stores.storeFor,
    namespacePrefix: ctx.config.catalog?.namespacePrefix ?? '',
    toolVersion: toolVersion(),
    actor: actorOf(),
    footerConcurrency: ctx.scope.footerConcurrency,
    readersRequired: ctx.config.readers?.required,
    locationFence: locationFenceOf(ctx.config),
  };
  return ctx.engine.syncMigratedTable(deps, ctx.plan, rec);
}
