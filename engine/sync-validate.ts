// A sync's check, after its commit and for a commit a killed run made (recoveredValidation), and
// cutover's final check of the current snapshot (validateCurrent): the Hive listing = the snapshot's
// live files, footer rows = the entries' rows, the live files' rows = total-records.
import type { IcebergCatalog, LoadedTable } from '../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../core/errors';
import type { PreparedConversion } from '../core/convert/prepare';
import type { ObjectStore } from '../core/storage/object-store';
import type { HiveFile, IcebergFile } from '../core/sync/diff';
import { diffFiles, isInSync, samePath } from '../core/sync/diff';
import { mapOrdered } from '../core/ordered-pool';
import { defaultFooters } from './write-metadata';
import type { SyncValidation } from '../core/engine-port/sync';

import type { SyncOptions, SyncTarget } from './sync-options';
import type { Current, ManifestCache } from './sync-read';
import { listHive, snapshotFiles } from './sync-read';

/**
 * In sync on a snapshot of ours the record does not know (a run killed after its commit): the same
 * check as after a commit (listing = snapshot files, footer rows = total-records) before the
 * caller records it. Null when the record already knows the snapshot (nothing to record).
 */
export async function recoveredValidation(store: ObjectStore, p: PreparedConversion, cur: Current, o: SyncOptions) {
  if (o.recordedSnapshotId === undefined || cur.snapshot === null) return null;
  if (cur.snapshot.snapshotId.toString() === o.recordedSnapshotId) return null;
  return validateSync(store, p, cur.loaded, cur.snapshot.snapshotId, o);
}

/** The current snapshot against the Hive side now: listing = its live files, footer rows = its total-records (cutover's final check). */
export async function validateCurrent(store: ObjectStore, catalog: IcebergCatalog, t: SyncTarget, o: SyncOptions): Promise<SyncValidation> {
  const loaded = await catalog.loadTable(t.ident);
  const id = loaded.metadata.currentSnapshotId;
  if (id === null)
    throw new MigrationError(ErrorCode.SYNC_VALIDATION_FAILED, `${t.prepared.source}: the Iceberg table has no current snapshot`);
  return { snapshotId: id.toString(), ...(await validateSync(store, t.prepared, loaded, id, o)) };
}

/**
 * A fresh commit's validation scope: the manifests the sync read (immutable, not read again), the
 * listing it was computed from, and the row count of each added file's footer as this sync read it
 * (by normalised path) to build the entries.
 */
interface ChangeScope {
  readonly cache: ManifestCache;
  readonly listed: readonly HiveFile[];
  readonly footerRows: ReadonlyMap<string, number>;
}

/**
 * The committed snapshot read back against Hive: the listing = its live files, footer rows = its
 * entries' rows, and total-records = the rows of its live files. SYNC_VALIDATION_FAILED otherwise
 * (the commit stays: the next sync corrects a Hive change that raced us).
 *
 * With `change` (a commit this sync just made): O(change) — only the manifests the commit wrote
 * are read back (carried-over ones come from the cache), the listing is the one the sync was
 * computed from a moment before (every partition listed once per sync, not twice), and the footer
 * rows of the files it added are the ones this sync read from their footers to build the entries
 * (each added entry read back from the committed manifest must carry exactly its file's footer
 * count; a second GET of the same footer by the same reader proves nothing more and cost a third
 * of the sync's S3 requests). Files carried over were checked by the commit that added them
 * (apply's validation or an earlier sync's).
 *
 * Without (a recovered commit of a killed run, cutover's final check `validateCurrent`): the full
 * check — every manifest read back, Hive listed now, the footer of every live file read, so footer
 * rows = total-records.
 */
export async function validateSync(
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
  const footers = change === undefined ? await footerRowsOf(store, p, hive, read, o) : rowsAsRead(p.source, id, read, change.footerRows);
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

/** The footer row counts of `files`, read now (summed). */
async function footerRowsOf(
  store: ObjectStore,
  p: PreparedConversion,
  hive: readonly HiveFile[],
  files: readonly IcebergFile[],
  o: SyncOptions,
): Promise<number> {
  const formatOf = new Map(hive.map((h) => [samePath(h.path), p.locations[h.location]?.format ?? 'PARQUET']));
  const readers = { ...defaultFooters(store), ...o.footers };
  let footers = 0;
  for await (const n of mapOrdered(files, o.footerConcurrency ?? 32, async (f) => {
    const format = formatOf.get(samePath(f.path)) ?? 'PARQUET';
    return (
      await readers[format].readStats(f.path, f.size, { schema: p.schema, nameMapping: p.baseNameMapping, metricsFieldIds: new Set() })
    ).recordCount;
  }))
    footers += n;
  return footers;
}

/**
 * The footer rows this sync read for the files the commit added (summed). SYNC_VALIDATION_FAILED
 * when the committed manifest's added entries are not exactly those files with those row counts.
 */
export function rowsAsRead(source: string, id: bigint, added: readonly IcebergFile[], footerRows: ReadonlyMap<string, number>): number {
  let sum = 0;
  for (const f of added) {
    const n = footerRows.get(samePath(f.path));
    if (n === undefined || n !== f.records)
      throw new MigrationError(
        ErrorCode.SYNC_VALIDATION_FAILED,
        `${source}: snapshot ${id} added ${f.path} with ${f.records} row(s); ${n === undefined ? 'this sync read no footer of that file' : `its footer has ${n}`}`,
        { table: source, snapshotId: id.toString(), file: f.path, entryRows: f.records, footerRows: n ?? null },
      );
    sum += n;
  }
  if (added.length !== footerRows.size)
    throw new MigrationError(
      ErrorCode.SYNC_VALIDATION_FAILED,
      `${source}: snapshot ${id} added ${added.length} file(s); this sync read the footers of ${footerRows.size}`,
      { table: source, snapshotId: id.toString(), added: added.length, footersRead: footerRows.size },
    );
  return sum;
}
