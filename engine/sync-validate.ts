// A sync's check, after its commit and for a commit a killed run made (recoveredValidation), and
// cutover's final check of the current snapshot (validateCurrent): the Hive listing = the snapshot's
// live files, footer rows = the entries' rows, the live files' rows = total-records.
import type { IcebergCatalog, LoadedTable } from '../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../core/errors';
import type { PreparedConversion } from '../core/convert/prepare';
import type { ObjectStore } from '../core/storage/object-store';
import type { HiveFile } from '../core/sync/diff';
import { diffFiles, isInSync, samePath } from '../core/sync/diff';
import { mapOrdered } from './ordered-pool';
import { defaultFooters } from './write-metadata';

import type { SyncOptions, SyncTarget } from './sync-table';
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
