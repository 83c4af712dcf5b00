// A seeded, planned and applied warehouse for the sync e2e tests that need their own (the crash
// loop, continue-as-new, schema additions): the Hive side moved on partition by partition, the
// Iceberg side inspected (snapshots, metadata files no snapshot references, `table.synced` events)
// and read back, and a sync run through workers killed at a failpoint and restarted.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readManifestFiles } from '../../adapters/avro/manifest-reader';
import { RestCatalog } from '../../adapters/catalog/rest';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { ThriftHmsWriter } from '../../adapters/hms/thrift/writer';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import { tableIdent } from '../../core/catalog/catalog';
import type { HivePartition, TableInventory } from '../../core/hive/model';
import type { SeedFile, SeedManifest, SeedTable } from '../../dev/seed/manifest';
import type { Run } from './cli';
import { ROOT, TSX, run } from './cli';
import type { WorkerProc } from './hostile';
import { metadataFiles, sleep, startWorker } from './hostile';
import {
  copyPartition,
  hiveContent as readHiveContent,
  liveConfig,
  seededFilesUnder,
  seedPartition,
  seedWarehouse,
  tableAfter,
} from './live-tables';
import { testStack, uniqueName } from './stack-env';

export interface SyncLive {
  readonly prefix: string;
  readonly db: string;
  /** The Iceberg namespace of `db`. */
  readonly ns: string;
  readonly dir: string;
  readonly cfgFile: string;
  readonly manifest: SeedManifest;
  readonly planHash: string;
  readonly store: RoutingObjectStore;
  worker: WorkerProc | undefined;
  /** Each table as Hive has it now (moved on by `addPartition`). */
  readonly now: Map<string, SeedTable>;
}

const env = testStack();

/** Seed, plan and apply `tables` of the sales database through a worker on its own queue. */
export async function setUpSyncLive(name: string, tables: readonly string[]): Promise<SyncLive> {
  const prefix = uniqueName(name).toLowerCase();
  const dir = mkdtempSync(path.join(os.tmpdir(), `him-${name}-`));
  const manifest = await seedWarehouse(prefix, dir);
  const db = `${prefix}_sales`;
  const cfgFile = liveConfig({ dir, queue: `him-${name}-${prefix}`, nsPrefix: `${prefix}_`, db, tables });
  const worker = startWorker(cfgFile);
  const planFile = path.join(dir, 'plan.json');
  const p = await run(path.join(ROOT, 'bin', 'migrate'), ['plan', '--out', planFile, '--config', cfgFile]);
  if (p.code !== 0) throw new Error(`plan failed: ${p.stderr}`);
  const planHash = (JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string }).hash;
  const a = await run(path.join(ROOT, 'bin', 'migrate'), ['apply', planFile, '--auto-approve', '--wait', '--json', '--config', cfgFile]);
  if (a.code !== 0) throw new Error(`apply failed (${a.code}): ${a.stdout}\n${a.stderr}\nworker:\n${worker.log().slice(-4000)}`);
  const store = new RoutingObjectStore({
    metadataPrefixes: ['s3a://hive/seed/', 's3://hive/seed/'],
    s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
  });
  const now = new Map(manifest.tables.filter((t) => t.db === db).map((t) => [t.name, t]));
  return { prefix, db, ns: `${prefix}_${db}`, dir, cfgFile, manifest, planHash, store, worker, now };
}

export async function tearDownSyncLive(l: SyncLive | undefined): Promise<void> {
  if (l === undefined) return;
  await l.worker?.stop();
  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  for (const t of await catalog.listTables([l.ns]).catch(() => [])) await catalog.dropTable(t);
  await catalog.dropNamespace([l.ns]).catch(() => undefined);
  await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', l.prefix, '--drop']);
  l.store.destroy();
  rmSync(l.dir, { recursive: true, force: true });
}

export const migrateIn = (l: SyncLive, args: readonly string[], timeout = 600_000): Promise<Run> =>
  run(path.join(ROOT, 'bin', 'migrate'), [...args, '--config', l.cfgFile], timeout);

/** A partition added on the Hive side, as the seed manifest describes one (its files are listed on the table). */

/** The live HMS inventory of `table`. */
export async function hiveTable(l: SyncLive, table: string): Promise<TableInventory> {
  const hms = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string });
  try {
    const [t] = await hms.getTables(l.db, [table]);
    if (t === undefined) throw new Error(`${table} not found`);
    return t;
  } finally {
    await hms.close();
  }
}

/** One more partition of `table` under `values`: a copy of partition `from`'s files, added in HMS. Returns the table as Hive has it after. */
export async function addPartition(l: SyncLive, table: string, from: string, values: string[]): Promise<SeedTable> {
  const writer = new ThriftHmsWriter({ uri: env.HIM_HMS_PG_URI as string });
  try {
    const t = await hiveTable(l, table);
    const src = t.partitions.find((p) => p.name === from) as HivePartition;
    const keys = t.table.partitionKeys.map((k) => k.name);
    const added = await copyPartition(l.store, l.manifest, src, t.table.sd.location as string, keys, values);
    await writer.addPartitions(l.db, table, [added.partition]);
    const after = tableAfter(l.now.get(table) as SeedTable, added.files, [], [seedPartition(added.partition)]);
    l.now.set(table, after);
    return after;
  } finally {
    await writer.close();
  }
}

/** The Iceberg table: its current snapshot, how many it has, its metadata location. */
export async function snapshotsOf(l: SyncLive, table: string): Promise<{ current: string; count: number; metadataLocation: string }> {
  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  const t = await catalog.loadTable(tableIdent([l.ns], table));
  return { current: String(t.metadata.currentSnapshotId), count: t.metadata.snapshots.length, metadataLocation: t.metadataLocation };
}

/**
 * Files under the table's metadata/ that nothing reachable from its current metadata names: not
 * the current metadata.json or one in its log, not a snapshot's manifest list, not a manifest one
 * of those lists holds.
 */
export async function unreferencedMetadata(l: SyncLive, table: string): Promise<string[]> {
  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  const t = await catalog.loadTable(tableIdent([l.ns], table));
  const norm = (p: string): string => p.replace(/^s3[an]?:\/\//, 's3://');
  const known = new Set([t.metadataLocation, ...t.metadata.metadataLog.map((m) => m.metadataFile)].map(norm));
  for (const s of t.metadata.snapshots) {
    known.add(norm(s.manifestList));
    for (const m of await readManifestFiles(l.store, s.manifestList)) known.add(norm(m.path));
  }
  return (await metadataFiles(l.store, t.metadata.location)).filter((f) => !known.has(norm(f)));
}

/** The `table.synced` audit events of `table`, in order (their details). */
export async function syncEventsOf(l: SyncLive, table: string): Promise<Record<string, unknown>[]> {
  const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
  try {
    const events: Record<string, unknown>[] = [];
    for await (const e of state.readAudit())
      if (e.planHash === l.planHash && e.action === 'table.synced' && e.object === `hms:${l.db}.${table}`) events.push(e.details);
    return events;
  } finally {
    await state.close();
  }
}

/** The table's state record: its snapshot and metadata location. */
export async function recordOf(l: SyncLive, table: string): Promise<{ snapshotId: string | null; metadataLocation: string | null }> {
  const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
  try {
    const rec = await state.getTable(l.planHash, `${l.db}.${table}`);
    return { snapshotId: rec.snapshotId, metadataLocation: rec.metadataLocation ?? null };
  } finally {
    await state.close();
  }
}

export const hiveContent = (l: SyncLive, t: SeedTable): Promise<{ rows: number; checksum: string }> =>
  readHiveContent(l.dir, l.manifest, t);

/**
 * `migrate sync <args>` through Temporal while workers with `crashEnv` run: every worker that dies
 * is counted (SIGKILLs) and replaced by one with the same environment; then a plain worker again.
 */
export async function syncThroughKills(
  l: SyncLive,
  args: readonly string[],
  crashEnv: Record<string, string>,
): Promise<{ run: Run; kills: number }> {
  await l.worker?.stop();
  l.worker = startWorker(l.cfgFile, crashEnv);
  let kills = 0;
  const sync = migrateIn(l, ['sync', l.planHash.slice(0, 12), ...args]);
  let settled = false;
  void sync.finally(() => (settled = true));
  while (!settled) {
    await sleep(500);
    const w = l.worker;
    if (w.proc.exitCode === null && w.proc.signalCode === null) continue;
    kills += w.proc.signalCode === 'SIGKILL' ? 1 : 0;
    l.worker = startWorker(l.cfgFile, crashEnv);
  }
  const r = await sync;
  await l.worker.stop();
  l.worker = startWorker(l.cfgFile);
  return { run: r, kills };
}

/** Rewrites Parquet files with one more string column (`<name>` = "<prefix><row>"): argv endpoint name prefix src dst [src dst …]. */
const ADD_COLUMN_PY = `
import json, os, sys
import pyarrow as pa, pyarrow.fs as pafs, pyarrow.parquet as pq
endpoint, name, prefix, pairs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
scheme, _, host = endpoint.partition("://")
fs = pafs.S3FileSystem(endpoint_override=host, scheme=scheme, access_key=os.environ["AWS_ACCESS_KEY_ID"],
                       secret_key=os.environ["AWS_SECRET_ACCESS_KEY"], region=os.environ.get("AWS_REGION", "us-east-1"))
out = []
for src, dst in zip(pairs[0::2], pairs[1::2]):
    t = pq.read_table(src, filesystem=fs)
    t = t.append_column(name, pa.array([f"{prefix}{i}" for i in range(t.num_rows)], pa.string()))
    pq.write_table(t, dst, filesystem=fs)
    out.append({"rows": t.num_rows, "size": fs.get_file_info(dst).size})
print(json.dumps(out))
`;

/**
 * ALTER TABLE `table` ADD COLUMNS (`column` string) — without CASCADE: the partitions keep their
 * columns — then a new partition `values` whose files (partition `from`'s rewritten) have it.
 * Returns the table as Hive has it after (its columns too).
 */
export async function addColumnAndPartition(
  l: SyncLive,
  table: string,
  from: string,
  values: string[],
  column: string,
): Promise<SeedTable> {
  const writer = new ThriftHmsWriter({ uri: env.HIM_HMS_PG_URI as string });
  try {
    const t = await hiveTable(l, table);
    const columns = [...t.table.sd.columns, { name: column, type: 'string', comment: null }];
    await writer.alterTable(l.db, table, { ...t.table, sd: { ...t.table.sd, columns } });
    const src = t.partitions.find((p) => p.name === from) as HivePartition;
    const keys = t.table.partitionKeys.map((k) => k.name);
    const name = keys.map((k, i) => `${k}=${values[i] ?? ''}`).join('/');
    const location = `${(t.table.sd.location as string).replace(/\/+$/, '')}/${name}`;
    const files = [...seededFilesUnder(l.manifest, src.sd.location as string)];
    const bare = (u: string): string => u.replace(/^s3a?:\/\//, '');
    const pairs = files.flatMap((f) => [bare(f.location), bare(`${location}/${f.name}`)]);
    const r = await run(env.HIM_VERIFIER_PYTHON as string, [
      '-c',
      ADD_COLUMN_PY,
      env.HIM_S3_ENDPOINT as string,
      column,
      `${name}#`,
      ...pairs,
    ]);
    if (r.code !== 0) throw new Error(`rewriting with ${column} failed: ${r.stderr}`);
    const written = JSON.parse(r.stdout) as { rows: number; size: number }[];
    const added: SeedFile[] = files.map((f, i) => {
      const uri = `${location}/${f.name}`;
      return {
        ...f,
        location: uri,
        key: uri.replace(/^s3a?:\/\/[^/]+\//, ''),
        partition: name,
        rows: written[i]?.rows ?? NaN,
        size: written[i]?.size ?? NaN,
        sha256: '',
      };
    });
    const partition: HivePartition = {
      ...src,
      values,
      name,
      createTime: Math.floor(Date.now() / 1000),
      sd: { ...src.sd, location, columns },
    };
    await writer.addPartitions(l.db, table, [partition]);
    const before = l.now.get(table) as SeedTable;
    const after = {
      ...tableAfter(before, added, [], [seedPartition(partition)]),
      columns: [...before.columns, { name: column, type: 'string', comment: '' }],
    };
    l.now.set(table, after);
    return after;
  } finally {
    await writer.close();
  }
}

/** ALTER TABLE `table` CHANGE `column` to `type` (the partitions keep theirs; HMS refuses what its compatibility check refuses); returns the type it had. */
export async function retypeColumn(l: SyncLive, table: string, column: string, type: string): Promise<string> {
  const writer = new ThriftHmsWriter({ uri: env.HIM_HMS_PG_URI as string });
  try {
    const t = await hiveTable(l, table);
    const was = t.table.sd.columns.find((c) => c.name === column)?.type ?? '';
    const columns = t.table.sd.columns.map((c) => (c.name === column ? { ...c, type } : c));
    await writer.alterTable(l.db, table, { ...t.table, sd: { ...t.table.sd, columns } });
    return was;
  } finally {
    await writer.close();
  }
}
