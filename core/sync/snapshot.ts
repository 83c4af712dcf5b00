// The snapshot a sync commits (spec "Snapshots", "Snapshot Summary"; docs/design/iceberg-spec.md §1): its
// operation (append when it only adds, overwrite when it adds and removes, delete when it only
// removes), a deterministic id and file names (a rerun after a crash finds its own files), the
// summary (added/deleted counters and the new totals from the parent's), and the table metadata
// with it as `main`. Our marker: every snapshot this tool writes carries `engine-name` =
// `hms-iceberg-migrator` and the source table in its summary; a table whose current snapshot lacks
// it was committed to by someone else. Pure; no I/O, no clock.
import { ErrorCode, MigrationError } from '../errors';
import { nameBasedUuid, MIGRATOR_NAMESPACE, positiveLongFromName } from '../iceberg/ids';
import type { Snapshot, SnapshotSummary, TableMetadata } from '../iceberg/metadata';
import { MAIN_BRANCH, SnapshotOperation } from '../iceberg/spec-constants';
import { sha256Hex } from '../hash';
import type { SyncDiff } from './diff';
import { samePath } from './diff';

/** The summary keys that mark a snapshot as ours (written by apply's append and by every sync). */
export const OUR_ENGINE_NAME = 'hms-iceberg-migrator';
export const SummaryMarker = { ENGINE_NAME: 'engine-name', SOURCE_TABLE: 'him.source.hms-table', SYNC: 'him.sync' } as const;

/** Is `s` a snapshot this tool committed for `source` (`db.table`)? */
export function isOurSnapshot(s: Snapshot, source: string): boolean {
  return s.summary[SummaryMarker.ENGINE_NAME] === OUR_ENGINE_NAME && s.summary[SummaryMarker.SOURCE_TABLE] === source;
}

/** The table's current snapshot, or SYNC_FOREIGN_COMMITS when it is not ours; null when the table has none. */
export function ourCurrentSnapshot(m: TableMetadata, source: string): Snapshot | null {
  if (m.currentSnapshotId === null) return null;
  const s = m.snapshots.find((x) => x.snapshotId === m.currentSnapshotId);
  if (s !== undefined && isOurSnapshot(s, source)) return s;
  const by = s?.summary[SummaryMarker.ENGINE_NAME] ?? 'an unknown engine';
  throw new MigrationError(
    ErrorCode.SYNC_FOREIGN_COMMITS,
    `${source}: the Iceberg table's current snapshot ${String(m.currentSnapshotId)} (${s?.summary.operation ?? '?'}, by ${by}) was not committed by this tool: another writer took over the table (cut over?); not syncing`,
    { table: source, snapshotId: String(m.currentSnapshotId), engine: by },
  );
}

export function syncOperation(d: SyncDiff): SnapshotOperation {
  if (d.removed.length === 0) return SnapshotOperation.APPEND;
  return d.added.length === 0 ? SnapshotOperation.DELETE : SnapshotOperation.OVERWRITE;
}

/**
 * The sync snapshot's id: a hash of the table, its parent and exactly what changes — the files, and
 * the columns a schema update adds (none: the id of a files-only change) — same input, same id.
 */
export function syncSnapshotId(tableUuid: string, parent: bigint | null, d: SyncDiff, columnsAdded: readonly string[] = []): bigint {
  const files = [...d.added.map((f) => `+${samePath(f.path)}:${f.size}`), ...d.removed.map((f) => `-${samePath(f.path)}`)].sort();
  const paths = columnsAdded.length === 0 ? files : [...files, ...columnsAdded.map((c) => `column+${c}`)];
  const digest = sha256Hex(new TextEncoder().encode(paths.join('\n')));
  return positiveLongFromName(`sync\u0000${tableUuid}\u0000${String(parent)}\u0000${digest}`);
}

/** Where a sync's files go (all under `metadataDir`, named by the snapshot id). */
export function syncPaths(metadataDir: string, snapshotId: bigint) {
  return {
    addedManifest: (i: number) => `${metadataDir}sync-${snapshotId}-m${i}.avro`,
    rewrittenManifest: (i: number) => `${metadataDir}sync-${snapshotId}-r${i}.avro`,
    manifestList: `${metadataDir}snap-${snapshotId}-1-sync.avro`,
  };
}

/** `<location>/metadata/<version+1>-<uuid>.metadata.json` after `base` (our naming; the uuid from the snapshot id). */
export function syncMetadataLocation(location: string, baseLocation: string, snapshotId: bigint): string {
  const m = /\/(\d+)-[^/]*\.metadata\.json$/.exec(baseLocation);
  const version = m === null ? 1 : Number(m[1]) + 1;
  const uuid = nameBasedUuid(MIGRATOR_NAMESPACE, `sync-metadata\u0000${snapshotId}`);
  return `${location.replace(/\/+$/, '')}/metadata/${String(version).padStart(5, '0')}-${uuid}.metadata.json`;
}

/** What a sync adds and removes, in the units of the summary. */
export interface SyncTotals {
  readonly addedFiles: number;
  readonly addedRecords: number;
  readonly addedSize: number;
  readonly deletedFiles: number;
  readonly deletedRecords: number;
  readonly deletedSize: number;
  readonly changedPartitions: number;
}

const num = (s: SnapshotSummary | undefined, k: string): number => {
  const v = Number(s?.[k] ?? '0');
  return Number.isFinite(v) ? v : 0;
};

/** The summary (SnapshotSummary.java keys): added/deleted counters, totals = parent's + added − deleted, our marker. */
export function syncSummary(op: SnapshotOperation, parent: SnapshotSummary | undefined, t: SyncTotals, source: string): SnapshotSummary {
  const out: Record<string, string> = {};
  const put = (k: string, v: number, always = false): void => {
    if (always || v !== 0) out[k] = String(v);
  };
  put('added-data-files', t.addedFiles);
  put('deleted-data-files', t.deletedFiles);
  put('added-records', t.addedRecords);
  put('deleted-records', t.deletedRecords);
  put('added-files-size', t.addedSize);
  put('removed-files-size', t.deletedSize);
  put('changed-partition-count', t.changedPartitions, true);
  put('total-records', num(parent, 'total-records') + t.addedRecords - t.deletedRecords, true);
  put('total-files-size', num(parent, 'total-files-size') + t.addedSize - t.deletedSize, true);
  put('total-data-files', num(parent, 'total-data-files') + t.addedFiles - t.deletedFiles, true);
  for (const k of ['total-delete-files', 'total-position-deletes', 'total-equality-deletes']) put(k, num(parent, k), true);
  return {
    operation: op,
    ...out,
    [SummaryMarker.ENGINE_NAME]: OUR_ENGINE_NAME,
    [SummaryMarker.SOURCE_TABLE]: source,
    [SummaryMarker.SYNC]: 'true',
  };
}

/** The new snapshot on `base`: next sequence number, parent = the current snapshot, the current schema. */
export function syncSnapshot(
  base: TableMetadata,
  id: bigint,
  manifestList: string,
  summary: SnapshotSummary,
  timestampMs: number,
): Snapshot {
  return {
    snapshotId: id,
    ...(base.currentSnapshotId === null ? {} : { parentSnapshotId: base.currentSnapshotId }),
    sequenceNumber: base.lastSequenceNumber + 1,
    // A snapshot is never older than the table's last update (spec: timestamps increase along the log).
    timestampMs: Math.max(timestampMs, base.lastUpdatedMs + 1),
    manifestList,
    summary,
    schemaId: base.currentSchemaId,
  };
}

/** `base` with `snapshot` added and `main` at it; the base file goes into the metadata log. */
export function withSyncSnapshot(base: TableMetadata, baseLocation: string, snapshot: Snapshot): TableMetadata {
  return {
    ...base,
    lastSequenceNumber: snapshot.sequenceNumber,
    lastUpdatedMs: snapshot.timestampMs,
    currentSnapshotId: snapshot.snapshotId,
    snapshots: [...base.snapshots, snapshot],
    snapshotLog: [...base.snapshotLog, { timestampMs: snapshot.timestampMs, snapshotId: snapshot.snapshotId }],
    metadataLog: [...base.metadataLog, { timestampMs: base.lastUpdatedMs, metadataFile: baseLocation }],
    refs: { ...base.refs, [MAIN_BRANCH]: { snapshotId: snapshot.snapshotId, type: 'branch' } },
  };
}
