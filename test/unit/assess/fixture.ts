// Builders for assessment tests: a plain external Parquet table, overridable field by field.
import type { HivePartition, HiveTable, StorageDescriptor, TableInventory } from '../../../core/hive/model';

export const PARQUET_SD: StorageDescriptor = {
  columns: [
    { name: 'id', type: 'bigint', comment: null },
    { name: 'v', type: 'string', comment: null },
  ],
  location: 's3a://wh/db/t',
  inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
  outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
  compressed: false,
  numBuckets: -1,
  serde: { name: null, serializationLib: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe', parameters: {} },
  bucketColumns: [],
  sortColumns: [],
  parameters: {},
  skewed: null,
  storedAsSubDirectories: false,
};

export const TEXT_SD: Partial<StorageDescriptor> = {
  inputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
  serde: { name: null, serializationLib: 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe', parameters: {} },
};

export function table(o: Partial<Omit<HiveTable, 'sd'>> & { sd?: Partial<StorageDescriptor> } = {}): HiveTable {
  const { sd, ...rest } = o;
  return {
    database: 'db',
    name: 't',
    owner: 'alice',
    ownerType: 'USER',
    createTime: 0,
    lastAccessTime: 0,
    retention: 0,
    tableType: 'EXTERNAL_TABLE',
    partitionKeys: [],
    parameters: { numFiles: '3', totalSize: '3000' },
    viewOriginalText: null,
    viewExpandedText: null,
    temporary: false,
    ...rest,
    sd: { ...PARQUET_SD, ...sd },
  };
}

export function partition(name: string, o: { sd?: Partial<StorageDescriptor>; parameters?: Record<string, string> } = {}): HivePartition {
  return {
    values: [name.split('=')[1] ?? null],
    name,
    createTime: 0,
    lastAccessTime: 0,
    sd: { ...PARQUET_SD, location: `s3a://wh/db/t/${name}`, ...o.sd },
    parameters: o.parameters ?? { numFiles: '1', totalSize: '100' },
  };
}

export function inv(t: HiveTable, partitions: HivePartition[] = []): TableInventory {
  return { table: t, partitions };
}
