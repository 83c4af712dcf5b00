// Nightly validation after a real apply: nothing changed → every table clean; then one drift per
// table — a new file in a Hive partition, a new Hive partition, a PyIceberg commit, an altered HMS
// table, a deleted manifest of ours — each reported with its code and evidence, no other table
// affected (`migrate validate`, exit 3). The Temporal Schedule: exists after `schedule create`,
// fires on `trigger`, honours pause, its runs are found with MigrationPlan/MigrationStatus; the
// run's Parquet results file is read back by pyarrow with exactly the run's rows.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { RestCatalog } from '../../adapters/catalog/rest';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { ThriftHmsWriter } from '../../adapters/hms/thrift/writer';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import type { ValidationRow } from '../../core/validate/drift';
import type { SeedManifest } from '../../dev/seed/manifest';
import type { Run } from '../helpers/cli';
import { ROOT, TSX, run } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';

const root = ROOT;
const env = testStack();
const stackCfg = path.join(env.HIM_STATE_DIR as string, 'migrate.yaml');
const prefix = uniqueName('himv').toLowerCase();
const nsPrefix = `${prefix}_`;
const sales = `${prefix}_sales`;
const misc = `${prefix}_misc`;
let dir = '';
let cfgFile = '';
let manifest: SeedManifest;
let worker: ChildProcess | undefined;
let planHash = '';
let id = '';

const migrate = (args: string[], timeout?: number): Promise<Run> =>
  run(path.join(root, 'bin', 'migrate'), [...args, '--config', cfgFile], timeout);
const tsx = TSX;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const store = new RoutingObjectStore({
  metadataPrefixes: [`s3a://hive/seed/`, `s3://hive/seed/`],
  s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
});

async function validateJson(): Promise<{ code: number; rows: ValidationRow[] }> {
  const r = await migrate(['validate', id, '--json']);
  const body = JSON.parse(r.stdout || '{"rows":[]}') as { rows: ValidationRow[] };
  return { code: r.code, rows: body.rows };
}
const problems = (rows: readonly ValidationRow[]) =>
  rows
    .filter((r) => r.status !== 'ok')
    .map((r) => [r.table.split('.')[1], r.check, r.code])
    .sort();

describe('nightly validation and drift (after a real apply)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-validate-'));
    const mf = path.join(dir, 'manifest.json');
    const s = await run(tsx, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--manifest', mf]);
    if (s.code !== 0) throw new Error(`seeding failed: ${s.stderr}`);
    manifest = JSON.parse(readFileSync(mf, 'utf8')) as SeedManifest;
    const base = readFileSync(stackCfg, 'utf8').replace(/namespace: default/, `namespace: default\n  taskQueue: him-validate-${prefix}`);
    cfgFile = path.join(dir, 'migrate.yaml');
    writeFileSync(
      cfgFile,
      `${base.replace(/(warehouse: .*)/, `$1\n  namespacePrefix: ${nsPrefix}`)}\nvalidation:\n  resultsLocation: s3://results/${prefix}\nplan:\n  databases: [${sales}, ${misc}]\n  waves:\n    maxTablesPerWave: 20\n`,
    );
    worker = spawn(path.join(root, 'bin', 'migrate'), ['worker', '--config', cfgFile], {
      env: { ...process.env, ...env },
      cwd: root,
      stdio: 'ignore',
    });
    const planFile = path.join(dir, 'plan.json');
    expect((await migrate(['plan', '--out', planFile])).code).toBe(0);
    planHash = (JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string }).hash;
    id = planHash.slice(0, 12);
    const a = await migrate(['apply', planFile, '--auto-approve', '--wait', '--max-failed', '5', '--json'], 600_000);
    expect((JSON.parse(a.stdout) as { result: { state: string } }).result.state).toBe('succeeded');
  }, 900_000);

  afterAll(async () => {
    await migrate(['schedule', 'delete', id]).catch(() => undefined);
    worker?.kill('SIGTERM');
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    for (const db of [sales, misc]) {
      for (const t of await catalog.listTables([`${nsPrefix}${db}`]).catch(() => [])) await catalog.dropTable(t);
      await catalog.dropNamespace([`${nsPrefix}${db}`]).catch(() => undefined);
    }
    await run(tsx, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--drop']);
    store.destroy();
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('nothing changed: every migrated table is clean (exit 0)', async () => {
    const v = await validateJson();
    expect(problems(v.rows)).toEqual([]);
    expect(v.code).toBe(0);
    expect(new Set(v.rows.map((r) => r.table)).size).toBeGreaterThanOrEqual(6);
  }, 300_000);

  it('five kinds of drift, one per table, each with its code and evidence; the other tables stay clean (exit 3)', async () => {
    const t = (name: string) => manifest.tables.find((x) => x.name === name) as SeedManifest['tables'][number];
    // 1. A writer still hitting Hive: a new file in a migrated partition of orders.
    const orders = t('orders');
    const f = orders.partitions[1]?.files[0];
    if (f === undefined) throw new Error('no orders file');
    const newFile = f.location.replace(/[^/]+$/, 'late_arrival_0');
    await store.put(newFile, await store.readRange(f.location, 0, f.size), { ifNoneMatch: '*' });
    // 2. A new Hive partition on special_parts.
    const hms = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string });
    const writer = new ThriftHmsWriter({ uri: env.HIM_HMS_PG_URI as string });
    const [sp] = await hms.getTables(sales, ['special_parts']);
    const p0 = sp?.partitions[0];
    if (sp === undefined || p0 === undefined) throw new Error('special_parts not found');
    await writer.addPartitions(sales, 'special_parts', [
      { ...p0, values: ['late'], name: 'k=late', sd: { ...p0.sd, location: `${sp.table.sd.location}/k=late` } },
    ]);
    // 3. The Iceberg table moved on: a PyIceberg append to customers.
    const py = `
import os, sys
sys.path.insert(0, ${JSON.stringify(path.join(root, 'dev/verifier'))})
from read_table import pyiceberg_catalog
t = pyiceberg_catalog(os.environ["HIM_ICEBERG_REST_URI"], os.environ["HIM_S3_ENDPOINT"]).load_table("${nsPrefix}${sales}.customers")
t.append(t.scan(limit=1).to_arrow())
print(t.metadata_location)`;
    const pr = await run(env.HIM_VERIFIER_PYTHON as string, ['-c', py]);
    expect(pr.code).toBe(0);
    // 4. The HMS table altered (drifted).
    const [dr] = await hms.getTables(sales, ['drifted']);
    if (dr === undefined) throw new Error('drifted not found');
    await writer.alterTable(sales, 'drifted', {
      ...dr.table,
      parameters: { ...dr.table.parameters, 'owner.note': 'changed after migration' },
    });
    // 5. One of our manifests deleted (metrics_orc).
    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    const rec = await state.getTable(planHash, `${misc}.metrics_orc`);
    await state.close();
    const manifestFile = rec.writtenFiles?.find((x) => /-m0\.avro$/.test(x.path))?.path as string;
    await store.delete(manifestFile);
    await hms.close();
    await writer.close();

    const v = await validateJson();
    expect(v.code).toBe(3);
    expect(problems(v.rows)).toEqual([
      ['customers', 'iceberg-commits', 'ICEBERG_COMMITS_AFTER_OURS'],
      ['drifted', 'hms-object', 'HMS_OBJECT_CHANGED'],
      ['metrics_orc', 'metadata-files', 'METADATA_FILE_MISSING'],
      ['orders', 'data-files', 'HIVE_FILES_ADDED'],
      ['special_parts', 'hive-partitions', 'HIVE_PARTITION_ADDED'],
    ]);
    const ev = (name: string, code: string) => v.rows.find((r) => r.table.endsWith(`.${name}`) && r.code === code);
    expect(ev('orders', 'HIVE_FILES_ADDED')?.actual).toContain('late_arrival_0');
    expect(ev('special_parts', 'HIVE_PARTITION_ADDED')?.actual).toContain('k=late');
    expect(ev('drifted', 'HMS_OBJECT_CHANGED')?.actual).toContain('parameters.owner.note');
    expect(ev('metrics_orc', 'METADATA_FILE_MISSING')?.actual).toContain(manifestFile);
    expect(ev('customers', 'ICEBERG_COMMITS_AFTER_OURS')?.actual).toMatch(/1 commit\(s\) after ours/);
  }, 300_000);

  it('schedule: create, trigger → a drifted run findable by search attributes, pause honoured; results Parquet read back by pyarrow', async () => {
    expect((await migrate(['schedule', 'create', id, '--every', '6s', '--jitter', '0s', '--paused'])).code).toBe(0);
    const d0 = JSON.parse((await migrate(['schedule', 'describe', id, '--json'])).stdout) as { id: string; paused: boolean; plan: string };
    expect(d0).toMatchObject({ id: `validate/${id}`, paused: true, plan: planHash });
    // Paused: nothing fires on its own over two intervals.
    await sleep(14_000);
    expect((JSON.parse((await migrate(['schedule', 'describe', id, '--json'])).stdout) as { recent: unknown[] }).recent).toEqual([]);
    // Trigger fires even while paused (a manual run).
    expect((await migrate(['schedule', 'trigger', id])).code).toBe(0);
    const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
    const client = new Client({ connection });
    let found: { workflowId: string; runId: string }[] = [];
    for (let i = 0; i < 90 && found.length === 0; i++) {
      await sleep(2000);
      found = [];
      for await (const w of client.workflow.list({ query: `MigrationPlan = '${id}' AND MigrationStatus = 'drifted'` }))
        found.push({ workflowId: w.workflowId, runId: w.runId });
    }
    expect(found.length).toBe(1);
    expect(found[0]?.workflowId).toMatch(new RegExp(`^validate/${id}/run`));
    const result = (await client.workflow.getHandle(found[0]?.workflowId as string, found[0]?.runId).result()) as {
      runId: string;
      status: string;
      results: string;
      counts: { drifted: number };
    };
    expect(result.status).toBe('drifted');
    // Four tables drifted; customers' commits after ours are reported as info (expected after cut-over).
    expect(result.counts).toMatchObject({ drifted: 4, failed: 0 });
    expect(result.results).toMatch(new RegExp(`^s3://results/${prefix}/${id}/.*\\.parquet$`));

    // The Parquet file holds exactly the run's rows.
    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    const rows = (await state.getValidationRows(result.runId)) as ValidationRow[];
    await state.close();
    const key = result.results.replace(/^s3:\/\//, '');
    const py = `
import json, os, pyarrow.parquet as pq, pyarrow.fs as fs
s3 = fs.S3FileSystem(endpoint_override=os.environ["HIM_S3_ENDPOINT"], access_key=os.environ["AWS_ACCESS_KEY_ID"], secret_key=os.environ["AWS_SECRET_ACCESS_KEY"], region=os.environ.get("AWS_REGION","us-east-1"))
t = pq.read_table(${JSON.stringify(key)}, filesystem=s3)
out = []
for r in t.to_pylist():
    r["time"] = r["time"].strftime("%Y-%m-%dT%H:%M:%S.") + f"{r['time'].microsecond // 1000:03d}Z"
    out.append(r)
print(json.dumps({"schema": [f"{f.name}:{f.type}" for f in t.schema], "rows": out}))`;
    const pr = await run(env.HIM_VERIFIER_PYTHON as string, ['-c', py]);
    expect(pr.stderr).toBe('');
    const read = JSON.parse(pr.stdout) as { schema: string[]; rows: Record<string, unknown>[] };
    expect(read.schema.map((s) => s.split(':')[0])).toEqual([
      'plan',
      'wave',
      'team',
      'table',
      'check',
      'status',
      'code',
      'expected',
      'actual',
      'snapshotId',
      'runId',
      'time',
    ]);
    const canon = (r: Record<string, unknown>) =>
      JSON.stringify(Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1))));
    expect(read.rows.map(canon).sort()).toEqual(rows.map((r) => canon(r as unknown as Record<string, unknown>)).sort());
    expect(read.rows.length).toBeGreaterThan(30);

    // Unpause: it fires by itself within a few intervals; pause again and it stops.
    expect((await migrate(['schedule', 'unpause', id])).code).toBe(0);
    let recent = 0;
    for (let i = 0; i < 30 && recent < 2; i++) {
      await sleep(2000);
      recent = (JSON.parse((await migrate(['schedule', 'describe', id, '--json'])).stdout) as { recent: unknown[] }).recent.length;
    }
    expect(recent).toBeGreaterThanOrEqual(2);
    expect((await migrate(['schedule', 'pause', id])).code).toBe(0);
    expect((JSON.parse((await migrate(['schedule', 'describe', id, '--json'])).stdout) as { paused: boolean }).paused).toBe(true);
    await connection.close();
  }, 600_000);

  it('rollback refuses a table with Iceberg commits after ours unless --force (audited); HMS objects changed by others are reported, not overwritten', async () => {
    const wave = 1;
    // The plan's views (later waves) read wave 1: they go first (else ROLLBACK_ORDER refuses the wave).
    const r1 = await migrate(['rollback', id, '--wave', String(wave), '--with-dependent-views', '--json']);
    expect(r1.code).toBe(1);
    const j1 = JSON.parse(r1.stdout) as { rolledBack: string[]; refused: { tableId: string; code: string; message: string }[] };
    const refused = Object.fromEntries(j1.refused.map((x) => [x.tableId.split('.')[1], x.code]));
    // customers' PyIceberg append went to <location>/data/, where Hive (unpartitioned: the table
    // location, not recursively) would not read it: it cannot be put back (ROLLBACK_BLOCKED).
    expect(refused).toMatchObject({ customers: 'ROLLBACK_BLOCKED', drifted: 'SOURCE_CHANGED', special_parts: 'SOURCE_CHANGED' });
    expect(j1.refused.find((x) => x.tableId.endsWith('.customers'))?.message).toMatch(/outside the table location/);
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    expect(await catalog.tableExists({ namespace: [`${nsPrefix}${sales}`], name: 'customers' })).toBe(true);
    expect(j1.rolledBack.map((x) => x.split('.')[1])).toEqual(expect.arrayContaining(['all_types', 'metrics_orc']));

    const r2 = await migrate(['rollback', id, '--wave', String(wave), '--with-dependent-views', '--force', '--json']);
    const j2 = JSON.parse(r2.stdout) as { rolledBack: string[]; refused: { tableId: string; code: string }[] };
    expect(j2.rolledBack.map((x) => x.split('.')[1])).toContain('customers');
    expect(await catalog.tableExists({ namespace: [`${nsPrefix}${sales}`], name: 'customers' })).toBe(false);
    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    const forced: string[] = [];
    for await (const e of state.readAudit()) if (e.planHash === planHash && e.action === 'rollback.forced') forced.push(e.object);
    await state.close();
    expect(forced).toEqual([`local-rest:${nsPrefix}${sales}.customers`]);
    expect((await migrate(['audit', 'verify'])).code).toBe(0);
  }, 300_000);
});
