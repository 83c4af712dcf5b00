// A small real warehouse for the repair tests: 3 partitioned Parquet tables seeded on hms-pg and S3
// (dev/seed --scale 3,1,2), planned by the real `migrate plan`, submitted to a state database of
// its own (so audit verification sees only this test's chain), and the real activities
// (createActivities over the CLI's adapters) to take tables part of the way, as a worker would.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../activities/index';
import { createEngine } from '../../engine/engine';
import type { RepairDeps } from '../../ops/repair';
import { verifyChain } from '../../core/audit/chain';
import type { IcebergCatalog } from '../../core/catalog/catalog';
import type { MigrateConfig } from '../../core/config/schema';
import type { PlanFile } from '../../core/plan/plan-file';
import { parsePlan } from '../../core/plan/plan-file';
import type { ObjectStore } from '../../core/storage/object-store';
import { PostgresStateStore } from '../../adapters/state/postgres';
import type { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { loadConfig } from '../../cli/config';
import { openCatalog, openHmsReader, openStores, toolVersion } from '../../app/runtime/runtime';
import type { Stores } from '../../app/runtime/runtime';
import { MIGRATE, TSX, run, withCatalogSection } from './cli';
import { testStack, uniqueName } from './stack-env';

export interface RepairFixture {
  readonly prefix: string;
  readonly db: string;
  readonly nsPrefix: string;
  readonly cfgFile: string;
  readonly config: MigrateConfig;
  readonly plan: PlanFile;
  readonly tables: readonly string[];
  readonly state: PostgresStateStore;
  readonly catalog: IcebergCatalog;
  readonly stores: Stores;
  readonly acts: ReturnType<typeof createActivities>;
  readonly hms: ThriftHmsReader;
  /** RepairDeps with every workflow closed (the simulated termination already happened). */
  deps(isRunning?: (planHash: string, tableId: string) => Promise<boolean>): RepairDeps;
  /** Run an activity inside a mock activity context (writeMetadata heartbeats). */
  activity<R>(fn: () => Promise<R>): Promise<R>;
  /** sha256 of every data file of the warehouse (everything outside metadata/). */
  dataShas(): Promise<Map<string, string>>;
  /** Every object under a table's metadata directory. */
  metadataObjects(tableId: string): Promise<string[]>;
  auditVerdict(): Promise<{ ok: boolean; events: number; actions: string[] }>;
  close(): Promise<void>;
}

const sha256 = async (store: ObjectStore, uri: string): Promise<string> => {
  const { size } = await store.head(uri);
  return createHash('sha256')
    .update(await store.readRange(uri, 0, size))
    .digest('hex');
};

async function createStateDb(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: testStack().HIM_POSTGRES_URL as string });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const u = new URL(testStack().HIM_POSTGRES_URL as string);
  u.pathname = `/${name}`;
  return u.toString();
}

async function dropStateDb(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: testStack().HIM_POSTGRES_URL as string });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
  await admin.end();
}

/**
 * The stack's config with this test's state database, namespace prefix, task queue and database;
 * in place: HMS 3.1.3 (hms3-pg) as both source and the Hive catalog in mode in-place.
 */
function writeConfig(dir: string, stateUrl: string, nsPrefix: string, db: string, taskQueue: string, inPlace: boolean): string {
  const env = testStack();
  const stack = readFileSync(path.join(env.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8');
  const hms3 = env.HIM_HMS3_PG_URI as string;
  const withCatalog = inPlace
    ? withCatalogSection(
        stack.replace(/uri: thrift:\/\/\S+/, `uri: ${hms3}`),
        `catalog:\n  name: hms-in-place\n  type: hive\n  uri: ${hms3}\n  mode: in-place\n`,
      )
    : stack.replace(/(warehouse: .*)/, `$1\n  namespacePrefix: ${nsPrefix}`);
  // One anchor location per state database (docs/audit.md): this test's chain is not the stack's.
  const base = withCatalog
    .replace(/url: postgres:.*\n/, `url: ${stateUrl}\n`)
    .replace(/anchorLocation: (\S+?)\/?\n/, `anchorLocation: $1/${taskQueue}/\n`)
    .replace(/namespace: default/, `namespace: default\n  taskQueue: ${taskQueue}`);
  const file = path.join(dir, 'migrate.yaml');
  writeFileSync(file, `${base}\nplan:\n  databases: [${db}]\n`);
  return file;
}

/** `tables` partitioned Parquet tables of 1 partition × 2 files each; `inPlace`: on HMS 3.1.3, converted in place. */
export async function setupRepairFixture(tables = 3, inPlace = false): Promise<RepairFixture> {
  const SCALE = `${tables},1,2`;
  Object.assign(process.env, testStack());
  const env = testStack();
  const hmsUri = (inPlace ? env.HIM_HMS3_PG_URI : env.HIM_HMS_PG_URI) as string;
  const prefix = uniqueName('rep').toLowerCase();
  const db = `${prefix}_scale_${SCALE.replace(/,/g, 'x')}`;
  // In place the Iceberg table keeps the Hive name: no namespace prefix.
  const nsPrefix = inPlace ? '' : `${prefix}_`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'him-repair-'));
  const seeded = await run(TSX, ['dev/seed/main.ts', '--hms', hmsUri, '--prefix', prefix, '--scale', SCALE]);
  if (seeded.code !== 0) throw new Error(`seeding failed: ${seeded.stderr}`);
  const stateDb = `${prefix}_state`;
  const cfgFile = writeConfig(dir, await createStateDb(stateDb), nsPrefix, db, `him-repair-${prefix}`, inPlace);
  const planFile = path.join(dir, 'plan.json');
  const planned = await run(MIGRATE, ['plan', '--out', planFile, '--config', cfgFile]);
  if (planned.code !== 0) throw new Error(`plan failed: ${planned.stderr}${planned.stdout}`);
  const plan = parsePlan(readFileSync(planFile, 'utf8'));
  const config = loadConfig({ file: cfgFile, env: process.env, sets: [], cwd: dir }).config;
  const state = await PostgresStateStore.open(config.state?.url as string);
  await state.submitPlan(plan);
  const stores = openStores(config);
  const catalog = await openCatalog(config, process.env, stores);
  const hms: ThriftHmsReader = openHmsReader(config);
  const acts = createActivities({
    state,
    hms,
    catalog,
    engine: createEngine(),
    storeFor: stores.storeFor,
    namespacePrefix: nsPrefix,
    actor: 'worker:repair-test',
    toolVersion: toolVersion(),
  });
  const reader = stores.storeFor([]);
  const warehouseRoot = async (): Promise<string> => {
    const rec = await state.getTable(plan.hash, plan.waves[0]?.tables[0]?.id as string);
    const loc = rec.original?.table.sd.location as string;
    return loc.slice(0, loc.lastIndexOf('/') + 1);
  };
  return {
    prefix,
    db,
    nsPrefix,
    cfgFile,
    config,
    plan,
    state,
    catalog,
    stores,
    acts,
    hms,
    tables: plan.waves.flatMap((w) => w.tables.map((t) => t.id)).sort(),
    deps: (isRunning = async () => false) => ({
      state,
      catalog,
      storeFor: stores.storeFor,
      namespacePrefix: nsPrefix,
      isRunning,
      toolVersion: toolVersion(),
    }),
    activity: (fn) => new MockActivityEnvironment().run(fn),
    async dataShas() {
      const out = new Map<string, string>();
      for await (const e of reader.list(await warehouseRoot(), { recursive: true }))
        if (e.kind === 'file' && !e.path.includes('/metadata/')) out.set(e.path, await sha256(reader, e.path));
      return out;
    },
    async metadataObjects(tableId) {
      const rec = await state.getTable(plan.hash, tableId);
      const out: string[] = [];
      for await (const e of reader.list(`${rec.original?.table.sd.location as string}/metadata/`, { recursive: true }))
        if (e.kind === 'file') out.push(e.path);
      return out.sort();
    },
    async auditVerdict() {
      const events = [];
      for await (const e of state.readAudit()) events.push(e);
      const v = verifyChain(events);
      return { ok: v.ok, events: v.events, actions: events.map((e) => e.action) };
    },
    async close() {
      for (const ns of inPlace ? [] : [[`${nsPrefix}${db}`]]) {
        for (const t of await catalog.listTables(ns).catch(() => [])) await catalog.dropTable(t).catch(() => undefined);
        await catalog.dropNamespace(ns).catch(() => undefined);
      }
      await catalog.close?.();
      await hms.close();
      await state.close();
      stores.close();
      await run(TSX, ['dev/seed/main.ts', '--hms', hmsUri, '--prefix', prefix, '--scale', SCALE, '--drop']);
      await dropStateDb(stateDb);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
