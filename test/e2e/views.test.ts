// Hive views → Iceberg views, on the real stack (HMS, S3, the REST catalog over
// JdbcCatalog with view support, Temporal, a real `migrate worker`): seed `lb_views` (two Parquet
// tables, a CSV table, a view over a table, a view over that view and the other table, a view over
// the CSV table) → plan: the two views come after their sources, the third is skipped with
// VIEW_BASE_NOT_MIGRATED → apply: both views exist in the REST catalog with hive + spark + trino
// representations and our marker, and Spark running each Iceberg view returns the same rows
// (content checksum) as its Hive SQL over the Hive tables' files, and so does Trino (the stack's
// `trino`, catalog `iceberg` on the same REST catalog) selecting from each view → rollback of wave 1,
// which views of waves 2 and 3 read: refused (ROLLBACK_ORDER, exit 2) by the CLI and by the
// workflow started directly in Temporal, nothing changed → with --with-dependent-views: both
// views rolled back first (latest wave first), then the wave; waves 2 and 3 then have nothing
// left. The views are dropped (audited), the tables unregistered, every HMS object equals its
// saved original, every data file is byte-identical, the audit chain verifies.
import { createHash } from 'node:crypto';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RestCatalog } from '../../adapters/catalog/rest';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { RoutingObjectStore } from '../../adapters/storage/routing-store';
import { fingerprintOf } from '../../activities/index';
import { tableIdent } from '../../core/catalog/catalog';
import type { ViewsSeed } from '../../dev/seed/views';
import { ROOT, TSX, run } from '../helpers/cli';
import { trinoSql } from '../helpers/verifier';
import { dropNamespace, migrateWith, suiteConfig } from '../helpers/e2e-suite';
import type { WorkerProc } from '../helpers/hostile';
import { startWorker } from '../helpers/hostile';
import { testStack, uniqueName } from '../helpers/stack-env';

const env = testStack();
const DB = 'lb_views';
const nsPrefix = `${uniqueName('himv').toLowerCase()}_`;
const NS = `${nsPrefix}${DB}`;
const taskQueue = `him-e2e-${nsPrefix}`;
const CATALOG = 'local-rest';
let dir = '';
let cfgFile = '';
let seed: ViewsSeed;
let worker: WorkerProc | undefined;

let migrate: ReturnType<typeof migrateWith>;
const expandedOf = (name: string): string => seed.tables.find((t) => t.name === name)?.viewExpandedText as string;
const dirOf = (name: string): string => (seed.tables.find((t) => t.name === name)?.location as string).replace(/^s3a:/, 's3:');

interface PlanJson {
  hash: string;
  waves: { number: number; tables: { id: string }[] }[];
  notPlanned: { id: string; reason: string }[];
}

/** view_check.py: the Iceberg view in Spark vs its Hive SQL over the Hive files. */
async function viewCheck(
  view: string,
  baseTables: string[],
  hiveViews: string[],
): Promise<{ iceberg: { rows: number; checksum: string }; hive: { rows: number; checksum: string }; equal: boolean }> {
  const args = [
    path.join(ROOT, 'dev', 'verifier', 'view_check.py'),
    '--catalog-name',
    CATALOG,
    '--view',
    `${NS}.${view}`,
    '--hive-sql',
    expandedOf(view),
    ...baseTables.flatMap((t) => ['--base', `${DB}.${t}=${dirOf(t)}`]),
    ...hiveViews.flatMap((v) => ['--hive-view', `${DB}.${v}=${expandedOf(v)}`]),
  ];
  const r = await run(env.HIM_VERIFIER_PYTHON as string, args, 400_000);
  if (r.code !== 0) throw new Error(`view_check.py ${view} failed (${r.code}):\n${r.stderr.slice(-3000)}`);
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as never;
}

describe('Hive views become Iceberg views (REST catalog, view spec v1)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-views-'));
    const mf = path.join(dir, 'views.json');
    const s = await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--views', DB, '--manifest', mf]);
    if (s.code !== 0) throw new Error(`seeding failed: ${s.stderr}`);
    seed = JSON.parse(readFileSync(mf, 'utf8')) as ViewsSeed;
    cfgFile = suiteConfig({ dir, queue: taskQueue, nsPrefix, databases: [DB] });
    migrate = migrateWith(cfgFile);
    worker = startWorker(cfgFile);
  }, 600_000);

  afterAll(async () => {
    await worker?.stop();
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    for (const v of ['v_eu_by_country', 'v_eu_orders']) await catalog.views.dropView(tableIdent([NS], v)).catch(() => undefined);
    await dropNamespace(NS);
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('plan → apply → two Iceberg views read like Hive in Spark and Trino, the third skipped → rollback of wave 1 refused while views read it, then views first', async () => {
    const planFile = path.join(dir, 'plan.json');
    expect((await migrate(['plan', '--out', planFile])).code).toBe(0);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as PlanJson;
    const waveOf = (name: string): number | undefined => plan.waves.find((w) => w.tables.some((t) => t.id === `${DB}.${name}`))?.number;
    // Views strictly after what they read; the view over the CSV table is not planned (skip).
    expect([waveOf('orders'), waveOf('customers'), waveOf('v_eu_orders'), waveOf('v_eu_by_country')]).toEqual([1, 1, 2, 3]);
    expect(plan.notPlanned).toEqual(
      expect.arrayContaining([
        { id: `${DB}.raw_events`, reason: 'CLASS_REWRITE_REQUIRED' },
        { id: `${DB}.v_open_events`, reason: 'CLASS_SKIP' },
      ]),
    );
    const assess = await migrate(['assess', '--json']);
    const assessed = (
      JSON.parse(assess.stdout) as { tables: { id: string; class: string; findings: { code: string; evidence: string }[] }[] }
    ).tables;
    const skipped = assessed.find((t) => t.id === `${DB}.v_open_events`);
    expect(skipped?.class).toBe('skip');
    expect(skipped?.findings.find((f) => f.code === 'VIEW_BASE_NOT_MIGRATED')?.evidence).toMatch(/^reads lb_views\.raw_events /);

    const a = await migrate(['apply', planFile, '--auto-approve', '--wait', '--json'], 480_000);
    if (a.code !== 0) throw new Error(`apply: ${a.stdout}\n${a.stderr}\nworker:\n${worker?.log().slice(-4000) ?? ''}`);
    const result = (JSON.parse(a.stdout) as { result: { state: string; waves: { wave: number; migrated: number; failed: unknown[] }[] } })
      .result;
    expect(result.state).toBe('succeeded');
    expect(result.waves.map((w) => [w.wave, w.migrated, w.failed.length])).toEqual([
      [1, 2, 0],
      [2, 1, 0],
      [3, 1, 0],
    ]);

    // The REST catalog holds both views: hive + spark representations, defaults, the view's columns, our marker.
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    const eu = await catalog.views.loadView(tableIdent([NS], 'v_eu_orders'));
    const byCountry = await catalog.views.loadView(tableIdent([NS], 'v_eu_by_country'));
    expect(eu.representations.map((r) => r.dialect)).toEqual(['hive', 'spark', 'trino']);
    expect(byCountry.representations.map((r) => r.dialect)).toEqual(['hive', 'spark', 'trino']);
    expect(byCountry.representations[2]?.sql).toContain(`FROM "iceberg"."${NS}"."v_eu_orders" "v" JOIN "iceberg"."${NS}"."customers" "c"`);
    expect(eu.representations[0]?.sql).toBe(expandedOf('v_eu_orders'));
    expect(eu.representations[1]?.sql).toBe(expandedOf('v_eu_orders').replace(`\`${DB}\`.\`orders\``, `\`${NS}\`.\`orders\``));
    expect(byCountry.representations[1]?.sql).toContain(`FROM \`${NS}\`.\`v_eu_orders\` \`v\` JOIN \`${NS}\`.\`customers\` \`c\``);
    expect([eu.defaultNamespace, eu.defaultCatalog]).toEqual([[NS], CATALOG]);
    expect(byCountry.schema.fields.map((f) => [f.name, f.type])).toEqual([
      ['country', { kind: 'string' }],
      ['total', { kind: 'double' }],
      ['n', { kind: 'long' }],
    ]);
    expect(eu.properties).toMatchObject({
      'him.created-by': 'hms-iceberg-migrator',
      'him.source.hms-view': `${DB}.v_eu_orders`,
      'him.plan': plan.hash,
    });
    expect(await catalog.views.viewExists(tableIdent([NS], 'v_open_events'))).toBe(false);

    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    const hms = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string });
    try {
      for (const v of ['v_eu_orders', 'v_eu_by_country']) {
        const rec = await state.getTable(plan.hash, `${DB}.${v}`);
        const val = rec.validation as { ok: boolean; warnings: unknown[] };
        expect([rec.status, rec.target, val.ok, val.warnings]).toEqual(['view-created', `${CATALOG}:${NS}.${v}`, true, []]);
      }

      // Spark through the REST catalog vs the same SQL over the Hive tables' files: equal content.
      const c1 = await viewCheck('v_eu_orders', ['orders'], []);
      expect(c1.iceberg.rows).toBe(20);
      expect(c1.iceberg.checksum).toBe(c1.hive.checksum);
      const c2 = await viewCheck('v_eu_by_country', ['orders', 'customers'], ['v_eu_orders']);
      expect(c2.iceberg.rows).toBeGreaterThan(0);
      expect(c2.iceberg.checksum).toBe(c2.hive.checksum);

      // Trino reads each Iceberg view through its trino representation: Spark's rows and checksum.
      const t1 = await trinoSql(`SELECT * FROM iceberg."${NS}"."v_eu_orders"`);
      expect(t1).toMatchObject({ rows: c1.hive.rows, checksum: c1.hive.checksum });
      const t2 = await trinoSql(`SELECT * FROM iceberg."${NS}"."v_eu_by_country"`);
      expect(t2).toMatchObject({ rows: c2.hive.rows, checksum: c2.hive.checksum });

      // Rollback of wave 1 while the views of waves 2 and 3 read it: refused, coded, nothing changed.
      const id = plan.hash.slice(0, 12);
      const statuses = async (): Promise<string[]> =>
        Promise.all(plan.waves.flatMap((w) => w.tables.map(async (t) => `${t.id}=${(await state.getTable(plan.hash, t.id)).status}`)));
      const before = await statuses();
      // --dry-run shows the order: the two views first, refused, or dropped with the flag.
      const dry = await migrate(['rollback', id, '--wave', '1', '--dry-run', '--json'], 300_000);
      const dryViews = (d: string): unknown[] =>
        (JSON.parse(d) as { tables: { table: string; action: string; code?: string }[] }).tables
          .slice(0, 2)
          .map((t) => [t.table, t.action, t.code]);
      expect([dry.code, ...dryViews(dry.stdout)]).toEqual([
        1,
        [`${DB}.v_eu_by_country`, 'refused', 'ROLLBACK_ORDER'],
        [`${DB}.v_eu_orders`, 'refused', 'ROLLBACK_ORDER'],
      ]);
      const dryWith = await migrate(['rollback', id, '--wave', '1', '--dry-run', '--with-dependent-views', '--json'], 300_000);
      expect([dryWith.code, ...dryViews(dryWith.stdout)]).toEqual([
        0,
        [`${DB}.v_eu_by_country`, 'drop', undefined],
        [`${DB}.v_eu_orders`, 'drop', undefined],
      ]);
      const refused = await migrate(['rollback', id, '--wave', '1', '--json'], 300_000);
      const err = (JSON.parse(refused.stdout) as { error: { code: string; message: string } }).error;
      expect([refused.code, err.code]).toEqual([2, 'ROLLBACK_ORDER']);
      expect(err.message).toContain(`${DB}.v_eu_by_country (wave 3), ${DB}.v_eu_orders (wave 2)`);
      // The same refusal for a rollback workflow started directly in Temporal (the worker's rule).
      const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
      try {
        const direct = new Client({ connection }).workflow.execute('rollbackWaveWorkflow', {
          taskQueue,
          workflowId: `${nsPrefix}direct-rollback`,
          args: [{ planHash: plan.hash, wave: 1, force: false, by: 'e2e' }],
        });
        const failure = await direct.then(
          () => null,
          (e: unknown) => e,
        );
        expect(failure).toBeInstanceOf(WorkflowFailedError);
        expect((failure as WorkflowFailedError).cause).toMatchObject({ type: 'ROLLBACK_ORDER' });
      } finally {
        await connection.close();
      }
      expect(await statuses()).toEqual(before);
      expect(await catalog.views.viewExists(tableIdent([NS], 'v_eu_orders'))).toBe(true);
      for (const t of ['orders', 'customers']) expect(await catalog.tableExists(tableIdent([NS], t))).toBe(true);

      // With --with-dependent-views: the views first, latest wave first, then the wave's tables.
      const rb1 = await migrate(['rollback', id, '--wave', '1', '--with-dependent-views', '--json'], 300_000);
      expect({ code: rb1.code, stderr: rb1.code === 0 ? '' : rb1.stderr }).toEqual({ code: 0, stderr: '' });
      const r1 = JSON.parse(rb1.stdout) as { refused: unknown[]; rolledBack: string[]; dependentViews: string[] };
      expect(r1.refused).toEqual([]);
      expect(r1.dependentViews).toEqual([`${DB}.v_eu_by_country`, `${DB}.v_eu_orders`]);
      expect(r1.rolledBack).toEqual([`${DB}.v_eu_by_country`, `${DB}.v_eu_orders`, `${DB}.orders`, `${DB}.customers`]);
      for (const wave of [3, 2]) {
        const rb = await migrate(['rollback', id, '--wave', String(wave), '--json'], 300_000);
        expect({ wave, code: rb.code }).toEqual({ wave, code: 0 });
        expect(JSON.parse(rb.stdout) as { refused: unknown[]; rolledBack: unknown[] }).toMatchObject({ refused: [], rolledBack: [] });
      }
      expect(await catalog.views.viewExists(tableIdent([NS], 'v_eu_orders'))).toBe(false);
      expect(await catalog.views.viewExists(tableIdent([NS], 'v_eu_by_country'))).toBe(false);
      for (const t of ['orders', 'customers']) expect(await catalog.tableExists(tableIdent([NS], t))).toBe(false);
      for (const w of plan.waves)
        for (const t of w.tables) {
          const rec = await state.getTable(plan.hash, t.id);
          const [inv] = await hms.getTables(DB, [t.id.split('.')[1] as string]);
          expect({ t: t.id, status: rec.status, digest: fingerprintOf(inv as never) }).toEqual({
            t: t.id,
            status: 'rolled-back',
            digest: rec.originalDigest,
          });
        }
      const dropped: string[] = [];
      for await (const e of state.readAudit()) if (e.action === 'view.dropped' && e.planHash === plan.hash) dropped.push(e.object);
      expect(dropped.sort()).toEqual([`${CATALOG}:${NS}.v_eu_by_country`, `${CATALOG}:${NS}.v_eu_orders`]);
    } finally {
      await state.close();
      await hms.close();
    }

    // Every data file byte-identical; the audit chain verifies.
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
    const v = await migrate(['audit', 'verify', '--json']);
    expect(v.code).toBe(0);
  }, 1_500_000);
});
