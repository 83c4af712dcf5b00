// Sync lag in `migrate status`, on the stack: orders seeded, planned and applied
// through Temporal (a real `migrate worker`). Status shows it migrated and never synced, the live
// check (--lag) nothing behind. Then a new partition lands on the Hive side → `status --lag` shows
// the table behind by one partition and its files (text and --json), the wave counts say so →
// `migrate sync` → status shows it syncing, the last sync's time, outcome and snapshot, lag none;
// the sync workflow's `syncStatus` query carries the table's result (what the Temporal UI shows);
// a file copied into an existing partition (HMS untouched) is invisible to `--lag` (never exact) and
// found by `--lag --list-storage` (every location listed against the current snapshot: exact);
// `--table` adds the partitions added since the plan from the validation record.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Client, Connection } from '@temporalio/client';
import { RestCatalog } from '../../adapters/catalog/rest';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { ThriftHmsWriter } from '../../adapters/hms/thrift/writer';
import { listPartition } from '../../adapters/storage/list-partition';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import type { HivePartition } from '../../core/hive/model';
import type { TableStatusRow, WaveTableCounts } from '../../core/sync/lag';
import type { SeedManifest } from '../../dev/seed/manifest';
import { syncStatusQuery } from '../../workflows/index';
import type { Run } from '../helpers/cli';
import { ROOT, TSX, run } from '../helpers/cli';
import type { WorkerProc } from '../helpers/hostile';
import { startWorker } from '../helpers/hostile';
import { copyPartition, liveConfig, seedWarehouse } from '../helpers/live-tables';
import { testStack, uniqueName } from '../helpers/stack-env';

const env = testStack();
const prefix = uniqueName('himlag').toLowerCase();
const nsPrefix = `${prefix}_`;
const sales = `${prefix}_sales`;
const ns = `${nsPrefix}${sales}`;
const ORDERS = `${sales}.orders`;
let dir = '';
let cfgFile = '';
let manifest: SeedManifest;
let worker: WorkerProc | undefined;
let planHash = '';

const migrate = (args: string[], timeout?: number): Promise<Run> =>
  run(path.join(ROOT, 'bin', 'migrate'), [...args, '--config', cfgFile], timeout);
const store = new RoutingObjectStore({
  metadataPrefixes: [],
  s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
});

interface StatusBody {
  ok: boolean;
  state: string;
  tables: TableStatusRow[];
  tableCounts: WaveTableCounts[];
  sincePlan?: { partitions: { planned: number; converted: number; added: { count: number } } };
}

async function status(args: string[]): Promise<StatusBody> {
  const r = await migrate(['status', planHash.slice(0, 12), '--json', ...args]);
  if (r.code !== 0) throw new Error(`status failed (${r.code}): ${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout) as StatusBody;
}

/** A new daily partition of orders (a copy of year=2024/region=us under 2029/us); returns its file count. */
async function newPartition(): Promise<number> {
  const hms = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string });
  const writer = new ThriftHmsWriter({ uri: env.HIM_HMS_PG_URI as string });
  try {
    const [orders] = await hms.getTables(sales, ['orders']);
    if (orders === undefined) throw new Error('orders not found');
    const src = orders.partitions.find((p) => p.name === 'year=2024/region=us') as HivePartition;
    const keys = orders.table.partitionKeys.map((k) => k.name);
    const added = await copyPartition(store, manifest, src, orders.table.sd.location as string, keys, ['2029', 'us']);
    await writer.addPartitions(sales, 'orders', [added.partition]);
    return added.files.length;
  } finally {
    await hms.close();
    await writer.close();
  }
}

describe('migrate status: sync lag', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-lag-'));
    manifest = await seedWarehouse(prefix, dir);
    cfgFile = liveConfig({ dir, queue: `him-lag-${prefix}`, nsPrefix, db: sales, tables: ['orders'] });
    worker = startWorker(cfgFile);
    const planFile = path.join(dir, 'plan.json');
    const p = await migrate(['plan', '--out', planFile]);
    if (p.code !== 0) throw new Error(`plan failed: ${p.stderr}`);
    planHash = (JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string }).hash;
    const a = await migrate(['apply', planFile, '--auto-approve', '--wait', '--json'], 600_000);
    if (a.code !== 0) throw new Error(`apply failed (${a.code}): ${a.stdout}\n${a.stderr}\nworker:\n${worker.log().slice(-4000)}`);
  }, 900_000);

  afterAll(async () => {
    await worker?.stop();
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    for (const t of await catalog.listTables([ns]).catch(() => [])) await catalog.dropTable(t);
    await catalog.dropNamespace([ns]).catch(() => undefined);
    await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--drop']);
    store.destroy();
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('after apply: migrated, never synced, nothing behind; a new Hive partition → behind by it and its files; sync → syncing, last sync, lag none', async () => {
    const fresh = await status(['--lag']);
    expect(fresh.tables).toEqual([
      expect.objectContaining({
        table: ORDERS,
        wave: 1,
        status: 'migrated',
        phase: 'migrated',
        lastSync: null,
        lag: expect.objectContaining({ storage: null, exact: false }),
      }),
    ]);
    expect(fresh.tables[0]?.lag?.partitionsNew.count).toBe(0);
    expect(fresh.tableCounts).toEqual([
      { wave: 1, tables: 1, migrated: 1, syncing: 0, behind: 0, partitionsBehind: 0, filesBehind: 0, other: {} },
    ]);
    const quick = await status([]);
    expect(quick.tables[0]?.lag).toBeUndefined();

    const files = await newPartition();
    expect(files).toBeGreaterThan(0);
    const behind = await status(['--lag']);
    expect(behind.tables[0]?.lag).toEqual({
      checkedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      partitionsNew: { count: 1, names: ['year=2029/region=us'] },
      partitionsDropped: { count: 0, names: [] },
      partitionsChanged: { count: 0, names: [] },
      filesInNewPartitions: files,
      storage: null,
      exact: false,
    });
    expect(behind.tableCounts[0]).toMatchObject({ behind: 1, partitionsBehind: 1, filesBehind: files });
    const text = await migrate(['status', planHash.slice(0, 12), '--lag']);
    expect(text.stdout).toContain(
      `wave 1: 1 table — 1 migrated, 0 syncing, 1 behind (1 partition, ${files} file${files === 1 ? '' : 's'} in new partitions)`,
    );
    expect(text.stdout).toMatch(
      new RegExp(`${ORDERS.replace('.', '\\.')}\\s+migrated\\s+never synced · lag: 1 new partition \\(${files} files?\\)`),
    );

    const before = Date.now();
    const s = await migrate(['sync', planHash.slice(0, 12), '--json'], 600_000);
    expect([s.code, s.stderr]).toEqual([0, '']);
    const synced = JSON.parse(s.stdout) as { workflowId: string; tables: { result: { snapshotId: string; filesAdded: number } }[] };
    const snapshotId = synced.tables[0]?.result.snapshotId;
    expect(synced.tables[0]?.result.filesAdded).toBe(files);

    const after = await status(['--lag']);
    const t = after.tables[0] as TableStatusRow;
    expect([t.phase, t.snapshotId, t.lastSync?.outcome, t.lastSync?.snapshotId, t.lastSync?.filesAdded]).toEqual([
      'syncing',
      snapshotId,
      'committed',
      snapshotId,
      files,
    ]);
    expect(Date.parse(t.lastSync?.at ?? '')).toBeGreaterThanOrEqual(before - 1000);
    expect(t.lastSync?.lastCommitAt).toBe(t.lastSync?.at);
    expect(t.lag).toMatchObject({ partitionsNew: { count: 0 }, partitionsChanged: { count: 0 }, filesInNewPartitions: 0, exact: false });
    expect(after.tableCounts[0]).toMatchObject({ migrated: 0, syncing: 1, behind: 0 });
    const text2 = await migrate(['status', planHash.slice(0, 12), '--lag']);
    expect(text2.stdout).toMatch(
      /syncing\s+last sync \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ \(committed \+\d+ files?, 1 partition\), snapshot \d+ · lag: none/,
    );

    // The Temporal UI's view of the sync: its syncStatus query carries the table's result and the last sync time.
    const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
    try {
      const q = await new Client({ connection }).workflow.getHandle(synced.workflowId).query(syncStatusQuery);
      expect(q).toMatchObject({ tables: 1, done: 1, committed: 1, filesAdded: files, partitionsChanged: 1 });
      expect(q.perTable).toEqual([expect.objectContaining({ table: ORDERS, ok: true, status: 'appended', snapshotId, filesAdded: files })]);
      expect(q.lastSyncAt).toBe(q.perTable[0]?.at);
    } finally {
      await connection.close();
    }

    // A sync that finds nothing: in sync, the time moves on, the last commit time stays.
    const again = await migrate(['sync', planHash.slice(0, 12), '--direct', '--json']);
    expect(again.code).toBe(0);
    const last = (await status([])).tables[0] as TableStatusRow;
    expect([last.lastSync?.outcome, last.lastSync?.lastCommitAt, last.lastSync?.snapshotId]).toEqual([
      'in-sync',
      t.lastSync?.at,
      snapshotId,
    ]);
    expect(Date.parse(last.lastSync?.at ?? '')).toBeGreaterThan(Date.parse(t.lastSync?.at ?? ''));
  }, 900_000);

  it('a file lands in an existing partition, HMS untouched: --lag sees nothing (not exact); --list-storage finds it (exact)', async () => {
    const hms = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string });
    const [orders] = await hms.getTables(sales, ['orders']).finally(() => hms.close());
    const part = orders?.partitions.find((p) => p.name === 'year=2024/region=us');
    if (part?.sd.location === null || part === undefined) throw new Error('no year=2024/region=us partition');
    const [first] = (await listPartition(store, part.sd.location)).files;
    if (first === undefined) throw new Error('the partition has no file');
    // Another writer's file (a copy of one already there): its statistics in HMS stay as they were.
    const late = `${part.sd.location.replace(/\/+$/, '')}/late-writer-000000`;
    await store.put(late, await store.readRange(first.path, 0, first.size));
    try {
      const hmsOnly = (await status(['--lag'])).tables[0]?.lag;
      expect(hmsOnly).toMatchObject({ partitionsNew: { count: 0 }, partitionsChanged: { count: 0 }, storage: null, exact: false });
      const listed = await status(['--lag', '--list-storage']);
      expect(listed.tables[0]?.lag).toMatchObject({ storage: { filesAdded: 1, filesRemoved: 0 }, exact: true });
      expect(listed.tableCounts[0]).toMatchObject({ behind: 1 });
      const text = await migrate(['status', planHash.slice(0, 12), '--list-storage']);
      expect(text.stdout).toMatch(
        new RegExp(`${ORDERS.replace('.', '\\.')}\\s+syncing\\s+.* · lag: storage listed: 1 file to add \\(checked`),
      );
    } finally {
      // The test's own file, removed with the raw client (the product's stores refuse to delete data).
      const m = /^s3a?:\/\/([^/]+)\/(.+)$/.exec(late);
      await new S3Client({ endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true }).send(
        new DeleteObjectCommand({ Bucket: m?.[1], Key: m?.[2] }),
      );
    }
    const clean = await status(['--lag', '--list-storage']);
    expect(clean.tables[0]?.lag).toMatchObject({ storage: { filesAdded: 0, filesRemoved: 0 }, exact: true });
  }, 300_000);

  it('--table: one table with the partitions added since the plan (validation.sincePlan); an unknown table is USAGE', async () => {
    const one = await status(['--table', ORDERS]);
    expect(one.tables.map((t) => t.table)).toEqual([ORDERS]);
    expect(one.sincePlan).toMatchObject({ partitions: { added: { count: 0 } } });
    expect(one.sincePlan?.partitions.converted).toBeGreaterThan(0);
    const text = await migrate(['status', planHash.slice(0, 12), '--table', ORDERS]);
    expect(text.stdout).toMatch(/since the plan: 0 partitions added/);
    const bad = await migrate(['status', planHash.slice(0, 12), '--table', `${sales}.nope`]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a table of plan');
  }, 300_000);
});
