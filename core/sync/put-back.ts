// The way back that keeps new data: which commits other engines made on top of
// our last snapshot can be registered back into Hive, and where their files go. Two decisions:
// `classifySince` — every snapshot since ours must be an `append` of data files (content 0) in
// Parquet or ORC, under our partition spec and a schema with our columns, with no delete files and
// nothing removed; anything else blocks, each blocking snapshot named with its operation and why.
// `placeFiles` — Hive reads a partition's files from its directory (not recursively): a file in an
// existing partition must sit in that partition's directory (then Hive already sees it); the files
// of a partition Hive lacks must share one directory named like the partition (`k=v/…`), which
// becomes the new partition's location; unpartitioned, files must sit in the table location.
// Pure; no I/O.
import { ErrorCode, MigrationError } from '../errors';
import { detectFormat } from '../hive/formats';
import type { HivePartition, HiveTable, TableInventory } from '../hive/model';
import { FileFormat, HIVE_DEFAULT_PARTITION } from '../hive/model';
import { unescapePathName } from '../hive/partition-names';
import type { Snapshot, TableMetadata } from '../iceberg/metadata';
import type { PartitionSpec } from '../iceberg/partition-spec';
import { partitionType } from '../iceberg/partition-spec';
import { partitionTupleFromHive } from '../iceberg/partition-values';
import { SnapshotOperation } from '../iceberg/spec-constants';
import type { PrimitiveType, PrimitiveValue, Schema } from '../iceberg/types';
import { samePath, tupleKey } from './diff';
import { isOurSnapshot } from './snapshot';

/** The data file formats Hive reads back from a put-back: Parquet and ORC, the formats Hive tables are read back in here. */
export const PUT_BACK_FORMATS: ReadonlySet<string> = new Set(['PARQUET', 'ORC']);

/** A commit (or a file of one) that stops the put-back, and why. */
export interface PutBackBlocker {
  readonly snapshotId: string;
  readonly operation: string;
  readonly reason: string;
}

/** A manifest of a snapshot's manifest list (spec "Manifest Lists"). */
export interface SnapshotManifest {
  readonly path: string;
  /** 0 data, 1 deletes. */
  readonly content: number;
  readonly addedSnapshotId: bigint;
  readonly partitionSpecId: number;
}

/** A manifest entry as read back (spec "Manifests"): status 0 EXISTING, 1 ADDED, 2 DELETED; content 0 data, 1 position, 2 equality deletes (adapters/avro/manifest-reader.ts reads them). */
export interface SnapshotEntry {
  readonly status: number;
  readonly content: number;
  readonly filePath: string;
  readonly fileFormat: string;
  readonly recordCount: number;
  readonly fileSizeInBytes: number;
  readonly partition: readonly (PrimitiveValue | null)[];
}

/** What one snapshot since ours did, as read from storage: its manifest list, and the entries of the manifests it added under our spec. */
export interface SnapshotFacts {
  readonly snapshot: Snapshot;
  readonly manifests: readonly SnapshotManifest[];
  readonly entries: readonly SnapshotEntry[];
}

/** A data file an append since ours added. */
export interface AppendedFile {
  readonly snapshotId: string;
  readonly path: string;
  readonly format: string;
  readonly records: number;
  readonly size: number;
  readonly partition: readonly (PrimitiveValue | null)[];
}

/** Our last snapshot and the snapshots after it on `main`, oldest first; or what blocks finding them. */
export type SinceOurs =
  | { readonly ok: true; readonly ours: Snapshot; readonly since: readonly Snapshot[] }
  | { readonly ok: false; readonly blockers: readonly PutBackBlocker[] };

const opOf = (s: Snapshot | undefined): string => s?.summary.operation ?? '?';
const idOf = (s: Snapshot): string => s.snapshotId.toString();

/** Walk `main` back from the current snapshot to the newest one carrying our marker for `source`. */
export function snapshotsSinceOurs(m: TableMetadata, source: string): SinceOurs {
  const byId = new Map(m.snapshots.map((s) => [s.snapshotId, s]));
  const since: Snapshot[] = [];
  let id = m.currentSnapshotId;
  while (id !== null) {
    const s = byId.get(id);
    if (s === undefined) break;
    if (isOurSnapshot(s, source)) return { ok: true, ours: s, since: since.reverse() };
    since.push(s);
    id = s.parentSnapshotId ?? null;
  }
  const head = m.currentSnapshotId === null ? 'none' : m.currentSnapshotId.toString();
  return {
    ok: false,
    blockers: [
      {
        snapshotId: head,
        operation: opOf(byId.get(m.currentSnapshotId ?? -1n)),
        reason: 'none of our snapshots is an ancestor of the current one (the table was rolled back or replaced in Iceberg)',
      },
    ],
  };
}

const OPERATION_WHY: Readonly<Record<string, string>> = {
  [SnapshotOperation.OVERWRITE]: 'an overwrite replaces or deletes rows (UPDATE, MERGE, DELETE, INSERT OVERWRITE)',
  [SnapshotOperation.DELETE]: 'a delete removes rows or files',
  [SnapshotOperation.REPLACE]: 'a replace rewrites files (compaction, rewrite_data_files, rewrite_manifests)',
};

const SUMMARY_BLOCKERS: readonly (readonly [string, string])[] = [
  ['deleted-data-files', 'removes data files'],
  ['added-delete-files', 'adds delete files'],
  ['added-position-delete-files', 'adds position delete files'],
  ['added-equality-delete-files', 'adds equality delete files'],
  ['removed-delete-files', 'removes delete files'],
];

/** The columns of a schema as Hive sees them (id, name, type, required), docs aside. */
const columnsOf = (s: Schema | undefined): string => JSON.stringify(s?.fields.map((f) => [f.id, f.name, f.type, f.required]) ?? null);

export interface ClassifyContext {
  readonly metadata: TableMetadata;
  /** The spec and schema our last snapshot was written with. */
  readonly spec: PartitionSpec;
  readonly schema: Schema;
}

function snapshotReasons(ctx: ClassifyContext, f: SnapshotFacts): string[] {
  const s = f.snapshot;
  const reasons: string[] = [];
  const op = opOf(s);
  if (op !== SnapshotOperation.APPEND) reasons.push(`operation ${op}: ${OPERATION_WHY[op] ?? 'not an append'}`);
  for (const [k, why] of SUMMARY_BLOCKERS) if (Number(s.summary[k] ?? '0') > 0) reasons.push(`${why} (${k}=${s.summary[k]})`);
  const own = f.manifests.filter((m) => m.addedSnapshotId === s.snapshotId);
  if (own.some((m) => m.content !== 0)) reasons.push('adds a delete manifest (position or equality deletes)');
  for (const m of own.filter((x) => x.partitionSpecId !== ctx.spec.specId))
    reasons.push(`writes under partition spec ${m.partitionSpecId}, not ours (${ctx.spec.specId}): partition evolution`);
  if (s.schemaId !== undefined && columnsOf(ctx.metadata.schemas.find((x) => x.schemaId === s.schemaId)) !== columnsOf(ctx.schema))
    reasons.push(`written with schema ${s.schemaId}, whose columns differ from ours (schema ${ctx.schema.schemaId})`);
  for (const e of f.entries) {
    if (e.content !== 0) reasons.push(`adds delete file ${e.filePath} (content ${e.content})`);
    else if (e.status === 2) reasons.push(`removes data file ${e.filePath}`);
    else if (e.status === 1 && !PUT_BACK_FORMATS.has(e.fileFormat.toUpperCase()))
      reasons.push(`adds ${e.filePath} in ${e.fileFormat}; only Parquet and ORC are put back`);
  }
  return reasons;
}

/** Table-level changes since ours that Hive cannot follow (reported against the current snapshot). */
function tableReasons(ctx: ClassifyContext): string[] {
  const m = ctx.metadata;
  const reasons: string[] = [];
  if (m.defaultSpecId !== ctx.spec.specId)
    reasons.push(`the default partition spec is now ${m.defaultSpecId}, not ours (${ctx.spec.specId}): partition evolution`);
  if (columnsOf(m.schemas.find((x) => x.schemaId === m.currentSchemaId)) !== columnsOf(ctx.schema))
    reasons.push(`the current schema ${m.currentSchemaId} has other columns than ours (schema ${ctx.schema.schemaId})`);
  return reasons;
}

export type PutBackDecision =
  | { readonly ok: true; readonly files: readonly AppendedFile[] }
  | { readonly ok: false; readonly blockers: readonly PutBackBlocker[] };

/** Every snapshot since ours an append of Parquet/ORC data files under our spec and columns → the files they added; else every blocker. */
export function classifySince(ctx: ClassifyContext, facts: readonly SnapshotFacts[]): PutBackDecision {
  const blockers: PutBackBlocker[] = [];
  const files: AppendedFile[] = [];
  for (const f of facts) {
    const reasons = snapshotReasons(ctx, f);
    const id = idOf(f.snapshot);
    if (reasons.length > 0) blockers.push({ snapshotId: id, operation: opOf(f.snapshot), reason: reasons.join('; ') });
    for (const e of f.entries)
      if (e.status === 1 && e.content === 0)
        files.push({
          snapshotId: id,
          path: e.filePath,
          format: e.fileFormat.toUpperCase(),
          records: e.recordCount,
          size: e.fileSizeInBytes,
          partition: e.partition,
        });
  }
  const table = tableReasons(ctx);
  const head = ctx.metadata.snapshots.find((s) => s.snapshotId === ctx.metadata.currentSnapshotId);
  if (table.length > 0)
    blockers.push({ snapshotId: String(ctx.metadata.currentSnapshotId), operation: opOf(head), reason: table.join('; ') });
  return blockers.length > 0 ? { ok: false, blockers } : { ok: true, files };
}

/** One Hive partition (or the unpartitioned table: name '') and the appended files it gets back. */
export interface PartitionPutBack {
  /** Hive values (unescaped; null = default partition), in partition-key order. */
  readonly values: readonly (string | null)[];
  /** `k=v/…` as the directory names it; '' unpartitioned. */
  readonly name: string;
  readonly location: string;
  readonly files: readonly AppendedFile[];
  readonly records: number;
}

export interface Placement {
  /** Partitions (or the table) Hive has, whose directory already holds the appended files. */
  readonly visible: readonly PartitionPutBack[];
  /** Partitions Hive lacks: to add, metadata-only, at the files' directory. */
  readonly add: readonly PartitionPutBack[];
  readonly blockers: readonly PutBackBlocker[];
}

const trim = (s: string): string => samePath(s).replace(/\/+$/, '');

/**
 * The directory of `file` as the new partition's location, spelled with the table location's
 * scheme when it lies under it (Hive's `s3a://` where Iceberg writers wrote `s3://`: one object).
 */
function spelledLike(tableLocation: string, file: string): string {
  const raw = file.slice(0, file.lastIndexOf('/')).replace(/\/+$/, '');
  const table = tableLocation.replace(/\/+$/, '');
  return trim(raw).startsWith(`${trim(table)}/`) ? `${table}${trim(raw).slice(trim(table).length)}` : raw;
}
const dirOf = (p: string): string => trim(p.slice(0, p.lastIndexOf('/')));
const DATA_FORMATS: Readonly<Record<string, string>> = {
  [FileFormat.PARQUET]: 'PARQUET',
  [FileFormat.ORC]: 'ORC',
  [FileFormat.AVRO]: 'AVRO',
};
const hiveFormat = (t: HiveTable, sd: HiveTable['sd']): string =>
  DATA_FORMATS[detectFormat(sd, t.parameters)] ?? detectFormat(sd, t.parameters);

interface KeyType {
  readonly name: string;
  readonly type: PrimitiveType;
}

/** The Hive values a directory `…/k1=v1/k2=v2` names for `keys`, or null when its last segments do not name them. */
export function partitionOfDir(dir: string, keys: readonly KeyType[]): (string | null)[] | null {
  const segments = trim(dir).split('/').slice(-keys.length);
  if (segments.length !== keys.length) return null;
  const values: (string | null)[] = [];
  for (const [i, seg] of segments.entries()) {
    const eq = seg.indexOf('=');
    if (eq <= 0 || unescapePathName(seg.slice(0, eq)).toLowerCase() !== keys[i]?.name.toLowerCase()) return null;
    const v = unescapePathName(seg.slice(eq + 1));
    values.push(v === HIVE_DEFAULT_PARTITION ? null : v);
  }
  return values;
}

function typedOrNull(keys: readonly KeyType[], values: readonly (string | null)[]): string | null {
  try {
    return tupleKey(partitionTupleFromHive(keys, values));
  } catch {
    return null;
  }
}

const names = (fs: readonly AppendedFile[]): string => fs.map((f) => f.path).join(', ');
const fileBlocker = (fs: readonly AppendedFile[], reason: string): PutBackBlocker => ({
  snapshotId: [...new Set(fs.map((f) => f.snapshotId))].join(','),
  operation: SnapshotOperation.APPEND,
  reason,
});
const group = (values: readonly (string | null)[], name: string, location: string, files: readonly AppendedFile[]): PartitionPutBack => ({
  values,
  name,
  location,
  files,
  records: files.reduce((s, f) => s + f.records, 0),
});

function placeUnpartitioned(inv: TableInventory, files: readonly AppendedFile[]): Placement {
  const loc = trim(inv.table.sd.location ?? '');
  const away = files.filter((f) => dirOf(f.path) !== loc);
  const blockers = [...checkFormat(files, hiveFormat(inv.table, inv.table.sd), 'the table')];
  if (away.length > 0)
    blockers.push(
      fileBlocker(
        away,
        `files outside the table location ${loc} (Hive would not read them): ${names(away)}; set write.data.path=${loc} on the Iceberg table before writing`,
      ),
    );
  return { visible: files.length === 0 ? [] : [group([], '', loc, files)], add: [], blockers };
}

function checkFormat(files: readonly AppendedFile[], format: string, where: string): PutBackBlocker[] {
  const other = files.filter((f) => f.format !== format);
  return other.length === 0
    ? []
    : [fileBlocker(other, `${other[0]?.format} files in ${where}, which Hive reads as ${format}: ${names(other)}`)];
}

/** One partition's appended files against Hive: visible where it is, to add when Hive lacks it, or blockers. */
function placePartition(
  inv: TableInventory,
  keys: readonly KeyType[],
  existing: HivePartition | undefined,
  files: readonly AppendedFile[],
) {
  const dirs = [...new Set(files.map((f) => dirOf(f.path)))];
  if (existing !== undefined) {
    const loc = trim(existing.sd.location ?? '');
    const away = files.filter((f) => dirOf(f.path) !== loc);
    const blockers = [...checkFormat(files, hiveFormat(inv.table, existing.sd), `partition ${existing.name}`)];
    if (away.length > 0)
      blockers.push(
        fileBlocker(
          away,
          `partition ${existing.name} is at ${loc} in Hive, but these appended files are elsewhere, where Hive would not read them: ${names(away)}`,
        ),
      );
    return { visible: group(existing.values, existing.name, loc, files), blockers };
  }
  const dir = dirs[0] ?? '';
  if (dirs.length !== 1)
    return {
      blockers: [
        fileBlocker(
          files,
          `a new partition's files are in ${dirs.length} directories (${dirs.join(', ')}); a Hive partition has one: ${names(files)}`,
        ),
      ],
    };
  const values = partitionOfDir(dir, keys);
  const want = tupleKey(files[0]?.partition ?? []);
  if (values === null || typedOrNull(keys, values) !== want)
    return {
      blockers: [fileBlocker(files, `directory ${dir} does not name the partition ${want} as Hive would (k=v/…): ${names(files)}`)],
    };
  const taken = inv.partitions.find((p) => trim(p.sd.location ?? '') === dir);
  if (taken !== undefined)
    return { blockers: [fileBlocker(files, `directory ${dir} is already partition ${taken.name}'s location: ${names(files)}`)] };
  const name = trim(dir).split('/').slice(-keys.length).join('/');
  return {
    add: group(values, name, spelledLike(inv.table.sd.location ?? '', files[0]?.path ?? ''), files),
    blockers: checkFormat(files, hiveFormat(inv.table, inv.table.sd), `new partition ${name}`),
  };
}

/** Where each appended file goes in Hive (`inv` is the Hive table as saved; `spec`/`schema` ours). */
export function placeFiles(inv: TableInventory, spec: PartitionSpec, schema: Schema, files: readonly AppendedFile[]): Placement {
  if (inv.table.partitionKeys.length === 0) return placeUnpartitioned(inv, files);
  const keys = partitionType(schema, spec).map(({ field, type }) => ({ name: field.name, type }));
  const byTuple = new Map<string, HivePartition>();
  for (const p of inv.partitions) {
    const k = typedOrNull(keys, p.values);
    if (k !== null) byTuple.set(k, p);
  }
  const groups = new Map<string, AppendedFile[]>();
  for (const f of files) groups.set(tupleKey(f.partition), [...(groups.get(tupleKey(f.partition)) ?? []), f]);
  const visible: PartitionPutBack[] = [];
  const add: PartitionPutBack[] = [];
  const blockers: PutBackBlocker[] = [];
  for (const [k, fs] of groups) {
    const r = placePartition(inv, keys, byTuple.get(k), fs);
    if (r.visible !== undefined) visible.push(r.visible);
    if (r.add !== undefined) add.push(r.add);
    blockers.push(...r.blockers);
  }
  return { visible, add, blockers };
}

/** The Hive partition to add for `g`: the table's storage descriptor (format, SerDe, columns) at the files' directory. */
export function hivePartitionOf(table: HiveTable, g: PartitionPutBack, createTime: number): HivePartition {
  return {
    values: g.values,
    name: g.name,
    createTime,
    lastAccessTime: 0,
    sd: { ...table.sd, location: g.location, parameters: {} },
    parameters: {},
  };
}

/** ROLLBACK_BLOCKED naming every blocking snapshot, its operation and why (not retryable: the table stays as it is). */
export function putBackBlocked(source: string, blockers: readonly PutBackBlocker[]): MigrationError {
  const list = blockers.map((b) => `snapshot ${b.snapshotId} (${b.operation}): ${b.reason}`).join(' | ');
  return new MigrationError(
    ErrorCode.ROLLBACK_BLOCKED,
    `${source}: the Iceberg table has commits since ours that cannot be put back into Hive — ${list}. Nothing was changed. Roll back or rewrite those snapshots in Iceberg first, or rollback --force to drop them (audited).`,
    { table: source, blockers: blockers.map((b) => ({ ...b })) },
    { retryable: false },
  );
}
