// The backing-DB readers against the real HMS instances of the stack: a fixture created through
// Thrift (so the rows are exactly what HMS writes) is read with the DB reader of the matching
// backend and with ThriftHmsReader; specific fields are asserted on the DB path and the two paths
// must be deep-equal. Unknown database/table → HMS_NOT_FOUND; an unreachable DB → HMS_UNREACHABLE.
import { rmSync } from 'node:fs';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { MysqlHmsReader } from '../../../adapters/hms/db/mysql';
import { PostgresHmsReader } from '../../../adapters/hms/db/postgres';
import { openHms } from '../../../adapters/hms/thrift/connection';
import type { HmsConnection } from '../../../adapters/hms/thrift/connection';
import { ThriftHmsReader } from '../../../adapters/hms/thrift/reader';
import type { MigrationError } from '../../../core/errors';
import type { HmsReader, TableInventory } from '../../../core/hive/model';
import { testStack, uniqueName } from '../../helpers/stack-env';
import { createFixture, dropFixture, SALES_COLUMNS } from './fixtures';

const env = testStack();
const failure = (p: Promise<unknown>): Promise<MigrationError> =>
  p.then(
    () => Promise.reject(new Error('expected a failure')),
    (e: MigrationError) => e,
  );

type Open = (url: string) => Promise<HmsReader>;
/** Ends one reader's server session from another connection, as a DB restart or a DBA would. */
type Kill = (url: string, reader: HmsReader) => Promise<void>;

// The session is private to the reader; the test reaches in only to learn its server-side id.
const sessionOf = (r: HmsReader): unknown => (r as unknown as { session: Record<string, unknown> }).session;

const killPg: Kill = async (url, reader) => {
  const pid = ((sessionOf(reader) as { client: pg.Client }).client as unknown as { processID: number }).processID;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
};

const killMysql: Kill = async (url, reader) => {
  const threadId = (sessionOf(reader) as { conn: mysql.Connection }).conn.threadId;
  const admin = await mysql.createConnection({ uri: url });
  try {
    await admin.query(`KILL CONNECTION ${Number(threadId)}`);
  } finally {
    await admin.end();
  }
};

const backends: [string, string, string, Open, Kill][] = [
  ['hms-pg (postgres)', env.HIM_HMS_PG_URI as string, env.HIM_HMS_POSTGRES_URL as string, (u) => PostgresHmsReader.open(u), killPg],
  ['hms-mariadb (mysql)', env.HIM_HMS_MARIADB_URI as string, env.HIM_MARIADB_URL as string, (u) => MysqlHmsReader.open(u), killMysql],
];

const TABLES = ['plain_text', 'sales', 'v_sales'];
/** HMS runs on this machine: it makes the file:// directories of the fixture here (drop leaves them). */
const LOCAL_ROOT = '/tmp/him-dbreader';

describe.each(backends)('backing-DB reader on %s', (_name, uri, dbUrl, open, kill) => {
  const dbName = uniqueName('him_dbr');
  let hms: HmsConnection;
  let thrift: ThriftHmsReader;
  let viaDb: TableInventory[];
  let viaThrift: TableInventory[];
  const byName = (n: string): TableInventory => viaDb.find((t) => t.table.name === n) as TableInventory;

  beforeAll(async () => {
    hms = await openHms(uri, { connectTimeoutMs: 10_000, callTimeoutMs: 60_000 });
    await createFixture(hms, dbName, `file://${LOCAL_ROOT}`);
    thrift = new ThriftHmsReader({ uri, poolSize: 2, tableBatchSize: 2, partitionBatchSize: 2 });
    viaThrift = await thrift.getTables(dbName, await thrift.listTables(dbName));
    const reader = await open(dbUrl);
    try {
      viaDb = await reader.getTables(dbName, await reader.listTables(dbName));
    } finally {
      await reader.close();
    }
  });
  afterAll(async () => {
    if (hms) await dropFixture(hms, dbName);
    hms?.close();
    await thrift?.close();
    rmSync(`${LOCAL_ROOT}/${dbName}`, { recursive: true, force: true });
  });

  it('lists the database and its tables (sorted); reads the database like Thrift does', async () => {
    const reader = await open(dbUrl);
    try {
      expect(await reader.listDatabases()).toContain(dbName);
      expect(await reader.listTables(dbName)).toEqual(TABLES);
      const db = await reader.getDatabase(dbName);
      expect(db).toMatchObject({
        name: dbName,
        description: 'dbreader fixture',
        owner: 'etl',
        ownerType: 'ROLE',
        parameters: { team: 'data-platform', 'empty.value': '' },
      });
      expect(db).toEqual(await thrift.getDatabase(dbName));
    } finally {
      await reader.close();
    }
  });

  it('partitioned table: columns, keys, params, bucketing, sort columns, skew', () => {
    const { table } = byName('sales');
    expect(table).toMatchObject({
      database: dbName,
      name: 'sales',
      owner: 'alice',
      ownerType: 'USER',
      tableType: 'EXTERNAL_TABLE',
      temporary: false,
      retention: 0,
    });
    expect(table.parameters).toMatchObject({
      EXTERNAL: 'TRUE',
      'custom.key': 'value with spaces',
      'empty.value': '',
      comment: 'sales facts',
    });
    expect(table.sd.columns).toEqual(SALES_COLUMNS);
    expect(table.partitionKeys).toEqual([
      { name: 'dt', type: 'string', comment: 'day' },
      { name: 'region', type: 'string', comment: null },
    ]);
    expect(table.sd).toMatchObject({
      numBuckets: 4,
      bucketColumns: ['id'],
      sortColumns: [
        { column: 'id', order: 1 },
        { column: 'name', order: 0 },
      ],
      parameters: { 'sd.param': 'x' },
      storedAsSubDirectories: true,
      inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
    });
    expect(table.sd.serde).toEqual({
      name: null,
      serializationLib: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
      parameters: { 'serialization.format': '1' },
    });
    expect(table.sd.skewed?.columnNames).toEqual(['name']);
    expect(table.sd.skewed?.values).toEqual([['a'], ['b']]);
  });

  it('partitions: escaped names sorted, unescaped values, null for the default partition, own schema and location', () => {
    const { partitions } = byName('sales');
    expect(partitions.map((p) => p.name)).toEqual([
      'dt=2024-01-01/region=a%3Db%3Ac%25d%23e',
      'dt=2024-01-01/region=us%2Feast',
      'dt=2024-01-02/region=__HIVE_DEFAULT_PARTITION__',
      'dt=2024-01-02/region=café über',
      'dt=2024-01-03/region=plain',
    ]);
    expect(partitions.map((p) => p.values)).toEqual([
      ['2024-01-01', 'a=b:c%d#e'],
      ['2024-01-01', 'us/east'],
      ['2024-01-02', null],
      ['2024-01-02', 'café über'],
      ['2024-01-03', 'plain'],
    ]);
    const p0 = partitions.find((p) => p.values[1] === 'us/east');
    expect(p0?.parameters).toMatchObject({ 'part.param': 'p0' });
    expect(p0?.sd).toMatchObject({ numBuckets: 4, bucketColumns: ['id'] });
    const p4 = partitions.find((p) => p.values[1] === 'plain');
    expect(p4?.sd.columns.map((c) => c.name)).toEqual(['id', 'name', 'amount', 'attrs', 'extra']);
    expect(p4?.sd.location).toMatch(/\/elsewhere\/p4$/);
    expect(p4?.createTime).toBeGreaterThan(0);
  });

  it('unpartitioned text table and a view', () => {
    const text = byName('plain_text');
    expect(text.partitions).toEqual([]);
    expect(text.table).toMatchObject({ owner: 'bob', partitionKeys: [] });
    expect(text.table.sd.serde.parameters).toEqual({ 'field.delim': ',', 'serialization.format': ',' });
    const view = byName('v_sales').table;
    expect(view).toMatchObject({ tableType: 'VIRTUAL_VIEW', viewOriginalText: 'select id, name from sales' });
    expect(view.viewExpandedText).toBe(`select \`sales\`.\`id\`, \`sales\`.\`name\` from \`${dbName}\`.\`sales\``);
    expect(view.sd.location).toBeNull();
  });

  it('is deep-equal to the Thrift path, table by table', () => {
    expect(viaDb.map((t) => t.table.name)).toEqual(TABLES);
    for (const name of TABLES) {
      expect({ name, ...byName(name) }).toEqual({ name, ...(viaThrift.find((t) => t.table.name === name) as TableInventory) });
    }
  });

  it('unknown database or table → HMS_NOT_FOUND', async () => {
    const reader = await open(dbUrl);
    try {
      expect((await failure(reader.getDatabase(`${dbName}_nope`))).code).toBe('HMS_NOT_FOUND');
      expect((await failure(reader.listTables(`${dbName}_nope`))).code).toBe('HMS_NOT_FOUND');
      const e = await failure(reader.getTables(dbName, ['sales', 'no_such_table']));
      expect(e.code).toBe('HMS_NOT_FOUND');
      expect(e.message).toContain('no_such_table');
      expect((await failure(thrift.getTables(dbName, ['no_such_table']))).code).toBe('HMS_NOT_FOUND');
    } finally {
      await reader.close();
    }
  });

  it('DB not reachable → retryable HMS_UNREACHABLE, no hang', async () => {
    const dead = dbUrl.replace(/:\d+\//, ':1/');
    const t0 = Date.now();
    const e = await failure(open(dead));
    expect(e.code).toBe('HMS_UNREACHABLE');
    expect(e.retryable).toBe(true);
    expect(Date.now() - t0).toBeLessThan(15_000);
  });

  it('DB session killed mid-inventory → retryable HMS_UNREACHABLE, no hang; close() still returns', async () => {
    const reader = await open(dbUrl);
    try {
      expect(await reader.listTables(dbName)).toEqual(TABLES);
      await kill(dbUrl, reader);
      const t0 = Date.now();
      const e = await failure(reader.getTables(dbName, TABLES));
      expect({ code: e.code, retryable: e.retryable }).toEqual({ code: 'HMS_UNREACHABLE', retryable: true });
      expect(Date.now() - t0).toBeLessThan(15_000);
    } finally {
      await reader.close();
    }
  });
});
