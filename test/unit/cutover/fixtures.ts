// The Hive objects the cutover unit tests work on: a MANAGED, partitioned sales.orders.
import type { HivePartition, HiveTable } from '../../../core/hive/model';

export const table = (o: Partial<HiveTable> = {}): HiveTable => ({
  database: 'sales',
  name: 'orders',
  owner: 'hive',
  ownerType: 'USER',
  createTime: 1,
  lastAccessTime: 0,
  retention: 0,
  tableType: 'MANAGED_TABLE',
  partitionKeys: [{ name: 'day', type: 'string', comment: null }],
  parameters: { transient_lastDdlTime: '1700000000', numRows: '10' },
  viewOriginalText: null,
  viewExpandedText: null,
  temporary: false,
  sd: {
    columns: [{ name: 'id', type: 'bigint', comment: null }],
    location: 's3a://hive/warehouse/sales.db/orders',
    inputFormat: 'in',
    outputFormat: 'out',
    compressed: false,
    numBuckets: 0,
    serde: { name: null, serializationLib: 'lib', parameters: {} },
    bucketColumns: [],
    sortColumns: [],
    parameters: {},
    skewed: null,
    storedAsSubDirectories: false,
  },
  ...o,
});

export const part = (name: string, location: string): HivePartition => ({
  values: [name.split('=')[1] as string],
  name,
  createTime: 1,
  lastAccessTime: 0,
  sd: { ...table().sd, location },
  parameters: {},
});
