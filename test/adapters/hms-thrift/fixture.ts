// A small warehouse built through ThriftHmsWriter (model objects in, so the writes are tested too):
// partitioned Parquet with special-character and null partition values, an insert-only table, a
// bucketed+sorted ORC table, a skewed table whose values contain commas, and a view. Locations are
// local directories (HMS creates them), removed again by dropFixture.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { HiveColumn, HiveDatabase, HivePartition, HiveTable, StorageDescriptor } from '../../../core/hive/model';
import type { ThriftHmsWriter } from '../../../adapters/hms/thrift/writer';

const PARQUET = {
  inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
  outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
  serializationLib: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
};
const ORC = {
  inputFormat: 'org.apache.hadoop.hive.ql.io.orc.OrcInputFormat',
  outputFormat: 'org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat',
  serializationLib: 'org.apache.hadoop.hive.ql.io.orc.OrcSerde',
};
const TEXT = {
  inputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
  outputFormat: 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat',
  serializationLib: 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe',
};

const col = (name: string, type: string, comment: string | null = null): HiveColumn => ({ name, type, comment });

function sd(
  location: string | null,
  format: typeof PARQUET,
  columns: HiveColumn[],
  extra: Partial<StorageDescriptor> = {},
): StorageDescriptor {
  return {
    columns,
    location,
    inputFormat: format.inputFormat,
    outputFormat: format.outputFormat,
    compressed: false,
    numBuckets: -1,
    serde: { name: null, serializationLib: format.serializationLib, parameters: { 'serialization.format': '1' } },
    bucketColumns: [],
    sortColumns: [],
    parameters: {},
    skewed: null,
    storedAsSubDirectories: false,
    ...extra,
  };
}

function table(database: string, name: string, s: StorageDescriptor, extra: Partial<HiveTable> = {}): HiveTable {
  return {
    database,
    name,
    owner: 'him-test',
    ownerType: 'USER',
    createTime: 1_700_000_000,
    lastAccessTime: 0,
    retention: 0,
    tableType: 'EXTERNAL_TABLE',
    sd: s,
    partitionKeys: [],
    parameters: { EXTERNAL: 'TRUE' },
    viewOriginalText: null,
    viewExpandedText: null,
    temporary: false,
    ...extra,
  };
}

/** Partition values of `events`: '/', '=', '%', ' ', ':', '?', '#', non-ASCII, and a null. */
export const EVENT_PARTITIONS: readonly (readonly [string | null, string])[] = [
  ['2024-01-01', 'us/east'],
  ['2024-01-02', 'a=b c%d'],
  [null, 'x'],
  ['2024-01-03', 'héllo:?#'],
];

export interface Fixture {
  readonly db: HiveDatabase;
  readonly root: string;
  readonly tables: {
    readonly events: HiveTable;
    readonly insertOnly: HiveTable;
    readonly bucketed: HiveTable;
    readonly skewed: HiveTable;
    readonly view: HiveTable;
  };
  readonly eventPartitions: readonly HivePartition[];
}

export function fixture(dbName: string): Fixture {
  const root = path.join(tmpdir(), 'him-hms-thrift-test', dbName);
  const loc = (t: string): string => `file://${root}/${t}`;
  const cols = [col('id', 'bigint', 'row id'), col('payload', 'struct<a:int,b:array<string>>'), col('amount', 'decimal(12,2)')];
  const db: HiveDatabase = {
    name: dbName,
    description: 'hms-thrift reader test',
    locationUri: `file://${root}`,
    parameters: { team: 'migration', 'x.y': '' },
    owner: 'him-owner',
    ownerType: 'ROLE',
  };
  const events = table(dbName, 'events', sd(loc('events'), PARQUET, cols), {
    partitionKeys: [col('dt', 'string'), col('region', 'string', 'sales region')],
    parameters: { EXTERNAL: 'TRUE', 'him.test': 'yes', comment: 'events, partitioned' },
  });
  const eventPartitions = EVENT_PARTITIONS.map(
    ([dt, region], i): HivePartition => ({
      values: [dt, region],
      name: '',
      createTime: 1_700_000_100 + i,
      lastAccessTime: 0,
      sd: sd(`${loc('events')}/p${i}`, PARQUET, cols),
      parameters: { 'him.part': String(i) },
    }),
  );
  const insertOnly = table(dbName, 'insert_only', sd(loc('insert_only'), TEXT, [col('k', 'string'), col('v', 'int')]), {
    tableType: 'MANAGED_TABLE',
    parameters: { transactional: 'true', transactional_properties: 'insert_only' },
  });
  const bucketed = table(
    dbName,
    'bucketed',
    sd(loc('bucketed'), ORC, [col('id', 'int'), col('name', 'varchar(20)')], {
      numBuckets: 4,
      bucketColumns: ['id'],
      sortColumns: [
        { column: 'id', order: 1 },
        { column: 'name', order: 0 },
      ],
    }),
    { parameters: { EXTERNAL: 'TRUE', bucketing_version: '2' } },
  );
  const skewed = table(
    dbName,
    'skewed',
    sd(loc('skewed'), TEXT, [col('k', 'string'), col('v', 'string')], {
      storedAsSubDirectories: true,
      skewed: {
        columnNames: ['k', 'v'],
        values: [
          ['a,b', 'c'],
          ['a', 'b,c'],
          ['x', 'y'],
        ],
        // 'a,b'+'c' and 'a'+'b,c' join to the same string: the generated codec would lose one.
        locations: [
          { values: ['a', 'b,c'], location: `${loc('skewed')}/k=a/v=b,c` },
          { values: ['a,b', 'c'], location: `${loc('skewed')}/k=a,b/v=c` },
          { values: ['x', 'y'], location: `${loc('skewed')}/k=x/v=y` },
        ],
      },
    }),
  );
  const view = table(dbName, 'v_events', sd(null, TEXT, [col('id', 'bigint')]), {
    tableType: 'VIRTUAL_VIEW',
    parameters: {},
    viewOriginalText: 'select id from events',
    viewExpandedText: `select \`events\`.\`id\` from \`${dbName}\`.\`events\``,
  });
  return { db, root, tables: { events, insertOnly, bucketed, skewed, view }, eventPartitions };
}

export async function createFixture(w: ThriftHmsWriter, f: Fixture): Promise<void> {
  await w.createDatabase(f.db);
  for (const t of Object.values(f.tables)) await w.createTable(t);
  await w.addPartitions(f.db.name, 'events', f.eventPartitions);
}

/** Unregister everything (deleteData=false), then remove the local directories HMS made. */
export async function dropFixture(w: ThriftHmsWriter, f: Fixture): Promise<void> {
  for (const t of Object.values(f.tables)) await w.dropTable(f.db.name, t.name).catch(() => undefined);
  await w.dropDatabase(f.db.name).catch(() => undefined);
  rmSync(f.root, { recursive: true, force: true });
}
