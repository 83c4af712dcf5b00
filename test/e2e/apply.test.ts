// plan → apply → approve between waves → PyIceberg reads every migrated table with the original
// rows → rollback of the last wave → catalog entries gone, HMS objects equal the saved originals,
// every data file's sha256 unchanged, `migrate audit verify` passes. The real CLI binary, a real
// `migrate worker` process, the stack's Temporal dev server, REST catalog, HMS and S3. Also: the
// wave workflows are findable by MigrationPlan/MigrationStatus, each table's workflow by its MigrationTable with its final status, tables whose data cannot convert
// (skewed sub-directories) end failed with their code and compensated while the wave completes,
// and no secret from the environment appears in any workflow history.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { RestCatalog } from '../../adapters/catalog/rest';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import { fingerprintOf } from '../../activities/index';
import { tableIdent } from '../../core/catalog/catalog';
import type { SeedManifest } from '../../dev/seed/manifest';
import type { Run } from '../helpers/cli';
import { ROOT, TSX, run } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';
import { readWithPyIceberg } from '../helpers/verifier';
import { SA } from '../../workflows/common';

const root = ROOT;
const env = testStack();
const stackCfg = path.join(env.HIM_STATE_DIR as string, 'migrate.yaml');
const prefix = uniqueName('hima').toLowerCase();
const nsPrefix = `${prefix}_`;
const taskQueue = `him-e2e-${prefix}`;
let dir = '';
let cfgFile = '';
let manifest: SeedManifest;
let worker: ChildProcess | undefined;
let workerLog = '';
/** The first test's plan (the second plans the same tables again). */
let firstPlan: { hash: string; waves: { number: number; tables: { id: string }[] }[] } | undefined;

const migrate = (args: string[], timeout?: number): Promise<Run> =>
  run(path.join(root, 'bin', 'migrate'), [...args, '--config', cfgFile], timeout);
const tsx = TSX;

function startWorker(): void {
  worker = spawn(path.join(root, 'bin', 'migrate'), ['worker', '--config', cfgFile], {
    env: { ...process.env, ...env },
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  worker.stdout?.on('data', (d: Buffer) => (workerLog += d.toString()));
  worker.stderr?.on('data', (d: Buffer) => (workerLog += d.toString()));
}

async function sha256Of(store: RoutingObjectStore, uri: string): Promise<string> {
  const { size } = await store.head(uri);
  return createHash('sha256')
    .update(await store.readRange(uri, 0, size))
    .digest('hex');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface StatusJson {
  state: string;
  currentWave: number | null;
  waves: { wave: number; status: string; migrated: number; skipped: number; failed: { tableId: string; code: string }[] }[];
  totalWaves: number;
}

describe('migrate apply / approve / status / rollback (Temporal, seeded warehouse)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-apply-'));
    const mf = path.join(dir, 'manifest.json');
    const s = await run(tsx, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--manifest', mf]);
    if (s.code !== 0) throw new Error(`seeding failed: ${s.stderr}`);
    manifest = JSON.parse(readFileSync(mf, 'utf8')) as SeedManifest;
    const base = readFileSync(stackCfg, 'utf8')
      .replace(/taskQueue:.*\n/, '')
      .replace(/namespace: default/, `namespace: default\n  taskQueue: ${taskQueue}`);
    cfgFile = path.join(dir, 'migrate.yaml');
    writeFileSync(
      cfgFile,
      `${base.replace(/(warehouse: .*)/, `$1\n  namespacePrefix: ${nsPrefix}`)}\nplan:\n  databases: [${prefix}_sales, ${prefix}_misc]\n  waves:\n    maxTablesPerWave: 4\n`,
    );
    startWorker();
  }, 600_000);

  afterAll(async () => {
    worker?.kill('SIGTERM');
    await sleep(500);
    if (worker && worker.exitCode === null) worker.kill('SIGKILL');
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    // The seed's views became Iceberg views: dropped too, or the namespaces stay.
    for (const v of manifest.tables.filter((t) => t.kind === 'view'))
      await catalog.views.dropView(tableIdent([`${nsPrefix}${v.db}`], v.name)).catch(() => undefined);
    for (const db of [`${prefix}_sales`, `${prefix}_misc`]) {
      for (const t of await catalog.listTables([`${nsPrefix}${db}`]).catch(() => [])) await catalog.dropTable(t);
      await catalog.dropNamespace([`${nsPrefix}${db}`]).catch(() => undefined);
    }
    await run(tsx, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--drop']);
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('end to end: ≥3 waves with approvals, PyIceberg reads the rows, rollback of the last wave restores everything', async () => {
    const planFile = path.join(dir, 'plan.json');
    const p = await migrate(['plan', '--out', planFile]);
    expect(p.code).toBe(0);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string; waves: { number: number; tables: { id: string }[] }[] };
    // A second plan of the same, still unmigrated warehouse (the second test applies it late).
    expect((await migrate(['plan', '--out', path.join(dir, 'plan-early.json')])).code).toBe(0);
    expect(plan.waves.length).toBeGreaterThanOrEqual(3);
    const id = plan.hash.slice(0, 12);

    const a = await migrate(['apply', planFile, '--max-failed', '5', '--json']);
    expect(a.code).toBe(0);
    expect(JSON.parse(a.stdout)).toMatchObject({ ok: true, workflowId: `migrate/${id}`, started: true });

    // Approve each wave when the workflow asks for it; never before.
    const approvals: number[] = [];
    let st: StatusJson | undefined;
    const deadline = Date.now() + 480_000;
    while (Date.now() < deadline) {
      const s = await migrate(['status', id, '--json']);
      expect(s.code === 0 || s.code === 1).toBe(true);
      st = JSON.parse(s.stdout) as StatusJson;
      if (['succeeded', 'failed', 'cancelled'].includes(st.state)) break;
      if (st.state === 'waiting-approval' && st.currentWave !== null && !approvals.includes(st.currentWave)) {
        // The wave has not started before its approval.
        expect(st.waves.map((w) => w.wave)).not.toContain(st.currentWave);
        const ap = await migrate(['approve', id, '--wave', String(st.currentWave)]);
        expect(ap.code).toBe(0);
        approvals.push(st.currentWave);
      }
      await sleep(1000);
    }
    if (st?.state !== 'succeeded') throw new Error(`plan ended ${st?.state}: ${JSON.stringify(st)}\nworker:\n${workerLog.slice(-4000)}`);
    expect(approvals).toEqual(plan.waves.map((w) => w.number));

    // Every planned table: migrated, a view (skipped), or one of the known non-convertible layouts.
    const failed = st.waves.flatMap((w) => w.failed);
    expect(failed.map((f) => [f.tableId.split('.')[1], f.code]).sort()).toEqual(
      [
        ['accounts_acid', 'CONVERT_SUBDIRECTORY'],
        ['visits_skewed', 'CONVERT_SUBDIRECTORY'],
      ].filter(([n]) => plan.waves.some((w) => w.tables.some((t) => t.id.endsWith(`.${n}`)))),
    );
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    for (const f of failed)
      expect(await catalog.tableExists(tableIdent([`${nsPrefix}${f.tableId.split('.')[0]}`], f.tableId.split('.')[1] as string))).toBe(
        false,
      );

    // PyIceberg reads every migrated table with the original rows (Avro: PyIceberg cannot, see the convert test).
    const planned = new Set(plan.waves.flatMap((w) => w.tables.map((t) => t.id)));
    const migrated = manifest.tables.filter(
      (t) => planned.has(`${t.db}.${t.name}`) && t.kind !== 'view' && !failed.some((f) => f.tableId === `${t.db}.${t.name}`),
    );
    expect(migrated.length).toBeGreaterThanOrEqual(5);
    const names = migrated.filter((t) => t.format !== 'avro').map((t) => `${nsPrefix}${t.db}.${t.name}`);
    const reads = await readWithPyIceberg(names);
    for (const t of migrated.filter((x) => x.format !== 'avro')) {
      const got = reads.find((x) => x.table === `${nsPrefix}${t.db}.${t.name}`);
      expect({ t: t.name, rows: got?.rows, checksum: got?.checksum }).toEqual({ t: t.name, rows: t.rows, checksum: t.checksum });
    }

    // The wave workflows are findable the way owners look for them.
    const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
    const client = new Client({ connection });
    const found: string[] = [];
    const waves = `MigrationPlan = '${id}' AND WorkflowType = 'waveWorkflow' AND MigrationStatus IN ('succeeded', 'failed')`;
    for await (const w of client.workflow.list({ query: waves })) found.push(w.workflowId);
    expect(found.sort()).toEqual(plan.waves.map((w) => `migrate/${id}/wave-${w.number}`).sort());
    // Each table's workflow: its name and how it ended (the failed ones are the plan's failed tables).
    const ended: [string, string][] = [];
    for await (const w of client.workflow.list({ query: `MigrationPlan = '${id}' AND WorkflowType = 'tableWorkflow'` }))
      ended.push([w.typedSearchAttributes.get(SA.table) ?? '', w.typedSearchAttributes.get(SA.status) ?? '']);
    expect(ended.map(([t]) => t).sort()).toEqual([...planned].sort());
    expect(
      ended
        .filter(([, s]) => s === 'failed')
        .map(([t]) => t)
        .sort(),
    ).toEqual(failed.map((f) => f.tableId).sort());
    expect(ended.every(([, s]) => ['succeeded', 'skipped', 'failed'].includes(s))).toBe(true);

    // No secret from the environment in any history of this plan.
    const secret = env.AWS_SECRET_ACCESS_KEY as string;
    expect(secret.length).toBeGreaterThan(3);
    let histories = 0;
    for await (const w of client.workflow.list({ query: `WorkflowId STARTS_WITH 'migrate/${id}'` })) {
      const h = await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
      expect(JSON.stringify(h)).not.toContain(secret);
      histories++;
    }
    expect(histories).toBeGreaterThan(plan.waves.length);

    // Rollback of the last wave that migrated something.
    const store = new RoutingObjectStore({
      metadataPrefixes: [],
      s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
    });
    const last = [...st.waves].reverse().find((w) => w.migrated > 0);
    expect(last).toBeDefined();
    const lastWave = last?.wave as number;
    const lastTables = (plan.waves.find((w) => w.number === lastWave)?.tables ?? []).map((t) => t.id);
    const rb = await migrate(['rollback', id, '--wave', String(lastWave), '--json']);
    expect(rb.code).toBe(0);
    const rbj = JSON.parse(rb.stdout) as { rolledBack: string[]; refused: unknown[] };
    expect(rbj.refused).toEqual([]);
    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    const hms = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string });
    try {
      for (const tid of lastTables) {
        const [db, name] = tid.split('.') as [string, string];
        expect(await catalog.tableExists(tableIdent([`${nsPrefix}${db}`], name))).toBe(false);
        const rec = await state.getTable(plan.hash, tid);
        const [inv] = await hms.getTables(db, [name]);
        expect(fingerprintOf(inv as never)).toBe(rec.originalDigest);
      }
      // Tables of earlier waves stay registered.
      const earlier = migrated.find((t) => !lastTables.includes(`${t.db}.${t.name}`));
      if (earlier) expect(await catalog.tableExists(tableIdent([`${nsPrefix}${earlier.db}`], earlier.name))).toBe(true);
    } finally {
      await state.close();
      await hms.close();
    }
    // Every data file of the seed: byte-identical.
    for (const t of manifest.tables)
      for (const f of t.files) expect({ f: f.location, sha: await sha256Of(store, f.location) }).toEqual({ f: f.location, sha: f.sha256 });
    store.destroy();

    const v = await migrate(['audit', 'verify', '--json']);
    expect(v.code).toBe(0);
    expect(JSON.parse(v.stdout)).toMatchObject({ ok: true });
    await connection.close();
    firstPlan = { hash: plan.hash, waves: plan.waves };
  }, 900_000);

  it('a plan made before the first one ran, applied after it: refused PLAN_STALE before any workflow starts; with --accept-stale the tables the first migrated fail CATALOG_CONFLICT, their entries stay as they are, the plan ends failed (exit 1)', async () => {
    // Runs after the test above (its tables of the earlier waves are still registered).
    expect(firstPlan).toBeDefined();
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    const before = new Map<string, string>();
    for (const db of [`${prefix}_sales`, `${prefix}_misc`]) {
      for (const t of await catalog.listTables([`${nsPrefix}${db}`]).catch(() => []))
        before.set(`${t.namespace.join('.')}.${t.name}`, (await catalog.loadTable(t)).metadataLocation);
    }
    expect(before.size).toBeGreaterThan(0);
    const planFile = path.join(dir, 'plan-early.json');
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string; waves: { number: number; tables: { id: string }[] }[] };
    expect(plan.hash).not.toBe(firstPlan?.hash); // another plan: its metadata files have other names
    // The stale-plan pre-check refuses it before anything starts, naming each table the first plan registered.
    const refused = await migrate(['apply', planFile, '--auto-approve', '--wait', '--json']);
    const err = (JSON.parse(refused.stdout) as { error: { code: string; context: { stale: { tableId: string; reason: string }[] } } })
      .error;
    expect([refused.code, err.code]).toEqual([2, 'PLAN_STALE']);
    const takenIds = [...before.keys()].map((k) => k.slice(nsPrefix.length)).sort();
    expect(
      err.context.stale
        .filter((x) => x.reason === 'target-taken')
        .map((x) => x.tableId)
        .sort(),
    ).toEqual(takenIds);
    const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
    const client = new Client({ connection });
    const none = [];
    for await (const w of client.workflow.list({ query: `MigrationPlan = '${plan.hash.slice(0, 12)}'` })) none.push(w.workflowId);
    await connection.close();
    expect(none).toEqual([]);
    // --accept-stale runs it anyway: those tables fail on their own.
    const a = await migrate(['apply', planFile, '--accept-stale', '--auto-approve', '--wait', '--json'], 480_000);
    // A failed plan, reported as one (not a failed workflow / internal error).
    expect({ code: a.code, stderr: a.stderr.includes('internal error') }).toEqual({ code: 1, stderr: false });
    const body = JSON.parse(a.stdout) as { ok: boolean; result?: StatusJson; error?: unknown };
    // The plan's state, or the error the command reported instead (a cold run once got no result here).
    expect({ ok: body.ok, state: body.result?.state, error: body.error }).toEqual({ ok: false, state: 'failed', error: undefined });
    if (body.result === undefined) return;
    const conflicts = body.result.waves.flatMap((w) => w.failed).filter((f) => f.code === 'CATALOG_CONFLICT');
    expect(conflicts.length).toBeGreaterThan(0);
    for (const f of conflicts) {
      const [db, name] = f.tableId.split('.') as [string, string];
      const key = `${nsPrefix}${db}.${name}`;
      // Registered by the first plan; the second's compensation left the entry exactly as it was.
      expect(before.has(key)).toBe(true);
      expect((await catalog.loadTable(tableIdent([`${nsPrefix}${db}`], name))).metadataLocation).toBe(before.get(key));
    }
    for (const [key, loc] of before) {
      const [ns, name] = [key.slice(0, key.lastIndexOf('.')), key.slice(key.lastIndexOf('.') + 1)];
      expect({ key, loc: (await catalog.loadTable(tableIdent([ns], name))).metadataLocation }).toEqual({ key, loc });
    }
  }, 900_000);
  it('a new plan leaves out every table the target catalog already holds (IN_TARGET_CATALOG) and plans the rest again', async () => {
    // Runs after the tests above: the first plan's earlier waves are registered, its last wave rolled back.
    expect(firstPlan).toBeDefined();
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    const registered = new Set<string>();
    for (const db of [`${prefix}_sales`, `${prefix}_misc`]) {
      for (const t of await catalog.listTables([`${nsPrefix}${db}`]).catch(() => [])) registered.add(`${db}.${t.name}`);
    }
    expect(registered.size).toBeGreaterThan(0);
    const planFile = path.join(dir, 'plan-3.json');
    expect((await migrate(['plan', '--out', planFile])).code).toBe(0);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as {
      waves: { tables: { id: string }[] }[];
      notPlanned: { id: string; reason: string }[];
    };
    const planned = new Set(plan.waves.flatMap((w) => w.tables.map((t) => t.id)));
    const firstPlanned = (firstPlan?.waves ?? []).flatMap((w) => w.tables.map((t) => t.id));
    // Exactly the first plan's tables minus the registered ones: the rolled-back wave, the failed
    // tables and the views come back; nothing already in the catalog does.
    expect([...planned].sort()).toEqual(firstPlanned.filter((id) => !registered.has(id)).sort());
    for (const id of registered) expect(plan.notPlanned).toContainEqual({ id, reason: 'CLASS_SKIP' });
    const a = await migrate(['assess', '--json']);
    expect(a.code).toBe(0);
    const assessed = (JSON.parse(a.stdout) as { tables: { id: string; class: string; findings: { code: string }[] }[] }).tables;
    const inCatalog = assessed.filter((t) => t.findings.some((f) => f.code === 'IN_TARGET_CATALOG')).map((t) => t.id);
    expect(inCatalog.sort()).toEqual([...registered].sort());
    for (const t of assessed.filter((x) => registered.has(x.id))) expect(t.class).toBe('skip');
  }, 300_000);
});
