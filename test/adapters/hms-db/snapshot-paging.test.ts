// Backing-DB reader behaviour that db-reader.test.ts (field-by-field values, parity, faults on
// HMS 4) does not cover: the HMS 3.1 schema (hms3-pg) read and deep-equal to Thrift, one snapshot
// per session (REPEATABLE READ), keyset pages / IN chunks of 2 giving the same model in the order
// asked, a closed reader, a database without the HMS schema. Fixture: fixtures.ts, via Thrift.
import { rmSync } from 'node:fs';
import { MysqlHmsReader } from '../../../adapters/hms/db/mysql';
import { PostgresHmsReader } from '../../../adapters/hms/db/postgres';
import type { BackingDbReader } from '../../../adapters/hms/db/reader';
import type { HmsDbOptions } from '../../../adapters/hms/db/session';
import { openHms } from '../../../adapters/hms/thrift/connection';
import type { HmsConnection } from '../../../adapters/hms/thrift/connection';
import { ThriftHmsReader } from '../../../adapters/hms/thrift/reader';
import type { MigrationError } from '../../../core/errors';
import type { TableInventory } from '../../../core/hive/model';
import * as ttypes from '../../../thrift-idl/gen/hive_metastore_types';
import { testStack } from '../../helpers/stack-env';
import { createFixture, dropFixture } from './fixtures';

/** HMS runs on this machine and makes the fixture's file:// directories here (drop keeps them). */
const LOCAL_ROOT = '/tmp/him-dbreader';

const env = testStack();
const failure = (p: Promise<unknown>): Promise<MigrationError> =>
  p.then(
    () => Promise.reject(new Error('expected a failure')),
    (e: MigrationError) => e,
  );

type Open = (opts?: HmsDbOptions) => Promise<BackingDbReader>;
const pgUrl = env.HIM_HMS_POSTGRES_URL as string;
const backends: [string, string, Open][] = [
  ['hms-pg (Postgres)', env.HIM_HMS_PG_URI as string, (o) => PostgresHmsReader.open(pgUrl, o)],
  ['hms-mariadb (MariaDB)', env.HIM_HMS_MARIADB_URI as string, (o) => MysqlHmsReader.open(env.HIM_MARIADB_URL as string, o)],
];
// HMS 3.1.3 keeps its schema in the `hms3` database of the same Postgres (dev/stack hms3-pg).
if (env.HIM_HMS3_PG_URI !== undefined && process.env.HIM_TEST_COMPONENTS?.split(',').includes('hms3-pg') !== false) {
  backends.push(['hms3-pg (Postgres, HMS 3.1)', env.HIM_HMS3_PG_URI, (o) => PostgresHmsReader.open(pgUrl.replace(/\/hms$/, '/hms3'), o)]);
}

describe.each(backends)('backing-DB reader on %s', (_name, thriftUri, open) => {
  const db = `t_dbreader_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 7)}`;
  let hms: HmsConnection;
  let reader: BackingDbReader;
  let all: TableInventory[];
  const table = (n: string): TableInventory => all.find((t) => t.table.name === n) as TableInventory;

  beforeAll(async () => {
    hms = await openHms(thriftUri, { connectTimeoutMs: 10_000, callTimeoutMs: 120_000 });
    await createFixture(hms, db, `file://${LOCAL_ROOT}`);
    reader = await open();
    all = await reader.getTables(db, ['sales', 'plain_text', 'v_sales']);
  });
  afterAll(async () => {
    await reader?.close();
    if (hms) await dropFixture(hms, db);
    hms?.close();
    rmSync(`${LOCAL_ROOT}/${db}`, { recursive: true, force: true });
  });

  it('reads every table (HMS 3.1 and 4 schemas alike)', () => {
    expect(all.map((t) => [t.table.name, t.partitions.length])).toEqual([
      ['sales', 5],
      ['plain_text', 0],
      ['v_sales', 0],
    ]);
    expect(all[0]?.partitions.map((p) => p.values[1])).toEqual(['a=b:c%d#e', 'us/east', null, 'caf\u00e9 \u00fcber', 'plain']);
  });

  it('returns tables in the order asked; the same model with 2-row pages and 2-id IN lists', async () => {
    const small = await open({ pageSize: 2, inChunk: 2 });
    try {
      const got = await small.getTables(db, ['v_sales', 'SALES', 'plain_text']);
      expect(got.map((t) => t.table.name)).toEqual(['v_sales', 'sales', 'plain_text']);
      expect(got).toEqual([table('v_sales'), table('sales'), table('plain_text')]);
    } finally {
      await small.close();
    }
  });

  it('is deep-equal to the Thrift path (ThriftHmsReader) for the database and every table', async () => {
    const thrift = new ThriftHmsReader({ uri: thriftUri, callTimeoutMs: 120_000, partitionBatchSize: 2 });
    try {
      expect(await reader.getDatabase(db)).toEqual(await thrift.getDatabase(db));
      expect(await reader.listTables(db)).toEqual(await thrift.listTables(db));
      expect(all).toEqual(await thrift.getTables(db, ['sales', 'plain_text', 'v_sales']));
    } finally {
      await thrift.close();
    }
  });

  it('reads one snapshot for the whole session (REPEATABLE READ)', async () => {
    const before = await open();
    try {
      const sd = new ttypes.StorageDescriptor({
        cols: [new ttypes.FieldSchema({ name: 'x', type: 'int', comment: null as unknown as string })],
        location: `file://${LOCAL_ROOT}/${db}/late`,
        inputFormat: 'org.apache.hadoop.hive.ql.io.orc.OrcInputFormat',
        outputFormat: 'org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat',
        compressed: false,
        numBuckets: -1,
        serdeInfo: new ttypes.SerDeInfo({
          name: null as unknown as string,
          serializationLib: 'org.apache.hadoop.hive.ql.io.orc.OrcSerde',
          parameters: {},
        }),
        bucketCols: [],
        sortCols: [],
        parameters: {},
      });
      const args = {
        tableName: 'late',
        dbName: db,
        owner: 'alice',
        createTime: 0,
        lastAccessTime: 0,
        retention: 0,
        sd,
        partitionKeys: [],
        parameters: { EXTERNAL: 'TRUE' },
        tableType: 'EXTERNAL_TABLE',
      };
      await hms.call('create_table', (c) =>
        c.create_table(new ttypes.Table(args as unknown as ConstructorParameters<typeof ttypes.Table>[0])),
      );
      expect(await before.listTables(db)).toEqual(['plain_text', 'sales', 'v_sales']);
      const after = await open();
      try {
        expect(await after.listTables(db)).toEqual(['late', 'plain_text', 'sales', 'v_sales']);
      } finally {
        await after.close();
      }
    } finally {
      await before.close();
      await hms.call('drop_table', (c) => c.drop_table(db, 'late', false));
    }
  });

  it('partitions read side by side on several connections come from the one snapshot', async () => {
    const before = await open({ parallel: 3, pageSize: 2 });
    const [first] = await hms.call('get_partitions', (c) => c.get_partitions(db, 'sales', 1));
    const late = new ttypes.Partition({
      ...(first as ttypes.Partition),
      values: [(first as ttypes.Partition).values[0] as string, 'late'],
    });
    late.sd = new ttypes.StorageDescriptor({ ...(first as ttypes.Partition).sd, location: `file://${LOCAL_ROOT}/${db}/sales_late` });
    try {
      await hms.call('add_partitions', (c) => c.add_partitions([late]));
      const got = await before.getTables(db, ['sales', 'plain_text']);
      expect(got).toEqual([table('sales'), table('plain_text')]);
      if (_name.includes('Postgres')) {
        // The leader plus two forks, all inside their read-only transaction.
        const { Client } = await import('pg');
        const c = new Client({ connectionString: env.HIM_POSTGRES_URL as string });
        await c.connect();
        try {
          const r = await c.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'hms-iceberg-migrator' AND state = 'idle in transaction'",
          );
          expect(r.rows[0]?.n).toBeGreaterThanOrEqual(3);
        } finally {
          await c.end();
        }
      }
      const after = await open({ parallel: 3, pageSize: 2 });
      try {
        expect((await after.getTables(db, ['sales']))[0]?.partitions.map((p) => p.values[1])).toContain('late');
      } finally {
        await after.close();
      }
    } finally {
      // The late partition goes with the fixture (afterAll); no later test reads 'sales'.
      await before.close();
    }
  });

  it('a closed reader → HMS_UNREACHABLE, not retryable', async () => {
    const closed = await open();
    await closed.close();
    expect(await failure(closed.listDatabases())).toMatchObject({ code: 'HMS_UNREACHABLE', retryable: false });
  });
});

describe('backing-DB reader errors', () => {
  it('a database without the HMS schema → HMS_BAD_METADATA (not retryable)', async () => {
    const r = await PostgresHmsReader.open(env.HIM_POSTGRES_URL as string);
    try {
      expect(await failure(r.listDatabases())).toMatchObject({ code: 'HMS_BAD_METADATA', retryable: false });
    } finally {
      await r.close();
    }
  });
});
