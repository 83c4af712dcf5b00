// The Hive Metastore as the Iceberg catalog, on the real HMS 3.1.3 (hms3-pg; PyIceberg 0.12's
// HiveCatalog calls get_table, which HMS 4.0.1 removed, so 3.1 is where an independent reader
// works): our metadata
// (fixture.ts) registered as a new HMS table and read back by PyIceberg's HiveCatalog with the
// files' checksum; a real Hive table converted in place (its saved original must still match),
// read by PyIceberg, then restored so that HMS holds the saved original again (partitioned tables:
// hive-in-place-partitioned.test.ts); conflicts are coded;
// no data file is touched.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { S3Client } from '@aws-sdk/client-s3';
import { HiveIcebergCatalog, ICEBERG_TABLE_TYPE } from '../../../adapters/catalog/hive';
import { ThriftHmsReader } from '../../../adapters/hms/thrift/reader';
import { ThriftHmsWriter } from '../../../adapters/hms/thrift/writer';
import { S3ObjectStore } from '../../../adapters/storage/s3-store';
import { tableIdent } from '../../../core/catalog/catalog';
import type { TableIdent } from '../../../core/catalog/catalog';
import type { MigrationError } from '../../../core/errors';
import type { HiveTable, TableInventory } from '../../../core/hive/model';
import { testStack, uniqueName } from '../../helpers/stack-env';
import type { WrittenTable } from './fixture';
import { deletePrefix, objectExists, s3Client, writeTable } from './fixture';
import { parquetSd } from '../../helpers/hive-sd';

const run = promisify(execFile);
const env = testStack();
const failure = (p: Promise<unknown>): Promise<MigrationError> =>
  p.then(
    () => Promise.reject(new Error('expected a failure')),
    (e: MigrationError) => e,
  );
const db = uniqueName('him_hcat').toLowerCase();
const prefix = `hive-catalog-test/${uniqueName('t')}`;

let client: S3Client;
let written: WrittenTable;
let reader: ThriftHmsReader;
let writer: ThriftHmsWriter;
let store: S3ObjectStore;
const originals = new Map<string, HiveTable>();
let catalog: HiveIcebergCatalog;

async function readHive(table: string): Promise<{ rows: number; checksum: string }> {
  const { stdout } = await run(
    env.HIM_VERIFIER_PYTHON as string,
    [
      path.join(__dirname, '..', '..', '..', 'dev', 'verifier', 'read_hive_table.py'),
      '--hms',
      env.HIM_HMS3_PG_URI as string,
      '--table',
      table,
    ],
    { env: { ...process.env, ...env }, maxBuffer: 16 << 20 },
  );
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { rows: number; checksum: string };
}

beforeAll(async () => {
  client = s3Client();
  written = await writeTable(client, prefix);
  reader = new ThriftHmsReader({ uri: env.HIM_HMS3_PG_URI as string });
  writer = new ThriftHmsWriter({ uri: env.HIM_HMS3_PG_URI as string });
  store = new S3ObjectStore({ metadataPrefixes: [], endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true });
  catalog = new HiveIcebergCatalog({
    name: 'hms',
    reader,
    writer,
    store,
    originals: async (i: TableIdent) => originals.get(`${i.namespace[0]}.${i.name}`),
  });
}, 300_000);

afterAll(async () => {
  for (const t of await reader.listTables(db).catch(() => [])) await writer.dropTable(db, t).catch(() => undefined);
  await writer.dropDatabase(db).catch(() => undefined);
  await reader.close();
  await writer.close();
  store.destroy();
  await deletePrefix(client, prefix);
  client.destroy();
});

/** A plain Hive external Parquet table over the fixture's Hive-layout files (s3a:// as Hive writes it). */
function hiveTable(name: string, partitioned = true): TableInventory {
  const sd = parquetSd;
  const location = `${written.location.replace(/^s3:/, 's3a:')}/data`;
  return {
    table: {
      database: db,
      name,
      owner: 'alice',
      ownerType: 'USER',
      createTime: 1_700_000_000,
      lastAccessTime: 0,
      retention: 0,
      tableType: 'EXTERNAL_TABLE',
      sd: sd(location),
      partitionKeys: partitioned ? [{ name: 'region', type: 'string', comment: null }] : [],
      parameters: { EXTERNAL: 'TRUE', 'owner.team': 'sales' },
      viewOriginalText: null,
      viewExpandedText: null,
      temporary: false,
    },
    partitions: (partitioned ? ['eu', 'us'] : []).map((r) => ({
      values: [r],
      name: `region=${r}`,
      createTime: 1_700_000_000,
      lastAccessTime: 0,
      sd: sd(`${location}/region=${r}`),
      parameters: {},
    })),
  };
}

describe('HiveIcebergCatalog (HMS 3.1.3)', () => {
  it('register as a new HMS table; PyIceberg HiveCatalog reads the original rows; re-register idempotent', async () => {
    expect(await catalog.createNamespace([db])).toEqual({ created: true });
    const ident = tableIdent([db], 'registered');
    const r = await catalog.registerTable(ident, written.metadataLocation);
    expect(r.outcome).toBe('registered');
    expect(r.table.metadata.currentSnapshotId).toBe(written.snapshotId);
    const [t] = await reader.getTables(db, ['registered']);
    expect(t?.table.parameters).toMatchObject({
      table_type: ICEBERG_TABLE_TYPE,
      metadata_location: written.metadataLocation,
      EXTERNAL: 'TRUE',
    });
    expect(t?.table.partitionKeys).toEqual([]);
    expect(await readHive(`${db}.registered`)).toMatchObject({ rows: written.expected.rows, checksum: written.expected.checksum });
    expect((await catalog.registerTable(ident, written.metadataLocation)).outcome).toBe('already-registered');
    expect((await failure(catalog.registerTable(ident, `${written.location}/metadata/other.metadata.json`))).code).toBe(
      'CATALOG_METADATA_UNREADABLE',
    );
    expect(await catalog.unregisterTable(ident, written.metadataLocation)).toEqual({ outcome: 'unregistered' });
    expect(await catalog.tableExists(ident)).toBe(false);
  }, 180_000);

  it('in place: a real unpartitioned Hive table becomes the Iceberg table (PyIceberg reads it), then is restored to its saved original', async () => {
    const inv = hiveTable('orders', false);
    await writer.createTable(inv.table);
    const [saved] = await reader.getTables(db, ['orders']);
    if (saved === undefined) throw new Error('not created');
    const ident = tableIdent([db], 'orders');
    // Without its saved original, an existing Hive table is never altered.
    expect((await failure(catalog.registerTable(ident, written.metadataLocation))).code).toBe('CATALOG_CONFLICT');
    originals.set(`${db}.orders`, saved.table);

    const r = await catalog.registerTable(ident, written.metadataLocation);
    expect(r.outcome).toBe('registered');
    const [now] = await reader.getTables(db, ['orders']);
    expect(now?.table.parameters).toMatchObject({
      table_type: ICEBERG_TABLE_TYPE,
      metadata_location: written.metadataLocation,
      'owner.team': 'sales',
    });
    expect(now?.table.partitionKeys).toEqual([]);
    expect(now?.table.sd.columns.map((c) => c.name)).toEqual(['id', 'name', 'amount']);
    expect(await readHive(`${db}.orders`)).toMatchObject({ rows: written.expected.rows, checksum: written.expected.checksum });

    // Restore: the saved original again.
    expect(await catalog.unregisterTable(ident, written.metadataLocation)).toEqual({ outcome: 'unregistered' });
    const [back] = await reader.getTables(db, ['orders']);
    expect(back?.table).toEqual(saved.table);
    expect(await catalog.unregisterTable(ident, written.metadataLocation)).toEqual({ outcome: 'absent' });
    for (const f of [...written.dataFiles, ...written.metadataFiles, written.metadataLocation])
      expect(await objectExists(client, f)).toBe(true);
  }, 180_000);

  it('in place refuses a table changed since its original was saved; restore refuses a moved-on table', async () => {
    const inv = hiveTable('changed', false);
    await writer.createTable(inv.table);
    const [saved] = await reader.getTables(db, ['changed']);
    if (saved === undefined) throw new Error('not created');
    originals.set(`${db}.changed`, saved.table);
    await writer.alterTable(db, 'changed', { ...saved.table, parameters: { ...saved.table.parameters, comment: 'edited by someone' } });
    const ident = tableIdent([db], 'changed');
    expect((await failure(catalog.registerTable(ident, written.metadataLocation))).code).toBe('SOURCE_CHANGED');
    const [edited] = await reader.getTables(db, ['changed']);
    originals.set(`${db}.changed`, edited?.table as HiveTable);
    expect((await catalog.registerTable(ident, written.metadataLocation)).outcome).toBe('registered');
    // Someone commits after us (the metadata location moves on): restore must not clobber it.
    const [iceberg] = await reader.getTables(db, ['changed']);
    const moved = `${written.location}/metadata/00001-later.metadata.json`;
    await writer.alterTable(db, 'changed', {
      ...(iceberg?.table as HiveTable),
      parameters: { ...(iceberg?.table as HiveTable).parameters, metadata_location: moved },
    });
    expect((await failure(catalog.unregisterTable(ident, written.metadataLocation))).code).toBe('CATALOG_CONFLICT');
    const [still] = await reader.getTables(db, ['changed']);
    expect(still?.table.parameters.metadata_location).toBe(moved);
  }, 180_000);
});
