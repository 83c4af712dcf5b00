// Catch-up sync, the core path: tables seeded, planned and applied through Temporal (a
// real `migrate worker`, the stack's REST catalog, HMS and S3). Then the Hive side moves on the way
// live tables do: orders gets two new partitions with new Parquet files and one partition
// overwritten (new files written, the old ones deleted, as INSERT OVERWRITE does). `migrate sync`
// commits one overwrite snapshot; PyIceberg and Spark then read exactly the Hive content (rows and the
// canonical checksum the verifier computes from the Hive partitions' files), the summary counts are
// right, the record follows and a `table.synced` audit event is written. A second sync changes
// nothing (same snapshot). A table another writer committed to is refused SYNC_FOREIGN_COMMITS.
// Kills at every sync step, continue-as-new and schema additions: test/e2e/sync-hard.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { RestCatalog } from '../../adapters/catalog/rest';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { ThriftHmsWriter } from '../../adapters/hms/thrift/writer';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { syncOutcomes } from '../../app/sync/workflow';
import type { SyncOutcomesRef, SyncRunResult } from '../../workflows/index';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import { tableIdent } from '../../core/catalog/catalog';
import type { HivePartition } from '../../core/hive/model';
import { syncMetadataLocation, syncSnapshot, withSyncSnapshot } from '../../core/sync/snapshot';
import type { SeedFile, SeedManifest, SeedTable } from '../../dev/seed/manifest';
import type { Run } from '../helpers/cli';
import { ROOT, TSX, run } from '../helpers/cli';
import type { WorkerProc } from '../helpers/hostile';
import { startWorker } from '../helpers/hostile';
import { dropNamespace, planAndApply } from '../helpers/e2e-suite';
import {
  copyFiles,
  copyPartition,
  hiveContent as readHiveContent,
  liveConfig,
  seedPartition,
  seededFilesUnder,
  seedWarehouse,
  tableAfter,
} from '../helpers/live-tables';
import { testStack, uniqueName } from '../helpers/stack-env';
import { readWith, readWithPyIceberg } from '../helpers/verifier';

const env = testStack();
const prefix = uniqueName('himsync').toLowerCase();
const nsPrefix = `${prefix}_`;
const sales = `${prefix}_sales`;
const ns = `${nsPrefix}${sales}`;
const TABLES = ['customers', 'orders'];
let dir = '';
let cfgFile = '';
let manifest: SeedManifest;
let worker: WorkerProc | undefined;
let planHash = '';

const migrate = (args: string[], timeout?: number): Promise<Run> =>
  run(path.join(ROOT, 'bin', 'migrate'), [...args, '--config', cfgFile], timeout);
const seeded = (name: string): SeedTable => manifest.tables.find((t) => t.name === name) as SeedTable;
const store = new RoutingObjectStore({
  metadataPrefixes: ['s3a://hive/seed/', 's3://hive/seed/'],
  s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
});

interface SyncBody {
  ok: boolean;
  plan: string;
  tables: {
    table: string;
    ok: boolean;
    result?: {
      status: string;
      snapshotId: string;
      filesAdded: number;
      filesRemoved: number;
      partitionsAdded: number;
      commit: string | null;
    };
    error?: { code: string; message: string };
  }[];
}

/** orders as Hive has it now (each test that writes on the Hive side moves it on). */
let ordersNow: SeedTable | undefined;

/** One more daily partition of orders (a copy of year=2024/region=us under `values`); returns orders as Hive has it after. */
async function newOrdersPartition(values: string[]): Promise<SeedTable> {
  const hms = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string });
  const writer = new ThriftHmsWriter({ uri: env.HIM_HMS_PG_URI as string });
  try {
    const [orders] = await hms.getTables(sales, ['orders']);
    if (orders === undefined || ordersNow === undefined) throw new Error('orders not found, or not synced once');
    const src = orders.partitions.find((p) => p.name === 'year=2024/region=us') as HivePartition;
    const keys = orders.table.partitionKeys.map((k) => k.name);
    const added = await copyPartition(store, manifest, src, orders.table.sd.location as string, keys, values);
    await writer.addPartitions(sales, 'orders', [added.partition]);
    ordersNow = tableAfter(ordersNow, added.files, [], [seedPartition(added.partition)]);
    return ordersNow;
  } finally {
    await hms.close();
    await writer.close();
  }
}

/** The current snapshot of orders and how many it has. */
async function ordersSnapshots(): Promise<{ current: string; count: number; metadataLocation: string }> {
  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  const t = await catalog.loadTable(tableIdent([ns], 'orders'));
  return { current: String(t.metadata.currentSnapshotId), count: t.metadata.snapshots.length, metadataLocation: t.metadataLocation };
}

/** PyIceberg reads exactly what Hive has for orders: rows and the checksum of its files. */
async function expectPyIcebergReadsHive(after: SeedTable): Promise<void> {
  const expected = await hiveContent(after);
  const [read] = await readWithPyIceberg([`${ns}.orders`]);
  expect({ rows: read?.rows, checksum: read?.checksum, error: read?.error }).toEqual({
    rows: after.rows,
    checksum: expected.checksum,
    error: undefined,
  });
}

/**
 * orders after plan and apply: year=2026/region=eu and year=2026/region=us added (copies of
 * year=2024/region=us), year=2025/region=eu overwritten with copies of year=2024/region=eu's
 * files under new names (the old ones deleted). Returns the table as Hive has it now.
 */
async function writeOnTheHiveSide(): Promise<{ after: SeedTable; usFiles: number; overwritten: number; newFiles: number }> {
  const hms = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string });
  const writer = new ThriftHmsWriter({ uri: env.HIM_HMS_PG_URI as string });
  try {
    const [orders] = await hms.getTables(sales, ['orders']);
    if (orders === undefined) throw new Error('orders not found');
    const part = (name: string) => orders.partitions.find((p) => p.name === name) as HivePartition;
    const keys = orders.table.partitionKeys.map((k) => k.name);
    const loc = orders.table.sd.location as string;
    const added = [
      await copyPartition(store, manifest, part('year=2024/region=us'), loc, keys, ['2026', 'eu']),
      await copyPartition(store, manifest, part('year=2024/region=us'), loc, keys, ['2026', 'us']),
    ];
    await writer.addPartitions(
      sales,
      'orders',
      added.map((a) => a.partition),
    );
    // INSERT OVERWRITE of year=2025/region=eu: new files in, then the old ones out.
    const target = part('year=2025/region=eu');
    const old = [...seededFilesUnder(manifest, target.sd.location as string)];
    const fresh = await copyFiles(
      store,
      manifest,
      part('year=2024/region=eu').sd.location as string,
      target.sd.location as string,
      target.name,
      (n) => `ow-${n}`,
    );
    const writable = new RoutingObjectStore({
      metadataPrefixes: [`${(target.sd.location as string).replace(/\/+$/, '')}/`],
      s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
    });
    for (const f of old) await writable.delete(f.location);
    writable.destroy();
    const newFiles: SeedFile[] = [...added.flatMap((a) => a.files), ...fresh];
    const after = tableAfter(
      seeded('orders'),
      newFiles,
      old.map((f) => f.location),
      added.map((a) => seedPartition(a.partition)),
    );
    return { after, usFiles: added[0]?.files.length ?? NaN, overwritten: old.length, newFiles: newFiles.length };
  } finally {
    await hms.close();
    await writer.close();
  }
}

const hiveContent = (t: SeedTable) => readHiveContent(dir, manifest, t);

describe('migrate sync', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-sync-'));
    manifest = await seedWarehouse(prefix, dir);
    cfgFile = liveConfig({ dir, queue: `him-sync-${prefix}`, nsPrefix, db: sales, tables: TABLES });
    worker = startWorker(cfgFile);
    const w = worker;
    planHash = (await planAndApply(migrate, dir, { workerLog: () => w.log() })).hash;
  }, 900_000);

  afterAll(async () => {
    await worker?.stop();
    await dropNamespace(ns);
    await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--drop']);
    store.destroy();
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('new partitions and an overwritten partition → one overwrite snapshot; PyIceberg and Spark read exactly the Hive content; a second sync changes nothing', async () => {
    const id = planHash.slice(0, 12);
    // Nothing changed yet: every table is in sync, nothing is committed (in this process: --direct).
    const before = JSON.parse((await migrate(['sync', id, '--direct', '--json'])).stdout) as SyncBody;
    expect(before.tables.map((t) => [t.table, t.result?.status, t.result?.commit])).toEqual(
      TABLES.map((t) => [`${sales}.${t}`, 'in-sync', null]),
    );

    const { after, usFiles, overwritten, newFiles } = await writeOnTheHiveSide();
    ordersNow = after;
    const expected = await hiveContent(after);
    const s = await migrate(['sync', id, '--json']);
    expect([s.code, s.stderr]).toEqual([0, '']);
    const body = JSON.parse(s.stdout) as SyncBody;
    const orders = body.tables.find((t) => t.table === `${sales}.orders`);
    expect(orders?.result).toMatchObject({ status: 'overwrote', commit: 'committed', filesAdded: newFiles, filesRemoved: overwritten });
    expect(newFiles).toBe(2 * usFiles + overwritten);
    expect(body.tables.find((t) => t.table === `${sales}.customers`)?.result?.status).toBe('in-sync');

    // PyIceberg and Spark read what Hive has now: rows and the checksum of the Hive partitions' files.
    const reads = await readWith('pyiceberg,spark', [`${ns}.orders`]);
    expect(reads.map((r) => ({ engine: r.engine, rows: r.rows, checksum: r.checksum, error: r.error }))).toEqual(
      ['pyiceberg', 'spark'].map((engine) => ({ engine, rows: expected.rows, checksum: expected.checksum, error: undefined })),
    );
    expect(expected.rows).toBe(after.rows);

    // The snapshot: an overwrite on top of apply's append, with the counts of exactly this change.
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    const t = await catalog.loadTable(tableIdent([ns], 'orders'));
    const snap = t.metadata.snapshots.find((x) => x.snapshotId === t.metadata.currentSnapshotId);
    expect(String(snap?.snapshotId)).toBe(orders?.result?.snapshotId);
    expect(snap?.summary).toMatchObject({
      operation: 'overwrite',
      'added-data-files': String(newFiles),
      'deleted-data-files': String(overwritten),
      'total-data-files': String(after.files.length),
      'total-records': String(expected.rows),
      'engine-name': 'hms-iceberg-migrator',
    });
    expect(snap?.sequenceNumber).toBe(2);
    expect(t.metadata.snapshots).toHaveLength(2);

    // The record follows the table, and the commit is audited with its snapshot and files.
    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    try {
      const rec = await state.getTable(planHash, `${sales}.orders`);
      expect([rec.status, rec.snapshotId, rec.metadataLocation]).toEqual(['migrated', orders?.result?.snapshotId, t.metadataLocation]);
      const events: Record<string, unknown>[] = [];
      for await (const e of state.readAudit())
        if (e.planHash === planHash && e.action === 'table.synced') events.push({ object: e.object, ...e.details });
      expect(events).toEqual([
        expect.objectContaining({
          object: `hms:${sales}.orders`,
          snapshotId: orders?.result?.snapshotId,
          operation: 'overwrite',
          filesAdded: newFiles,
          filesRemoved: overwritten,
        }),
      ]);
    } finally {
      await state.close();
    }

    // The nightly checks on demand find no drift: the record (snapshot, metadata, saved original) follows the synced table.
    const v = await migrate(['validate', id, '--table', `${sales}.orders`, '--json']);
    const rows = (JSON.parse(v.stdout) as { rows: { check: string; status: string; code: string; actual: string }[] }).rows;
    expect([v.code, rows.filter((r) => r.status !== 'ok' && r.status !== 'info')]).toEqual([0, []]);

    // Again: nothing changed, nothing committed, the same snapshot.
    const again = JSON.parse((await migrate(['sync', id, '--direct', '--json'])).stdout) as SyncBody;
    expect(again.tables.find((x) => x.table === `${sales}.orders`)?.result).toMatchObject({
      status: 'in-sync',
      commit: null,
      snapshotId: orders?.result?.snapshotId,
    });
    const text = await migrate(['sync', id]);
    expect(text.stdout).toContain(`in sync    ${sales}.orders  snapshot ${orders?.result?.snapshotId ?? ''}`);
  }, 900_000);

  it('a table another writer committed to is refused with SYNC_FOREIGN_COMMITS (exit 1), and nothing is committed', async () => {
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    const ident = tableIdent([ns], 'customers');
    const base = await catalog.loadTable(ident);
    const current = base.metadata.snapshots.find((x) => x.snapshotId === base.metadata.currentSnapshotId);
    if (current === undefined) throw new Error('customers has no snapshot');
    // Another engine's commit through the REST API: an append that reuses the manifest list (no new rows).
    const snapshot = syncSnapshot(base.metadata, 777n, current.manifestList, { operation: 'append', 'engine-name': 'spark' }, Date.now());
    await catalog.commitTable(ident, {
      base: { metadataLocation: base.metadataLocation, tableUuid: base.metadata.tableUuid, snapshotId: base.metadata.currentSnapshotId },
      snapshot,
      metadata: withSyncSnapshot(base.metadata, base.metadataLocation, snapshot),
      metadataLocation: syncMetadataLocation(base.metadata.location, base.metadataLocation, 777n),
    });
    const r = await migrate(['sync', planHash.slice(0, 12), '--table', `${sales}.customers`, '--json']);
    expect(r.code).toBe(1);
    const body = JSON.parse(r.stdout) as SyncBody;
    expect(body.ok).toBe(false);
    expect(body.tables.map((t) => [t.table, t.error?.code])).toEqual([[`${sales}.customers`, 'SYNC_FOREIGN_COMMITS']]);
    expect(body.tables[0]?.error?.message).toContain('777');
    expect((await catalog.loadTable(ident)).metadata.currentSnapshotId).toBe(777n);
  }, 300_000);
  it('the sync schedule: create --sync, trigger → a snapshot for the new partition; describe shows the run; delete', async () => {
    const id = planHash.slice(0, 12);
    const after = await newOrdersPartition(['2028', 'us']);
    const before = await ordersSnapshots();
    const c = await migrate(['schedule', 'create', id, '--sync', '--every', '24h', '--jitter', '0s', '--json']);
    expect([c.code, (JSON.parse(c.stdout) as { scheduleId: string }).scheduleId]).toEqual([0, `sync/${id}`]);
    try {
      const l = await migrate(['schedule', 'list', '--json']);
      expect((JSON.parse(l.stdout) as { id: string }[]).map((x) => x.id)).toContain(`sync/${id}`);
      expect((await migrate(['schedule', 'trigger', id, '--sync'])).code).toBe(0);
      let now = before;
      for (let i = 0; i < 240 && now.count === before.count; i++) {
        await new Promise((r) => setTimeout(r, 500));
        now = await ordersSnapshots();
      }
      expect(now.count).toBe(before.count + 1);
      const d = JSON.parse((await migrate(['schedule', 'describe', id, '--sync', '--json'])).stdout) as {
        recent: { workflowId: string }[];
      };
      expect(d.recent.map((r) => r.workflowId)).toEqual([expect.stringMatching(new RegExp(`^sync/${id}/scheduled`))]);
      await expectPyIcebergReadsHive(after);
    } finally {
      const del = await migrate(['schedule', 'delete', id, '--sync']);
      expect(del.code).toBe(0);
    }
    expect((await migrate(['schedule', 'describe', id, '--sync'])).code).toBe(2);
  }, 600_000);

  it('--no-wait returns the started workflow (which ends in sync); a wave without migrated tables is USAGE', async () => {
    const id = planHash.slice(0, 12);
    expect((await migrate(['sync', id, '--wave', '99', '--json'])).code).toBe(2);
    const r = await migrate(['sync', id, '--table', `${sales}.orders`, '--no-wait', '--json']);
    const body = JSON.parse(r.stdout) as { ok: boolean; started: boolean; workflowId: string };
    expect([r.code, body.ok, body.started]).toEqual([0, true, true]);
    expect(body.workflowId).toMatch(new RegExp(`^sync/${id}/\\d{8}T\\d{9}Z$`));
    const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
    try {
      const result = (await new Client({ connection }).workflow.getHandle(body.workflowId).result()) as SyncRunResult;
      // The result names where the outcomes are; the state store holds them under the workflow id.
      expect([result.status, result.counts, result.tables, result.outcomes]).toEqual([
        'synced',
        { inSync: 1, committed: 0, refused: 0 },
        undefined,
        { workflowId: body.workflowId, count: 1 },
      ]);
      const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
      try {
        const tables = await syncOutcomes(state, result.outcomes as SyncOutcomesRef);
        expect(tables.map((t) => [t.table, t.ok ? t.result.status : t.error.code])).toEqual([[`${sales}.orders`, 'in-sync']]);
      } finally {
        await state.close();
      }
    } finally {
      await connection.close();
    }
  }, 300_000);
});
