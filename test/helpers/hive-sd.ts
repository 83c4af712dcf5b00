// A Hive Parquet storage descriptor as Hive writes one (the fixtures' tables): MapredParquet
// input/output formats, ParquetHiveSerDe, no buckets. The catalog tests build their tables with it.
import type { HiveColumn, StorageDescriptor } from '../../core/hive/model';

/** The id/name/amount columns of the catalog fixtures' files. */
export const FIXTURE_COLUMNS: readonly HiveColumn[] = [
  { name: 'id', type: 'bigint', comment: null },
  { name: 'name', type: 'string', comment: null },
  { name: 'amount', type: 'decimal(10,2)', comment: null },
];

export function parquetSd(location: string, columns: readonly HiveColumn[] = FIXTURE_COLUMNS): StorageDescriptor {
  return {
    columns: [...columns],
    location,
    inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
    outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
    compressed: false,
    numBuckets: -1,
    serde: {
      name: null,
      serializationLib: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
      parameters: { 'serialization.format': '1' },
    },
    bucketColumns: [],
    sortColumns: [],
    parameters: {},
    skewed: null,
    storedAsSubDirectories: false,
  };
}
