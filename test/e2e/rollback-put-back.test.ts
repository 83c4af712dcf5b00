// A way back that keeps new data, on the stack: tables seeded, planned and applied
// through a real `migrate worker` (REST catalog, HMS, S3), then the wave cut over (`migrate cutover`:
// both Hive tables fenced under their fenced names). Then Spark — an engine we did not write —
// sets write.data.path on orders to the Hive location (as docs/migrating.md tells operators to at
// cutover), appends rows to it (into the existing partition year=2024/region=us and a new
// partition year=2026/region=eu) and runs DELETE FROM customers. `rollback --dry-run` lists what would be put
// back and what is blocked, changing nothing. `rollback --wave 1` — on a worker SIGKILLed once after
// adding the partition and once before dropping the entry, restarted each time — registers the new
// partition back into Hive (once), drops orders' entry, and leaves customers untouched, refused with
// ROLLBACK_BLOCKED naming Spark's delete snapshot (exit 1) and still fenced and cut over (its Hive
// name stays unusable: Iceberg remains the one writable side). orders is unfenced first. The Hive table's content read from its
// partitions' files (listed non-recursively, as Hive reads them; canonical checksum of
// dev/seed/read_files.py) equals the Iceberg table's content read with PyIceberg just before.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RestCatalog } from '../../adapters/catalog/rest';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import { tableIdent } from '../../core/catalog/catalog';
import { fencedName } from '../../core/cutover/fence';
import { tableFingerprint } from '../../core/hive/fingerprint';
import type { TableInventory } from '../../core/hive/model';
import type { SeedFile, SeedManifest, SeedTable } from '../../dev/seed/manifest';
import { ROOT, run } from '../helpers/cli';
import type { SupervisedWorker } from '../helpers/e2e-suite';
import { dropNamespace, dropSeed, migrateWith, planAndApply, superviseWorker } from '../helpers/e2e-suite';
import { hiveContent, liveConfig, seedPartition, seedWarehouse } from '../helpers/live-tables';
import { testStack, uniqueName } from '../helpers/stack-env';
import { readWithPyIceberg } from '../helpers/verifier';

const env = testStack();
const prefix = uniqueName('himputback').toLowerCase();
const nsPrefix = `${prefix}_`;
const sales = `${prefix}_sales`;
const ns = `${nsPrefix}${sales}`;
const TABLES = ['customers', 'orders'];
let dir = '';
let cfgFile = '';
let failpointDir = '';
let manifest: SeedManifest;
let planHash = '';
let worker: SupervisedWorker | undefined;

let migrate: ReturnType<typeof migrateWith>;
const store = new RoutingObjectStore({
  metadataPrefixes: [],
  s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
});

/** A supervised worker (restarted whenever it dies) that SIGKILLs itself once after adding the partitions and once before dropping the entry. */
function startWorker(): void {
  worker = superviseWorker(cfgFile, { HIM_FAILPOINTS: 'put-back-after-add,put-back-before-drop', HIM_FAILPOINT_DIR: failpointDir });
}

/** Spark SQL against the stack's REST catalog (dev/verifier/spark_sql.py). */
async function spark(statements: string[]): Promise<void> {
  const r = await run(env.HIM_VERIFIER_PYTHON as string, [
    path.join(ROOT, 'dev/verifier/spark_sql.py'),
    '--catalog-uri',
    env.HIM_ICEBERG_REST_URI as string,
    '--s3-endpoint',
    env.HIM_S3_ENDPOINT as string,
    ...statements.flatMap((s) => ['--sql', s]),
  ]);
  if (r.code !== 0) throw new Error(`spark_sql.py failed (${r.code}): ${r.stderr.slice(-4000)}`);
}

async function record(name: string): Promise<{ status: string }> {
  const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
  try {
    return await state.getTable(planHash, `${sales}.${name}`);
  } finally {
    await state.close();
  }
}

async function hiveTable(name: string): Promise<TableInventory> {
  const hms = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string });
  try {
    const [t] = await hms.getTables(sales, [name]);
    if (t === undefined) throw new Error(`${name} not in HMS`);
    return t;
  } finally {
    await hms.close();
  }
}

/** The files directly in `location` (as Hive lists a partition: not recursive; `_`/`.` files are not data). */
async function filesIn(location: string, partition: string | undefined): Promise<SeedFile[]> {
  const out: SeedFile[] = [];
  for await (const e of store.list(location)) {
    const base = e.path.slice(e.path.lastIndexOf('/') + 1);
    if (e.kind !== 'file' || base.startsWith('_') || base.startsWith('.')) continue;
    const key = e.path.replace(/^s3[an]?:\/\/[^/]+\//, '');
    out.push({ key, location: e.path, size: e.size, rows: 0, sha256: '', ...(partition === undefined ? {} : { partition }) });
  }
  return out;
}

/** Rows and canonical checksum of a Hive table read from its partitions' files as HMS has them now. */
async function hiveContentNow(name: string): Promise<{ rows: number; checksum: string }> {
  const inv = await hiveTable(name);
  const seeded = manifest.tables.find((t) => t.name === name) as SeedTable;
  const files: SeedFile[] = [];
  for (const p of inv.partitions) files.push(...(await filesIn(p.sd.location as string, p.name)));
  if (inv.table.partitionKeys.length === 0) files.push(...(await filesIn(inv.table.sd.location as string, undefined)));
  return hiveContent(dir, manifest, { ...seeded, partitions: inv.partitions.map(seedPartition), files });
}

interface PreviewBody {
  ok: boolean;
  dryRun: boolean;
  tables: {
    table: string;
    action: string;
    code?: string;
    message?: string;
    putBack?: {
      ours: string;
      head: string;
      snapshots: { snapshotId: string; operation: string; files: number; records: number }[];
      partitionsToAdd: { name: string; location: string; files: string[]; records: number }[];
      partitionsVisible: { name: string; location: string; files: string[]; records: number }[];
      files: number;
      records: number;
    };
  }[];
}

interface RollbackBody {
  ok: boolean;
  rolledBack: string[];
  refused: { tableId: string; code: string; message: string }[];
  putBack: {
    tableId: string;
    snapshots: string[];
    partitionsAdded: string[];
    partitionsVisible: string[];
    files: number;
    records: number;
  }[];
}

describe('rollback puts back appends other engines made', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-putback-'));
    failpointDir = path.join(dir, 'failpoints');
    mkdirSync(failpointDir);
    manifest = await seedWarehouse(prefix, dir);
    cfgFile = liveConfig({ dir, queue: `him-putback-${prefix}`, nsPrefix, db: sales, tables: TABLES });
    migrate = migrateWith(cfgFile);
    startWorker();
    planHash = (await planAndApply(migrate, dir, { workerLog: () => worker?.log() ?? '' })).hash;
  }, 900_000);

  afterAll(async () => {
    await worker?.stop();
    await dropNamespace(ns);
    await dropSeed(prefix);
    store.destroy();
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('after cutover: Spark appends are put back into Hive (new partition added once, through two worker kills); a Spark DELETE blocks its table, which stays fenced and cut over', async () => {
    const id = planHash.slice(0, 12);
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    const ordersIdent = tableIdent([ns], 'orders');
    const customersIdent = tableIdent([ns], 'customers');
    // What an operator does at cutover (docs/migrating.md): Iceberg writers put new files in the Hive
    // layout. A metadata-only commit (no snapshot): it does not block the put-back.
    const hiveOrdersBefore = await hiveTable('orders');
    const hiveLocation = hiveOrdersBefore.table.sd.location as string;
    expect((await catalog.loadTable(ordersIdent)).metadata.properties['write.data.path']).toBeUndefined();

    // The cutover: both tables fenced (moved aside under their fenced names), synced, validated, cut over.
    const cut = await migrate(['cutover', id, '--wave', '1', '--wait', '--json'], 900_000);
    if (cut.code !== 0)
      throw new Error(`cutover failed (${cut.code}): ${cut.stdout}\n${cut.stderr}\nworker:\n${worker?.log().slice(-4000) ?? ''}`);
    await expect(hiveTable('orders')).rejects.toThrow('does not exist');
    const fencedOrders = tableFingerprint(await hiveTable(fencedName('orders')));
    const fencedCustomers = tableFingerprint(await hiveTable(fencedName('customers')));
    expect((await record('customers')).status).toBe('cutover');
    await spark([
      `ALTER TABLE \`${ns}\`.orders SET TBLPROPERTIES ('write.data.path' = '${hiveLocation}')`,
      `INSERT INTO \`${ns}\`.orders VALUES ` +
        `(900001, 'c001', CAST(12.34 AS DECIMAL(10,2)), TIMESTAMP_NTZ '2024-05-01 10:00:00', 2024, 'us'), ` +
        `(900002, 'c002', CAST(56.78 AS DECIMAL(10,2)), TIMESTAMP_NTZ '2026-01-02 03:04:05', 2026, 'eu')`,
      `DELETE FROM \`${ns}\`.customers WHERE vip = true`,
    ]);
    const orders = await catalog.loadTable(ordersIdent);
    const customers = await catalog.loadTable(customersIdent);
    const sparkAppend = orders.metadata.snapshots.find((s) => s.snapshotId === orders.metadata.currentSnapshotId);
    const sparkDelete = customers.metadata.snapshots.find((s) => s.snapshotId === customers.metadata.currentSnapshotId);
    expect([sparkAppend?.summary.operation, sparkAppend?.summary['engine-name'], sparkDelete?.summary['engine-name']]).toEqual([
      'append',
      'spark',
      'spark',
    ]);
    const deleteId = String(sparkDelete?.snapshotId);
    const appendId = String(sparkAppend?.snapshotId);
    const [icebergRead] = await readWithPyIceberg([`${ns}.orders`]);
    expect(icebergRead?.error).toBeUndefined();

    // --dry-run: orders would get year=2026/region=eu added and year=2024/region=us is already visible; customers is blocked.
    const dry = await migrate(['rollback', id, '--wave', '1', '--dry-run', '--json']);
    expect(dry.code).toBe(1);
    const preview = JSON.parse(dry.stdout) as PreviewBody;
    const po = preview.tables.find((t) => t.table === `${sales}.orders`);
    const pc = preview.tables.find((t) => t.table === `${sales}.customers`);
    expect([preview.dryRun, po?.action, pc?.action, pc?.code]).toEqual([true, 'put-back', 'blocked', 'ROLLBACK_BLOCKED']);
    expect(pc?.message).toContain(deleteId);
    expect(po?.putBack?.snapshots).toEqual([{ snapshotId: appendId, operation: 'append', files: 2, records: 2 }]);
    expect(po?.putBack?.partitionsToAdd.map((p) => [p.name, p.files.length, p.records])).toEqual([['year=2026/region=eu', 1, 1]]);
    expect(po?.putBack?.partitionsToAdd[0]?.location).toBe(`${hiveOrdersBefore.table.sd.location as string}/year=2026/region=eu`);
    expect(po?.putBack?.partitionsVisible.map((p) => [p.name, p.files.length, p.records])).toEqual([['year=2024/region=us', 1, 1]]);
    const text = await migrate(['rollback', id, '--wave', '1', '--dry-run']);
    expect(text.stdout).toContain('add partition year=2026/region=eu');
    expect(text.stdout).toContain(`snapshot ${deleteId} (overwrite)`);
    // Nothing changed: Hive (still fenced) and both entries as they were.
    expect(tableFingerprint(await hiveTable(fencedName('orders')))).toBe(fencedOrders);
    expect((await catalog.loadTable(ordersIdent)).metadataLocation).toBe(orders.metadataLocation);
    expect((await catalog.loadTable(customersIdent)).metadataLocation).toBe(customers.metadataLocation);

    // The rollback, through a worker killed after adding the partition and again before dropping the entry.
    const r = await migrate(['rollback', id, '--wave', '1', '--json'], 900_000);
    const body = JSON.parse(r.stdout) as RollbackBody;
    expect([r.code, body.rolledBack, body.refused.map((x) => [x.tableId, x.code])]).toEqual([
      1,
      [`${sales}.orders`],
      [[`${sales}.customers`, 'ROLLBACK_BLOCKED']],
    ]);
    expect(worker?.kills()).toBe(2);
    expect(body.refused[0]?.message).toContain(deleteId);
    expect(body.putBack.map((p) => [p.tableId, p.snapshots, p.files, p.records])).toEqual([[`${sales}.orders`, [appendId], 2, 2]]);

    // Hive: the saved original plus exactly the new partition (once), at the directory Spark wrote it to.
    const after = await hiveTable('orders');
    const added = after.partitions.filter((p) => !hiveOrdersBefore.partitions.some((b) => b.name === p.name));
    expect(added.map((p) => [p.name, p.values, p.sd.location])).toEqual([
      ['year=2026/region=eu', ['2026', 'eu'], `${hiveOrdersBefore.table.sd.location as string}/year=2026/region=eu`],
    ]);
    expect(tableFingerprint({ table: after.table, partitions: after.partitions.filter((p) => !added.includes(p)) })).toBe(
      tableFingerprint(hiveOrdersBefore),
    );
    // Hive's content read from its partitions' files = the Iceberg table's content just before the rollback.
    const hive = await hiveContentNow('orders');
    expect({ rows: hive.rows, checksum: hive.checksum }).toEqual({ rows: icebergRead?.rows, checksum: icebergRead?.checksum });
    // The entry is gone (never purged: Spark's data and metadata files are still there); customers is untouched.
    expect(await catalog.tableExists(ordersIdent)).toBe(false);
    await expect(store.head(orders.metadataLocation)).resolves.toMatchObject({ path: orders.metadataLocation });
    expect((await catalog.loadTable(customersIdent)).metadataLocation).toBe(customers.metadataLocation);
    // customers' rollback is refused, so it stays fenced and cut over: its Hive name still unusable.
    await expect(hiveTable('customers')).rejects.toThrow('does not exist');
    expect(tableFingerprint(await hiveTable(fencedName('customers')))).toBe(fencedCustomers);

    // The record and the audit: one put-back event, the table rolled back.
    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    try {
      const rec = await state.getTable(planHash, `${sales}.orders`);
      expect([rec.status, rec.snapshotId, rec.originalDigest]).toEqual(['rolled-back', appendId, tableFingerprint(after)]);
      expect((await state.getTable(planHash, `${sales}.customers`)).status).toBe('cutover');
      const events: { action: string; details: Record<string, unknown> }[] = [];
      for await (const e of state.readAudit()) if (e.planHash === planHash && e.object === `hms:${sales}.orders`) events.push(e);
      const putBacks = events.filter((e) => e.action === 'table.put-back');
      expect(putBacks).toHaveLength(1);
      expect(putBacks[0]?.details).toMatchObject({ head: appendId, snapshots: [appendId], files: 2, records: 2, addedByThisRun: 0 });
      expect(events.filter((e) => e.action === 'table.rolled-back')).toHaveLength(1);
      expect(events.filter((e) => e.action === 'table.unfenced')).toHaveLength(1);
      let customersUnfenced = 0;
      for await (const e of state.readAudit())
        if (e.planHash === planHash && e.object === `hms:${sales}.customers` && e.action === 'table.unfenced') customersUnfenced++;
      expect(customersUnfenced).toBe(0);
    } finally {
      await state.close();
    }

    // Again: nothing more to do for orders, no partition added twice; customers still refused.
    const again = await migrate(['rollback', id, '--wave', '1', '--json'], 600_000);
    expect([again.code, (JSON.parse(again.stdout) as RollbackBody).refused.map((x) => x.code)]).toEqual([1, ['ROLLBACK_BLOCKED']]);
    expect((await hiveTable('orders')).partitions).toHaveLength(after.partitions.length);
  }, 1_800_000);
});
