// ThriftHmsReader against the real HMS instances of the stack: a fixture written through
// ThriftHmsWriter is read back field by field (partition values with special characters and
// nulls, insert-only table via client capabilities, bucketing, skew tuples, view text), in
// batches of 2, and unknown objects are HMS_NOT_FOUND. Each HMS gets its own database.
import { ThriftHmsReader } from '../../../adapters/hms/thrift/reader';
import { ThriftHmsWriter } from '../../../adapters/hms/thrift/writer';
import { HmsCaller } from '../../../adapters/hms/thrift/client';
import type { MigrationError } from '../../../core/errors';
import type { TableInventory } from '../../../core/hive/model';
import { testStack, uniqueName } from '../../helpers/stack-env';
import { createFixture, dropFixture, fixture } from './fixture';
import type { Fixture } from './fixture';

const env = testStack();
const failure = (p: Promise<unknown>): Promise<MigrationError> =>
  p.then(
    () => Promise.reject(new Error('expected a failure')),
    (e: MigrationError) => e,
  );

const servers: [string, string, string][] = [
  ['hms-pg', env.HIM_HMS_PG_URI as string, '4'],
  ['hms-mariadb', env.HIM_HMS_MARIADB_URI as string, '4'],
];
if (env.HIM_HMS3_PG_URI !== undefined && process.env.HIM_TEST_COMPONENTS?.split(',').includes('hms3-pg') !== false) {
  servers.push(['hms3-pg', env.HIM_HMS3_PG_URI, '3']);
}

describe.each(servers)('ThriftHmsReader on %s', (_name, uri, major) => {
  let f: Fixture;
  let caller: HmsCaller;
  let reader: ThriftHmsReader;
  let writer: ThriftHmsWriter;
  let all: TableInventory[];
  const byName = (n: string): TableInventory => all.find((t) => t.table.name === n) as TableInventory;

  beforeAll(async () => {
    f = fixture(uniqueName('him_rd'));
    // Batches of 2: 5 tables → 3 get_table_objects_by_name_req calls; 4 partitions → 2 by-names calls.
    caller = new HmsCaller({ uri, callTimeoutMs: 60_000, poolSize: 3, tableBatchSize: 2, partitionBatchSize: 2, callsPerSecond: 100 });
    reader = new ThriftHmsReader(caller);
    writer = new ThriftHmsWriter(caller);
    await createFixture(writer, f);
    all = await reader.getTables(f.db.name, await reader.listTables(f.db.name));
  });
  afterAll(async () => {
    if (writer) await dropFixture(writer, f);
    await reader?.close();
  });

  it('lists the database and its tables (sorted), reads the database', async () => {
    expect(await reader.listDatabases()).toContain(f.db.name);
    expect(await reader.listTables(f.db.name)).toEqual(['bucketed', 'events', 'insert_only', 'skewed', 'v_events']);
    const db = await reader.getDatabase(f.db.name);
    expect(db).toMatchObject({
      name: f.db.name,
      description: 'hms-thrift reader test',
      owner: 'him-owner',
      ownerType: 'ROLE',
      parameters: { team: 'migration', 'x.y': '' },
    });
    expect(db.locationUri).toContain(f.root);
  });

  it('returns every table, in the order asked, with batch size 2', async () => {
    const order = ['v_events', 'skewed', 'events', 'bucketed', 'insert_only'];
    const got = await reader.getTables(f.db.name, order);
    expect(got.map((t) => t.table.name)).toEqual(order);
    const stats = reader.callStats();
    expect(stats.get_table_objects_by_name_req?.calls).toBeGreaterThanOrEqual(6);
  });

  it('partitioned Parquet table: columns, keys, params, partitions sorted by escaped name with unescaped values and null', () => {
    const { table, partitions } = byName('events');
    expect(table).toMatchObject({
      database: f.db.name,
      tableType: 'EXTERNAL_TABLE',
      owner: 'him-test',
      ownerType: 'USER',
      temporary: false,
    });
    // HMS stamps createTime itself on create_table.
    expect(table.createTime).toBeGreaterThan(1_700_000_000);
    expect(table.sd.columns).toEqual([
      { name: 'id', type: 'bigint', comment: 'row id' },
      { name: 'payload', type: 'struct<a:int,b:array<string>>', comment: null },
      { name: 'amount', type: 'decimal(12,2)', comment: null },
    ]);
    expect(table.partitionKeys).toEqual([
      { name: 'dt', type: 'string', comment: null },
      { name: 'region', type: 'string', comment: 'sales region' },
    ]);
    expect(table.parameters).toMatchObject({ EXTERNAL: 'TRUE', 'him.test': 'yes', comment: 'events, partitioned' });
    expect(table.sd.serde.serializationLib).toBe('org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe');
    expect(table.sd.serde.parameters).toEqual({ 'serialization.format': '1' });
    expect(table.sd.skewed).toBeNull();
    expect(partitions.map((p) => p.name)).toEqual([
      'dt=2024-01-01/region=us%2Feast',
      'dt=2024-01-02/region=a%3Db c%25d',
      'dt=2024-01-03/region=héllo%3A%3F%23',
      'dt=__HIVE_DEFAULT_PARTITION__/region=x',
    ]);
    expect(partitions.map((p) => p.values)).toEqual([
      ['2024-01-01', 'us/east'],
      ['2024-01-02', 'a=b c%d'],
      ['2024-01-03', 'héllo:?#'],
      [null, 'x'],
    ]);
    const p2 = partitions.find((p) => p.values[0] === null);
    // HMS stores partition locations as Hadoop paths print them (file:/…).
    expect(p2?.sd.location).toBe(`file:${f.root}/events/p2`);
    expect(p2?.parameters).toMatchObject({ 'him.part': '2' });
    expect(p2?.createTime).toBeGreaterThan(0);
  });

  it('insert-only table (needs INSERT_ONLY_TABLES capabilities on read)', () => {
    const { table, partitions } = byName('insert_only');
    expect(table.tableType).toBe('MANAGED_TABLE');
    expect(table.parameters).toMatchObject({ transactional: 'true', transactional_properties: 'insert_only' });
    expect(table.parameters.TRANSLATED_TO_EXTERNAL).toBeUndefined();
    expect(partitions).toEqual([]);
  });

  it('bucketed and sorted ORC table keeps its buckets (no processor capabilities sent)', () => {
    const { sd } = byName('bucketed').table;
    expect(sd).toMatchObject({
      numBuckets: 4,
      bucketColumns: ['id'],
      sortColumns: [
        { column: 'id', order: 1 },
        { column: 'name', order: 0 },
      ],
    });
    expect(sd.serde.serializationLib).toBe('org.apache.hadoop.hive.ql.io.orc.OrcSerde');
    expect(byName('bucketed').table.parameters.bucketing_version).toBe('2');
  });

  it('skewed table: value tuples with commas survive both ways (raw-protocol codec)', () => {
    const { sd } = byName('skewed').table;
    expect(sd.storedAsSubDirectories).toBe(true);
    expect(sd.skewed?.columnNames).toEqual(['k', 'v']);
    expect(sd.skewed?.values).toEqual([
      ['a,b', 'c'],
      ['a', 'b,c'],
      ['x', 'y'],
    ]);
    expect(sd.skewed?.locations).toEqual([
      { values: ['a', 'b,c'], location: `file://${f.root}/skewed/k=a/v=b,c` },
      { values: ['a,b', 'c'], location: `file://${f.root}/skewed/k=a,b/v=c` },
      { values: ['x', 'y'], location: `file://${f.root}/skewed/k=x/v=y` },
    ]);
  });

  it('view: type and text', () => {
    const { table } = byName('v_events');
    expect(table).toMatchObject({ tableType: 'VIRTUAL_VIEW', viewOriginalText: 'select id from events' });
    expect(table.viewExpandedText).toContain('`events`.`id`');
    expect(table.sd.location).toBeNull();
  });

  it(`probes get_partitions_by_names_req once and caches the answer (HMS ${major}: ${major === '4' ? 'has it' : 'falls back'})`, () => {
    expect(caller.features.partitionsByNamesReq).toBe(major === '4');
    const stats = reader.callStats();
    if (major === '4') expect(stats.get_partitions_by_names).toBeUndefined();
    else expect(stats.get_partitions_by_names_req?.calls).toBe(1);
  });

  it('a small table is read with one get_partitions call, deep-equal to the batched path (names as HMS makes them)', async () => {
    const fast = new ThriftHmsReader({ uri, partitionBatchSize: 500 });
    try {
      const [events] = await fast.getTables(f.db.name, ['events']);
      expect(events).toEqual(byName('events'));
      expect(fast.callStats().get_partitions?.calls).toBe(1);
      expect(fast.callStats().get_partition_names).toBeUndefined();
    } finally {
      await fast.close();
    }
  });

  it('unknown database / table → HMS_NOT_FOUND (not retryable)', async () => {
    const missingDb = uniqueName('him_nodb');
    for (const e of [
      await failure(reader.getDatabase(missingDb)),
      await failure(reader.listTables(missingDb)),
      await failure(reader.getTables(missingDb, ['t'])),
    ]) {
      expect(e.code).toBe('HMS_NOT_FOUND');
      expect(e.retryable).toBe(false);
    }
    const e = await failure(reader.getTables(f.db.name, ['events', 'no_such_table']));
    expect(e.code).toBe('HMS_NOT_FOUND');
    expect(e.context).toMatchObject({ database: f.db.name, table: 'no_such_table' });
  });

  it('writes: create twice → HMS_ALREADY_EXISTS; alter with an environment context round-trips', async () => {
    expect((await failure(writer.createTable(f.tables.bucketed))).code).toBe('HMS_ALREADY_EXISTS');
    const [before] = await reader.getTables(f.db.name, ['bucketed']);
    const changed = { ...before!.table, parameters: { ...before!.table.parameters, 'him.altered': '1' } };
    await writer.alterTable(f.db.name, 'bucketed', changed, { DO_NOT_UPDATE_STATS: 'true' });
    const [after] = await reader.getTables(f.db.name, ['bucketed']);
    expect(after!.table.parameters['him.altered']).toBe('1');
    expect(after!.table.sd).toEqual(before!.table.sd);
  });
});
