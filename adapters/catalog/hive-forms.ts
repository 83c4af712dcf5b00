// The table forms of the Hive catalog: what an Iceberg table looks like as an HMS table, how an
// in-place conversion parks the Hive original (EXTERNAL, renamed aside) and how to recognise it
// again, and Iceberg types as Hive types. Pure functions over the HMS model.
import type { HiveTable } from '../../core/hive/model';
import type { TableMetadata } from '../../core/iceberg/metadata';
import type { IcebergType } from '../../core/iceberg/types';
import { canonicalJson } from '../../core/hash';

export const ICEBERG_TABLE_TYPE = 'ICEBERG';
export const FILE_INPUT = 'org.apache.hadoop.mapred.FileInputFormat';
export const FILE_OUTPUT = 'org.apache.hadoop.mapred.FileOutputFormat';
export const LAZY_SIMPLE = 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe';

/** HMS answers 4.x alter_table with an EnvironmentContext check of one parameter (HIVE-26882). */
export const EXPECTED_PARAMETER_KEY = 'expected_parameter_key';
export const EXPECTED_PARAMETER_VALUE = 'expected_parameter_value';

export const isIceberg = (t: HiveTable): boolean => (t.parameters.table_type ?? '').toUpperCase() === ICEBERG_TABLE_TYPE;
/** What must not change between saving the original and altering it (HMS bumps times itself). */
export const comparable = (t: HiveTable): string =>
  canonicalJson({ ...t, lastAccessTime: 0, parameters: { ...t.parameters, transient_lastDdlTime: '' } });

/** Where an in-place conversion keeps a partitioned Hive table (with its partitions) while the Iceberg table has its name. */
export const ORIGINAL_SUFFIX = '__him_original';
export const originalAsideName = (name: string): string => `${name}${ORIGINAL_SUFFIX}`;

/** The original made EXTERNAL (first step of moving a partitioned table aside). */
export function externalized(original: HiveTable): HiveTable {
  return { ...original, tableType: 'EXTERNAL_TABLE', parameters: { ...original.parameters, EXTERNAL: 'TRUE' } };
}
/** The table aside (EXTERNAL, renamed) seen as the saved original it was: name, table type, EXTERNAL back. */
export function fromAside(aside: HiveTable, original: HiveTable): HiveTable {
  const parameters = { ...aside.parameters };
  if (original.parameters.EXTERNAL === undefined) delete parameters.EXTERNAL;
  else parameters.EXTERNAL = original.parameters.EXTERNAL;
  return { ...aside, name: original.name, tableType: original.tableType, parameters };
}
export const isExternal = (t: HiveTable): boolean =>
  t.tableType === 'EXTERNAL_TABLE' && (t.parameters.EXTERNAL ?? '').toUpperCase() === 'TRUE';
/** `t` is the saved original, possibly made EXTERNAL and renamed by us. */
export const isOriginal = (t: HiveTable, original: HiveTable): boolean =>
  comparable({ ...t, name: original.name }) === comparable(original) ||
  comparable({ ...t, name: original.name }) === comparable(externalized(original));

/** The Iceberg form of a Hive table, in place: same name, owner, location and columns. */
export function icebergForm(original: HiveTable, metadataLocation: string, previous: string | null): HiveTable {
  const params: Record<string, string> = {
    ...original.parameters,
    EXTERNAL: 'TRUE',
    table_type: ICEBERG_TABLE_TYPE,
    metadata_location: metadataLocation,
  };
  if (previous !== null) params.previous_metadata_location = previous;
  delete params.transient_lastDdlTime;
  return {
    ...original,
    tableType: 'EXTERNAL_TABLE',
    partitionKeys: [],
    parameters: params,
    sd: {
      ...original.sd,
      columns: [...original.sd.columns, ...original.partitionKeys],
      inputFormat: FILE_INPUT,
      outputFormat: FILE_OUTPUT,
      serde: { name: null, serializationLib: LAZY_SIMPLE, parameters: {} },
      numBuckets: 0,
      bucketColumns: [],
      sortColumns: [],
      skewed: null,
      storedAsSubDirectories: false,
    },
  };
}

/** Iceberg type → Hive type string (HiveSchemaUtil.convert). */
export function hiveType(t: IcebergType): string {
  switch (t.kind) {
    case 'boolean':
      return 'boolean';
    case 'int':
      return 'int';
    case 'long':
      return 'bigint';
    case 'float':
      return 'float';
    case 'double':
      return 'double';
    case 'date':
      return 'date';
    case 'time':
    case 'string':
    case 'uuid':
      return 'string';
    case 'timestamp':
      return 'timestamp';
    case 'timestamptz':
      return 'timestamp with local time zone';
    case 'binary':
    case 'fixed':
      return 'binary';
    case 'decimal':
      return `decimal(${t.precision},${t.scale})`;
    case 'struct':
      return `struct<${t.fields.map((f) => `${f.name}:${hiveType(f.type)}`).join(',')}>`;
    case 'list':
      return `array<${hiveType(t.element)}>`;
    case 'map':
      return `map<${hiveType(t.key)},${hiveType(t.value)}>`;
  }
}

/** A new HMS entry for an Iceberg table (HiveCatalog.registerTable): EXTERNAL, no partition keys, the current schema's columns. */
export function newIcebergTable(db: string, name: string, md: TableMetadata, metadataLocation: string): HiveTable {
  return {
    database: db,
    name,
    owner: null,
    ownerType: null,
    createTime: Math.floor(md.lastUpdatedMs / 1000),
    lastAccessTime: 0,
    retention: 0,
    tableType: 'EXTERNAL_TABLE',
    partitionKeys: [],
    parameters: { EXTERNAL: 'TRUE', table_type: ICEBERG_TABLE_TYPE, metadata_location: metadataLocation },
    viewOriginalText: null,
    viewExpandedText: null,
    temporary: false,
    sd: {
      columns:
        md.schemas
          .find((s) => s.schemaId === md.currentSchemaId)
          ?.fields.map((f) => ({ name: f.name, type: hiveType(f.type), comment: f.doc ?? null })) ?? [],
      location: md.location,
      inputFormat: FILE_INPUT,
      outputFormat: FILE_OUTPUT,
      compressed: false,
      numBuckets: 0,
      serde: { name: null, serializationLib: LAZY_SIMPLE, parameters: {} },
      bucketColumns: [],
      sortColumns: [],
      parameters: {},
      skewed: null,
      storedAsSubDirectories: false,
    },
  };
}
