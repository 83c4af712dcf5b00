// Every kind of table a metadata-only migration leaves behind, in ONE warehouse, through ONE plan
// (REST catalog, a real worker, Temporal, Spark for the rewrite jobs; PyIceberg, Spark and Trino as readers): `lb_warehouse` (dev/seed/lb-warehouse.ts)
// holds a nested struct evolution across partitions, two Parquet tables with a view and a view over that
// view, a CSV table with a view over it, an insert-only ACID table with committed and aborted writes (two),
// a '|'-delimited CSV table with a header line, a bucketed table, a table with data in sub-directories,
// and a uniontype table no rewrite takes with a view over it. plan --rewrite → each table's path (plan.md's
// path column) and waves → apply → every migrated table read back by the three readers with the Hive
// content checksum; old partitions read s.b as NULL; the aborted writes' files are not in the Iceberg
// tables; the views in Spark equal the same SQL over the Hive files → rollback of every wave, last first:
// catalog empty, HMS as saved, every source file byte-identical, the rewrite tables' data gone and nothing
// else, the audit chain verifies.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { readManifest, readManifestFiles } from '../../adapters/avro/manifest-reader';
import { RestCatalog } from '../../adapters/catalog/rest';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import { fingerprintOf } from '../../activities/index';
import { tableIdent } from '../../core/catalog/catalog';
import type { WarehouseSeed, WarehouseSeedTable } from '../../dev/seed/lb-warehouse';
import type { Run } from '../helpers/cli';
import { ROOT, TSX, run } from '../helpers/cli';
import { stackRewriteYaml } from '../helpers/rewrite';
import { testStack, uniqueName } from '../helpers/stack-env';
import { readWith, trinoSql } from '../helpers/verifier';

const env = testStack();
const DB = 'lb_warehouse';
const prefix = uniqueName('lbw').toLowerCase();
const NS = `${prefix}_${DB}`;
const CATALOG = 'local-rest';
const rewriteRoot = `${prefix}-rewrite`;
let dir = '';
let cfgFile = '';
let seed: WarehouseSeed;
let worker: ChildProcess | undefined;
let log = '';
const s3 = new S3Client({ endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true });
const store = new RoutingObjectStore({
  metadataPrefixes: [],
  s3: { endpoint: env.HIM_S3_ENDPOINT as string, region: env.AWS_REGION as string, forcePathStyle: true },
});

const migrate = (args: string[], timeout?: number): Promise<Run> =>
  run(path.join(ROOT, 'bin', 'migrate'), [...args, '--config', cfgFile], timeout);
const byPath = (p: WarehouseSeedTable['path']): WarehouseSeedTable[] => seed.tables.filter((t) => t.path === p);
const entry = (name: string): WarehouseSeedTable => seed.tables.find((t) => t.name === name) as WarehouseSeedTable;
const split = (uri: string): [string, string] => {
  const m = /^s3a?:\/\/([^/]+)\/(.*)$/.exec(uri);
  return [m?.[1] ?? '', m?.[2] ?? ''];
};

async function keysUnder(bucket: string, key: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const r = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: key, ContinuationToken: token }));
    for (const o of r.Contents ?? []) if (o.Key !== undefined && !o.Key.endsWith('/')) keys.push(o.Key);
    token = r.NextContinuationToken;
  } while (token !== undefined);
  return keys.sort();
}

async function bytesOf(uri: string): Promise<Buffer> {
  const [bucket, key] = split(uri);
  const r = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await (r.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
}

/** Every key under the seeded tables' directories (bucket/key): what must be there, unchanged, after rollback. */
async function sourceKeys(): Promise<string[]> {
  const out: string[] = [];
  for (const t of seed.tables) {
    if (t.location === null) continue;
    const [bucket, key] = split(t.location);
    for (const k of await keysUnder(bucket, `${key}/`)) out.push(`${bucket}/${k}`);
  }
  return out.sort();
}

/** view_check.py: the Iceberg view in Spark vs its Hive SQL over the Hive tables' files (or temp views). */
async function viewCheck(view: string, bases: string[], hiveViews: [string, string][]) {
  const r = await run(env.HIM_VERIFIER_PYTHON as string, [
    path.join(ROOT, 'dev', 'verifier', 'view_check.py'),
    '--catalog-name',
    CATALOG,
    '--view',
    `${NS}.${view}`,
    '--hive-sql',
    entry(view).viewExpandedText as string,
    ...bases.flatMap((b) => ['--base', `${DB}.${b}=${entry(b).location as string}`]),
    ...hiveViews.flatMap(([v, sql]) => ['--hive-view', `${DB}.${v}=${sql}`]),
  ]);
  if (r.code !== 0) throw new Error(`view_check.py ${view} failed (${r.code}):\n${r.stderr.slice(-3000)}`);
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as {
    iceberg: { rows: number; checksum: string };
    hive: { rows: number; checksum: string };
  };
}

interface PlanJson {
  hash: string;
  waves: { number: number; tables: { id: string; class: string }[] }[];
  notPlanned: { id: string; reason: string }[];
}

describe('the left-behind warehouse: every kind of table through one plan --rewrite', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-lbw-'));
    const mf = path.join(dir, 'seed.json');
    const s = await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--left-behind', 'warehouse', '--manifest', mf]);
    if (s.code !== 0) throw new Error(`seeding failed: ${s.stderr}`);
    seed = JSON.parse(readFileSync(mf, 'utf8')) as WarehouseSeed;
    const base = readFileSync(path.join(env.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8')
      .replace(/taskQueue:.*\n/, '')
      .replace(/namespace: default/, `namespace: default\n  taskQueue: him-lbw-${prefix}`);
    cfgFile = path.join(dir, 'migrate.yaml');
    writeFileSync(
      cfgFile,
      `${base.replace(/(warehouse: .*)/, `$1\n  namespacePrefix: ${prefix}_`)}\nplan:\n  databases: [${DB}]\n${stackRewriteYaml(env, `s3://warehouse/${rewriteRoot}`)}`,
    );
    worker = spawn(path.join(ROOT, 'bin', 'migrate'), ['worker', '--config', cfgFile], {
      env: { ...process.env, ...env, HIM_REWRITE_WORK_DIR: path.join(dir, 'jobs') },
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    worker.stdout?.on('data', (d: Buffer) => (log += d.toString()));
    worker.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  }, 600_000);

  afterAll(async () => {
    if (worker?.pid !== undefined) {
      try {
        process.kill(-worker.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    for (const v of byPath('view')) await catalog.views.dropView(tableIdent([NS], v.name)).catch(() => undefined);
    for (const t of await catalog.listTables([NS]).catch(() => [])) await catalog.dropTable(t);
    await catalog.dropNamespace([NS]).catch(() => undefined);
    s3.destroy();
    rmSync(dir, { recursive: true, force: true });
  }, 300_000);

  it('plan → apply → three readers, views, aborted writes → rollback of every wave', async () => {
    // The seed's source files as written (sha256), and every key under the tables' directories.
    const before = await sourceKeys();
    for (const t of seed.tables) for (const f of t.files) expect(before).toContain(split(f.uri).join('/'));

    // ---- plan --rewrite: each table's path, the waves, the left-out ones with their code.
    const planFile = path.join(dir, 'plan.json');
    const report = path.join(dir, 'plan.md');
    const p = await migrate(['plan', '--rewrite', '--out', planFile, '--report', report]);
    expect({ code: p.code, stderr: p.code === 0 ? '' : p.stderr }).toEqual({ code: 0, stderr: '' });
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as PlanJson;
    const md = readFileSync(report, 'utf8');
    const rowOf = (id: string): string[] => (md.split('\n').find((l) => l.startsWith(`| ${id} |`)) ?? '').split('|').map((c) => c.trim());
    const planned = seed.tables.filter((t) => t.path !== 'left-out');
    for (const t of planned) expect({ id: t.id, path: rowOf(t.id)[4] }).toEqual({ id: t.id, path: t.path });
    for (const t of byPath('rewrite'))
      expect(plan.waves.flatMap((w) => w.tables).find((x) => x.id === t.id)?.class).toBe('rewrite-required');
    expect(plan.waves.flatMap((w) => w.tables.map((t) => t.id)).sort()).toEqual(planned.map((t) => t.id).sort());
    // Left out: the union table (no rewrite takes it) and the view over it, each with its code.
    expect(plan.notPlanned.map((n) => n.id).sort()).toEqual(
      byPath('left-out')
        .map((t) => t.id)
        .sort(),
    );
    for (const t of byPath('left-out'))
      expect({ id: t.id, findings: rowOf(t.id)[4] }).toEqual({ id: t.id, findings: expect.stringContaining(t.code as string) });
    const waveOf = (name: string): number => plan.waves.find((w) => w.tables.some((t) => t.id === `${DB}.${name}`))?.number ?? -1;
    expect(waveOf('v_eu_orders')).toBeGreaterThan(waveOf('orders'));
    expect(waveOf('v_eu_by_country')).toBeGreaterThan(Math.max(waveOf('v_eu_orders'), waveOf('customers')));
    expect(waveOf('v_open_events')).toBeGreaterThan(waveOf('raw_events'));

    // ---- apply: every wave, in wave order, on one worker.
    const a = await migrate(['apply', planFile, '--auto-approve', '--wait', '--heartbeat-timeout', '60', '--json'], 1_500_000);
    const result = (
      JSON.parse(a.stdout || '{}') as { result?: { state: string; waves: { wave: number; migrated: number; failed: unknown[] }[] } }
    ).result;
    if (result?.state !== 'succeeded' || result.waves.some((w) => w.failed.length > 0))
      throw new Error(`apply: ${a.stdout}\n${a.stderr}\nworker:\n${log.slice(-6000)}`);
    expect(result.waves.map((w) => w.wave)).toEqual(plan.waves.map((w) => w.number));
    expect(result.waves.reduce((n, w) => n + w.migrated, 0)).toBe(planned.length);

    // ---- every migrated table: PyIceberg, Spark and Trino read the Hive content checksum.
    const tables = seed.tables.filter((t) => t.path !== 'left-out' && t.path !== 'view');
    const reads = await readWith(
      'pyiceberg,spark,trino',
      tables.map((t) => `${NS}.${t.name}`),
    );
    for (const t of tables)
      for (const engine of ['pyiceberg', 'spark', 'trino']) {
        const r = reads.find((x) => x.table === `${NS}.${t.name}` && x.engine === engine);
        expect({ table: t.name, engine, rows: r?.rows, checksum: r?.checksum, error: r?.error }).toEqual({
          table: t.name,
          engine,
          rows: t.rows,
          checksum: t.checksum,
          error: undefined,
        });
      }
    // The old partitions' files have no s.b: read as NULL (a filtered Trino query), the new one's are set.
    const old = await trinoSql(`SELECT id, s.b AS b FROM iceberg."${NS}".nested_events WHERE dt < '2024-01-03' AND s IS NOT NULL`);
    const oldRows = 'sample' in old ? old.sample : [];
    expect({ rows: 'rows' in old ? old.rows : old, b: [...new Set(oldRows.map((r) => r.b))] }).toEqual({ rows: 14, b: [null] });
    const fresh = await trinoSql(`SELECT count(*) AS n FROM iceberg."${NS}".nested_events WHERE s.b IS NOT NULL`);
    expect('sample' in fresh ? fresh.sample[0]?.n : fresh).toBe(7);

    // ---- the insert-only tables hold no file of an aborted write (their manifests, read here).
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    for (const t of byPath('insert-only')) {
      const m = (await catalog.loadTable(tableIdent([NS], t.name))).metadata;
      const snap = m.snapshots.find((x) => x.snapshotId === m.currentSnapshotId);
      const schema = m.schemas.find((x) => x.schemaId === m.currentSchemaId);
      const spec = m.partitionSpecs.find((x) => x.specId === m.defaultSpecId);
      const files: string[] = [];
      for (const mf of await readManifestFiles(store, snap?.manifestList as string))
        for (const f of await readManifest(store, mf.path, schema as never, spec as never)) files.push(f.filePath.replace(/^s3a:/, 's3:'));
      expect(t.files.some((f) => f.aborted)).toBe(true);
      expect({ t: t.name, files: files.sort() }).toEqual({
        t: t.name,
        files: t.files
          .filter((f) => !f.aborted)
          .map((f) => f.uri)
          .sort(),
      });
    }

    // ---- the views: Spark through the REST catalog = the same SQL over the Hive tables' files.
    const c1 = await viewCheck('v_eu_orders', ['orders'], []);
    const c2 = await viewCheck(
      'v_eu_by_country',
      ['orders', 'customers'],
      [['v_eu_orders', entry('v_eu_orders').viewExpandedText as string]],
    );
    // The view over the rewritten CSV table: its Hive side from the CSV source file's lines.
    const csv = (await bytesOf(entry('raw_events').files[0]?.uri as string)).toString('utf8').trim().split('\n');
    const values = csv.map((l) => `(${l.split(',')[0] ?? ''}, '${l.split(',')[1] ?? ''}')`).join(', ');
    const c3 = await viewCheck('v_open_events', [], [['raw_events', `SELECT * FROM VALUES ${values} AS t(id, kind)`]]);
    expect([c1.iceberg.rows, c3.iceberg.rows]).toEqual([20, 5]);
    expect(c2.iceberg.rows).toBeGreaterThan(0);
    for (const c of [c1, c2, c3])
      expect({ rows: c.iceberg.rows, checksum: c.iceberg.checksum }).toEqual({ rows: c.hive.rows, checksum: c.hive.checksum });
    for (const v of byPath('view')) expect(await catalog.views.viewExists(tableIdent([NS], v.name))).toBe(true);
    for (const t of byPath('left-out')) {
      expect(await catalog.views.viewExists(tableIdent([NS], t.name))).toBe(false);
      expect(await catalog.tableExists(tableIdent([NS], t.name))).toBe(false);
    }

    // ---- rollback, last wave first.
    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    const hms = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string });
    try {
      const written: string[] = [];
      for (const t of byPath('rewrite')) written.push(...((await state.getTable(plan.hash, t.id)).writtenFiles ?? []).map((f) => f.path));
      // The rewrite jobs' data files, as their records list them, are on S3 under the rewrite warehouse (and only they).
      expect(written.length).toBeGreaterThanOrEqual(byPath('rewrite').length);
      const rewriteData = (await keysUnder('warehouse', `${rewriteRoot}/`))
        .filter((k) => /\/data\//.test(k))
        .map((k) => `s3://warehouse/${k}`);
      expect(rewriteData).toEqual(written.map((f) => f.replace(/^s3a:/, 's3:')).sort());
      for (const w of [...plan.waves].reverse()) {
        const rb = await migrate(['rollback', plan.hash.slice(0, 12), '--wave', String(w.number), '--json'], 900_000);
        expect({ wave: w.number, code: rb.code, out: rb.code === 0 ? '' : `${rb.stdout}\n${rb.stderr}` }).toEqual({
          wave: w.number,
          code: 0,
          out: '',
        });
        expect((JSON.parse(rb.stdout) as { refused: unknown[] }).refused).toEqual([]);
      }
      expect(await catalog.listTables([NS])).toEqual([]);
      for (const v of byPath('view')) expect(await catalog.views.viewExists(tableIdent([NS], v.name))).toBe(false);
      for (const t of planned) {
        const rec = await state.getTable(plan.hash, t.id);
        const [inv] = await hms.getTables(DB, [t.name]);
        expect({ t: t.id, status: rec.status, digest: fingerprintOf(inv as never) }).toEqual({
          t: t.id,
          status: 'rolled-back',
          digest: rec.originalDigest,
        });
      }
    } finally {
      await state.close();
      await hms.close();
    }
    // The rewrite tables' data is gone; every source key is still there, byte-identical.
    expect(await keysUnder('warehouse', `${rewriteRoot}/`)).toEqual([]);
    expect(await sourceKeys()).toEqual(before);
    for (const t of seed.tables)
      for (const f of t.files)
        expect({
          f: f.uri,
          sha: createHash('sha256')
            .update(await bytesOf(f.uri))
            .digest('hex'),
        }).toEqual({ f: f.uri, sha: f.sha256 });
    const v = await migrate(['audit', 'verify', '--json']);
    expect(v.code).toBe(0);
  }, 2_400_000);
});
