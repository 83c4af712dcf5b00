// Plans that stay valid: tables seeded and planned (plan file version 3, one
// conversion pin per table); between plan and apply the warehouse moves on the way live tables do —
// new partitions with data files (orders, special_parts), table stats refreshed (numRows,
// transient_lastDdlTime: orders, customers) — and one table's column type is changed (all_types).
// apply through Temporal (a real `migrate worker`, the stack's REST catalog, HMS and S3) migrates
// the first three as they are at apply time: PyIceberg reads the rows Hive has now, and each table's
// validation record names the partitions added since the plan. all_types fails SOURCE_CHANGED
// naming the column and both types; nothing is registered for it. The same plan as version 2
// (no pins) keeps the old rule: every one of those tables fails SOURCE_CHANGED on its fingerprint.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RestCatalog } from '../../adapters/catalog/rest';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { ThriftHmsWriter } from '../../adapters/hms/thrift/writer';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import { tableIdent } from '../../core/catalog/catalog';
import type { HivePartition } from '../../core/hive/model';
import { canonicalJson, sha256Hex } from '../../core/hash';
import type { SincePlan } from '../../core/plan/partition-set';
import type { SeedManifest } from '../../dev/seed/manifest';
import type { Run } from '../helpers/cli';
import { ROOT, TSX, run } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';
import { readWithPyIceberg } from '../helpers/verifier';
import type { WorkerProc } from '../helpers/hostile';
import { startWorker } from '../helpers/hostile';
import { copyPartition, liveConfig, seedWarehouse } from '../helpers/live-tables';

const env = testStack();
const prefix = uniqueName('himlive').toLowerCase();
const nsPrefix = `${prefix}_`;
const sales = `${prefix}_sales`;
const TABLES = ['all_types', 'customers', 'orders', 'special_parts'];
let dir = '';
let cfgFile = '';
let manifest: SeedManifest;
let worker: WorkerProc | undefined;
let planText = '';

const migrate = (args: string[], timeout?: number): Promise<Run> =>
  run(path.join(ROOT, 'bin', 'migrate'), [...args, '--config', cfgFile], timeout);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seeded = (name: string): SeedManifest['tables'][number] =>
  manifest.tables.find((t) => t.name === name) as SeedManifest['tables'][number];
const store = new RoutingObjectStore({
  metadataPrefixes: ['s3a://hive/seed/', 's3://hive/seed/'],
  s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
});

interface ApplyBody {
  ok: boolean;
  result: { state: string; waves: { failed: { tableId: string; code: string }[] }[] };
}

/** Between plan and apply: partitions added (with files), stats refreshed, one column retyped. Returns the rows Hive has now. */
async function moveTheWarehouseOn(): Promise<Record<string, number>> {
  const hms = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string });
  const writer = new ThriftHmsWriter({ uri: env.HIM_HMS_PG_URI as string });
  const now = String(Math.floor(Date.now() / 1000));
  try {
    const [orders, special, customers, allTypes] = await hms.getTables(sales, ['orders', 'special_parts', 'customers', 'all_types']);
    if (!orders || !special || !customers || !allTypes) throw new Error('seeded tables not found');
    // orders: two new partitions (copies of year=2024/region=us) and a table stats refresh.
    const us = orders.partitions.find((p) => p.name === 'year=2024/region=us') as HivePartition;
    const keys = orders.table.partitionKeys.map((k) => k.name);
    const added = [
      (await copyPartition(store, manifest, us, orders.table.sd.location as string, keys, ['2026', 'eu'])).partition,
      (await copyPartition(store, manifest, us, orders.table.sd.location as string, keys, ['2026', 'us'])).partition,
    ];
    await writer.addPartitions(sales, 'orders', added);
    await writer.alterTable(sales, 'orders', {
      ...orders.table,
      parameters: { ...orders.table.parameters, numRows: String(seeded('orders').rows), transient_lastDdlTime: now },
    });
    // special_parts: one new partition (a copy of k=plain).
    const plain = special.partitions.find((p) => p.name === 'k=plain') as HivePartition;
    const late = await copyPartition(store, manifest, plain, special.table.sd.location as string, ['k'], ['late']);
    await writer.addPartitions(sales, 'special_parts', [late.partition]);
    // customers (unpartitioned): stats refreshed, marked accurate (validation then compares them with the footers).
    await writer.alterTable(sales, 'customers', {
      ...customers.table,
      parameters: {
        ...customers.table.parameters,
        numRows: String(seeded('customers').rows),
        COLUMN_STATS_ACCURATE: '{"BASIC_STATS":"true"}',
        transient_lastDdlTime: now,
      },
    });
    // all_types: a column type changed (int → bigint: a change HMS allows).
    await writer.alterTable(sales, 'all_types', {
      ...allTypes.table,
      sd: { ...allTypes.table.sd, columns: allTypes.table.sd.columns.map((c) => (c.name === 'id' ? { ...c, type: 'bigint' } : c)) },
    });
    const rowsOf = (p: HivePartition | undefined) => seeded('orders').partitions.find((s) => s.name === p?.name)?.rows ?? NaN;
    const plainRows = seeded('special_parts').partitions.find((s) => s.name === 'k=plain')?.rows ?? NaN;
    return {
      orders: seeded('orders').rows + 2 * rowsOf(us),
      special_parts: seeded('special_parts').rows + plainRows,
      customers: seeded('customers').rows,
    };
  } finally {
    await hms.close();
    await writer.close();
  }
}

describe('apply of a plan whose tables changed since (conversion pins)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-live-'));
    manifest = await seedWarehouse(prefix, dir);
    cfgFile = liveConfig({ dir, queue: `him-live-${prefix}`, nsPrefix, db: sales, tables: TABLES });
    worker = startWorker(cfgFile);
  }, 900_000);

  afterAll(async () => {
    await worker?.stop();
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    for (const t of await catalog.listTables([`${nsPrefix}${sales}`]).catch(() => [])) await catalog.dropTable(t);
    await catalog.dropNamespace([`${nsPrefix}${sales}`]).catch(() => undefined);
    await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--drop']);
    store.destroy();
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('partitions added and stats refreshed → migrated as they are now (validation lists the added partitions); a column retyped → SOURCE_CHANGED naming it', async () => {
    const planFile = path.join(dir, 'plan.json');
    expect((await migrate(['plan', '--out', planFile])).code).toBe(0);
    planText = readFileSync(planFile, 'utf8');
    const plan = JSON.parse(planText) as {
      version: number;
      hash: string;
      waves: {
        tables: { id: string; pin: { columns: { name: string; type: string }[] } | null; partitions: { count: number } | null }[];
      }[];
    };
    const entries = plan.waves.flatMap((w) => w.tables);
    expect(plan.version).toBe(3);
    expect(entries.map((t) => t.id).sort()).toEqual(TABLES.map((t) => `${sales}.${t}`));
    for (const t of entries) expect(t.pin).not.toBeNull();
    expect(entries.find((t) => t.id.endsWith('.all_types'))?.pin?.columns[0]).toEqual({ name: 'id', type: 'int' });
    expect(entries.find((t) => t.id.endsWith('.orders'))?.partitions?.count).toBe(seeded('orders').partitions.length);

    await sleep(1100); // new partitions get a createTime (seconds) after the newest planned one
    const rowsNow = await moveTheWarehouseOn();

    // The stale-plan pre-check: only all_types changes its conversion (new partitions and stats pass its pin); nothing started.
    const refused = await migrate(['apply', planFile, '--auto-approve', '--json']);
    const err = (JSON.parse(refused.stdout) as { error?: { code: string; context: { stale: { tableId: string; reason: string }[] } } })
      .error;
    expect([refused.code, err?.code, err?.context.stale.map((x) => [x.tableId, x.reason])]).toEqual([
      2,
      'PLAN_STALE',
      [[`${sales}.all_types`, 'changed']],
    ]);
    const a = await migrate(['apply', planFile, '--accept-stale', '--auto-approve', '--wait', '--max-failed', '3', '--json'], 600_000);
    if (a.stdout === '') throw new Error(`apply printed nothing: ${a.stderr}\nworker:\n${worker?.log().slice(-4000) ?? ''}`);
    const body = JSON.parse(a.stdout) as ApplyBody;
    expect(body.result.waves.flatMap((w) => w.failed)).toEqual([{ tableId: `${sales}.all_types`, code: 'SOURCE_CHANGED' }]);

    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    try {
      const failed = await state.getTable(plan.hash, `${sales}.all_types`);
      expect([failed.status, failed.errorCode, failed.original]).toEqual(['failed', 'SOURCE_CHANGED', null]);
      expect(failed.errorMessage).toContain('column id: int → bigint');
      const since = async (name: string): Promise<SincePlan> => {
        const rec = await state.getTable(plan.hash, `${sales}.${name}`);
        expect([name, rec.status]).toEqual([name, 'migrated']);
        return (rec.validation as { sincePlan: SincePlan }).sincePlan;
      };
      const orders = await since('orders');
      expect(orders.partitions).toEqual({
        planned: seeded('orders').partitions.length,
        converted: seeded('orders').partitions.length + 2,
        added: { count: 2, names: ['year=2026/region=eu', 'year=2026/region=us'], exact: true },
      });
      const usFiles = seeded('orders').partitions.find((p) => p.name === 'year=2024/region=us')?.files.length ?? NaN;
      expect(orders.files.converted).toBe(seeded('orders').files.length + 2 * usFiles);
      expect((await since('special_parts')).partitions.added).toEqual({ count: 1, names: ['k=late'], exact: true });
      expect((await since('customers')).partitions).toEqual({ planned: 0, converted: 0, added: { count: 0, names: [], exact: true } });
      // The validate step's audit event carries the same record.
      let audited: unknown;
      for await (const e of state.readAudit())
        if (e.planHash === plan.hash && e.action === 'table.validated' && e.object === `hms:${sales}.orders`)
          audited = e.details['sincePlan'];
      expect(audited).toEqual(orders);
    } finally {
      await state.close();
    }
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    expect(await catalog.tableExists(tableIdent([`${nsPrefix}${sales}`], 'all_types'))).toBe(false);

    // PyIceberg reads the rows Hive has now (the seeded ones plus the added partitions' copies).
    const names = Object.keys(rowsNow).map((t) => `${nsPrefix}${sales}.${t}`);
    const reads = await readWithPyIceberg(names);
    expect(Object.fromEntries(reads.map((x) => [x.table.slice(x.table.lastIndexOf('.') + 1), x.rows]))).toEqual(rowsNow);
  }, 900_000);

  it('the same plan as version 2 (no pins) keeps the strict rule: every changed table fails SOURCE_CHANGED on its fingerprint', async () => {
    expect(planText).not.toBe('');
    // What a version 2 `migrate plan` wrote for the same tables: no pin, no partition summary.
    const v3 = JSON.parse(planText) as Record<string, unknown> & { waves: { tables: Record<string, unknown>[] }[] };
    const doc: Record<string, unknown> = {
      ...v3,
      version: 2,
      createdAt: new Date().toISOString(),
      waves: v3.waves.map((w) => ({ ...w, tables: w.tables.map(({ pin: _p, partitions: _q, ...t }) => t) })),
    };
    delete doc['hash'];
    const file = path.join(dir, 'plan-v2.json');
    writeFileSync(file, canonicalJson({ ...doc, hash: sha256Hex(canonicalJson(doc)) }));
    const a = await migrate(['apply', file, '--accept-stale', '--auto-approve', '--wait', '--max-failed', '4', '--json'], 600_000);
    const body = JSON.parse(a.stdout) as ApplyBody;
    const failed = body.result.waves.flatMap((w) => w.failed);
    expect(failed.map((f) => [f.tableId.slice(f.tableId.indexOf('.') + 1), f.code]).sort()).toEqual(
      TABLES.map((t) => [t, 'SOURCE_CHANGED']),
    );
  }, 600_000);
});
