// Nested schema evolution in place in the Hive catalog, on HMS 3.1.3 (hms3-pg:
// source and catalog are the same metastore): the lb_nested seed (dev/seed/lb-nested.ts) in database
// lb_nested_hive; two of its tables — a struct field added in the old partition, and old files that
// spell nested names in another case (`A`, `SKU` in a list element) — go through plan → apply in
// place → each is the Iceberg table under its own Hive name, validated, and PyIceberg (HiveCatalog)
// and Spark (Hive catalog) read it with the Hive content checksum the seed computed → rollback puts
// back the saved HMS objects; every data file is byte-identical.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ICEBERG_TABLE_TYPE } from '../../adapters/catalog/hive';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import { fingerprintOf } from '../../activities/index';
import type { NestedSeed } from '../../dev/seed/lb-nested';
import type { Run } from '../helpers/cli';
import { ROOT, TSX, run, withCatalogSection } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';

const env = testStack();
const hmsUri = env.HIM_HMS3_PG_URI as string;
const stackCfg = path.join(env.HIM_STATE_DIR as string, 'migrate.yaml');
const DB = 'lb_nested_hive';
const TABLES = ['case_variant', 'struct_added'];
const taskQueue = `him-e2e-${uniqueName('hinp').toLowerCase()}`;
let dir = '';
let cfgFile = '';
let seed: NestedSeed;
let worker: ChildProcess | undefined;
let workerLog = '';
let hms: ThriftHmsReader;

const migrate = (args: string[], timeout?: number): Promise<Run> =>
  run(path.join(ROOT, 'bin', 'migrate'), [...args, '--config', cfgFile], timeout);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('nested schema evolution in place in the Hive catalog (HMS 3.1.3)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-nested-hive-'));
    const mf = path.join(dir, 'nested.json');
    const s = await run(TSX, ['dev/seed/main.ts', '--hms', hmsUri, '--left-behind', 'nested', '--database', DB, '--manifest', mf]);
    if (s.code !== 0) throw new Error(`seeding failed: ${s.stderr}`);
    seed = JSON.parse(readFileSync(mf, 'utf8')) as NestedSeed;
    const base = withCatalogSection(
      readFileSync(stackCfg, 'utf8').replace(/uri: thrift:\/\/\S+/, `uri: ${hmsUri}`),
      `catalog:\n  name: hms-in-place\n  type: hive\n  uri: ${hmsUri}\n  mode: in-place\n`,
    )
      .replace(/taskQueue:.*\n/, '')
      .replace(/namespace: default/, `namespace: default\n  taskQueue: ${taskQueue}`);
    cfgFile = path.join(dir, 'migrate.yaml');
    const include = `'\\.(${TABLES.join('|')})$'`;
    writeFileSync(cfgFile, `${base}\nplan:\n  databases: [${DB}]\n  waves:\n    scope:\n      include: [${include}]\n`);
    hms = new ThriftHmsReader({ uri: hmsUri });
    worker = spawn(path.join(ROOT, 'bin', 'migrate'), ['worker', '--config', cfgFile], {
      env: { ...process.env, ...env },
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker.stdout?.on('data', (d: Buffer) => (workerLog += d.toString()));
    worker.stderr?.on('data', (d: Buffer) => (workerLog += d.toString()));
  }, 600_000);

  afterAll(async () => {
    worker?.kill('SIGTERM');
    await sleep(500);
    if (worker && worker.exitCode === null) worker.kill('SIGKILL');
    await hms?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('plan → apply in place → PyIceberg and Spark read the Hive content → rollback restores the saved objects', async () => {
    const planFile = path.join(dir, 'plan.json');
    const p = await migrate(['plan', '--out', planFile]);
    expect({ code: p.code, err: p.code === 0 ? '' : p.stderr }).toEqual({ code: 0, err: '' });
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string; waves: { number: number; tables: { id: string }[] }[] };
    expect(plan.waves.flatMap((w) => w.tables.map((t) => t.id)).sort()).toEqual(TABLES.map((t) => `${DB}.${t}`));
    const id = plan.hash.slice(0, 12);

    const a = await migrate(['apply', planFile, '--auto-approve', '--wait', '--json'], 600_000);
    if (a.code !== 0) throw new Error(`apply: ${a.stdout}\n${a.stderr}\nworker:\n${workerLog.slice(-4000)}`);
    expect((JSON.parse(a.stdout) as { result: { state: string } }).result.state).toBe('succeeded');

    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    try {
      for (const n of TABLES) {
        const rec = await state.getTable(plan.hash, `${DB}.${n}`);
        const v = rec.validation as { ok: boolean; findings: unknown[] };
        expect({ n, status: rec.status, ok: v.ok, findings: v.findings }).toEqual({ n, status: 'migrated', ok: true, findings: [] });
        expect((await hms.getTables(DB, [n]))[0]?.table.parameters.table_type).toBe(ICEBERG_TABLE_TYPE);
      }
    } finally {
      await state.close();
    }

    const want = (n: string) => seed.tables.find((t) => t.name === n)!;
    for (const n of TABLES) {
      const r = await run(env.HIM_VERIFIER_PYTHON as string, [
        path.join(ROOT, 'dev/verifier/read_hive_table.py'),
        '--hms',
        hmsUri,
        '--table',
        `${DB}.${n}`,
      ]);
      expect({ n, code: r.code, err: r.code === 0 ? '' : r.stderr.slice(-2000) }).toEqual({ n, code: 0, err: '' });
      const got = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { rows: number; checksum: string };
      expect({ n, rows: got.rows, checksum: got.checksum }).toEqual({ n, rows: want(n).rows, checksum: want(n).checksum });
    }
    const spark = await run(
      env.HIM_VERIFIER_PYTHON as string,
      [
        path.join(ROOT, 'dev/verifier/read_tables.py'),
        '--engines',
        'spark',
        '--catalog-type',
        'hive',
        '--hms-uri',
        hmsUri,
        '--s3-endpoint',
        env.HIM_S3_ENDPOINT ?? '',
        ...TABLES.map((n) => `${DB}.${n}`),
      ],
      600_000,
    );
    const reads = spark.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { table: string; rows: number; checksum: string; error?: string });
    for (const n of TABLES) {
      const got = reads.find((x) => x.table === `${DB}.${n}`);
      expect({ n, engine: 'spark', rows: got?.rows, checksum: got?.checksum, error: got?.error }).toEqual({
        n,
        engine: 'spark',
        rows: want(n).rows,
        checksum: want(n).checksum,
        error: undefined,
      });
    }

    for (const w of [...plan.waves].reverse()) {
      const rb = await migrate(['rollback', id, '--wave', String(w.number), '--json'], 300_000);
      expect({ wave: w.number, code: rb.code, out: rb.code === 0 ? '' : `${rb.stdout}${rb.stderr}` }).toEqual({
        wave: w.number,
        code: 0,
        out: '',
      });
    }
    const after = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    try {
      for (const n of TABLES) {
        const rec = await after.getTable(plan.hash, `${DB}.${n}`);
        const now = (await hms.getTables(DB, [n]))[0];
        expect({ n, status: rec.status, digest: now === undefined ? null : fingerprintOf(now) }).toEqual({
          n,
          status: 'rolled-back',
          digest: rec.originalDigest,
        });
      }
    } finally {
      await after.close();
    }
    const store = new RoutingObjectStore({
      metadataPrefixes: [],
      s3: { endpoint: env.HIM_S3_ENDPOINT as string, region: env.AWS_REGION as string, forcePathStyle: true },
    });
    for (const t of seed.tables)
      for (const f of t.files) {
        const { size } = await store.head(f.location);
        const sha = createHash('sha256')
          .update(await store.readRange(f.location, 0, size))
          .digest('hex');
        expect({ f: f.location, sha }).toEqual({ f: f.location, sha: f.sha256 });
      }
  }, 1_200_000);
});
