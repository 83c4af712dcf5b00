// `migrate status`'s tables: where each table of a plan stands (migrated / syncing / cut over / …),
// its last sync (the mark engine/sync-record.ts leaves on the record) and, with `--lag`, the live
// check: Hive's partitions now (read in batches per database) against the last synced state, files
// counted by listing only the new partitions — never exact, since a file added to an existing
// partition does not show in HMS; with --list-storage every location is listed and compared with the
// table's current snapshot (engine/storage-lag.ts): exact. Without --lag it is one light state-store
// query (no HMS, no storage, no catalog): fast for thousands of tables.
import { listPartition } from '../../adapters/storage/list-partition';
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { TableInventory } from '../../core/hive/model';
import { dbOf, nameOf } from '../../core/convert/plan-conversion';
import { planId, tableWorkflowId } from '../../core/plan/ids';
import type { SincePlan } from '../../core/plan/partition-set';
import type { StateStore, TableSummary } from '../../core/state/store';
import type { ObjectStore } from '../../core/storage/object-store';
import type { StorageLag, TableLag, TableStatusRow, WaveTableCounts } from '../../core/sync/lag';
import { newPartitions, partitionLag, tablePhase, waveCounts } from '../../core/sync/lag';
import { mapOrdered } from '../../core/ordered-pool';
import { openCatalog, openHmsReader, openState, openStores, toolVersion } from '../runtime/runtime';
import type { ConversionEngine } from '../../core/engine-port/conversion-engine';
import type { IcebergCatalog } from '../../core/catalog/catalog';
import type { PlanFile } from '../../core/plan/plan-file';

export type { TableStatusRow, WaveTableCounts };

export interface TablesStatus {
  readonly rows: readonly TableStatusRow[];
  readonly counts: readonly WaveTableCounts[];
  /** With `table`: what its validation recorded against the plan (partitions added since the plan). */
  readonly sincePlan?: SincePlan | null;
}

export interface TablesStatusOptions {
  /** Run the live lag check (HMS partitions now, and a listing of the new ones). */
  readonly lag: boolean;
  /** With `lag`: list every location and compare with the current snapshot (exact). */
  readonly listStorage?: boolean;
  /** Only this `db.table` (with its validation's `sincePlan`). */
  readonly table?: string;
  /** Tables checked at once with --lag. */
  readonly concurrency?: number;
  readonly now?: () => Date;
}

/** HMS getTables names per call in the lag check. */
const HMS_BATCH = 100;

const rowOf = (s: TableSummary): TableStatusRow => ({
  table: s.tableId,
  wave: s.wave,
  status: s.status,
  phase: tablePhase(s.status, s.sync),
  snapshotId: s.snapshotId,
  lastSync: s.sync ?? null,
  target: s.target ?? null,
  metadataLocation: s.metadataLocation ?? null,
  ...(s.updatedAt !== undefined ? { updatedAt: s.updatedAt } : {}),
  workflowId: tableWorkflowId(s.planHash, s.wave, s.tableId),
  ...(s.errorCode !== null ? { error: { code: s.errorCode, message: s.errorMessage ?? '' } } : {}),
});

export async function tablesStatus(
  config: MigrateConfig,
  plan: string,
  o: TablesStatusOptions,
  /** Made only for --lag (the engine loads the Avro and Parquet readers; a plain status does not need them). */
  engine: () => Promise<ConversionEngine>,
): Promise<TablesStatus> {
  const state = await openState(config);
  try {
    const planHash = await state.resolvePlan(plan);
    let rows = (await state.listTableSummaries(planHash)).map(rowOf);
    if (o.table !== undefined) {
      rows = rows.filter((r) => r.table === o.table);
      if (rows.length === 0) throw new MigrationError(ErrorCode.USAGE, `${o.table} is not a table of plan ${planId(planHash)}`);
    }
    if (o.lag) rows = await withLag(config, state, planHash, rows, o, await engine());
    const sincePlan = o.table === undefined ? undefined : sinceOf((await state.getTable(planHash, o.table)).validation);
    return { rows, counts: waveCounts(rows), ...(sincePlan !== undefined ? { sincePlan } : {}) };
  } finally {
    await state.close();
  }
}

const sinceOf = (v: unknown): SincePlan | null => (v as { sincePlan?: SincePlan } | null)?.sincePlan ?? null;

/** The live check for the migrated/syncing rows; other rows as they are. */
async function withLag(
  config: MigrateConfig,
  state: StateStore,
  planHash: string,
  rows: TableStatusRow[],
  o: TablesStatusOptions,
  engine: ConversionEngine,
): Promise<TableStatusRow[]> {
  const live = rows.filter((r) => r.phase === 'migrated' || r.phase === 'syncing');
  if (live.length === 0) return rows;
  const synced = new Map<string, TableInventory | null>();
  if (o.table !== undefined) synced.set(o.table, (await state.getTable(planHash, o.table)).original);
  else for (const r of await state.listTables(planHash)) if (live.some((x) => x.table === r.tableId)) synced.set(r.tableId, r.original);
  const hms = openHmsReader(config);
  const stores = openStores(config);
  let catalog: IcebergCatalog | undefined;
  try {
    const now = await hiveNow(
      hms,
      live.map((r) => r.table),
    );
    const store = stores.storeFor([]);
    const at = o.now?.() ?? new Date();
    let listing: Listing | null = null;
    if (o.listStorage === true) {
      catalog = await openCatalog(config, process.env, stores);
      const deps = { store, catalog, namespacePrefix: config.catalog?.namespacePrefix ?? '', toolVersion: toolVersion() };
      listing = { plan: await state.getPlan(planHash), run: (p, t, l) => engine.storageLag(deps, p, t, l) };
    }
    const lags = new Map<string, Pick<TableStatusRow, 'lag' | 'lagError'>>();
    for await (const [table, l] of mapOrdered(live, o.concurrency ?? 8, async (r) => {
      const res = await lagOf(store, r.table, synced.get(r.table) ?? null, now.get(r.table), at, listing).catch(failed);
      return [r.table, res] as const;
    }))
      lags.set(table, l);
    return rows.map((r) => ({ ...r, ...lags.get(r.table) }));
  } finally {
    await catalog?.close?.();
    await hms.close();
    stores.close();
  }
}

/** `--list-storage`: the plan and the engine's storage listing of one table. */
interface Listing {
  readonly plan: PlanFile;
  readonly run: (plan: PlanFile, tableId: string, live: TableInventory) => Promise<StorageLag>;
}

const failed = (e: unknown): Pick<TableStatusRow, 'lag' | 'lagError'> => {
  if (!(e instanceof MigrationError)) throw e;
  return { lag: null, lagError: { code: e.code, message: e.message } };
};

/** Hive's tables now, read `HMS_BATCH` names per call per database. */
async function hiveNow(hms: ReturnType<typeof openHmsReader>, tables: readonly string[]): Promise<Map<string, TableInventory>> {
  const byDb = new Map<string, string[]>();
  for (const t of tables) byDb.set(dbOf(t), [...(byDb.get(dbOf(t)) ?? []), nameOf(t)]);
  const out = new Map<string, TableInventory>();
  for (const [db, names] of byDb)
    for (let i = 0; i < names.length; i += HMS_BATCH)
      for (const inv of await hms.getTables(db, names.slice(i, i + HMS_BATCH))) out.set(`${db}.${inv.table.name}`, inv);
  return out;
}

async function lagOf(
  store: ObjectStore,
  tableId: string,
  synced: TableInventory | null,
  live: TableInventory | undefined,
  at: Date,
  listing: Listing | null,
): Promise<Pick<TableStatusRow, 'lag' | 'lagError'>> {
  if (live === undefined) return { lag: null, lagError: { code: ErrorCode.HMS_NOT_FOUND, message: 'not in HMS any more' } };
  if (synced === null) return { lag: null, lagError: { code: ErrorCode.USAGE, message: 'the record holds no synced state' } };
  // Listed as apply lists a partition (Hive's hidden files skipped).
  let files = 0;
  for (const p of newPartitions(synced, live))
    if (p.sd.location !== null) files += (await listPartition(store, p.sd.location)).files.length;
  const storage = listing === null ? null : await listing.run(listing.plan, tableId, live);
  const lag: TableLag = partitionLag(synced, live, files, at, storage);
  return { lag };
}
