// The plan pins its target: a plan made with one `catalog.namespacePrefix`, applied by a
// worker configured with another, is refused table by table with TARGET_MISMATCH before any write —
// nothing registered under either prefix, no metadata file, data untouched, the plan ends failed
// (exit 1) instead of half-registering under the worker's own settings. A worker whose config
// matches then migrates the same tables from a new plan. The real CLI and worker on the stack.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RestCatalog } from '../../adapters/catalog/rest';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import type { Run } from '../helpers/cli';
import { ROOT, TSX, run } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';

const env = testStack();
const prefix = uniqueName('himp').toLowerCase();
const TABLES = 4;
const db = `${prefix}_scale_${TABLES}x2x1`;
const planned = `${prefix}_a_`;
const workers = `${prefix}_b_`;
let dir = '';
let worker: ChildProcess | undefined;
let workerLog = '';

const configWith = (nsPrefix: string): string => {
  const base = readFileSync(path.join(env.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8').replace(
    /namespace: default/,
    `namespace: default\n  taskQueue: him-pin-${prefix}`,
  );
  const file = path.join(dir, `migrate-${nsPrefix}.yaml`);
  writeFileSync(
    file,
    `${base.replace(/(warehouse: .*)/, `$1\n  namespacePrefix: ${nsPrefix}`)}\nplan:\n  databases: [${db}]\n  assess:\n    sampleFiles: 0\n`,
  );
  return file;
};
const migrate = (config: string, args: string[]): Promise<Run> => run(path.join(ROOT, 'bin', 'migrate'), [...args, '--config', config]);

function startWorker(config: string): void {
  worker = spawn(path.join(ROOT, 'bin', 'migrate'), ['worker', '--config', config], {
    env: { ...process.env, ...env },
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  worker.stdout?.on('data', (d: Buffer) => (workerLog += d.toString()));
  worker.stderr?.on('data', (d: Buffer) => (workerLog += d.toString()));
}

async function stopWorker(): Promise<void> {
  if (worker?.pid === undefined) return;
  const w = worker;
  const exited = new Promise((r) => w.once('exit', r));
  try {
    process.kill(-(w.pid as number), 'SIGTERM');
  } catch {
    return;
  }
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  try {
    process.kill(-(w.pid as number), 'SIGKILL');
  } catch {
    /* gone */
  }
}

async function planFile(config: string, name: string): Promise<{ file: string; hash: string }> {
  const file = path.join(dir, name);
  const p = await migrate(config, ['plan', '--out', file]);
  if (p.code !== 0) throw new Error(`plan: ${p.stderr}`);
  return { file, hash: (JSON.parse(readFileSync(file, 'utf8')) as { hash: string }).hash };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-pin-'));
  const s = await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--scale', `${TABLES},2,1`]);
  if (s.code !== 0) throw new Error(s.stderr);
}, 600_000);

afterAll(async () => {
  await stopWorker();
  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  for (const ns of [`${planned}${db}`, `${workers}${db}`]) {
    for (const t of await catalog.listTables([ns]).catch(() => [])) await catalog.dropTable(t);
    await catalog.dropNamespace([ns]).catch(() => undefined);
  }
  await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--scale', `${TABLES},2,1`, '--drop']);
  rmSync(dir, { recursive: true, force: true });
}, 600_000);

describe('the plan pins its target', () => {
  it('a worker whose namespace prefix differs from the plan refuses every table with TARGET_MISMATCH before writing', async () => {
    const cfgA = configWith(planned);
    const cfgB = configWith(workers);
    const plan = await planFile(cfgA, 'plan-a.json');
    expect((JSON.parse(readFileSync(plan.file, 'utf8')) as { target: { namespacePrefix: string } }).target.namespacePrefix).toBe(planned);
    startWorker(cfgB);
    const a = await migrate(cfgA, ['apply', plan.file, '--auto-approve', '--wait', '--json']);
    expect(a.code).toBe(1);
    const result = (JSON.parse(a.stdout) as { result: { state: string; waves: { failed: { tableId: string; code: string }[] }[] } }).result;
    expect(result.state).toBe('failed');
    const failed = result.waves.flatMap((w) => w.failed);
    expect(failed).toHaveLength(TABLES);
    expect(new Set(failed.map((f) => f.code))).toEqual(new Set(['TARGET_MISMATCH']));

    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    for (const ns of [`${planned}${db}`, `${workers}${db}`]) expect(await catalog.listTables([ns]).catch(() => [])).toEqual([]);
    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    const store = new RoutingObjectStore({
      metadataPrefixes: [],
      s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
    });
    try {
      for (const r of await state.listTables(plan.hash)) {
        expect({ t: r.tableId, status: r.status, code: r.errorCode, written: r.metadataLocation }).toEqual({
          t: r.tableId,
          status: 'failed',
          code: 'TARGET_MISMATCH',
          written: null,
        });
      }
      const meta: string[] = [];
      for await (const f of store.list(`s3a://hive/seed/${prefix}/`, { recursive: true }))
        if (f.kind === 'file' && f.path.includes('/metadata/')) meta.push(f.path);
      expect(meta).toEqual([]);
    } finally {
      await state.close();
    }

    // The same tables with a worker configured as the plan says: migrated under the pinned prefix.
    await stopWorker();
    startWorker(cfgA);
    const again = await planFile(cfgA, 'plan-a2.json');
    const b = await migrate(cfgA, ['apply', again.file, '--auto-approve', '--wait', '--json']);
    if (b.code !== 0) throw new Error(`${b.stdout}\n${b.stderr}\n${workerLog.slice(-3000)}`);
    expect((await catalog.listTables([`${planned}${db}`])).map((t) => t.name).sort()).toHaveLength(TABLES);
    expect(await catalog.listTables([`${workers}${db}`]).catch(() => [])).toEqual([]);
  }, 900_000);
});
