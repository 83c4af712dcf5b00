// A migrated table's catch-up sync, metadata-only: the current snapshot's data files (its
// manifests) against Hive's files now (every partition location listed, as apply lists them) →
// one new snapshot: an append with one new manifest of ADDED files (real footer stats, the table's
// schema and spec), or an overwrite/delete whose rewritten manifests mark exactly the removed files
// DELETED and keep the rest EXISTING (only manifests holding a removed file are rewritten; the
// others are carried over). Files go create-only under the table's metadata/ prefix with names
// from the snapshot id, which is a hash of the table, the parent and the change: a rerun after a
// crash finds its own files. Then the catalog commit (compare-and-swap on the base we read) and the
// check (sync-validate.ts validateSync; reads through sync-read.ts): the listing = the new snapshot's files, the added files' footer rows = their
// entries, the live files' rows = total-records (a recovered commit and cutover's validateCurrent read
// every live file's footer). Data files are never touched. No change → no commit.
import type { IcebergCatalog } from '../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../core/errors';
import type { PreparedConversion } from '../core/convert/prepare';
import type { ManifestFileEntry } from '../core/iceberg/manifest';
import { addedManifestEntry } from '../core/iceberg/manifest';
import type { Snapshot, TableMetadata } from '../core/iceberg/metadata';
import { fromMetadataJson, toMetadataJson } from '../core/iceberg/metadata-json';
import type { ObjectStore } from '../core/storage/object-store';
import type { HiveFile, SyncDiff } from '../core/sync/diff';
import type { SchemaAddition } from '../core/sync/schema';
import { schemaAddition, withSchemaAddition } from '../core/sync/schema';
import { buildNameMapping, nameMappingFromJson } from '../core/iceberg/name-mapping';
import { TableProperty } from '../core/iceberg/spec-constants';
import type { Schema } from '../core/iceberg/types';
import { IdLayouts } from '../core/convert/adopt-ids';
import { fieldIdMismatches } from '../core/validate/field-ids';
import { diffFiles, isInSync, manifestsToRewrite, samePath, tupleKey } from '../core/sync/diff';
import type { SyncTotals } from '../core/sync/snapshot';
import {
  syncMetadataLocation,
  syncOperation,
  syncPaths,
  syncSnapshot,
  syncSnapshotId,
  syncSummary,
  withSyncSnapshot,
} from '../core/sync/snapshot';
import { writeManifestList } from '../adapters/avro/manifest-list-writer';
import { rewriteManifest } from '../adapters/avro/manifest-rewrite';
import { writeManifests } from '../adapters/avro/manifest-writer';
import { mapOrdered } from '../core/ordered-pool';
import { putOnce } from './put-once';
import type { WrittenFile } from '../core/engine-port/conversion';
import type { SyncResult } from '../core/engine-port/sync';
import { dataFileOf, defaultFooters, putOnceOutput } from './write-metadata';

import type { Current } from './sync-read';
import { listHive, readCurrent, tableShape } from './sync-read';
import { readerGuard } from './reader-guard';
import { recoveredValidation, validateSync } from './sync-validate';
import type { SyncOptions, SyncTarget } from './sync-options';

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

/** FIELD_IDS_INCONSISTENT when an added file's ids point at other columns than the table's schema says. */
function addedIdsOrThrow(table: string, schema: Schema, dataColumnCount: number, ids: IdLayouts): void {
  const bad = ids.size === 0 ? [] : fieldIdMismatches(schema, dataColumnCount, ids.layouts());
  if (bad.length === 0) return;
  throw new MigrationError(
    ErrorCode.FIELD_IDS_INCONSISTENT,
    `${table}: added files carry field ids the table gives other columns: ${bad.map((f) => f.message).join('; ')}`,
    { table, columns: bad.map((f) => f.path) },
  );
}

const partitionKey = (p: PreparedConversion, h: HiveFile): string => tupleKey(p.locations[h.location]?.partition ?? []);

/**
 * One manifest of ADDED entries for the new files (footers read at bounded concurrency, in listing
 * order); each footer's row count goes into `footerRows` (by path) for the validation after the commit.
 */
async function writeAdded(
  store: ObjectStore,
  p: PreparedConversion,
  m: TableMetadata,
  d: SyncDiff,
  id: bigint,
  o: SyncOptions,
  w: WrittenFile[],
  footerRows: Map<string, number>,
) {
  const { schema, spec } = tableShape(p, m);
  const readers = { ...defaultFooters(store), ...o.footers };
  const ids = new IdLayouts();
  const guard = readerGuard(store, schema, o.readersRequired);
  const files = mapOrdered(d.added, o.footerConcurrency ?? 32, async (h) => {
    const loc = p.locations[h.location];
    if (loc === undefined) throw new MigrationError(ErrorCode.INTERNAL, `no location ${h.location}`);
    const stats = await readers[loc.format].readStats(h.path, h.size, { schema: p.schema, nameMapping: p.baseNameMapping });
    await guard?.check(h.path, h.size, loc.format);
    footerRows.set(samePath(h.path), stats.recordCount);
    ids.add(h.path, stats.fileColumns, stats.fileFieldIds);
    return dataFileOf(h, loc, stats);
  });
  const paths = syncPaths(p.metadataDir, id);
  const written = await writeManifests(files, {
    schema,
    spec,
    maxEntriesPerManifest: 10_000,
    open: (i) => Promise.resolve({ path: paths.addedManifest(i), file: putOnceOutput(store, paths.addedManifest(i), w) }),
  });
  // Added files that carry field ids are read by them: each must be the id the table gives its column.
  addedIdsOrThrow(p.source, schema, schema.fields.length - spec.fields.length, ids);
  return written;
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
  footerRows: Map<string, number>,
) {
  const seq = cur.loaded.metadata.lastSequenceNumber + 1;
  const added = d.added.length === 0 ? null : await writeAdded(store, p, cur.loaded.metadata, d, id, o, w, footerRows);
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
  const footerRows = new Map<string, number>();
  const { manifests, added } = await composeManifests(
    store,
    p,
    { ...cur, loaded: { ...cur.loaded, metadata: base } },
    d,
    id,
    o,
    w,
    footerRows,
  );
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
  const validation = await validateSync(store, p, commit.table, id, o, { cache: cur.cache, listed, footerRows });
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
