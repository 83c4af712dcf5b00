// Test fixtures for the backing-DB readers: one database with a partitioned Parquet table
// (special-character and null partition values, params, bucketing, sort columns, skew, a partition
// with its own schema and location), an unpartitioned text table and a view — created through the
// real HMS Thrift API so the rows in the backing DB are exactly what HMS writes.
import type { HmsConnection } from '../../../adapters/hms/thrift/connection';
import * as ttypes from '../../../thrift-idl/gen/hive_metastore_types';

type TableArgs = NonNullable<ConstructorParameters<typeof ttypes.Table>[0]>;
type SdArgs = NonNullable<ConstructorParameters<typeof ttypes.StorageDescriptor>[0]>;

const PARQUET = {
  inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
  outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
  serde: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
};
const TEXT = {
  inputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
  outputFormat: 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat',
  serde: 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe',
};

export const SALES_COLUMNS = [
  { name: 'id', type: 'bigint', comment: 'row id' },
  { name: 'name', type: 'varchar(64)', comment: '' },
  { name: 'amount', type: 'decimal(12,2)', comment: null },
  { name: 'attrs', type: 'struct<color:string,tags:array<string>,score:map<string,double>>', comment: 'nested' },
] as const;

/** Partition values (dt, region): special characters, unicode, and a null (default partition). */
export const SALES_PARTITIONS: readonly (readonly [string, string | null])[] = [
  ['2024-01-01', 'us/east'],
  ['2024-01-01', 'a=b:c%d#e'],
  ['2024-01-02', 'caf\u00e9 \u00fcber'],
  ['2024-01-02', null],
  ['2024-01-03', 'plain'],
];

function sd(
  args: Partial<SdArgs> & Pick<SdArgs, 'cols' | 'location'>,
  fmt = PARQUET,
  serdeParams: Record<string, string> = { 'serialization.format': '1' },
): ttypes.StorageDescriptor {
  return new ttypes.StorageDescriptor({
    inputFormat: fmt.inputFormat,
    outputFormat: fmt.outputFormat,
    compressed: false,
    numBuckets: -1,
    serdeInfo: new ttypes.SerDeInfo({ name: null as unknown as string, serializationLib: fmt.serde, parameters: serdeParams }),
    bucketCols: [],
    sortCols: [],
    parameters: {},
    ...args,
  });
}

function fields(cols: readonly { name: string; type: string; comment: string | null }[]): ttypes.FieldSchema[] {
  return cols.map((c) => new ttypes.FieldSchema({ name: c.name, type: c.type, comment: c.comment as string }));
}

function table(
  args: Omit<TableArgs, 'viewOriginalText' | 'viewExpandedText' | 'retention' | 'lastAccessTime' | 'createTime'> & Partial<TableArgs>,
): ttypes.Table {
  return new ttypes.Table({ createTime: 1_700_000_000, lastAccessTime: 0, retention: 0, ...args } as TableArgs);
}

export interface Fixture {
  readonly db: string;
  readonly root: string;
}

export async function createFixture(hms: HmsConnection, db: string, bucketRoot: string): Promise<Fixture> {
  const root = `${bucketRoot}/${db}`;
  await hms.call('create_database', (c) =>
    c.create_database(
      new ttypes.Database({
        name: db,
        description: 'dbreader fixture',
        locationUri: root,
        parameters: { team: 'data-platform', 'empty.value': '' },
        ownerName: 'etl',
        ownerType: ttypes.PrincipalType.ROLE,
      }),
    ),
  );
  const salesLoc = `${root}/sales`;
  await hms.call('create_table', (c) =>
    c.create_table(
      table({
        tableName: 'sales',
        dbName: db,
        owner: 'alice',
        ownerType: ttypes.PrincipalType.USER,
        tableType: 'EXTERNAL_TABLE',
        parameters: { EXTERNAL: 'TRUE', 'custom.key': 'value with spaces', 'empty.value': '', comment: 'sales facts' },
        partitionKeys: fields([
          { name: 'dt', type: 'string', comment: 'day' },
          { name: 'region', type: 'string', comment: null },
        ]),
        sd: sd({
          cols: fields(SALES_COLUMNS),
          location: salesLoc,
          numBuckets: 4,
          bucketCols: ['id'],
          sortCols: [new ttypes.Order({ col: 'id', order: 1 }), new ttypes.Order({ col: 'name', order: 0 })],
          parameters: { 'sd.param': 'x' },
          skewedInfo: new ttypes.SkewedInfo({
            skewedColNames: ['name'],
            skewedColValues: [['a'], ['b']],
            // The generated writer iterates a string key char by char: 'a' is the tuple ['a'].
            skewedColValueLocationMaps: { a: `${salesLoc}/name=a` },
          }),
          storedAsSubDirectories: true,
        }),
      }),
    ),
  );
  const parts = SALES_PARTITIONS.map(([dt, region], i) => {
    const outside = i === 4;
    const cols = i === 4 ? fields([...SALES_COLUMNS, { name: 'extra', type: 'int', comment: null }]) : fields(SALES_COLUMNS);
    return new ttypes.Partition({
      values: [dt, region ?? '__HIVE_DEFAULT_PARTITION__'],
      dbName: db,
      tableName: 'sales',
      createTime: 1_700_000_100 + i,
      lastAccessTime: 0,
      parameters: i === 0 ? { 'part.param': 'p0' } : {},
      sd: sd({ cols, location: outside ? `${root}/elsewhere/p4` : `${salesLoc}/p${i}`, numBuckets: 4, bucketCols: ['id'] }),
    });
  });
  await hms.call('add_partitions', (c) => c.add_partitions(parts));

  await hms.call('create_table', (c) =>
    c.create_table(
      table({
        tableName: 'plain_text',
        dbName: db,
        owner: 'bob',
        tableType: 'EXTERNAL_TABLE',
        parameters: { EXTERNAL: 'TRUE' },
        partitionKeys: [],
        sd: sd({ cols: fields([{ name: 'line', type: 'string', comment: null }]), location: `${root}/plain_text` }, TEXT, {
          'field.delim': ',',
          'serialization.format': ',',
        }),
      }),
    ),
  );
  await hms.call('create_table', (c) =>
    c.create_table(
      table({
        tableName: 'v_sales',
        dbName: db,
        owner: 'alice',
        tableType: 'VIRTUAL_VIEW',
        parameters: {},
        partitionKeys: [],
        viewOriginalText: 'select id, name from sales',
        viewExpandedText: `select \`sales\`.\`id\`, \`sales\`.\`name\` from \`${db}\`.\`sales\``,
        sd: new ttypes.StorageDescriptor({
          cols: fields([
            { name: 'id', type: 'bigint', comment: null },
            { name: 'name', type: 'varchar(64)', comment: null },
          ]),
          location: null as unknown as string,
          inputFormat: 'org.apache.hadoop.mapred.SequenceFileInputFormat',
          outputFormat: 'org.apache.hadoop.hive.ql.io.HiveSequenceFileOutputFormat',
          compressed: false,
          numBuckets: -1,
          serdeInfo: new ttypes.SerDeInfo({ name: null as unknown as string, serializationLib: null as unknown as string, parameters: {} }),
          bucketCols: [],
          sortCols: [],
          parameters: {},
        }),
      }),
    ),
  );
  return { db, root };
}

export async function dropFixture(hms: HmsConnection, db: string): Promise<void> {
  for (const t of ['v_sales', 'plain_text', 'sales']) {
    await hms.call('drop_table', (c) => c.drop_table(db, t, false)).catch(() => undefined);
  }
  await hms.call('drop_database', (c) => c.drop_database(db, false, true)).catch(() => undefined);
}
