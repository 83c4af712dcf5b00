// `migrate sync`, in this process (not yet through Temporal): the migrated tables of a plan whose
// Hive side kept changing get one new Iceberg snapshot each, metadata-only (engine/sync-table.ts).
// Per table: HMS read live → the plan's conversion pin must still hold (core/plan/source-check.ts:
// SOURCE_CHANGED naming the change; schema additions are out of scope) → register-mode only (an
// in-place table's Hive name is the Iceberg table) → sync → on a commit, the record's metadata
// location and snapshot move on and a `table.synced` audit event is written in the same
// transaction (StateStore.recordStep). A table that fails does not stop the others.
import type { IcebergCatalog } from '../core/catalog/catalog';
import { formatTableIdent } from '../core/catalog/catalog';
import { AuditAction, digestOf } from '../core/audit/chain';
import type { MigrateConfig } from '../core/config/schema';
import { conversionFor, dbOf, nameOf, targetOf } from '../core/convert/plan-conversion';
import { ErrorCode, MigrationError } from '../core/errors';
import { tableFingerprint } from '../core/hive/fingerprint';
import type { HmsReader, TableInventory } from '../core/hive/model';
import { planId } from '../core/plan/ids';
import type { PlanFile } from '../core/plan/plan-file';
import { sourceChange } from '../core/plan/source-check';
import type { StateStore, TableRecord } from '../core/state/store';
import { mapOrdered } from '../engine/ordered-pool';
import type { SyncResult } from '../engine/sync-table';
import { syncTable } from '../engine/sync-table';
import { actorOf } from './identity';
import type { Stores } from './runtime';
import { withMigratedTables } from './plan-tables';
import { toolVersion } from './runtime';

export interface SyncScope {
  /** `db.table` ids; empty = every migrated table of the plan. */
  readonly tables: readonly string[];
  /** Tables synced at once. */
  readonly concurrency: number;
  readonly footerConcurrency: number;
}

export type TableSyncOutcome =
  | { readonly table: string; readonly ok: true; readonly result: SyncResult }
  | { readonly table: string; readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

export interface SyncReport {
  readonly plan: string;
  readonly tables: readonly TableSyncOutcome[];
}

interface Ctx {
  readonly config: MigrateConfig;
  readonly state: StateStore;
  readonly hms: HmsReader;
  readonly stores: Stores;
  readonly catalog: IcebergCatalog;
  readonly plan: PlanFile;
  readonly scope: SyncScope;
}

/** Sync every migrated table of `plan` in scope; none in scope, or a named table that is not migrated, is a USAGE error. */
export async function syncNow(config: MigrateConfig, plan: string, scope: SyncScope): Promise<SyncReport> {
  const inScope = (t: TableRecord): boolean => scope.tables.length === 0 || scope.tables.includes(t.tableId);
  return withMigratedTables(config, plan, inScope, async ({ state, hms, stores, catalog, planHash, plan: p, records }) => {
    const unknown = scope.tables.filter((t) => !records.some((r) => r.tableId === t));
    if (unknown.length > 0)
      throw new MigrationError(ErrorCode.USAGE, `no migrated table of plan ${planId(planHash)} named ${unknown.join(', ')}`, {
        plan: planId(planHash),
        tables: unknown,
      });
    const ctx: Ctx = { config, state, hms, stores, catalog, plan: p, scope };
    const tables: TableSyncOutcome[] = [];
    for await (const o of mapOrdered(records, scope.concurrency, (rec) => syncOne(ctx, rec))) tables.push(o);
    return { plan: planId(planHash), tables };
  });
}

async function syncOne(ctx: Ctx, rec: TableRecord): Promise<TableSyncOutcome> {
  try {
    return { table: rec.tableId, ok: true, result: await syncRecord(ctx, rec) };
  } catch (e) {
    if (!(e instanceof MigrationError)) throw e;
    return { table: rec.tableId, ok: false, error: { code: e.code, message: e.message } };
  }
}

async function syncRecord(ctx: Ctx, rec: TableRecord): Promise<SyncResult> {
  const [live] = await ctx.hms.getTables(dbOf(rec.tableId), [nameOf(rec.tableId)]);
  if (live === undefined)
    throw new MigrationError(ErrorCode.HMS_NOT_FOUND, `${rec.tableId} is not in HMS any more`, { table: rec.tableId });
  const entry = ctx.plan.waves.flatMap((w) => w.tables).find((t) => t.id === rec.tableId);
  if (entry === undefined) throw new MigrationError(ErrorCode.PLAN_UNKNOWN_TABLE, `${rec.tableId} is not in the plan`);
  const changed = sourceChange(rec.tableId, { fingerprint: entry.fingerprint, pin: entry.pin }, live);
  if (changed !== null) throw changed;
  if (ctx.catalog.hiveOriginalPlace(nameOf(rec.tableId), live.table).kind !== 'untouched')
    throw new MigrationError(
      ErrorCode.USAGE,
      `${rec.tableId} was converted in place: its Hive name is the Iceberg table, so no Hive writer can change it; there is nothing to sync`,
      { table: rec.tableId },
    );
  const prefix = ctx.config.catalog?.namespacePrefix ?? '';
  const prepared = conversionFor(ctx.plan, rec.tableId, live, prefix, toolVersion());
  const ident = targetOf(rec.tableId, prefix);
  const store = ctx.stores.storeFor([prepared.metadataDir]);
  const result = await syncTable(
    store,
    ctx.catalog,
    { prepared, ident },
    { now: Date.now, footerConcurrency: ctx.scope.footerConcurrency },
  );
  if (result.commit !== null) await recordSync(ctx, rec, live, result, `${ctx.catalog.name}:${formatTableIdent(ident)}`);
  return result;
}

/**
 * The record follows the table — metadata location, snapshot, our files, and the saved original:
 * the Hive table as synced (register mode never alters it, so rollback's "unchanged since saved"
 * check and the nightly HMS comparison are against what the Iceberg table now holds) — and the
 * commit is audited, in one transaction.
 */
async function recordSync(ctx: Ctx, rec: TableRecord, live: TableInventory, r: SyncResult, target: string): Promise<void> {
  const by = actorOf();
  const details = {
    target,
    snapshotId: r.snapshotId,
    parentSnapshotId: r.parentSnapshotId,
    operation: r.summary?.operation ?? null,
    commit: r.commit,
    filesAdded: r.filesAdded,
    filesRemoved: r.filesRemoved,
    recordsAdded: r.recordsAdded,
    recordsRemoved: r.recordsRemoved,
    metadataLocation: r.metadataLocation,
    validation: r.validation,
    hmsDigest: tableFingerprint(live),
  };
  await ctx.state.recordStep(
    rec.planHash,
    rec.tableId,
    {
      metadataLocation: r.metadataLocation,
      snapshotId: r.snapshotId,
      writtenFiles: [...(rec.writtenFiles ?? []), ...r.written],
      original: live,
      originalDigest: tableFingerprint(live),
    },
    {
      at: new Date().toISOString(),
      actor: by.actor,
      actorSource: by.actorSource,
      action: AuditAction.TABLE_SYNCED,
      object: `hms:${rec.tableId}`,
      planHash: rec.planHash,
      beforeDigest: rec.originalDigest,
      afterDigest: digestOf(details),
      details,
    },
  );
}
