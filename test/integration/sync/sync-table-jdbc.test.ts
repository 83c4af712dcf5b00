// engine/sync-table.ts with a catalog that points at our metadata files (the JDBC catalog on the
// stack's Postgres; PyIceberg's SqlCatalog reads it back): seeded orders converted and registered,
// then a new partition (files copied) → an append; a crash between writing the files and the
// commit, then the rerun → it finds its own files (every one `identical`) and commits once; a third
// run is in sync; a dropped partition → a delete snapshot that removes exactly its files. A run
// killed after its commit: the rerun finds the table in sync on a snapshot its record does not
// know and validates it like a fresh commit (listing = snapshot files, footer rows = total-records)
// before handing it back for recording — a committed snapshot whose counts are wrong is refused.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JdbcIcebergCatalog } from '../../../adapters/catalog/jdbc';
import { ThriftHmsReader } from '../../../adapters/hms/thrift/reader';
import { RoutingObjectStore } from '../../../adapters/storage/routing-store';
import type { IcebergCatalog } from '../../../core/catalog/catalog';
import { tableIdent } from '../../../core/catalog/catalog';
import { conversionFor } from '../../../core/convert/plan-conversion';
import { ErrorCode, MigrationError } from '../../../core/errors';
import type { HivePartition, TableInventory } from '../../../core/hive/model';
import type { SeedManifest } from '../../../dev/seed/manifest';
import type { FooterReader } from '../../../core/storage/file-stats';
import { syncTable } from '../../../engine/sync-table';
import { defaultFooters, writeIcebergMetadata } from '../../../engine/write-metadata';
import { TSX, run } from '../../helpers/cli';
import { copyPartition, seedWarehouse } from '../../helpers/live-tables';
import { testStack, uniqueName } from '../../helpers/stack-env';

const env = testStack();
const prefix = uniqueName('himsyncj').toLowerCase();
const sales = `${prefix}_sales`;
const tableId = `${sales}.orders`;
const catalogName = uniqueName('him_sync').toLowerCase();
const ident = tableIdent([sales], 'orders');
const plan = { hash: 'a'.repeat(64), targetCatalog: catalogName, createdAt: '2026-01-01T00:00:00.000Z' };
const store = new RoutingObjectStore({
  metadataPrefixes: ['s3a://hive/seed/', 's3://hive/seed/'],
  s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
});
let dir = '';
let manifest: SeedManifest;
let catalog: JdbcIcebergCatalog;
let inv: TableInventory;

const prepared = (i: TableInventory) => conversionFor(plan, tableId, i, '', 'test');
const rowsOf = (name: string): number =>
  manifest.tables.find((t) => t.name === 'orders')?.partitions.find((p) => p.name === name)?.rows ?? NaN;

async function readBack(): Promise<{ rows: number }> {
  const r = await run(env.HIM_VERIFIER_PYTHON as string, [
    path.join(__dirname, '..', '..', '..', 'dev', 'verifier', 'read_sql_table.py'),
    '--sql-uri',
    (env.HIM_POSTGRES_URL as string).replace(/^postgres:/, 'postgresql+psycopg2:'),
    '--catalog-name',
    catalogName,
    '--table',
    tableId,
  ]);
  if (r.code !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { rows: number };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-sync-jdbc-'));
  manifest = await seedWarehouse(prefix, dir);
  const hms = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string });
  try {
    [inv] = (await hms.getTables(sales, ['orders'])) as [TableInventory];
  } finally {
    await hms.close();
  }
  catalog = await JdbcIcebergCatalog.connect({ url: env.HIM_POSTGRES_URL as string, catalogName, store });
  await catalog.createNamespace([sales]);
  const written = await writeIcebergMetadata(store, prepared(inv));
  await catalog.registerTable(ident, written.metadataLocation);
}, 600_000);

afterAll(async () => {
  await catalog.dropTable(ident).catch(() => undefined);
  await catalog.dropNamespace([sales]).catch(() => undefined);
  await catalog.close();
  await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--drop']);
  store.destroy();
  rmSync(dir, { recursive: true, force: true });
}, 600_000);

/** The catalog, except that the first commit dies (a worker killed after writing the files). */
function crashingOnce(inner: IcebergCatalog): IcebergCatalog {
  let crashed = false;
  return Object.assign(Object.create(inner) as IcebergCatalog, {
    commitTable: (...a: Parameters<IcebergCatalog['commitTable']>) => {
      if (crashed) return inner.commitTable(...a);
      crashed = true;
      return Promise.reject(new MigrationError(ErrorCode.INTERNAL, 'killed before the commit'));
    },
  });
}

it('append after a crash before the commit: the rerun finds its own files and commits once; then in sync; a dropped partition → delete', async () => {
  const seededRows = manifest.tables.find((t) => t.name === 'orders')?.rows ?? NaN;
  expect((await readBack()).rows).toBe(seededRows);
  const us = inv.partitions.find((p) => p.name === 'year=2024/region=us') as HivePartition;
  const keys = inv.table.partitionKeys.map((k) => k.name);
  const added = await copyPartition(store, manifest, us, inv.table.sd.location as string, keys, ['2027', 'us']);
  const grown: TableInventory = { ...inv, partitions: [...inv.partitions, added.partition] };
  const now = () => Date.now();

  await expect(syncTable(store, crashingOnce(catalog), { prepared: prepared(grown), ident }, { now })).rejects.toThrow(
    'killed before the commit',
  );
  expect((await catalog.loadTable(ident)).metadata.snapshots).toHaveLength(1);
  const r = await syncTable(store, catalog, { prepared: prepared(grown), ident }, { now: () => now() + 5_000 });
  expect(r).toMatchObject({ status: 'appended', commit: 'committed', filesAdded: added.files.length, filesRemoved: 0, partitionsAdded: 1 });
  expect(r.written.map((w) => w.outcome)).toEqual(r.written.map(() => 'identical'));
  expect(r.summary).toMatchObject({ operation: 'append', 'added-records': String(rowsOf('year=2024/region=us')) });
  const loaded = await catalog.loadTable(ident);
  expect([String(loaded.metadata.currentSnapshotId), loaded.metadataLocation]).toEqual([r.snapshotId, r.metadataLocation]);
  expect(loaded.metadataLocation).toMatch(/\/metadata\/00001-[0-9a-f-]+\.metadata\.json$/);
  expect((await readBack()).rows).toBe(seededRows + rowsOf('year=2024/region=us'));

  const again = await syncTable(store, catalog, { prepared: prepared(grown), ident }, { now });
  expect(again).toMatchObject({ status: 'in-sync', commit: null, snapshotId: r.snapshotId });

  // DROP PARTITION year=2024/region=eu: its files leave the table, nothing is added.
  const shrunk: TableInventory = { ...grown, partitions: grown.partitions.filter((p) => p.name !== 'year=2024/region=eu') };
  const d = await syncTable(store, catalog, { prepared: prepared(shrunk), ident }, { now });
  expect(d).toMatchObject({ status: 'deleted', commit: 'committed', filesAdded: 0, parentSnapshotId: r.snapshotId });
  expect(d.summary).toMatchObject({ operation: 'delete', 'deleted-records': String(rowsOf('year=2024/region=eu')) });
  expect((await readBack()).rows).toBe(seededRows + rowsOf('year=2024/region=us') - rowsOf('year=2024/region=eu'));
}, 600_000);

/** A failpoint that throws (in-process: the worker dies) once at `name`. */
function dieAt(name: string): (at: string) => void {
  let fired = false;
  return (at) => {
    if (at !== name || fired) return;
    fired = true;
    throw new MigrationError(ErrorCode.INTERNAL, `killed at ${at}`);
  };
}

/** The real Parquet footers, each file read noted in `read`. */
function countingFooters(read: string[]): { PARQUET: FooterReader } {
  const real = defaultFooters(store).PARQUET;
  return { PARQUET: { readStats: async (...a) => (read.push(a[0]), real.readStats(...a)) } };
}

/** Parquet footers that report one row more per file than the file holds. */
function inflatedFooters(): { PARQUET: FooterReader } {
  const real = defaultFooters(store).PARQUET;
  return {
    PARQUET: {
      readStats: async (...a) => ({ ...(await real.readStats(...a)), recordCount: (await real.readStats(...a)).recordCount + 1 }),
    },
  };
}

it('killed after the commit: the rerun validates the found snapshot before it is recorded; one with wrong counts is refused', async () => {
  const hms = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string });
  let live: TableInventory;
  try {
    [live] = (await hms.getTables(sales, ['orders'])) as [TableInventory];
  } finally {
    await hms.close();
  }
  const us = live.partitions.find((p) => p.name === 'year=2024/region=us') as HivePartition;
  const keys = live.table.partitionKeys.map((k) => k.name);
  const loc = live.table.sd.location as string;
  const start = await catalog.loadTable(ident);
  const recorded = String(start.metadata.currentSnapshotId);
  // Honest commit, killed right after it: the rerun is in sync on it and validates it.
  const a = await copyPartition(store, manifest, us, loc, keys, ['2031', 'us']);
  let inv2: TableInventory = { ...live, partitions: [...live.partitions, a.partition] };
  const t = { prepared: prepared(inv2), ident };
  await expect(syncTable(store, catalog, t, { now: Date.now, failpoint: dieAt('sync-after-commit') })).rejects.toThrow('killed at');
  const committed = String((await catalog.loadTable(ident)).metadata.currentSnapshotId);
  expect(committed).not.toBe(recorded);
  const read: string[] = [];
  const found = await syncTable(store, catalog, t, { now: Date.now, recordedSnapshotId: recorded, footers: countingFooters(read) });
  const rows = (await readBack()).rows;
  expect(found).toMatchObject({ status: 'in-sync', commit: null, snapshotId: committed, validation: { records: rows } });
  // The full check, not a fresh commit's O(change) one: the footer of every live file is read, not only the ones it added.
  expect(found.validation?.files).toBeGreaterThan(a.files.length);
  expect(new Set(read).size).toBe(found.validation?.files);
  // The record knows it: nothing to validate, nothing to record.
  expect((await syncTable(store, catalog, t, { now: Date.now, recordedSnapshotId: committed })).validation).toBeNull();

  // A commit whose total-records is wrong (footers that over-count), killed after it: the rerun refuses it.
  const b = await copyPartition(store, manifest, us, loc, keys, ['2032', 'us']);
  inv2 = { ...inv2, partitions: [...inv2.partitions, b.partition] };
  const t2 = { prepared: prepared(inv2), ident };
  const o = { now: Date.now, footers: inflatedFooters(), failpoint: dieAt('sync-after-commit') };
  await expect(syncTable(store, catalog, t2, o)).rejects.toThrow('killed at');
  const bad = String((await catalog.loadTable(ident)).metadata.currentSnapshotId);
  expect(bad).not.toBe(committed);
  const refused = syncTable(store, catalog, t2, { now: Date.now, recordedSnapshotId: committed });
  await expect(refused).rejects.toMatchObject({
    code: ErrorCode.SYNC_VALIDATION_FAILED,
    context: { snapshotId: bad, extra: 0, missing: 0 },
  });
}, 600_000);
