// Apply checks each created Iceberg view by RUNNING it, on the real stack (HMS, S3,
// the REST catalog with views, Temporal, a real `migrate worker` with the stack's `rewrite:` section —
// the verifier venv's spark-submit, local[*]): seed `lb_viewcheck` (two Parquet tables, a view over
// one, a view over that view and the other table, a view over a CSV table left out) → plan + apply:
// each created view's record holds validation.spark with equal sides, audited in view.validated, and
// the same content checksum dev/verifier/view_check.py computes independently (pyarrow over the Hive
// files, Spark over the REST catalog) → rollback of each wave: the views are dropped.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RestCatalog } from '../../adapters/catalog/rest';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { tableIdent } from '../../core/catalog/catalog';
import type { ViewsSeed } from '../../dev/seed/views';
import { TSX, run } from '../helpers/cli';
import type { SupervisedWorker } from '../helpers/e2e-suite';
import { dropNamespace, migrateWith, planAndApply, suiteConfig, superviseWorker } from '../helpers/e2e-suite';
import { stackRewriteYaml } from '../helpers/rewrite';
import { testStack, uniqueName } from '../helpers/stack-env';
import { verifierViewCheck } from '../helpers/view-check';

const env = testStack();
const DB = 'lb_viewcheck';
const nsPrefix = `${uniqueName('himvc').toLowerCase()}_`;
const NS = `${nsPrefix}${DB}`;
const CATALOG = 'local-rest';
const VIEWS = ['v_eu_orders', 'v_eu_by_country'];
let dir = '';
let seed: ViewsSeed;
let worker: SupervisedWorker | undefined;
let migrate: ReturnType<typeof migrateWith>;

const expandedOf = (name: string): string => seed.tables.find((t) => t.name === name)?.viewExpandedText as string;
const dirOf = (name: string): string => (seed.tables.find((t) => t.name === name)?.location as string).replace(/^s3a:/, 's3:');

interface Side {
  rows: number;
  checksum: string;
}

const pick = (s: Side): Side => ({ rows: s.rows, checksum: s.checksum });

/** dev/verifier/view_check.py for one of the seeded views. */
const verifierCheck = (view: string, baseTables: string[], hiveViews: string[]) =>
  verifierViewCheck({
    catalog: CATALOG,
    view: `${NS}.${view}`,
    hiveSql: expandedOf(view),
    bases: baseTables.map((t) => [`${DB}.${t}`, dirOf(t)] as const),
    hiveViews: hiveViews.map((v) => [`${DB}.${v}`, expandedOf(v)] as const),
  });

describe('apply runs each created Iceberg view in Spark and compares it with Hive', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-viewcheck-'));
    const mf = path.join(dir, 'views.json');
    const s = await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--views', DB, '--manifest', mf]);
    if (s.code !== 0) throw new Error(`seeding failed: ${s.stderr}`);
    seed = JSON.parse(readFileSync(mf, 'utf8')) as ViewsSeed;
    const cfgFile = suiteConfig({
      dir,
      queue: `him-e2e-${nsPrefix}`,
      nsPrefix,
      databases: [DB],
      extraYaml: stackRewriteYaml(env, `s3://warehouse/${nsPrefix}rewrite`),
    });
    migrate = migrateWith(cfgFile);
    worker = superviseWorker(cfgFile, { HIM_REWRITE_WORK_DIR: path.join(dir, 'jobs') });
  }, 600_000);

  afterAll(async () => {
    await worker?.stop();
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    for (const v of VIEWS) await catalog.views.dropView(tableIdent([NS], v)).catch(() => undefined);
    await dropNamespace(NS);
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('validation.spark: equal sides, the verifier’s checksum, audited; rollback drops the views', async () => {
    const { hash, apply } = await planAndApply(migrate, dir, { workerLog: () => worker?.log() ?? '' });
    const result = (JSON.parse(apply.stdout) as { result: { state: string; waves: { wave: number; migrated: number }[] } }).result;
    expect(result.state).toBe('succeeded');
    expect(result.waves.map((w) => [w.wave, w.migrated])).toEqual([
      [1, 2],
      [2, 1],
      [3, 1],
    ]);

    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    const spark = new Map<string, { jobId: string; iceberg: Side; hive: Side; equal: boolean; seconds: number }>();
    try {
      for (const v of VIEWS) {
        const rec = await state.getTable(hash, `${DB}.${v}`);
        const validation = rec.validation as {
          ok: boolean;
          spark: { jobId: string; iceberg: Side; hive: Side; equal: boolean; seconds: number };
        };
        expect([rec.status, validation.ok, validation.spark.equal]).toEqual(['view-created', true, true]);
        expect(validation.spark.iceberg).toEqual(validation.spark.hive);
        expect(validation.spark.seconds).toBeGreaterThan(0);
        spark.set(v, validation.spark);
      }
      const audited: Record<string, unknown>[] = [];
      for await (const e of state.readAudit())
        if (e.action === 'view.validated' && e.planHash === hash) audited.push(e.details as Record<string, unknown>);
      expect(audited.map((d) => d.spark)).toEqual(expect.arrayContaining(VIEWS.map((v) => spark.get(v))));
    } finally {
      await state.close();
    }
    // The job ran through the configured spark-submit: its spec, result and log are in the work dir.
    const files = readdirSync(path.join(dir, 'jobs'));
    for (const v of VIEWS) {
      const id = spark.get(v)?.jobId as string;
      expect(files).toEqual(expect.arrayContaining([`${id}.spec.json`, `${id}.result.json`, `${id}.log`]));
    }

    // The verifier, independently (pyarrow reads the Hive files): the same rows and checksum.
    const c1 = await verifierCheck('v_eu_orders', ['orders'], []);
    expect(c1.iceberg.rows).toBe(20);
    expect([pick(c1.iceberg), pick(c1.hive)]).toEqual([spark.get('v_eu_orders')?.iceberg, spark.get('v_eu_orders')?.hive]);
    const c2 = await verifierCheck('v_eu_by_country', ['orders', 'customers'], ['v_eu_orders']);
    expect(c2.iceberg.rows).toBeGreaterThan(0);
    expect([pick(c2.iceberg), pick(c2.hive)]).toEqual([spark.get('v_eu_by_country')?.iceberg, spark.get('v_eu_by_country')?.hive]);

    const id = hash.slice(0, 12);
    for (const wave of [3, 2, 1]) {
      const rb = await migrate(['rollback', id, '--wave', String(wave), '--json'], 300_000);
      expect({ wave, code: rb.code, stderr: rb.code === 0 ? '' : rb.stderr }).toEqual({ wave, code: 0, stderr: '' });
    }
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    for (const v of VIEWS) expect(await catalog.views.viewExists(tableIdent([NS], v))).toBe(false);
  }, 1_200_000);
});
