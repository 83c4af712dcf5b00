// What a sync must change: the data files of the Iceberg table's current snapshot against the files
// Hive has now (every partition location listed). Files only Hive has are added (new partitions,
// new files); files only Iceberg has are removed (dropped partitions, files an INSERT OVERWRITE
// replaced). Pure; no I/O. Paths compare with s3a:// and s3n:// read as s3:// (one object, three
// spellings).
import { ErrorCode, MigrationError } from '../errors';

/** A live data file of the current snapshot (status ADDED or EXISTING) and the manifest holding it. */
export interface IcebergFile {
  readonly path: string;
  readonly size: number;
  readonly records: number;
  readonly manifest: string;
  /** The partition tuple's key (`tupleKey`). */
  readonly partition: string;
}

/** A file Hive has now, and the index of the location (partition) it was listed under. */
export interface HiveFile {
  readonly path: string;
  readonly size: number;
  readonly location: number;
}

export interface SyncDiff {
  /** In Hive, not in Iceberg: in listing order. */
  readonly added: readonly HiveFile[];
  /** In Iceberg, not in Hive: in manifest order. */
  readonly removed: readonly IcebergFile[];
  /** In both. */
  readonly kept: number;
}

/** A partition tuple as text, one type per position (a long given as 1 or 1n is the same). */
export function tupleKey(values: readonly unknown[]): string {
  return JSON.stringify(
    values.map((v) => (v === null || v === undefined ? null : v instanceof Uint8Array ? `b:${[...v].join(',')}` : String(v))),
  );
}

export const samePath = (p: string): string => p.replace(/^s3[an]?:\/\//, 's3://');

/** The files to add and remove; a path in both with another size is SYNC_FILE_REWRITTEN. */
export function diffFiles(table: string, iceberg: readonly IcebergFile[], hive: readonly HiveFile[]): SyncDiff {
  const inIceberg = new Map(iceberg.map((f) => [samePath(f.path), f]));
  const inHive = new Set<string>();
  const added: HiveFile[] = [];
  let kept = 0;
  for (const h of hive) {
    const key = samePath(h.path);
    inHive.add(key);
    const i = inIceberg.get(key);
    if (i === undefined) added.push(h);
    else if (i.size !== h.size) {
      throw new MigrationError(
        ErrorCode.SYNC_FILE_REWRITTEN,
        `${table}: ${h.path} was rewritten in place (${i.size} bytes in the Iceberg table, ${h.size} now); a sync cannot keep and replace one path`,
        { table, path: h.path, icebergSize: i.size, hiveSize: h.size },
      );
    } else kept++;
  }
  const removed = iceberg.filter((f) => !inHive.has(samePath(f.path)));
  return { added, removed, kept };
}

export const isInSync = (d: SyncDiff): boolean => d.added.length === 0 && d.removed.length === 0;

/** The manifests holding a removed file (only these are rewritten; the rest are carried over as they are). */
export function manifestsToRewrite(d: SyncDiff): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const f of d.removed) {
    const set = out.get(f.manifest) ?? new Set<string>();
    set.add(samePath(f.path));
    out.set(f.manifest, set);
  }
  return out;
}
