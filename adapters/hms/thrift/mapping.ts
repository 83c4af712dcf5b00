// Generated Thrift structs ⇄ the core/hive model. Thrift → model for reads (inventory); model →
// Thrift for the writes (create/alter/add_partitions). Adapter code; the model never carries wire
// types: node-int64 becomes number, maps become plain objects, SkewedInfo's list-keyed map becomes
// tuples (skewed.ts), `__HIVE_DEFAULT_PARTITION__` becomes null and back.
import type Int64 from 'node-int64';
import { ErrorCode } from '../../../core/errors';
import { HIVE_DEFAULT_PARTITION } from '../../../core/hive/model';
import type {
  HiveColumn,
  HiveDatabase,
  HivePartition,
  HiveTable,
  Params,
  SerDe,
  SkewedInfo,
  SortColumn,
  StorageDescriptor,
} from '../../../core/hive/model';
import { compareCodeUnits, normalizeParamsObject, normalizeSkewed, nullable, partitionValue } from '../../../core/hive/normalize';
import * as ttypes from '../../../thrift-idl/gen/hive_metastore_types';
import { hmsError } from './errors';
import { setSkewedLocations, skewedLocations } from './skewed';

type OwnerType = HiveTable['ownerType'];

const OWNER_TYPES: Readonly<Record<number, NonNullable<OwnerType>>> = {
  [ttypes.PrincipalType.USER]: 'USER',
  [ttypes.PrincipalType.ROLE]: 'ROLE',
  [ttypes.PrincipalType.GROUP]: 'GROUP',
};

function ownerType(t: number | null | undefined): OwnerType {
  return t == null ? null : (OWNER_TYPES[t] ?? null);
}

function principalType(t: OwnerType): ttypes.PrincipalType | undefined {
  return t === null ? undefined : ttypes.PrincipalType[t];
}

/** i64 fields arrive as node-int64; HMS ids/times stay far below 2^53. */
export function toNumber(v: Int64 | number | null | undefined): number | null {
  if (v == null) return null;
  return typeof v === 'number' ? v : v.toNumber(true);
}

/** Thrift maps arrive as plain objects (or null): normalize.ts rule 1. */
export function params(p: { [k: string]: string } | null | undefined): Params {
  return normalizeParamsObject(p);
}

function column(f: ttypes.FieldSchema): HiveColumn {
  return { name: f.name, type: f.type, comment: nullable(f.comment) };
}

function skewed(s: ttypes.SkewedInfo | null | undefined): SkewedInfo | null {
  if (s == null) return null;
  // Empty (every non-skewed SD) → null; locations sorted by tuple: normalize.ts rule 5.
  return normalizeSkewed(s.skewedColNames ?? [], s.skewedColValues ?? [], skewedLocations(s));
}

function serde(s: ttypes.SerDeInfo | null | undefined): SerDe {
  return { name: nullable(s?.name), serializationLib: nullable(s?.serializationLib), parameters: params(s?.parameters) };
}

export function storageDescriptor(sd: ttypes.StorageDescriptor | null | undefined, where: string): StorageDescriptor {
  if (sd == null) throw hmsError(ErrorCode.HMS_BAD_METADATA, `${where}: HMS returned no storage descriptor`, { object: where });
  return {
    columns: (sd.cols ?? []).map(column),
    location: nullable(sd.location),
    inputFormat: nullable(sd.inputFormat),
    outputFormat: nullable(sd.outputFormat),
    compressed: sd.compressed ?? false,
    numBuckets: sd.numBuckets ?? -1,
    serde: serde(sd.serdeInfo),
    bucketColumns: [...(sd.bucketCols ?? [])],
    sortColumns: (sd.sortCols ?? []).map((o): SortColumn => ({ column: o.col, order: o.order })),
    parameters: params(sd.parameters),
    skewed: skewed(sd.skewedInfo),
    storedAsSubDirectories: sd.storedAsSubDirectories ?? false,
  };
}

export function toDatabase(d: ttypes.Database): HiveDatabase {
  return {
    name: d.name,
    description: nullable(d.description),
    locationUri: nullable(d.locationUri),
    parameters: params(d.parameters),
    owner: nullable(d.ownerName),
    ownerType: ownerType(d.ownerType),
  };
}

export function toTable(t: ttypes.Table): HiveTable {
  const where = `${t.dbName}.${t.tableName}`;
  return {
    database: t.dbName,
    name: t.tableName,
    owner: nullable(t.owner),
    // An absent field 18 decodes as its IDL default, USER (normalize.ts rule 2).
    ownerType: ownerType(t.ownerType),
    createTime: t.createTime ?? 0,
    lastAccessTime: t.lastAccessTime ?? 0,
    retention: t.retention ?? 0,
    tableType: t.tableType,
    sd: storageDescriptor(t.sd, where),
    partitionKeys: (t.partitionKeys ?? []).map(column),
    parameters: params(t.parameters),
    viewOriginalText: nullable(t.viewOriginalText),
    viewExpandedText: nullable(t.viewExpandedText),
    temporary: t.temporary ?? false,
  };
}

/**
 * Partition values on the wire are already unescaped (HMS stores PARTITION_KEY_VALS raw); only the
 * default-partition marker needs mapping. `name` is the escaped name HMS listed for it.
 */
export function toPartition(p: ttypes.Partition, name: string): HivePartition {
  return {
    values: (p.values ?? []).map(partitionValue),
    name,
    createTime: p.createTime ?? 0,
    lastAccessTime: p.lastAccessTime ?? 0,
    sd: storageDescriptor(p.sd, `${p.dbName}.${p.tableName}/${name}`),
    parameters: params(p.parameters),
  };
}

/** Partitions by name, by UTF-16 code unit (normalize.ts rule 8). */
export function byName(a: HivePartition, b: HivePartition): number {
  return compareCodeUnits(a.name, b.name);
}

// ── model → Thrift (writes) ────────────────────────────────────────────────────────────────────

function fromColumn(c: HiveColumn): ttypes.FieldSchema {
  return new ttypes.FieldSchema({ name: c.name, type: c.type, comment: c.comment as string });
}

function fromSkewed(s: SkewedInfo | null): ttypes.SkewedInfo {
  const info = new ttypes.SkewedInfo({
    skewedColNames: [...(s?.columnNames ?? [])],
    skewedColValues: (s?.values ?? []).map((v) => [...v]),
    skewedColValueLocationMaps: {},
  });
  setSkewedLocations(info, s?.locations ?? []);
  return info;
}

export function fromStorageDescriptor(sd: StorageDescriptor): ttypes.StorageDescriptor {
  return new ttypes.StorageDescriptor({
    cols: sd.columns.map(fromColumn),
    location: sd.location as string,
    inputFormat: sd.inputFormat as string,
    outputFormat: sd.outputFormat as string,
    compressed: sd.compressed,
    numBuckets: sd.numBuckets,
    serdeInfo: new ttypes.SerDeInfo({
      name: sd.serde.name as string,
      serializationLib: sd.serde.serializationLib as string,
      parameters: { ...sd.serde.parameters },
    }),
    bucketCols: [...sd.bucketColumns],
    sortCols: sd.sortColumns.map((o) => new ttypes.Order({ col: o.column, order: o.order })),
    parameters: { ...sd.parameters },
    skewedInfo: fromSkewed(sd.skewed),
    storedAsSubDirectories: sd.storedAsSubDirectories,
  });
}

export function fromDatabase(d: HiveDatabase): ttypes.Database {
  const owner = principalType(d.ownerType);
  return new ttypes.Database({
    name: d.name,
    description: d.description as string,
    locationUri: d.locationUri as string,
    parameters: { ...d.parameters },
    ...(d.owner === null ? {} : { ownerName: d.owner }),
    ...(owner === undefined ? {} : { ownerType: owner }),
  });
}

type TableArgs = NonNullable<ConstructorParameters<typeof ttypes.Table>[0]>;

export function fromTable(t: HiveTable): ttypes.Table {
  const owner = principalType(t.ownerType);
  // Nullable model fields go out as null (unset on the wire), as Hive itself sends them.
  const args = {
    tableName: t.name,
    dbName: t.database,
    owner: t.owner,
    createTime: t.createTime,
    lastAccessTime: t.lastAccessTime,
    retention: t.retention,
    sd: fromStorageDescriptor(t.sd),
    partitionKeys: t.partitionKeys.map(fromColumn),
    parameters: { ...t.parameters },
    viewOriginalText: t.viewOriginalText,
    viewExpandedText: t.viewExpandedText,
    tableType: t.tableType,
    temporary: t.temporary,
    ...(owner === undefined ? {} : { ownerType: owner }),
  };
  return new ttypes.Table(args as unknown as TableArgs);
}

export function fromPartition(database: string, table: string, p: HivePartition): ttypes.Partition {
  return new ttypes.Partition({
    values: p.values.map((v) => v ?? HIVE_DEFAULT_PARTITION),
    dbName: database,
    tableName: table,
    createTime: p.createTime,
    lastAccessTime: p.lastAccessTime,
    sd: fromStorageDescriptor(p.sd),
    parameters: { ...p.parameters },
  });
}
