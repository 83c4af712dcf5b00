// apply with the Hive catalog IN PLACE, on HMS 3.1.3 (hms3-pg: source and catalog are the same
// metastore, where PyIceberg's HiveCatalog and Spark's Hive 2.3 client read independently): the
// seeded warehouse goes through plan → apply (auto-approved) → every migrated table, partitioned
// ones included (a null partition, a partition outside the table location, escaped and unicode
// values), is now the Iceberg table under its own name and reads back with the seed's checksum in
// PyIceberg and Spark; partitioned originals wait aside with their partitions; the nightly checks
// are clean; rollback of every wave puts back exactly the saved HMS objects (fingerprints equal);
// every data file is byte-identical; the audit chain verifies.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { originalAsideName, ICEBERG_TABLE_TYPE } from '../../adapters/catalog/hive';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import { fingerprintOf } from '../../activities/index';
import type { TableInventory } from '../../core/hive/model';
import type { SeedManifest } from '../../dev/seed/manifest';
import type { Run } from '../helpers/cli';
import { ROOT, TSX, run, withCatalogSection } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';

const env = testStack();
const hmsUri = env.HIM_HMS3_PG_URI as string;
const stackCfg = path.join(env.HIM_STATE_DIR as string, 'migrate.yaml');
const prefix = uniqueName('hipl').toLowerCase();
const taskQueue = `him-e2e-${prefix}`;
let dir = '';
let cfgFile = '';
let manifest: SeedManifest;
let worker: ChildProcess | undefined;
let workerLog = '';
let hms: ThriftHmsReader;

const migrate = (args: string[], timeout?: number): Promise<Run> =>
  run(path.join(ROOT, 'bin', 'migrate'), [...args, '--config', cfgFile], timeout);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const last = (out: string): { rows: number; checksum: string } =>
  JSON.parse(out.trim().split('\n').pop() ?? '{}') as { rows: number; checksum: string };

async function table(db: string, name: string): Promise<TableInventory | undefined> {
  return (await hms.getTables(db, [name]).catch(() => []))[0];
}

interface StatusJson {
  state: string;
  waves: { wave: number; status: string; migrated: number; skipped: number; failed: { tableId: string; code: string }[] }[];
}

describe('migrate apply with the Hive catalog in place (HMS 3.1.3)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-inplace-'));
    const mf = path.join(dir, 'manifest.json');
    const s = await run(TSX, ['dev/seed/main.ts', '--hms', hmsUri, '--prefix', prefix, '--manifest', mf]);
    if (s.code !== 0) throw new Error(`seeding failed: ${s.stderr}`);
    manifest = JSON.parse(readFileSync(mf, 'utf8')) as SeedManifest;
    // The stack's config with HMS 3.1.3 as the source and, in place, as the catalog.
    const base = withCatalogSection(
      readFileSync(stackCfg, 'utf8').replace(/uri: thrift:\/\/\S+/, `uri: ${hmsUri}`),
      `catalog:\n  name: hms-in-place\n  type: hive\n  uri: ${hmsUri}\n  mode: in-place\n`,
    )
      .replace(/taskQueue:.*\n/, '')
      .replace(/namespace: default/, `namespace: default\n  taskQueue: ${taskQueue}`);
    cfgFile = path.join(dir, 'migrate.yaml');
    writeFileSync(cfgFile, `${base}\nplan:\n  databases: [${prefix}_sales, ${prefix}_misc]\n  waves:\n    maxTablesPerWave: 6\n`);
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
    await run(TSX, ['dev/seed/main.ts', '--hms', hmsUri, '--prefix', prefix, '--drop']);
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('plan → apply in place → PyIceberg and Spark read every table → validate clean → rollback restores every saved object', async () => {
    const cfgText = readFileSync(cfgFile, 'utf8');
    expect(cfgText).toContain('mode: in-place');
    const planFile = path.join(dir, 'plan.json');
    const p = await migrate(['plan', '--out', planFile]);
    expect(p.code).toBe(0);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string; waves: { number: number; tables: { id: string }[] }[] };
    const id = plan.hash.slice(0, 12);

    const a = await migrate(['apply', planFile, '--auto-approve', '--max-failed', '5', '--json']);
    expect(a.code).toBe(0);
    let st: StatusJson | undefined;
    const deadline = Date.now() + 480_000;
    while (Date.now() < deadline) {
      const s = await migrate(['status', id, '--json']);
      st = JSON.parse(s.stdout) as StatusJson;
      if (['succeeded', 'failed', 'cancelled'].includes(st.state)) break;
      await sleep(1000);
    }
    if (st?.state !== 'succeeded') throw new Error(`plan ended ${st?.state}: ${JSON.stringify(st)}\nworker:\n${workerLog.slice(-4000)}`);

    // Only the layouts that cannot convert failed; each was compensated (still its Hive self, nothing aside).
    const failed = st.waves.flatMap((w) => w.failed);
    expect([...new Set(failed.map((f) => f.code))]).toEqual(failed.length > 0 ? ['CONVERT_SUBDIRECTORY'] : []);
    for (const f of failed) {
      const [db, name] = f.tableId.split('.') as [string, string];
      expect((await table(db, name))?.table.parameters.table_type).toBeUndefined();
      expect(await table(db, originalAsideName(name))).toBeUndefined();
    }

    const planned = new Set(plan.waves.flatMap((w) => w.tables.map((t) => t.id)));
    const migrated = manifest.tables.filter(
      (t) => planned.has(`${t.db}.${t.name}`) && t.kind !== 'view' && !failed.some((f) => f.tableId === `${t.db}.${t.name}`),
    );
    expect(migrated.filter((t) => t.partitionKeys.length > 0).length).toBeGreaterThanOrEqual(3);
    for (const t of migrated) {
      const now = await table(t.db, t.name);
      expect({ t: t.name, type: now?.table.parameters.table_type, keys: now?.table.partitionKeys.length }).toEqual({
        t: t.name,
        type: ICEBERG_TABLE_TYPE,
        keys: 0,
      });
      const aside = await table(t.db, originalAsideName(t.name));
      // A partitioned original waits aside with every partition; an unpartitioned one was altered.
      expect({ t: t.name, aside: aside?.partitions.length }).toEqual({
        t: t.name,
        aside: t.partitionKeys.length > 0 ? t.partitions.length : undefined,
      });
    }

    // The audit trail says what happened to each Hive table itself.
    const pg = new PgClient({ connectionString: env.HIM_POSTGRES_URL as string });
    await pg.connect();
    try {
      const events = (
        await pg.query<{ object: string; details: { inPlace?: boolean; hiveOriginal?: string } }>(
          `SELECT object, details FROM him_audit WHERE plan_hash = $1 AND action = 'table.registered'`,
          [plan.hash],
        )
      ).rows;
      for (const t of migrated) {
        const e = events.find((x) => x.object === `hms-in-place:${t.db}.${t.name}`);
        expect({ t: t.name, inPlace: e?.details.inPlace, aside: e?.details.hiveOriginal?.includes(originalAsideName(t.name)) }).toEqual({
          t: t.name,
          inPlace: true,
          aside: t.partitionKeys.length > 0,
        });
      }
    } finally {
      await pg.end();
    }

    // Independent readers through the Hive catalog: PyIceberg (not Avro: PyIceberg 0.12 reads no Avro data files) and Spark.
    for (const t of migrated.filter((x) => x.format !== 'avro')) {
      const r = await run(env.HIM_VERIFIER_PYTHON as string, [
        path.join(ROOT, 'dev/verifier/read_hive_table.py'),
        '--hms',
        hmsUri,
        '--table',
        `${t.db}.${t.name}`,
      ]);
      expect(r.code).toBe(0);
      const got = last(r.stdout);
      expect({ t: t.name, engine: 'pyiceberg', rows: got.rows, checksum: got.checksum }).toEqual({
        t: t.name,
        engine: 'pyiceberg',
        rows: t.rows,
        checksum: t.checksum,
      });
    }
    const names = migrated.map((t) => `${t.db}.${t.name}`);
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
        ...names,
      ],
      600_000,
    );
    const reads = spark.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { table: string; rows: number; checksum: string; error?: string });
    for (const t of migrated) {
      const got = reads.find((x) => x.table === `${t.db}.${t.name}`);
      expect({ t: t.name, engine: 'spark', rows: got?.rows, checksum: got?.checksum, error: got?.error }).toEqual({
        t: t.name,
        engine: 'spark',
        rows: t.rows,
        checksum: t.checksum,
        error: undefined,
      });
    }

    // The nightly checks understand in place: the originals aside compare equal, the entries are ours.
    const v = await migrate(['validate', id, '--json']);
    expect({ code: v.code, out: v.code === 0 ? '' : v.stdout.slice(0, 3000) }).toEqual({ code: 0, out: '' });

    // Cutover in place: the Hive names already serve the Iceberg tables, so there is nothing to fence
    // or sync; each step says so, the tables end cut over with their fence audited as not needed, and
    // the rollback below unfences them (an event only) before putting the originals back.
    const cutWave = plan.waves.find((w) =>
      w.tables.some((t) => migrated.some((m) => `${m.db}.${m.name}` === t.id)),
    ) as (typeof plan.waves)[number];
    const cut = await migrate(['cutover', id, '--wave', String(cutWave.number), '--json'], 600_000);
    expect({ code: cut.code, out: cut.code === 0 ? '' : cut.stdout.slice(0, 3000) }).toEqual({ code: 0, out: '' });
    const cutBody = JSON.parse(cut.stdout) as { status: string; tables: { table: string; steps: { step: string; done: string }[] }[] };
    expect(cutBody.status).toBe('cutover');
    expect(cutBody.tables.length).toBeGreaterThan(0);
    for (const t of cutBody.tables)
      expect([t.table, t.steps.map((x) => `${x.step}:${x.done}`)]).toEqual([
        t.table,
        ['fence:not-needed', 'final-sync:not-needed', 'final-validation:not-needed', 'mark:now'],
      ]);
    const fenced = new Map<string, unknown>();
    const auditState = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    try {
      for await (const e of auditState.readAudit())
        if (e.planHash === plan.hash && e.action === 'table.fenced') fenced.set(e.object, e.details.mode);
    } finally {
      await auditState.close();
    }
    for (const t of cutBody.tables) {
      const [db, name] = t.table.split('.') as [string, string];
      expect((await table(db, name))?.table.parameters.table_type).toBe(ICEBERG_TABLE_TYPE);
      expect([t.table, fenced.get(`hms:${t.table}`)]).toEqual([t.table, 'in-place']);
    }

    // Roll back every wave, last first: every HMS object equals its saved original again.
    for (const w of [...plan.waves].reverse()) {
      const rb = await migrate(['rollback', id, '--wave', String(w.number), '--json']);
      expect({ wave: w.number, code: rb.code, out: rb.code === 0 ? '' : `${rb.stdout}${rb.stderr}` }).toEqual({
        wave: w.number,
        code: 0,
        out: '',
      });
    }
    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    try {
      for (const t of migrated) {
        const rec = await state.getTable(plan.hash, `${t.db}.${t.name}`);
        expect({ t: t.name, status: rec.status }).toEqual({ t: t.name, status: 'rolled-back' });
        const now = await table(t.db, t.name);
        expect({ t: t.name, digest: now === undefined ? null : fingerprintOf(now) }).toEqual({ t: t.name, digest: rec.originalDigest });
        expect(await table(t.db, originalAsideName(t.name))).toBeUndefined();
      }
    } finally {
      await state.close();
    }
    const store = new RoutingObjectStore({
      metadataPrefixes: [],
      s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
    });
    try {
      for (const t of manifest.tables) {
        for (const f of t.files) {
          const { size } = await store.head(f.location);
          expect({
            f: f.location,
            sha: createHash('sha256')
              .update(await store.readRange(f.location, 0, size))
              .digest('hex'),
          }).toEqual({ f: f.location, sha: f.sha256 });
        }
      }
    } finally {
      store.destroy();
    }
    const audit = await migrate(['audit', 'verify', '--json']);
    expect(audit.code).toBe(0);
  }, 1_200_000);
});
