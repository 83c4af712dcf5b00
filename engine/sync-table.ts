// A migrated table's catch-up sync, metadata-only: the current snapshot's data files (its
// manifests) against Hive's files now (every partition location listed, as apply lists them) →
// one new snapshot: an append with one new manifest of ADDED files (real footer stats, the table's
// schema and spec), or an overwrite/delete whose rewritten manifests mark exactly the removed files
// DELETED and keep the rest EXISTING (only manifests holding a removed file are rewritten; the
// others are carried over). Files go create-only under the table's metadata/ prefix with names
// from the snapshot id, which is a hash of the table, the parent and the change: a rerun after a
// crash finds its own files. Then the catalog commit (compare-and-swap on the base we read) and the
// check (validateSync): the listing = the new snapshot's files, the added files' footer rows = their
// entries, the live files' rows = total-records (a recovered commit and cutover's validateCurrent read
// every live file's footer). Data files are never touched. No change → no commit.
import type { CommitOutcome, IcebergCatalog, LoadedTable, TableIdent } from '../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../core/errors';
import type { PreparedConversion } from '../core/convert/prepare';
import type { ManifestFileEntry } from '../core/iceberg/manifest';
import { addedManifestEntry } from '../core/iceberg/manifest';
import type { Snapshot, TableMetadata } from '../core/iceberg/metadata';
import { fromMetadataJson, toMetadataJson } from '../core/iceberg/metadata-json';
import type { FooterReader } from '../core/storage/file-stats';
import type { ObjectStore } from '../core/storage/object-store';
import type { HiveFile, IcebergFile, SyncDiff } from '../core/sync/diff';
import type { SchemaAddition } from '../core/sync/schema';
import { schemaAddition, withSchemaAddition } from '../core/sync/schema';
import { buildNameMapping, nameMappingFromJson } from '../core/iceberg/name-mapping';
import { TableProperty } from '../core/iceberg/spec-constants';
import { diffFiles, isInSync, manifestsToRewrite, samePath, tupleKey } from '../core/sync/diff';
import type { SyncTotals } from '../core/sync/snapshot';
import {
  ourCurrentSnapshot,
  syncMetadataLocation,
  syncOperation,
  syncPaths,
  syncSnapshot,
  syncSnapshotId,
  syncSummary,
  withSyncSnapshot,
} from '../core/sync/snapshot';
import { readManifest, readManifestFiles } from '../adapters/avro/manifest-reader';
import { writeManifestList } from '../adapters/avro/manifest-list-writer';
import { rewriteManifest } from '../adapters/avro/manifest-rewrite';
import { writeManifests } from '../adapters/avro/manifest-writer';
import type { DataFileFormat } from '../core/convert/prepare';
import { mapOrdered } from './ordered-pool';
import { putOnce } from './put-once';
import type { WrittenFile } from './write-metadata';
import { dataFileOf, defaultFooters, listTableFiles, putOnceOutput } from './write-metadata';

export interface SyncOptions {
  readonly footerConcurrency?: number;
  readonly footers?: Partial<Record<DataFileFormat, FooterReader>>;
  /** The new snapshot's timestamp (epoch ms); raised above the table's last update when needed. */
  readonly now: () => number;
  /** Crash-test hook at every step boundary (`SYNC_FAILPOINTS`; activities/context.ts failpoint). */
  readonly failpoint?: (name: string) => void;
  /**
   * The snapshot the table's record knows. When the table is in sync on another snapshot of ours (a
   * killed run committed it and did not record it), that snapshot is validated like a fresh commit
   * before it is handed back for recording.
   */
  readonly recordedSnapshotId?: string | null;
}

/**
 * The step boundaries a crash test can kill a sync at, in order (engine/sync-record.ts adds the two
 * around the state record; the record and its audit event are one transaction).
 */
export const SYNC_FAILPOINTS = [
  'sync-after-manifests',
  'sync-after-manifest-list',
  'sync-after-metadata',
  'sync-before-commit',
  'sync-after-commit',
  'sync-before-record',
  'sync-after-record',
] as const;

export type SyncStatus = 'in-sync' | 'appended' | 'overwrote' | 'deleted';

export interface SyncResult {
  readonly status: SyncStatus;
  /** The table's current snapshot after the sync (the unchanged one when in sync). */
  readonly snapshotId: string | null;
  readonly parentSnapshotId: string | null;
  readonly metadataLocation: string;
  readonly commit: CommitOutcome | null;
  readonly filesAdded: number;
  readonly filesRemoved: number;
  readonly recordsAdded: number;
  readonly recordsRemoved: number;
  /** Distinct partitions of the added and removed files. */
  readonly partitionsAdded: number;
  readonly partitionsChanged: number;
  readonly summary: Readonly<Record<string, string>> | null;
  readonly written: readonly WrittenFile[];
  readonly validation: { readonly files: number; readonly records: number } | null;
  /** Columns Hive gained at the end that this sync's snapshot added to the schema (core/sync/schema.ts). */
  readonly columnsAdded: readonly string[];
}

interface Current {
  readonly cache: ManifestCache;
  readonly loaded: LoadedTable;
  readonly snapshot: Snapshot | null;
  readonly manifests: readonly ManifestFileEntry[];
  readonly files: readonly IcebergFile[];
}

const schemaOf = (m: TableMetadata) => m.schemas.find((s) => s.schemaId === m.currentSchemaId);
const specOf = (m: TableMetadata) => m.partitionSpecs.find((s) => s.specId === m.defaultSpecId);

function tableShape(p: PreparedConversion, m: TableMetadata) {
  const schema = schemaOf(m);
  const spec = specOf(m);
  if (schema === undefined || spec === undefined)
    throw new MigrationError(ErrorCode.ICEBERG_METADATA_INVALID, `${p.source}: the table metadata has no current schema or default spec`);
  return { schema, spec };
}

/**
 * The live files of each manifest a sync read, by manifest path: a manifest file is immutable, so
 * the validation after the commit reads only the manifests the commit wrote (the carried-over ones
 * come from here).
 */
type ManifestCache = Map<string, { readonly live: readonly IcebergFile[]; readonly added: readonly IcebergFile[] }>;

/** Manifests read at once. */
const MANIFEST_READS = 8;

/**
 * The live data files of `snapshot` (ADDED and EXISTING entries), with the manifest holding each,
 * and the files `snapshot` itself added (ADDED entries of the manifests it wrote).
 */
async function snapshotFiles(
  store: ObjectStore,
  p: PreparedConversion,
  m: TableMetadata,
  snapshot: Snapshot | null,
  cache?: ManifestCache,
) {
  if (snapshot === null) return { manifests: [] as ManifestFileEntry[], files: [] as IcebergFile[], added: [] as IcebergFile[] };
  const { schema, spec } = tableShape(p, m);
  const manifests = await readManifestFiles(store, snapshot.manifestList);
  const files: IcebergFile[] = [];
  const added: IcebergFile[] = [];
  const read = async (mf: ManifestFileEntry) => {
    const known = cache?.get(mf.path);
    if (known !== undefined) return known;
    const live: IcebergFile[] = [];
    const fresh: IcebergFile[] = [];
    for (const f of await readManifest(store, mf.path, schema, spec)) {
      if (f.status === 2) continue;
      const file = {
        path: f.filePath,
        size: f.fileSizeInBytes,
        records: f.recordCount,
        manifest: mf.path,
        partition: tupleKey(f.partition),
      };
      live.push(file);
      if (f.status === 1) fresh.push(file);
    }
    const entry = { live, added: fresh };
    cache?.set(mf.path, entry);
    return entry;
  };
  for await (const [mf, e] of mapOrdered(manifests, MANIFEST_READS, async (mf) => [mf, await read(mf)] as const)) {
    files.push(...e.live);
    if (mf.addedSnapshotId === snapshot.snapshotId) added.push(...e.added);
  }
  return { manifests, files, added };
}

async function readCurrent(store: ObjectStore, catalog: IcebergCatalog, ident: TableIdent, p: PreparedConversion): Promise<Current> {
  const loaded = await catalog.loadTable(ident);
  const snapshot = ourCurrentSnapshot(loaded.metadata, p.source);
  const cache: ManifestCache = new Map();
  return { cache, loaded, snapshot, ...(await snapshotFiles(store, p, loaded.metadata, snapshot, cache)) };
}

/** Hive's files now, every location listed (our metadata directory is not data). */
async function listHive(store: ObjectStore, p: PreparedConversion): Promise<HiveFile[]> {
  const out: HiveFile[] = [];
  for await (const l of listTableFiles(store, p, {})) for (const f of l.files) out.push({ path: f.path, size: f.size, location: l.index });
  return out;
}

/**
 * The conversion as the table's current schema numbers it: footers are read against the table's
 * field ids and name mapping (the live table's fresh conversion numbers a column added since apply
 * differently), unless both agree.
 */
function asTable(p: PreparedConversion, m: TableMetadata): PreparedConversion {
  const { schema } = tableShape(p, m);
  if (JSON.stringify(schema.fields) === JSON.stringify(p.schema.fields)) return p;
  const mapping = m.properties[TableProperty.NAME_MAPPING_DEFAULT];
  return { ...p, schema, baseNameMapping: mapping === undefined ? buildNameMapping(schema) : nameMappingFromJson(mapping) };
}

const partitionKey = (p: PreparedConversion, h: HiveFile): string => tupleKey(p.locations[h.location]?.partition ?? []);

/** One manifest of ADDED entries for the new files (footers read at bounded concurrency, in listing order). */
async function writeAdded(
  store: ObjectStore,
  p: PreparedConversion,
  m: TableMetadata,
  d: SyncDiff,
  id: bigint,
  o: SyncOptions,
  w: WrittenFile[],
) {
  const { schema, spec } = tableShape(p, m);
  const readers = { ...defaultFooters(store), ...o.footers };
  const files = mapOrdered(d.added, o.footerConcurrency ?? 32, async (h) => {
    const loc = p.locations[h.location];
    if (loc === undefined) throw new MigrationError(ErrorCode.INTERNAL, `no location ${h.location}`);
    const stats = await readers[loc.format].readStats(h.path, h.size, { schema: p.schema, nameMapping: p.baseNameMapping });
    return dataFileOf(h, loc, stats);
  });
  const paths = syncPaths(p.metadataDir, id);
  return writeManifests(files, {
    schema,
    spec,
    maxEntriesPerManifest: 10_000,
    open: (i) => Promise.resolve({ path: paths.addedManifest(i), file: putOnceOutput(store, paths.addedManifest(i), w) }),
  });
}

/** The manifests of the new snapshot: added first, then the rewritten ones, then the rest as they were. */
async function composeManifests(
  store: ObjectStore,
  p: PreparedConversion,
  cur: Current,
  d: SyncDiff,
  id: bigint,
  o: SyncOptions,
  w: WrittenFile[],
) {
  const seq = cur.loaded.metadata.lastSequenceNumber + 1;
  const added = d.added.length === 0 ? null : await writeAdded(store, p, cur.loaded.metadata, d, id, o, w);
  const out: ManifestFileEntry[] = (added?.manifests ?? []).map((m) => addedManifestEntry(m, id, seq));
  const rewrite = manifestsToRewrite(d);
  const paths = syncPaths(p.metadataDir, id);
  let r = 0;
  for (const source of cur.manifests) {
    const removed = rewrite.get(source.path);
    if (removed === undefined) {
      // A manifest with no live file left (all DELETED by an earlier sync) is not carried on (as Java drops it).
      if (source.addedFilesCount + source.existingFilesCount > 0) out.push(source);
      continue;
    }
    const path = paths.rewrittenManifest(r++);
    const file = putOnceOutput(store, path, w);
    // Kept even when every entry is DELETED: its DELETED entries are this snapshot's record of the removal.
    out.push(await rewriteManifest(store, { source, removed, normalize: samePath, snapshotId: id, sequenceNumber: seq, path, file }));
  }
  return { manifests: out, added };
}

function totalsOf(p: PreparedConversion, d: SyncDiff, added: Awaited<ReturnType<typeof writeAdded>> | null): SyncTotals {
  return {
    addedFiles: added?.dataFiles ?? 0,
    addedRecords: added?.records ?? 0,
    addedSize: added?.filesSize ?? 0,
    deletedFiles: d.removed.length,
    deletedRecords: d.removed.reduce((s, f) => s + f.records, 0),
    deletedSize: d.removed.reduce((s, f) => s + f.size, 0),
    changedPartitions: new Set([...d.added.map((h) => partitionKey(p, h)), ...d.removed.map((f) => f.partition)]).size,
  };
}

/** metadata.json for a catalog that points at our file; a rerun's own file (same snapshot) is reused. */
async function putMetadata(store: ObjectStore, path: string, md: TableMetadata, w: WrittenFile[]): Promise<TableMetadata> {
  const json = Buffer.from(toMetadataJson(md), 'utf8');
  try {
    w.push({ path, bytes: json.length, outcome: await putOnce(store, path, json) });
    return md;
  } catch (e) {
    if (!(e instanceof MigrationError) || e.code !== ErrorCode.STORAGE_PRECONDITION_FAILED) throw e;
    const { size } = await store.head(path);
    const existing = fromMetadataJson(new TextDecoder().decode(await store.readRange(path, 0, size)));
    if (existing.currentSnapshotId !== md.currentSnapshotId) throw e;
    w.push({ path, bytes: size, outcome: 'identical' });
    return existing;
  }
}

export interface SyncTarget {
  readonly prepared: PreparedConversion;
  readonly ident: TableIdent;
}

/** The metadata the new snapshot goes on: the base, with the columns Hive gained at the end as a new current schema. */
function evolve(p: PreparedConversion, cur: Current): { base: TableMetadata; addition: SchemaAddition | null } {
  const addition = schemaAddition(cur.loaded.metadata, p.schema);
  return { base: addition === null ? cur.loaded.metadata : withSchemaAddition(cur.loaded.metadata, addition), addition };
}

/**
 * Sync one migrated table (see the module comment). SYNC_FOREIGN_COMMITS when its current snapshot
 * is not ours. Columns the live table has beyond the Iceberg schema (the caller allowed them:
 * core/plan/source-check.ts `syncSourceChange`) go in with the snapshot as a schema update; a
 * column addition alone (no file changed) waits for the next change of files.
 */
export async function syncTable(store: ObjectStore, catalog: IcebergCatalog, t: SyncTarget, o: SyncOptions): Promise<SyncResult> {
  const cur = await readCurrent(store, catalog, t.ident, t.prepared);
  const listed = await listHive(store, t.prepared);
  const d = diffFiles(t.prepared.source, cur.files, listed);
  if (isInSync(d)) return inSyncResult(cur, await recoveredValidation(store, t.prepared, cur, o));
  const { base, addition } = evolve(t.prepared, cur);
  const p = asTable(t.prepared, base);
  const id = syncSnapshotId(base.tableUuid, base.currentSnapshotId, d, addition?.added ?? []);
  const w: WrittenFile[] = [];
  const { manifests, added } = await composeManifests(store, p, { ...cur, loaded: { ...cur.loaded, metadata: base } }, d, id, o, w);
  o.failpoint?.('sync-after-manifests');
  const paths = syncPaths(p.metadataDir, id);
  const seq = base.lastSequenceNumber + 1;
  await writeManifestList({
    path: paths.manifestList,
    file: putOnceOutput(store, paths.manifestList, w),
    snapshotId: id,
    parentSnapshotId: base.currentSnapshotId,
    sequenceNumber: seq,
    manifests,
  });
  o.failpoint?.('sync-after-manifest-list');
  const totals = totalsOf(p, d, added);
  const summary = syncSummary(syncOperation(d), cur.snapshot?.summary, totals, p.source);
  const metadataLocation = syncMetadataLocation(base.location, cur.loaded.metadataLocation, id);
  let metadata = withSyncSnapshot(base, cur.loaded.metadataLocation, syncSnapshot(base, id, paths.manifestList, summary, o.now()));
  if (catalog.writesOwnMetadata !== true) metadata = await putMetadata(store, metadataLocation, metadata, w);
  o.failpoint?.('sync-after-metadata');
  const snapshot = metadata.snapshots.find((s) => s.snapshotId === id) as Snapshot;
  o.failpoint?.('sync-before-commit');
  const commit = await catalog.commitTable(t.ident, {
    base: { metadataLocation: cur.loaded.metadataLocation, tableUuid: base.tableUuid, snapshotId: base.currentSnapshotId },
    snapshot,
    metadata,
    metadataLocation,
    ...(addition === null ? {} : { schemaChange: addition.base }),
  });
  o.failpoint?.('sync-after-commit');
  const validation = await validateSync(store, p, commit.table, id, o, { cache: cur.cache, listed });
  return {
    status: d.removed.length === 0 ? 'appended' : d.added.length === 0 ? 'deleted' : 'overwrote',
    snapshotId: id.toString(),
    parentSnapshotId: base.currentSnapshotId?.toString() ?? null,
    metadataLocation: commit.table.metadataLocation,
    commit: commit.outcome,
    filesAdded: totals.addedFiles,
    filesRemoved: totals.deletedFiles,
    recordsAdded: totals.addedRecords,
    recordsRemoved: totals.deletedRecords,
    partitionsAdded: new Set(d.added.map((h) => partitionKey(p, h))).size,
    partitionsChanged: totals.changedPartitions,
    summary,
    written: w,
    validation,
    columnsAdded: addition?.added ?? [],
  };
}

/**
 * In sync on a snapshot of ours the record does not know (a run killed after its commit): the same
 * check as after a commit (listing = snapshot files, footer rows = total-records) before the
 * caller records it. Null when the record already knows the snapshot (nothing to record).
 */
async function recoveredValidation(store: ObjectStore, p: PreparedConversion, cur: Current, o: SyncOptions) {
  if (o.recordedSnapshotId === undefined || cur.snapshot === null) return null;
  if (cur.snapshot.snapshotId.toString() === o.recordedSnapshotId) return null;
  return validateSync(store, p, cur.loaded, cur.snapshot.snapshotId, o);
}

function inSyncResult(cur: Current, validation: SyncResult['validation']): SyncResult {
  return {
    status: 'in-sync',
    snapshotId: cur.snapshot?.snapshotId.toString() ?? null,
    parentSnapshotId: cur.snapshot?.parentSnapshotId?.toString() ?? null,
    metadataLocation: cur.loaded.metadataLocation,
    commit: null,
    filesAdded: 0,
    filesRemoved: 0,
    recordsAdded: 0,
    recordsRemoved: 0,
    partitionsAdded: 0,
    partitionsChanged: 0,
    summary: cur.snapshot?.summary ?? null,
    written: [],
    validation,
    columnsAdded: [],
  };
}

/** What a validation of a table's current snapshot against its Hive side found (equal, else it threw). */
export interface SyncValidation {
  readonly snapshotId: string | null;
  readonly files: number;
  readonly records: number;
}

/** The current snapshot against the Hive side now: listing = its live files, footer rows = its total-records (cutover's final check). */
export async function validateCurrent(store: ObjectStore, catalog: IcebergCatalog, t: SyncTarget, o: SyncOptions): Promise<SyncValidation> {
  const loaded = await catalog.loadTable(t.ident);
  const id = loaded.metadata.currentSnapshotId;
  if (id === null)
    throw new MigrationError(ErrorCode.SYNC_VALIDATION_FAILED, `${t.prepared.source}: the Iceberg table has no current snapshot`);
  return { snapshotId: id.toString(), ...(await validateSync(store, t.prepared, loaded, id, o)) };
}

/** A fresh commit's validation scope: the manifests the sync read (immutable, not read again) and the listing it was computed from. */
interface ChangeScope {
  readonly cache: ManifestCache;
  readonly listed: readonly HiveFile[];
}

/**
 * The committed snapshot read back against Hive: the listing = its live files, footer rows = its
 * entries' rows, and total-records = the rows of its live files. SYNC_VALIDATION_FAILED otherwise
 * (the commit stays: the next sync corrects a Hive change that raced us).
 *
 * With `change` (a commit this sync just made): O(change) — only the manifests the commit wrote
 * are read (carried-over ones come from the cache), the listing is the one the sync was computed
 * from a moment before (every partition listed once per sync, not twice), and only the footers of
 * the files it added are read (files carried over were checked the same way by the commit that
 * added them: apply's validation or an earlier sync's).
 *
 * Without (a recovered commit of a killed run, cutover's final check `validateCurrent`): the full
 * check — every manifest read back, Hive listed now, the footer of every live file read, so footer
 * rows = total-records.
 */
async function validateSync(
  store: ObjectStore,
  p: PreparedConversion,
  table: LoadedTable,
  id: bigint,
  o: SyncOptions,
  change?: ChangeScope,
) {
  const snap = table.metadata.snapshots.find((s) => s.snapshotId === id);
  if (snap === undefined || table.metadata.currentSnapshotId !== id)
    throw new MigrationError(ErrorCode.SYNC_VALIDATION_FAILED, `${p.source}: the committed table's current snapshot is not ${id}`);
  const { files, added } = await snapshotFiles(store, p, table.metadata, snap, change?.cache);
  const hive = change?.listed ?? (await listHive(store, p));
  const d = diffFiles(p.source, files, hive);
  const read = change === undefined ? files : added;
  const formatOf = new Map(hive.map((h) => [samePath(h.path), p.locations[h.location]?.format ?? 'PARQUET']));
  const readers = { ...defaultFooters(store), ...o.footers };
  let footers = 0;
  for await (const n of mapOrdered(read, o.footerConcurrency ?? 32, async (f) => {
    const format = formatOf.get(samePath(f.path)) ?? 'PARQUET';
    return (
      await readers[format].readStats(f.path, f.size, { schema: p.schema, nameMapping: p.baseNameMapping, metricsFieldIds: new Set() })
    ).recordCount;
  }))
    footers += n;
  const readRows = read.reduce((s, f) => s + f.records, 0);
  const liveRows = files.reduce((s, f) => s + f.records, 0);
  const total = Number(snap.summary['total-records'] ?? NaN);
  const which = change === undefined ? `its ${read.length} file(s)` : `its ${read.length} added file(s)`;
  if (!isInSync(d) || footers !== readRows || liveRows !== total)
    throw new MigrationError(
      ErrorCode.SYNC_VALIDATION_FAILED,
      `${p.source}: after committing snapshot ${id}: ${d.added.length} Hive file(s) not in it, ${d.removed.length} of its file(s) not in Hive; footer rows of ${which} ${footers}, their entries ${readRows}; rows of its files ${liveRows}, total-records ${total}`,
      { table: p.source, snapshotId: id.toString(), missing: d.added.length, extra: d.removed.length, footers, readRows, liveRows, total },
    );
  return { files: files.length, records: liveRows };
}
