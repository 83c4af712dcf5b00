// In-place conversion of PARTITIONED Hive tables through the Hive catalog, on the real HMS 3.1.3
// (hms3-pg, where PyIceberg's HiveCatalog reads the result independently) and HMS 4.0.1 (hms-pg).
// HMS alter_table cannot drop partition keys, so the Hive table (made EXTERNAL first) is renamed to
// `<name>__him_original` with its partitions, and the Iceberg table takes its name. Proven here:
// the Iceberg table reads the fixture's rows (content checksum, partition values included); the
// table aside keeps its location and partitions; unregister puts back exactly the saved inventory
// (table and partitions, MANAGED included); a crash between any two steps resumes; a table changed
// since it was saved, or a name aside that is taken, is refused before any change; a forced drop of
// an Iceberg table that moved on restores the original; no data file is touched.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { S3Client } from '@aws-sdk/client-s3';
import { externalized, HiveIcebergCatalog, ICEBERG_TABLE_TYPE, originalAsideName } from '../../../adapters/catalog/hive';
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
const prefix = `hive-in-place-test/${uniqueName('t')}`;

let client: S3Client;
let written: WrittenTable;
let store: S3ObjectStore;

beforeAll(async () => {
  client = s3Client();
  written = await writeTable(client, prefix);
  store = new S3ObjectStore({ metadataPrefixes: [], endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true });
}, 300_000);

afterAll(async () => {
  store.destroy();
  await deletePrefix(client, prefix);
  client.destroy();
});

async function readHive(uri: string, table: string): Promise<{ rows: number; checksum: string }> {
  const { stdout } = await run(
    env.HIM_VERIFIER_PYTHON as string,
    [path.join(__dirname, '..', '..', '..', 'dev', 'verifier', 'read_hive_table.py'), '--hms', uri, '--table', table],
    { env: { ...process.env, ...env }, maxBuffer: 16 << 20 },
  );
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { rows: number; checksum: string };
}

/** A Parquet Hive table partitioned by region over the fixture's files (s3a:// as Hive writes it). */
function hiveTable(db: string, name: string, managed: boolean): TableInventory {
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
      tableType: managed ? 'MANAGED_TABLE' : 'EXTERNAL_TABLE',
      sd: sd(location),
      partitionKeys: [{ name: 'region', type: 'string', comment: null }],
      parameters: managed ? { 'owner.team': 'sales' } : { EXTERNAL: 'TRUE', 'owner.team': 'sales' },
      viewOriginalText: null,
      viewExpandedText: null,
      temporary: false,
    },
    partitions: ['eu', 'us'].map((r) => ({
      values: [r],
      name: `region=${r}`,
      createTime: 1_700_000_000,
      lastAccessTime: 0,
      sd: sd(`${location}/region=${r}`),
      parameters: {},
    })),
  };
}

const byName = (inv: TableInventory | undefined): TableInventory | undefined =>
  inv && { ...inv, partitions: [...inv.partitions].sort((a, b) => a.name.localeCompare(b.name)) };

for (const hms of [
  { label: 'HMS 3.1.3', uri: () => env.HIM_HMS3_PG_URI as string, independentRead: true },
  { label: 'HMS 4.0.1', uri: () => env.HIM_HMS_PG_URI as string, independentRead: false },
]) {
  describe(`HiveIcebergCatalog in place, partitioned (${hms.label})`, () => {
    const db = uniqueName('him_inplace').toLowerCase();
    const originals = new Map<string, HiveTable>();
    let reader: ThriftHmsReader;
    let writer: ThriftHmsWriter;
    let catalog: HiveIcebergCatalog;

    beforeAll(async () => {
      reader = new ThriftHmsReader({ uri: hms.uri() });
      writer = new ThriftHmsWriter({ uri: hms.uri() });
      catalog = new HiveIcebergCatalog({
        name: 'hms',
        reader,
        writer,
        store,
        originals: async (i: TableIdent) => originals.get(`${i.namespace[0]}.${i.name}`),
      });
      await catalog.createNamespace([db]);
    }, 120_000);

    afterAll(async () => {
      for (const t of await reader.listTables(db).catch(() => [])) await writer.dropTable(db, t).catch(() => undefined);
      await writer.dropDatabase(db).catch(() => undefined);
      await reader.close();
      await writer.close();
    });

    /** Create the Hive table with its partitions; save it as apply does; return what HMS holds. */
    async function createSaved(name: string, managed: boolean): Promise<TableInventory> {
      const inv = hiveTable(db, name, managed);
      await writer.createTable(inv.table);
      await writer.addPartitions(db, name, inv.partitions);
      const [saved] = await reader.getTables(db, [name]);
      if (saved === undefined) throw new Error('not created');
      expect(saved.partitions).toHaveLength(2);
      originals.set(`${db}.${name}`, saved.table);
      return saved;
    }

    for (const managed of [false, true]) {
      it(`${managed ? 'MANAGED' : 'EXTERNAL'}: converts in place (original aside with its partitions), reads back, restores the exact saved inventory`, async () => {
        const name = managed ? 'managed_parts' : 'external_parts';
        const saved = await createSaved(name, managed);
        expect(saved.table.tableType).toBe(managed ? 'MANAGED_TABLE' : 'EXTERNAL_TABLE');
        const ident = tableIdent([db], name);

        const r = await catalog.registerTable(ident, written.metadataLocation);
        expect(r.outcome).toBe('registered');
        expect(r.table.metadata.currentSnapshotId).toBe(written.snapshotId);
        const [now] = await reader.getTables(db, [name]);
        expect(now?.table.parameters).toMatchObject({
          table_type: ICEBERG_TABLE_TYPE,
          metadata_location: written.metadataLocation,
          EXTERNAL: 'TRUE',
          'owner.team': 'sales',
        });
        expect(now?.table.partitionKeys).toEqual([]);
        expect(now?.partitions).toEqual([]);
        expect(now?.table.sd.columns.map((c) => c.name)).toEqual(['id', 'name', 'amount', 'region']);
        expect(now?.table.sd.location).toBe(saved.table.sd.location);
        // The Hive table aside: same object but EXTERNAL and renamed; location and partitions unmoved.
        const [aside] = await reader.getTables(db, [originalAsideName(name)]);
        expect(aside?.table.tableType).toBe('EXTERNAL_TABLE');
        expect(aside?.table.parameters.EXTERNAL).toBe('TRUE');
        expect(aside?.table.sd.location).toBe(saved.table.sd.location);
        expect(byName(aside)?.partitions.map((p) => [p.values, p.sd.location])).toEqual(
          byName(saved)?.partitions.map((p) => [p.values, p.sd.location]),
        );
        if (hms.independentRead)
          expect(await readHive(hms.uri(), `${db}.${name}`)).toEqual(
            expect.objectContaining({ rows: written.expected.rows, checksum: written.expected.checksum }),
          );
        expect((await catalog.registerTable(ident, written.metadataLocation)).outcome).toBe('already-registered');

        expect(await catalog.unregisterTable(ident, written.metadataLocation)).toEqual({ outcome: 'unregistered' });
        const [back] = await reader.getTables(db, [name]);
        expect(byName(back)).toEqual(byName(saved));
        expect(await reader.getTables(db, [originalAsideName(name)]).catch(() => [])).toEqual([]);
        expect(await catalog.unregisterTable(ident, written.metadataLocation)).toEqual({ outcome: 'absent' });
        for (const f of [...written.dataFiles, ...written.metadataFiles, written.metadataLocation])
          expect(await objectExists(client, f)).toBe(true);
      }, 240_000);
    }

    it('a crash after only the EXTERNAL step: unregister puts the MANAGED original back', async () => {
      const saved = await createSaved('half', true);
      await writer.alterTable(db, 'half', externalized(saved.table));
      expect((await reader.getTables(db, ['half']))[0]?.table.tableType).toBe('EXTERNAL_TABLE');
      expect(await catalog.unregisterTable(tableIdent([db], 'half'), written.metadataLocation)).toEqual({ outcome: 'absent' });
      const [back] = await reader.getTables(db, ['half']);
      expect(byName(back)).toEqual(byName(saved));
    }, 240_000);

    it('a crash after the rename resumes on register; a crash after the drop resumes on unregister', async () => {
      const saved = await createSaved('resumed', true);
      const ident = tableIdent([db], 'resumed');
      // As if the worker died between "made EXTERNAL + renamed" and "created".
      await writer.alterTable(db, 'resumed', externalized(saved.table));
      await writer.alterTable(db, 'resumed', { ...externalized(saved.table), name: originalAsideName('resumed') });
      expect(await catalog.tableExists(ident)).toBe(false);
      expect((await catalog.registerTable(ident, written.metadataLocation)).outcome).toBe('registered');
      // As if the worker died between "dropped the Iceberg entry" and "renamed back".
      await writer.dropTable(db, 'resumed');
      expect(await catalog.unregisterTable(ident, written.metadataLocation)).toEqual({ outcome: 'unregistered' });
      const [back] = await reader.getTables(db, ['resumed']);
      expect(byName(back)).toEqual(byName(saved));
    }, 240_000);

    it('refuses before any change: changed since saved, name aside taken, no saved original', async () => {
      const saved = await createSaved('guarded', false);
      const ident = tableIdent([db], 'guarded');
      originals.delete(`${db}.guarded`);
      expect((await failure(catalog.registerTable(ident, written.metadataLocation))).code).toBe('CATALOG_CONFLICT');
      originals.set(`${db}.guarded`, { ...saved.table, parameters: { ...saved.table.parameters, comment: 'what the plan saw' } });
      expect((await failure(catalog.registerTable(ident, written.metadataLocation))).code).toBe('SOURCE_CHANGED');
      originals.set(`${db}.guarded`, saved.table);
      await writer.createTable({ ...hiveTable(db, originalAsideName('guarded'), false).table, partitionKeys: [] });
      const taken = await failure(catalog.registerTable(ident, written.metadataLocation));
      expect(taken.code).toBe('CATALOG_CONFLICT');
      expect(taken.message).toContain(originalAsideName('guarded'));
      const [after] = await reader.getTables(db, ['guarded']);
      expect(byName(after)).toEqual(byName(saved));
    }, 240_000);

    it('an Iceberg table that moved on: unregister refuses, a forced drop restores the saved original', async () => {
      const saved = await createSaved('moved', false);
      const ident = tableIdent([db], 'moved');
      expect((await catalog.registerTable(ident, written.metadataLocation)).outcome).toBe('registered');
      const [iceberg] = await reader.getTables(db, ['moved']);
      const later = `${written.location}/metadata/00001-later.metadata.json`;
      await writer.alterTable(db, 'moved', {
        ...(iceberg?.table as HiveTable),
        parameters: { ...(iceberg?.table as HiveTable).parameters, metadata_location: later },
      });
      expect((await failure(catalog.unregisterTable(ident, written.metadataLocation))).code).toBe('CATALOG_CONFLICT');
      expect((await reader.getTables(db, ['moved']))[0]?.table.parameters.metadata_location).toBe(later);
      expect(await catalog.dropTable(ident)).toEqual({ dropped: true });
      const [back] = await reader.getTables(db, ['moved']);
      expect(byName(back)).toEqual(byName(saved));
    }, 240_000);
  });
}
