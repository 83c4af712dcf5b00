// The JDBC catalog layout (Iceberg JdbcCatalog / PyIceberg SqlCatalog tables) on the stack's real
// Postgres and MariaDB: our metadata (fixture.ts: pyarrow Hive-layout files, our manifests and
// metadata.json on S3) registered, read back by PyIceberg's SqlCatalog (Postgres) with the files'
// checksum; assert-create and idempotent re-register; conflicts; unregister only while the row
// points at our file; no file is ever deleted.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import type { S3Client } from '@aws-sdk/client-s3';
import { JdbcIcebergCatalog } from '../../../adapters/catalog/jdbc';
import { S3ObjectStore } from '../../../adapters/storage/s3-store';
import { tableIdent } from '../../../core/catalog/catalog';
import type { MigrationError } from '../../../core/errors';
import { testStack, uniqueName } from '../../helpers/stack-env';
import type { WrittenTable } from './fixture';
import { deletePrefix, objectExists, s3Client, writeTable } from './fixture';

const run = promisify(execFile);
const env = testStack();
const failure = (p: Promise<unknown>): Promise<MigrationError> =>
  p.then(
    () => Promise.reject(new Error('expected a failure')),
    (e: MigrationError) => e,
  );

let client: S3Client;
let written: WrittenTable;
const prefix = `jdbc-test/${uniqueName('t')}`;

beforeAll(async () => {
  client = s3Client();
  written = await writeTable(client, prefix);
  const admin = await mysql.createConnection({ uri: env.HIM_MARIADB_URL as string });
  await admin.query('CREATE DATABASE IF NOT EXISTS iceberg_jdbc');
  await admin.end();
}, 300_000);

afterAll(async () => {
  await deletePrefix(client, prefix);
  client.destroy();
});

const backends: [string, () => string][] = [
  ['postgres', () => env.HIM_POSTGRES_URL as string],
  ['mariadb', () => (env.HIM_MARIADB_URL as string).replace(/\/[^/]*$/, '/iceberg_jdbc')],
];

describe.each(backends)('JDBC catalog on %s', (backend, url) => {
  const name = uniqueName(`him_${backend}`).toLowerCase();
  let catalog: JdbcIcebergCatalog;
  let store: S3ObjectStore;
  const ns = ['migrated', 'sales'];
  const ident = tableIdent(ns, 'orders');

  beforeAll(async () => {
    store = new S3ObjectStore({ metadataPrefixes: [], endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true });
    catalog = await JdbcIcebergCatalog.connect({ url: url(), catalogName: name, store });
  });
  afterAll(async () => {
    await catalog.dropTable(ident).catch(() => undefined);
    await catalog.dropNamespace(ns).catch(() => undefined);
    await catalog.close();
    store.destroy();
  });

  it('namespace create is idempotent; register loads our snapshot; re-register is idempotent', async () => {
    expect(await catalog.createNamespace(ns)).toEqual({ created: true });
    expect(await catalog.createNamespace(ns)).toEqual({ created: false });
    expect(await catalog.namespaceExists(ns)).toBe(true);
    const r = await catalog.registerTable(ident, written.metadataLocation);
    expect(r.outcome).toBe('registered');
    expect(r.table.metadata.currentSnapshotId).toBe(written.snapshotId);
    expect((await catalog.registerTable(ident, written.metadataLocation)).outcome).toBe('already-registered');
    expect(await catalog.listTables(ns)).toEqual([ident]);
    const other = await failure(catalog.registerTable(ident, `${written.location}/metadata/other.metadata.json`));
    expect(['CATALOG_CONFLICT', 'CATALOG_METADATA_UNREADABLE']).toContain(other.code);
    expect((await failure(catalog.registerTable(tableIdent(['nope'], 't'), written.metadataLocation))).code).toBe('CATALOG_NOT_FOUND');
    expect((await failure(catalog.dropNamespace(ns))).code).toBe('CATALOG_CONFLICT');
  });

  if (backend === 'postgres') {
    it('PyIceberg SqlCatalog reads the registered table with the original rows', async () => {
      const sqlUri = (env.HIM_POSTGRES_URL as string).replace(/^postgres:/, 'postgresql+psycopg2:');
      const { stdout } = await run(
        env.HIM_VERIFIER_PYTHON as string,
        [
          path.join(__dirname, '..', '..', '..', 'dev', 'verifier', 'read_sql_table.py'),
          '--sql-uri',
          sqlUri,
          '--catalog-name',
          name,
          '--table',
          'migrated.sales.orders',
        ],
        { env: { ...process.env, ...env }, maxBuffer: 16 << 20 },
      );
      const got = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { rows: number; checksum: string };
      expect(got).toMatchObject({ rows: written.expected.rows, checksum: written.expected.checksum });
    }, 120_000);
  }

  it('unregister drops only our row; a moved-on row is a conflict; files stay', async () => {
    // Simulate a commit after ours: the row now points at a newer metadata file.
    const newer = `${written.location}/metadata/00001-newer.metadata.json`;
    await catalog.dropTable(ident);
    await catalog.registerTable(ident, written.metadataLocation);
    const conn = backend === 'postgres' ? null : await mysql.createConnection({ uri: url() });
    try {
      if (conn) await conn.query('UPDATE iceberg_tables SET metadata_location = ? WHERE catalog_name = ?', [newer, name]);
      else {
        const pg = await import('pg');
        const c = new pg.default.Client({ connectionString: url() });
        await c.connect();
        await c.query('UPDATE iceberg_tables SET metadata_location = $1 WHERE catalog_name = $2', [newer, name]);
        await c.end();
      }
    } finally {
      await conn?.end();
    }
    expect((await failure(catalog.unregisterTable(ident, written.metadataLocation))).code).toBe('CATALOG_CONFLICT');
    expect(await catalog.tableExists(ident)).toBe(true);
    await catalog.dropTable(ident);
    await catalog.registerTable(ident, written.metadataLocation);
    expect(await catalog.unregisterTable(ident, written.metadataLocation)).toEqual({ outcome: 'unregistered' });
    expect(await catalog.unregisterTable(ident, written.metadataLocation)).toEqual({ outcome: 'absent' });
    for (const f of [...written.dataFiles, ...written.metadataFiles, written.metadataLocation])
      expect(await objectExists(client, f)).toBe(true);
  });
});
