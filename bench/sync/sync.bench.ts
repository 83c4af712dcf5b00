// Sync benchmark: N migrated tables, each given one new Hive partition of M Parquet
// files, then `migrate sync <plan>` of all of them end to end through Temporal (a real `migrate
// worker`; CLI start → result) — and, in the same run, the peer: `migrate sync --direct` (the same
// per-table code in the CLI's process) on the next new partition. Afterwards every table must have
// exactly one new snapshot on top of the one before, with M added files (summary of all N; the new
// manifest's entries read for a sample), and the record in the state store must name it. Prints
// wall times, the ratio, the load average, and where the time went (the sync workflow's history:
// activities queued / running; workflow tasks). Target: ≤ 60 s for 1,000 × 20 on this machine.
//   npx tsx bench/sync/sync.bench.ts [--tables 1000] [--files 20] [--concurrency 32] [--peer direct|none] [--repeat 1]
// Setup (kept between runs in $HIM_STATE_DIR/bench-sync-<tag>/): the scale warehouse (dev/seed
// --scale N,1,M: one partition of M files per table), a plan and its apply through Temporal. Each
// timed run adds partition p=<k+1> to every table first (not timed).
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { readManifest, readManifestFiles } from '../../adapters/avro/manifest-reader';
import { RestCatalog } from '../../adapters/catalog/rest';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import { tableIdent } from '../../core/catalog/catalog';
import { addScalePartition } from '../../dev/seed/scale';
import { mapLimit } from '../../dev/seed/s3';
import { testStack } from '../../test/helpers/stack-env';
import { cpuDelta, cpuNow } from '../common/cpu';
import { seedTarget } from '../common/seed-target';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] as string) : dflt;
};
const TABLES = Number(arg('tables', '1000'));
const FILES = Number(arg('files', '20'));
const CONCURRENCY = Number(arg('concurrency', '32'));
const WORKER_CONCURRENCY = Number(arg('worker-concurrency', String(Math.max(16, CONCURRENCY))));
const PEER = arg('peer', 'direct');
const REPEAT = Number(arg('repeat', '1'));
const PREFIX = arg('prefix', 'benchsync');
const SAMPLE = Number(arg('sample', '10'));
const root = path.resolve(__dirname, '..', '..');
const tag = `${TABLES}x1x${FILES}`;
const db = `${PREFIX}_scale_${tag}`;
const nsPrefix = `${PREFIX}_`;
const ns = `${nsPrefix}${db}`;
const width = String(TABLES - 1).length;
const tableNames = Array.from({ length: TABLES }, (_, i) => `t${String(i).padStart(width, '0')}`);
const log = (m: string): void => void process.stderr.write(`[bench] ${m}\n`);
const load = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const ms = (t: { seconds?: unknown; nanos?: unknown } | null | undefined): number =>
  t ? Number(t.seconds ?? 0) * 1000 + Number(t.nanos ?? 0) / 1e6 : 0;

interface Setup {
  readonly dir: string;
  readonly cfg: string;
  readonly planHash: string;
  /** Run `migrate`; its stdout is returned, or written to `outFile` (a file, not a pipe: nothing of it can be lost). */
  readonly migrate: (args: string[], outFile?: string) => string;
}

function configFile(dir: string, env: Record<string, string>): string {
  const cfg = path.join(dir, 'migrate.yaml');
  const base = readFileSync(path.join(env.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8').replace(
    /namespace: default/,
    `namespace: default\n  taskQueue: him-bench-sync-${tag}`,
  );
  writeFileSync(
    cfg,
    `${base.replace(/(warehouse: .*)/, `$1\n  namespacePrefix: ${nsPrefix}`)}\nplan:\n  databases: [${db}]\n  assess:\n    sampleFiles: 0\n  waves:\n    maxTablesPerWave: ${TABLES}\n    maxFilesPerWave: 100000000\n`,
  );
  return cfg;
}

function startWorkers(cfg: string, dir: string): ChildProcess[] {
  const logFile = path.join(dir, `worker-${Date.now().toString(36)}.log`);
  const w = spawn(path.join(root, 'bin', 'migrate'), ['worker', '--config', cfg, '--concurrency', String(WORKER_CONCURRENCY)], {
    cwd: root,
    env: process.env,
    stdio: ['ignore', openSync(logFile, 'w'), openSync(logFile, 'a')],
    detached: true,
  });
  w.on('exit', (code, signal) => log(`worker exited (code ${code}, signal ${signal}); log ${logFile}`));
  const stop = (): void => {
    try {
      if (w.pid !== undefined) process.kill(-w.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  };
  process.on('exit', stop);
  return [w];
}

/** Seed (reused when there), plan and apply once (reused: the plan hash is kept in the bench's directory). */
async function setup(env: Record<string, string>): Promise<Setup> {
  execFileSync(
    path.join(root, 'node_modules', '.bin', 'tsx'),
    ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', PREFIX, '--scale', `${TABLES},1,${FILES}`],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const dir = path.join(env.HIM_STATE_DIR as string, `bench-sync-${PREFIX}-${tag}`);
  mkdirSync(dir, { recursive: true });
  const cfg = configFile(dir, env);
  const migrate = (args: string[], outFile?: string): string => {
    const bin = path.join(root, 'bin', 'migrate');
    if (outFile === undefined)
      return execFileSync(bin, [...args, '--config', cfg], { cwd: root, env: process.env, maxBuffer: 256 << 20 }).toString();
    execFileSync(bin, [...args, '--config', cfg], { cwd: root, env: process.env, stdio: ['ignore', openSync(outFile, 'w'), 'inherit'] });
    return '';
  };
  const applied = path.join(dir, 'applied');
  if (existsSync(applied)) return { dir, cfg, planHash: readFileSync(applied, 'utf8').trim(), migrate };
  const planFile = path.join(dir, 'plan.json');
  let t = performance.now();
  migrate(['plan', '--out', planFile]);
  const planHash = (JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string }).hash;
  log(`plan ${planHash.slice(0, 12)} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  t = performance.now();
  const out = JSON.parse(migrate(['apply', planFile, '--auto-approve', '--wait', '--concurrency', String(CONCURRENCY), '--json'])) as {
    result: { state: string; waves: { migrated: number }[] };
  };
  const migrated = out.result.waves.reduce((n, w) => n + w.migrated, 0);
  log(`apply: ${out.result.state}, ${migrated} migrated in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  if (migrated !== TABLES) throw new Error(`apply migrated ${migrated} of ${TABLES}`);
  writeFileSync(applied, planHash);
  return { dir, cfg, planHash, migrate };
}

type Snap = { id: string; files: number; metadataLocation: string; manifestList: string; parent: string | null; added: number };

async function snapshots(catalog: RestCatalog): Promise<Map<string, Snap>> {
  const out = new Map<string, Snap>();
  await mapLimit(tableNames, 16, async (name) => {
    const t = await catalog.loadTable(tableIdent([ns], name));
    const s = t.metadata.snapshots.find((x) => x.snapshotId === t.metadata.currentSnapshotId);
    if (s === undefined) throw new Error(`${name}: no current snapshot`);
    out.set(name, {
      id: String(s.snapshotId),
      files: Number(s.summary['total-data-files']),
      metadataLocation: t.metadataLocation,
      manifestList: s.manifestList,
      parent: s.parentSnapshotId === null ? null : String(s.parentSnapshotId),
      added: Number(s.summary['added-data-files'] ?? 0),
    });
  });
  return out;
}

/** Every table: exactly one new snapshot, child of the one before, M files added; the record names it; a sample's new manifest lists the M files of p=<k>. */
async function verify(catalog: RestCatalog, before: Map<string, Snap>, planHash: string, part: number, env: Record<string, string>) {
  const after = await snapshots(catalog);
  const bad: string[] = [];
  for (const name of tableNames) {
    const b = before.get(name) as Snap;
    const a = after.get(name) as Snap;
    if (a.id === b.id || a.parent !== b.id || a.added !== FILES || a.files !== b.files + FILES)
      bad.push(`${name}: ${b.id} → ${a.id} (parent ${a.parent}, added ${a.added}, files ${b.files} → ${a.files})`);
  }
  const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
  try {
    const recs = new Map((await state.listTables(planHash)).map((r) => [r.tableId, r.snapshotId]));
    for (const name of tableNames)
      if (recs.get(`${db}.${name}`) !== after.get(name)?.id)
        bad.push(`${name}: record ${recs.get(`${db}.${name}`)} ≠ ${after.get(name)?.id}`);
  } finally {
    await state.close();
  }
  const store = new RoutingObjectStore({
    metadataPrefixes: [],
    s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
  });
  try {
    for (const name of tableNames.filter((_, i) => i % Math.max(1, Math.floor(TABLES / SAMPLE)) === 0)) {
      const a = after.get(name) as Snap;
      const t = await catalog.loadTable(tableIdent([ns], name));
      const schema = t.metadata.schemas.find((s) => s.schemaId === t.metadata.currentSchemaId);
      const spec = t.metadata.partitionSpecs.find((s) => s.specId === t.metadata.defaultSpecId);
      const mine = (await readManifestFiles(store, a.manifestList)).filter((m) => String(m.addedSnapshotId) === a.id);
      const entries = (await Promise.all(mine.map((m) => readManifest(store, m.path, schema as never, spec as never)))).flat();
      const under = entries.filter((e) => e.status === 1 && e.filePath.includes(`/${name}/p=${part}/`)).length;
      if (under !== FILES || entries.length !== FILES)
        bad.push(`${name}: new manifest has ${entries.length} entries, ${under} ADDED under p=${part}`);
    }
  } finally {
    store.destroy();
  }
  if (bad.length > 0) throw new Error(`verification failed for ${bad.length}:\n${bad.slice(0, 20).join('\n')}`);
  return after;
}

/** Where the sync workflow's time went, from its history. */
async function profile(env: Record<string, string>, workflowId: string): Promise<string> {
  const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
  try {
    const h = await new Client({ connection }).workflow.getHandle(workflowId).fetchHistory();
    const events = h.events ?? [];
    const sched = new Map<number, number>();
    const started = new Map<number, number>();
    let queued = 0;
    let running = 0;
    let acts = 0;
    let wfts = 0;
    let wftRun = 0;
    let wftAt = 0;
    for (const e of events) {
      const at = ms(e.eventTime as never);
      if (e.activityTaskScheduledEventAttributes) sched.set(Number(e.eventId), at);
      if (e.activityTaskStartedEventAttributes) {
        const s = Number(e.activityTaskStartedEventAttributes.scheduledEventId);
        queued += at - (sched.get(s) ?? at);
        started.set(s, at);
      }
      const done = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes;
      if (done) {
        acts++;
        running += at - (started.get(Number(done.scheduledEventId)) ?? at);
      }
      if (e.workflowTaskStartedEventAttributes) wftAt = at;
      if (e.workflowTaskCompletedEventAttributes) {
        wfts++;
        wftRun += at - wftAt;
      }
    }
    const life = ms(events[events.length - 1]?.eventTime as never) - ms(events[0]?.eventTime as never);
    return [
      `history: ${events.length} events, ${acts} activities, ${wfts} workflow tasks (${(wftRun / 1000).toFixed(1)} s processing in all); workflow life ${(life / 1000).toFixed(1)} s`,
      `per syncTable activity: ${(running / Math.max(1, acts)).toFixed(0)} ms running (mean), ${(queued / Math.max(1, acts)).toFixed(0)} ms queued for a worker slot (mean); Σ running / life = ${(running / Math.max(1, life)).toFixed(1)} activities in flight on average`,
    ].join('\n  ');
  } finally {
    await connection.close();
  }
}

async function addPartition(env: Record<string, string>, part: number): Promise<void> {
  const t = performance.now();
  const n = await addScalePartition(
    {
      ...seedTarget(env),
      prefix: PREFIX,
      tables: TABLES,
      partitions: 1,
      files: FILES,
      concurrency: 16,
      batch: 1,
      force: false,
      log,
    },
    part,
    1,
  );
  log(`partition p=${part} (${FILES} files) added to ${n} table(s) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

interface Run {
  readonly way: string;
  readonly wall: number;
  readonly loadBefore: string;
  readonly loadAfter: string;
  readonly detail: string;
  readonly cpu: string;
}

async function timedSync(
  s: Setup,
  env: Record<string, string>,
  catalog: RestCatalog,
  way: 'temporal' | 'direct',
  workers: readonly ChildProcess[],
): Promise<Run> {
  const next = path.join(s.dir, 'next-partition');
  const part = existsSync(next) ? Number(readFileSync(next, 'utf8')) : 1;
  await addPartition(env, part);
  const before = await snapshots(catalog);
  const loadBefore = load();
  const cpu0 = cpuNow(
    env,
    workers.map((w) => w.pid ?? 0),
  );
  const outFile = path.join(s.dir, `sync-${way}-p${part}.json`);
  const t0 = performance.now();
  s.migrate(
    ['sync', s.planHash.slice(0, 12), '--json', '--concurrency', String(CONCURRENCY), ...(way === 'direct' ? ['--direct'] : [])],
    outFile,
  );
  const wall = (performance.now() - t0) / 1000;
  const loadAfter = load();
  const cpu = cpuDelta(
    cpu0,
    cpuNow(
      env,
      workers.map((w) => w.pid ?? 0),
    ),
    TABLES,
  );
  writeFileSync(next, String(part + 1));
  log(`${way}: sync of p=${part} in ${wall.toFixed(1)} s (load ${loadBefore} → ${loadAfter}); output ${outFile}`);
  const out = readFileSync(outFile, 'utf8');
  const body = JSON.parse(out) as { ok: boolean; workflowId?: string; tables: { ok: boolean; result?: { status: string } }[] };
  const appended = body.tables.filter((t) => t.ok && t.result?.status === 'appended').length;
  if (!body.ok || appended !== TABLES) throw new Error(`${way}: ok ${body.ok}, ${appended} of ${TABLES} appended`);
  await verify(catalog, before, s.planHash, part, env);
  const detail = way === 'temporal' && body.workflowId !== undefined ? await profile(env, body.workflowId) : '';
  return { way, wall, loadBefore, loadAfter, detail, cpu };
}

async function main(): Promise<void> {
  const env = testStack();
  Object.assign(process.env, env);
  const tSetup = performance.now();
  const dirGuess = path.join(env.HIM_STATE_DIR as string, `bench-sync-${PREFIX}-${tag}`);
  mkdirSync(dirGuess, { recursive: true });
  const workers = startWorkers(configFile(dirGuess, env), dirGuess);
  await new Promise((r) => setTimeout(r, 8000)); // the worker bundles the workflows before polling
  const s = await setup(env);
  log(`setup ready in ${((performance.now() - tSetup) / 1000).toFixed(1)} s (plan ${s.planHash.slice(0, 12)})`);
  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  const runs: Run[] = [];
  for (let i = 0; i < REPEAT; i++) {
    runs.push(await timedSync(s, env, catalog, 'temporal', workers));
    if (PEER === 'direct') runs.push(await timedSync(s, env, catalog, 'direct', workers));
  }
  const lines = [
    `sync: ${TABLES} tables × 1 new partition (${FILES} files), window ${CONCURRENCY}, worker --concurrency ${WORKER_CONCURRENCY}`,
  ];
  for (const r of runs) {
    lines.push(
      `  ${r.way.padEnd(8)} wall ${r.wall.toFixed(1)} s · ${(TABLES / r.wall).toFixed(1)} tables/s · ${((TABLES * FILES) / r.wall).toFixed(0)} files/s · load ${r.loadBefore} → ${r.loadAfter} · target ≤ 60 s ${r.wall <= 60 ? 'met' : 'NOT met'}`,
    );
    lines.push(`  ${r.cpu}`);
    if (r.detail) lines.push(`  ${r.detail}`);
  }
  const t = runs.filter((r) => r.way === 'temporal').map((r) => r.wall);
  const d = runs.filter((r) => r.way === 'direct').map((r) => r.wall);
  if (t.length > 0 && d.length > 0)
    lines.push(
      `  temporal / direct = ${t.map((x, i) => (x / (d[i] ?? NaN)).toFixed(2)).join(', ')} (every table verified: one new snapshot, ${FILES} files added, record follows)`,
    );
  process.stdout.write(`${lines.join('\n')}\n`);
  for (const w of workers) if (w.pid !== undefined) process.kill(-w.pid, 'SIGTERM');
}

void main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
