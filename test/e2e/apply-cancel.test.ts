// Waves always end: with S3 slowed down by Toxiproxy so tables are in flight,
// (1) `migrate cancel` of a running wave ends the plan `cancelled` within one step timeout, every
// table in flight ran its compensations (failed CANCELLED: no catalog entry, no metadata file),
// tables never started stay pending, migrated ones stay migrated; (2) a table workflow terminated
// mid-step does not hang or fail the wave: the wave ends, the table is recorded failed
// TABLE_WORKFLOW_ENDED, the others migrate. Data files are byte-identical throughout and the audit
// chain verifies. The real CLI, a real worker, the stack's Temporal, REST catalog, HMS and S3.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { RestCatalog } from '../../adapters/catalog/rest';
import { PostgresStateStore } from '../../adapters/state/postgres';
import type { TableRecord } from '../../adapters/state/postgres';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import { tableIdent } from '../../core/catalog/catalog';
import { proxyListenPort, ToxiproxyClient } from '../helpers/toxiproxy';
import type { Run } from '../helpers/cli';
import { ROOT, TSX, run } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';

const env = testStack();
const prefix = uniqueName('himc').toLowerCase();
const TABLES = 8;
const db = `${prefix}_scale_${TABLES}x3x1`;
const nsPrefix = `${prefix}_`;
const toxi = new ToxiproxyClient(env.HIM_TOXIPROXY_URL as string);
const s3Proxy = {
  name: `${prefix}-s3`,
  listen: `127.0.0.1:${proxyListenPort(Number(new URL(env.HIM_TOXIPROXY_URL as string).port), 15)}`,
  upstream: new URL(env.HIM_S3_ENDPOINT as string).host,
};
const STEP_SECONDS = 60;
let dir = '';
let cfg = '';
let worker: ChildProcess | undefined;
let workerLog = '';
let state: PostgresStateStore;
let catalog: RestCatalog;
let store: RoutingObjectStore;
let dataBefore = new Map<string, string>();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const migrate = (args: string[], timeout?: number, config = cfg): Promise<Run> =>
  run(path.join(ROOT, 'bin', 'migrate'), [...args, '--config', config], timeout);
/** The third case's own tables (the first two leave none unmigrated). */
const TABLES2 = 6;
const db2 = `${prefix}_scale_${TABLES2}x3x1`;

/** sha256 of every data file the seed wrote (everything outside a metadata/ directory). */
async function dataHashes(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const f of store.list(`s3a://hive/seed/${prefix}/`, { recursive: true })) {
    if (f.kind !== 'file' || f.path.includes('/metadata/')) continue;
    out.set(
      f.path,
      createHash('sha256')
        .update(await store.readRange(f.path, 0, f.size))
        .digest('hex'),
    );
  }
  return out;
}

async function metadataFiles(r: TableRecord): Promise<string[]> {
  const loc = r.original?.table.sd.location;
  if (loc === undefined) return [];
  const out: string[] = [];
  for await (const f of store.list(`${loc}/metadata/`, { recursive: true })) if (f.kind === 'file') out.push(f.path);
  return out;
}

async function planAndApply(args: string[], config = cfg): Promise<{ hash: string; id: string }> {
  const planFile = path.join(dir, `plan-${Date.now()}.json`);
  const p = await migrate(['plan', '--out', planFile], undefined, config);
  if (p.code !== 0) throw new Error(`plan failed: ${p.stderr}`);
  const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string };
  const a = await migrate(['apply', planFile, '--auto-approve', '--concurrency', '3', '--step-timeout', String(STEP_SECONDS), ...args]);
  if (a.code !== 0) throw new Error(`apply failed: ${a.stderr}`);
  return { hash: plan.hash, id: plan.hash.slice(0, 12) };
}

async function waitFor<T>(what: string, f: () => Promise<T | undefined>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = await f();
    if (v !== undefined) return v;
    await sleep(500);
  }
  throw new Error(`timed out waiting for ${what}\nworker:\n${workerLog.slice(-3000)}`);
}

async function status(
  id: string,
): Promise<{ state: string; waves: { status: string; failed: { tableId: string; code: string }[]; notStarted?: number }[] }> {
  const s = await migrate(['status', id, '--json']);
  return JSON.parse(s.stdout) as never;
}

/** The worker in its own process group, so a SIGKILL takes tsx's node child with it. */
function startWorker(): void {
  worker = spawn(path.join(ROOT, 'bin', 'migrate'), ['worker', '--config', cfg], {
    env: { ...process.env, ...env },
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  worker.stdout?.on('data', (d: Buffer) => (workerLog += d.toString()));
  worker.stderr?.on('data', (d: Buffer) => (workerLog += d.toString()));
}

function killWorker(signal: NodeJS.Signals): void {
  if (worker?.pid === undefined) return;
  try {
    process.kill(-worker.pid, signal);
  } catch {
    /* already gone */
  }
}

/** The plan's final status, once it has ended. */
const planEnd = (id: string, ms: number) =>
  waitFor(
    'the plan to end',
    async () => {
      const s = await status(id);
      return ['succeeded', 'failed', 'cancelled'].includes(s.state) ? s : undefined;
    },
    ms,
  );

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-cancel-'));
  const s = await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--scale', `${TABLES},3,1`]);
  if (s.code !== 0) throw new Error(s.stderr);
  await toxi.deleteProxy(s3Proxy.name);
  await toxi.createProxy(s3Proxy);
  const base = readFileSync(path.join(env.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8')
    .replace(/endpoint: http:\/\/[^\n]+/, `endpoint: http://${s3Proxy.listen}`)
    .replace(/namespace: default/, `namespace: default\n  taskQueue: him-cancel-${prefix}`);
  cfg = path.join(dir, 'migrate.yaml');
  writeFileSync(
    cfg,
    `${base.replace(/(warehouse: .*)/, `$1\n  namespacePrefix: ${nsPrefix}`)}\nplan:\n  databases: [${db}]\n  assess:\n    sampleFiles: 0\n  waves:\n    maxTablesPerWave: 100\n`,
  );
  startWorker();
  state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
  catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  store = new RoutingObjectStore({
    metadataPrefixes: [],
    s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
  });
  dataBefore = await dataHashes();
  expect(dataBefore.size).toBe(TABLES * 3);
}, 600_000);

afterAll(async () => {
  // A failed run may leave this file's workflows running on its own task queue: end them.
  const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
  const client = new Client({ connection });
  for await (const w of client.workflow.list({ query: `TaskQueue = 'him-cancel-${prefix}' AND ExecutionStatus = 'Running'` }))
    await client.workflow
      .getHandle(w.workflowId, w.runId)
      .terminate('apply-cancel test cleanup')
      .catch(() => undefined);
  await connection.close();
  killWorker('SIGTERM');
  await sleep(500);
  killWorker('SIGKILL');
  await toxi.deleteProxy(s3Proxy.name).catch(() => undefined);
  for (const d of [db, db2]) {
    for (const t of await catalog.listTables([`${nsPrefix}${d}`]).catch(() => [])) await catalog.dropTable(t);
    await catalog.dropNamespace([`${nsPrefix}${d}`]).catch(() => undefined);
  }
  await state.close();
  await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--scale', `${TABLES2},3,1`, '--drop']);
  await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--scale', `${TABLES},3,1`, '--drop']);
  rmSync(dir, { recursive: true, force: true });
}, 600_000);

describe('waves always end (cancel, a terminated table workflow)', () => {
  afterEach(async () => {
    await toxi.removeToxic(s3Proxy.name, 'slow').catch(() => undefined);
  });

  it('cancel of a running wave: plan cancelled within a step timeout, tables in flight compensated, nothing of ours left for them', async () => {
    // ~2 s per S3 round trip: a table's write step takes tens of seconds, so the cancel (a CLI
    // start on a busy machine takes seconds) lands while tables are inside it.
    await toxi.addToxic(s3Proxy.name, { name: 'slow', type: 'latency', attributes: { latency: 1000 } });
    const { hash, id } = await planAndApply([]);
    // Cancel as soon as a table is inside its write step (original saved, metadata being written).
    await waitFor(
      'a table in flight',
      async () => ((await state.listTables(hash)).some((t) => t.status === 'original-saved') ? true : undefined),
      240_000,
    );
    const t0 = Date.now();
    expect((await migrate(['cancel', id])).code).toBe(0);
    const st = await planEnd(id, (STEP_SECONDS + 60) * 1000);
    const took = (Date.now() - t0) / 1000;
    process.stderr.write(`[apply-cancel] plan ended ${st.state} ${took.toFixed(1)} s after cancel\n`);
    expect(st.state).toBe('cancelled');
    expect(took).toBeLessThan(STEP_SECONDS + 30);
    expect(st.waves[0]?.status).toBe('cancelled');
    await toxi.removeToxic(s3Proxy.name, 'slow');

    const recs = await state.listTables(hash);
    const byStatus = (s: string): TableRecord[] => recs.filter((r) => r.status === s);
    expect(recs.every((r) => ['migrated', 'pending', 'failed'].includes(r.status))).toBe(true);
    expect(byStatus('failed').length).toBeGreaterThanOrEqual(1);
    for (const r of byStatus('failed')) {
      expect({ t: r.tableId, code: r.errorCode }).toEqual({ t: r.tableId, code: 'CANCELLED' });
      expect(await catalog.tableExists(tableIdent([`${nsPrefix}${db}`], r.tableId.split('.')[1] as string))).toBe(false);
      expect({ t: r.tableId, files: await metadataFiles(r) }).toEqual({ t: r.tableId, files: [] });
    }
    for (const r of byStatus('migrated'))
      expect(await catalog.tableExists(tableIdent([`${nsPrefix}${db}`], r.tableId.split('.')[1] as string))).toBe(true);
    expect(st.waves[0]?.notStarted ?? 0).toBe(byStatus('pending').length);
    expect(await dataHashes()).toEqual(dataBefore);
    const v = await migrate(['audit', 'verify', '--json']);
    expect(v.code).toBe(0);
  }, 900_000);

  it('a table workflow terminated mid-step: the wave still ends, the table is failed TABLE_WORKFLOW_ENDED, the rest migrate', async () => {
    // A new plan over what the cancelled one left (migrated tables are in the catalog now: left out).
    await toxi.addToxic(s3Proxy.name, { name: 'slow', type: 'latency', attributes: { latency: 200 } });
    const { hash, id } = await planAndApply(['--max-failed', '1']);
    const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
    const client = new Client({ connection });
    const victim = await waitFor(
      'a running table workflow',
      async () => {
        for await (const w of client.workflow.list({
          query: `WorkflowId STARTS_WITH 'migrate/${id}/wave-' AND WorkflowType = 'tableWorkflow' AND ExecutionStatus = 'Running'`,
        }))
          return w.workflowId;
        return undefined;
      },
      240_000,
    );
    await client.workflow.getHandle(victim).terminate('e2e: terminated mid-step');
    await toxi.removeToxic(s3Proxy.name, 'slow');
    const st = await planEnd(id, 300_000);
    await connection.close();
    const tableId = victim.split('/').pop() as string;
    expect(st.waves[0]?.failed).toEqual([{ tableId, code: 'TABLE_WORKFLOW_ENDED' }]);
    expect(st.state).toBe('succeeded'); // one failure allowed by --max-failed 1
    const rec = await state.getTable(hash, tableId);
    expect({ status: rec.status, code: rec.errorCode }).toEqual({ status: 'failed', code: 'TABLE_WORKFLOW_ENDED' });
    const others = (await state.listTables(hash)).filter((r) => r.tableId !== tableId);
    expect(others.every((r) => r.status === 'migrated')).toBe(true);
    // Whatever the terminated run left (its step may still have finished on the worker) is removed
    // by migrate repair, and nothing of that table is left in the catalog or its metadata directory.
    await sleep(5000);
    const rep = await migrate(['repair', id, '--apply', '--json']);
    expect(rep.code).toBe(0);
    expect((await migrate(['repair', id, '--json'])).code).toBe(0);
    expect(await catalog.tableExists(tableIdent([`${nsPrefix}${db}`], tableId.split('.')[1] as string))).toBe(false);
    expect(await metadataFiles(await state.getTable(hash, tableId))).toEqual([]);
    expect(await dataHashes()).toEqual(dataBefore);
  }, 900_000);

  it('a worker killed mid-step: its steps run again on a new worker within 30 s (heartbeats), with the default timeouts', async () => {
    const seeded = await run(TSX, [
      'dev/seed/main.ts',
      '--hms',
      env.HIM_HMS_PG_URI as string,
      '--prefix',
      prefix,
      '--scale',
      `${TABLES2},3,1`,
    ]);
    if (seeded.code !== 0) throw new Error(seeded.stderr);
    const cfg2 = path.join(dir, 'migrate-2.yaml');
    writeFileSync(cfg2, readFileSync(cfg, 'utf8').replace(`databases: [${db}]`, `databases: [${db2}]`));
    await toxi.addToxic(s3Proxy.name, { name: 'slow', type: 'latency', attributes: { latency: 300 } });
    const { hash, id } = await planAndApply([], cfg2);
    await waitFor(
      'a table in flight',
      async () => ((await state.listTables(hash)).some((t) => t.status === 'original-saved') ? true : undefined),
      240_000,
    );
    const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
    const client = new Client({ connection });
    const running: string[] = [];
    for await (const w of client.workflow.list({
      query: `WorkflowId STARTS_WITH 'migrate/${id}/wave-' AND WorkflowType = 'tableWorkflow' AND ExecutionStatus = 'Running'`,
    }))
      running.push(w.workflowId);
    killWorker('SIGKILL');
    const killedAt = Date.now();
    startWorker();
    // The first retried attempt of an activity that was in flight on the killed worker.
    const resumedAt = await waitFor(
      'an activity retried on the new worker',
      async () => {
        for (const wid of running) {
          const d = await client.workflow
            .getHandle(wid)
            .describe()
            .catch(() => undefined);
          for (const a of d?.raw.pendingActivities ?? []) {
            const started = a.lastStartedTime?.seconds;
            if ((a.attempt ?? 1) > 1 && started !== undefined && started !== null)
              return Number(started) * 1000 + Math.floor((a.lastStartedTime?.nanos ?? 0) / 1e6);
          }
          if (d !== undefined && d.status.name !== 'RUNNING') return Date.now(); // finished already: resumed
        }
        return undefined;
      },
      120_000,
    );
    const took = (resumedAt - killedAt) / 1000;
    process.stderr.write(`[apply-cancel] killed worker: an in-flight step started again ${took.toFixed(1)} s after the kill\n`);
    expect(took).toBeLessThanOrEqual(30);
    await toxi.removeToxic(s3Proxy.name, 'slow');
    const st = await planEnd(id, 300_000);
    await connection.close();
    expect(st.state).toBe('succeeded');
  }, 900_000);
});
