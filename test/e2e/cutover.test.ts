// `migrate cutover` and its undo in rollback, on the stack: tables seeded,
// planned and applied through a real `migrate worker` (REST catalog, register mode). orders gets a
// new daily partition on the Hive side; `migrate cutover --wave 1 --table orders` runs under a
// worker that SIGKILLs itself after the fence's rename, after the final sync's commit and before the
// mark (restarted each time): the final sync took the partition (PyIceberg reads exactly the Hive
// content), the Hive table sits EXTERNAL under its fenced name with its locations unchanged, writers
// through the old name fail (Thrift add_partitions; a Parquet file written under the table location
// and added as a partition), and fence/sync/cutover are audited once each. Then the whole wave
// (customers: a MANAGED table) is cut over, a second cutover changes nothing, sync refuses a cut-over
// table, status shows it, and `migrate rollback --wave 1` unfences both tables and restores them
// with their saved originals' digests.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { RestCatalog } from '../../adapters/catalog/rest';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { ThriftHmsWriter } from '../../adapters/hms/thrift/writer';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import { tableIdent } from '../../core/catalog/catalog';
import { fencedName } from '../../core/cutover/fence';
import { tableFingerprint } from '../../core/hive/fingerprint';
import type { HivePartition, TableInventory } from '../../core/hive/model';
import type { SeedManifest, SeedTable } from '../../dev/seed/manifest';
import type { Run } from '../helpers/cli';
import { ROOT, TSX, run } from '../helpers/cli';
import type { WorkerProc } from '../helpers/hostile';
import { startWorker } from '../helpers/hostile';
import {
  copyPartition,
  hiveContent as readHiveContent,
  liveConfig,
  seedPartition,
  seededFilesUnder,
  seedWarehouse,
  tableAfter,
} from '../helpers/live-tables';
import { testStack, uniqueName } from '../helpers/stack-env';
import { readWithPyIceberg } from '../helpers/verifier';
import { SA } from '../../workflows/common';

const env = testStack();
const prefix = uniqueName('himcut').toLowerCase();
const nsPrefix = `${prefix}_`;
const sales = `${prefix}_sales`;
const ns = `${nsPrefix}${sales}`;
const TABLES = ['customers', 'orders'];
let dir = '';
let cfgFile = '';
let manifest: SeedManifest;
let worker: WorkerProc | undefined;
let planHash = '';
/** orders and customers as HMS had them before any cutover. */
const before: Record<string, TableInventory> = {};

const migrate = (args: string[], timeout?: number): Promise<Run> =>
  run(path.join(ROOT, 'bin', 'migrate'), [...args, '--config', cfgFile], timeout);
const seeded = (name: string): SeedTable => manifest.tables.find((t) => t.name === name) as SeedTable;
const store = new RoutingObjectStore({
  metadataPrefixes: ['s3a://hive/seed/', 's3://hive/seed/'],
  s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
});
const hmsUri = env.HIM_HMS_PG_URI as string;

interface CutoverBody {
  ok: boolean;
  workflowId: string;
  status: string;
  tables: { table: string; ok: boolean; steps: { step: string; done: string; detail: string }[]; error?: { code: string } }[];
}

async function withHms<T>(fn: (r: ThriftHmsReader, w: ThriftHmsWriter) => Promise<T>): Promise<T> {
  const r = new ThriftHmsReader({ uri: hmsUri });
  const w = new ThriftHmsWriter({ uri: hmsUri });
  try {
    return await fn(r, w);
  } finally {
    await r.close();
    await w.close();
  }
}

/** The table under `name`, or undefined when HMS does not have it. */
const hmsTable = (name: string): Promise<TableInventory | undefined> =>
  withHms(async (r) => (await r.getTables(sales, [name]).catch(() => []))[0]);

async function events(action: string, table: string): Promise<Record<string, unknown>[]> {
  const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
  try {
    const out: Record<string, unknown>[] = [];
    for await (const e of state.readAudit())
      if (e.planHash === planHash && e.action === action && e.object === `hms:${sales}.${table}`) out.push(e.details);
    return out;
  } finally {
    await state.close();
  }
}

async function record(table: string) {
  const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
  try {
    return await state.getTable(planHash, `${sales}.${table}`);
  } finally {
    await state.close();
  }
}

async function snapshots(table: string): Promise<number> {
  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  return (await catalog.loadTable(tableIdent([ns], table))).metadata.snapshots.length;
}

const hiveContent = (t: SeedTable) => readHiveContent(dir, manifest, t);

describe('migrate cutover', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-cutover-'));
    manifest = await seedWarehouse(prefix, dir);
    cfgFile = liveConfig({ dir, queue: `him-cutover-${prefix}`, nsPrefix, db: sales, tables: TABLES });
    worker = startWorker(cfgFile);
    const planFile = path.join(dir, 'plan.json');
    const p = await migrate(['plan', '--out', planFile]);
    if (p.code !== 0) throw new Error(`plan failed: ${p.stderr}`);
    planHash = (JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string }).hash;
    const a = await migrate(['apply', planFile, '--auto-approve', '--wait', '--json'], 600_000);
    if (a.code !== 0) throw new Error(`apply failed (${a.code}): ${a.stdout}\n${a.stderr}\nworker:\n${worker.log().slice(-4000)}`);
    for (const t of TABLES) before[t] = (await hmsTable(t)) as TableInventory;
  }, 900_000);

  afterAll(async () => {
    await worker?.stop();
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    for (const t of await catalog.listTables([ns]).catch(() => [])) await catalog.dropTable(t);
    await catalog.dropNamespace([ns]).catch(() => undefined);
    // A table a failed run left fenced goes back under its name so the seed's drop finds it.
    await withHms(async (r, w) => {
      for (const t of TABLES) {
        const [f] = await r.getTables(sales, [fencedName(t)]).catch(() => []);
        if (f !== undefined) await w.dropTable(sales, fencedName(t));
      }
    });
    await run(TSX, ['dev/seed/main.ts', '--hms', hmsUri, '--prefix', prefix, '--drop']);
    store.destroy();
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('a worker SIGKILLed after the rename, after the final commit and before the mark, restarted each time → orders cut over once; the final sync took the new partition; writers through the old name fail', async () => {
    const id = planHash.slice(0, 12);
    // A new daily partition on the Hive side after apply (a copy of year=2024/region=us).
    const orders = before.orders as TableInventory;
    const src = orders.partitions.find((p) => p.name === 'year=2024/region=us') as HivePartition;
    const keys = orders.table.partitionKeys.map((k) => k.name);
    const added = await copyPartition(store, manifest, src, orders.table.sd.location as string, keys, ['2026', 'us']);
    await withHms((_r, w) => w.addPartitions(sales, 'orders', [added.partition]));
    const after = tableAfter(seeded('orders'), added.files, [], [seedPartition(added.partition)]);
    const expected = await hiveContent(after);
    const snaps = await snapshots('orders');

    const failpointDir = mkdtempSync(path.join(os.tmpdir(), 'him-cutover-fp-'));
    const crashing = { HIM_FAILPOINTS: 'cutover-after-rename,sync-after-commit,cutover-before-mark', HIM_FAILPOINT_DIR: failpointDir };
    await worker?.stop();
    worker = startWorker(cfgFile, crashing);
    let kills = 0;
    const cut = migrate(['cutover', id, '--wave', '1', '--table', `${sales}.orders`, '--json'], 900_000);
    let settled = false;
    void cut.finally(() => (settled = true));
    while (!settled) {
      await new Promise((r) => setTimeout(r, 500));
      const w = worker as WorkerProc;
      if (w.proc.exitCode === null && w.proc.signalCode === null) continue;
      kills += w.proc.signalCode === 'SIGKILL' ? 1 : 0;
      worker = startWorker(cfgFile, crashing);
    }
    const c = await cut;
    await worker?.stop();
    worker = startWorker(cfgFile);
    rmSync(failpointDir, { recursive: true, force: true });
    expect([c.code, kills, c.stderr]).toEqual([0, 3, '']);
    const body = JSON.parse(c.stdout) as CutoverBody;
    expect(body.workflowId).toBe(`migrate/${id}/cutover-wave-1`);
    expect(body.tables.map((t) => [t.table, t.ok, t.steps.map((s) => s.step)])).toEqual([
      [`${sales}.orders`, true, ['fence', 'final-sync', 'final-validation', 'mark']],
    ]);

    // The final sync took the new partition: one more snapshot, and PyIceberg reads exactly the Hive content.
    expect(await snapshots('orders')).toBe(snaps + 1);
    const [read] = await readWithPyIceberg([`${ns}.orders`]);
    expect({ rows: read?.rows, checksum: read?.checksum, error: read?.error }).toEqual({
      rows: after.rows,
      checksum: expected.checksum,
      error: undefined,
    });

    // Fenced: nothing under the old name; the table EXTERNAL under the fenced name, every location unchanged.
    expect(await hmsTable('orders')).toBeUndefined();
    const fenced = (await hmsTable(fencedName('orders'))) as TableInventory;
    expect(fenced.table.tableType).toBe('EXTERNAL_TABLE');
    expect(fenced.table.sd.location).toBe(orders.table.sd.location);
    const locs = (inv: TableInventory) => Object.fromEntries(inv.partitions.map((p) => [p.name, p.sd.location]));
    expect(locs(fenced)).toEqual({ ...locs(orders), [added.partition.name]: added.partition.sd.location });

    // Writers through the old name fail loudly: add_partitions, and a Parquet file written under the table location then added.
    const src2 = orders.partitions.find((p) => p.name === 'year=2024/region=eu') as HivePartition;
    await expect(
      withHms((_r, w) => w.addPartitions(sales, 'orders', [{ ...src2, values: ['2030', 'eu'], name: 'year=2030/region=eu' }])),
    ).rejects.toMatchObject({
      code: expect.stringMatching(/^HMS_/),
    });
    const late = await copyPartition(store, manifest, src2, orders.table.sd.location as string, keys, ['2031', 'eu']);
    expect(late.files.length).toBeGreaterThan(0);
    await expect(withHms((_r, w) => w.addPartitions(sales, 'orders', [late.partition]))).rejects.toMatchObject({
      code: expect.stringMatching(/^HMS_/),
    });
    await expect(withHms((_r, w) => w.alterTable(sales, 'orders', orders.table))).rejects.toMatchObject({
      code: expect.stringMatching(/^HMS_/),
    });
    // Neither reached either side: the fenced table has the same partitions, Iceberg the same content.
    expect(locs((await hmsTable(fencedName('orders'))) as TableInventory)).toEqual(locs(fenced));
    const [again] = await readWithPyIceberg([`${ns}.orders`]);
    expect(again?.checksum).toBe(expected.checksum);

    // Recorded and audited exactly once each, in spite of three kills.
    expect((await record('orders')).status).toBe('cutover');
    expect((await events('table.fenced', 'orders')).map((e) => [e.mode, e.to])).toEqual([['register', `${sales}.${fencedName('orders')}`]]);
    expect((await events('table.synced', 'orders')).map((e) => e.operation)).toEqual(['append']);
    const cutEvents = await events('table.cutover', 'orders');
    expect(cutEvents).toHaveLength(1);
    expect(cutEvents[0]?.validation).toMatchObject({ files: after.files.length, records: after.rows });
  }, 1_200_000);

  it('the whole wave: customers (MANAGED) cut over, orders unchanged; a second cutover is a no-op; sync refuses; status and the search attribute show cutover', async () => {
    const id = planHash.slice(0, 12);
    const c = await migrate(['cutover', id, '--wave', '1', '--json'], 900_000);
    expect([c.code, c.stderr]).toEqual([0, '']);
    const body = JSON.parse(c.stdout) as CutoverBody;
    const doneOf = (b: CutoverBody, t: string) => b.tables.find((x) => x.table === `${sales}.${t}`)?.steps.map((s) => s.done);
    expect(doneOf(body, 'customers')?.[0]).toBe('now');
    expect(doneOf(body, 'orders')).toEqual(['already', 'already', 'already', 'already']);
    // customers is a MANAGED table: renamed only after it was made EXTERNAL, so HMS moved no directory.
    expect(before.customers?.table.tableType).toBe('MANAGED_TABLE');
    const customers = (await hmsTable(fencedName('customers'))) as TableInventory;
    expect([customers.table.tableType, customers.table.sd.location]).toEqual(['EXTERNAL_TABLE', before.customers?.table.sd.location]);
    expect(await hmsTable('customers')).toBeUndefined();

    const counts = async () =>
      Promise.all(['table.fenced', 'table.synced', 'table.cutover'].flatMap((a) => TABLES.map(async (t) => (await events(a, t)).length)));
    const n = await counts();
    const second = await migrate(['cutover', id, '--wave', '1', '--json'], 600_000);
    expect(second.code).toBe(0);
    const b2 = JSON.parse(second.stdout) as CutoverBody;
    for (const t of TABLES) expect(doneOf(b2, t)).toEqual(['already', 'already', 'already', 'already']);
    expect(await counts()).toEqual(n);

    const s = await migrate(['sync', id, '--table', `${sales}.orders`, '--json']);
    expect([s.code, (JSON.parse(s.stdout) as { error: { code: string } }).error.code]).toEqual([2, 'SYNC_CUT_OVER']);
    const st = await migrate(['status', id, '--json']);
    expect((JSON.parse(st.stdout) as { cutover: unknown }).cutover).toEqual([
      { wave: 1, fenced: [], cutover: TABLES.map((t) => `${sales}.${t}`) },
    ]);
    expect((await migrate(['status', id])).stdout).toContain(`wave 1: 2 cut over (${sales}.customers, ${sales}.orders)`);

    const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
    try {
      const d = await new Client({ connection }).workflow.getHandle(`migrate/${id}/cutover-wave-1`).describe();
      expect(d.typedSearchAttributes.get(SA.status)).toBe('cutover');
    } finally {
      await connection.close();
    }
  }, 1_200_000);

  it('rollback --wave 1 unfences both tables first, then rolls them back: each Hive table under its name with its saved original digest and table type', async () => {
    const id = planHash.slice(0, 12);
    const saved = Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, (await record(t)).originalDigest] as const)));
    const r = await migrate(['rollback', id, '--wave', '1', '--json'], 600_000);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect((JSON.parse(r.stdout) as { rolledBack: string[] }).rolledBack.sort()).toEqual(TABLES.map((t) => `${sales}.${t}`));
    for (const t of TABLES) {
      const live = (await hmsTable(t)) as TableInventory;
      expect([t, tableFingerprint(live)]).toEqual([t, saved[t]]);
      expect([t, live.table.tableType]).toEqual([t, before[t]?.table.tableType]);
      expect(await hmsTable(fencedName(t))).toBeUndefined();
      expect((await record(t)).status).toBe('rolled-back');
      expect((await events('table.unfenced', t)).map((e) => e.mode)).toEqual(['register']);
    }
    // customers was MANAGED: its files are where they were (the fence's rename moved nothing).
    const loc = before.customers?.table.sd.location as string;
    const files = [...seededFilesUnder(manifest, loc)];
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect((await store.head(f.location)).size).toBe(f.size);
  }, 900_000);
});
