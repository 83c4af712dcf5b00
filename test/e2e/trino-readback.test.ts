// Trino 476 as a third reader, on the seeded e2e warehouse (dev/seed, the same
// tables apply.test.ts migrates) plus `<prefix>_lb_readers` (seed --readers): every table `migrate
// table` migrates is read by Trino through the stack's REST catalog with the Hive source's content
// checksum (the seed manifest's, canonical.py); filtered queries on partition and non-partition
// columns return exactly the matching rows; the reader limit is flagged by assess and the plan report
// and reproduced: a predicate on a double column stored as Parquet FLOAT fails in Trino ("Corrupted
// statistics") and works with iceberg.parquet_ignore_statistics; and PyIceberg 0.12's HiveCatalog
// cannot list or load tables on HMS 4.0.1 (docs/readers.md). Real CLI, HMS, REST catalog, S3, Trino.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RestCatalog } from '../../adapters/catalog/rest';
import type { SeedManifest } from '../../dev/seed/manifest';
import type { Run } from '../helpers/cli';
import { ROOT, TSX, run } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';
import type { TrinoResult } from '../helpers/verifier';
import { readWith, trinoSql } from '../helpers/verifier';

const env = testStack();
const prefix = uniqueName('himr').toLowerCase();
const nsPrefix = `${prefix}_`;
const readers = `${prefix}_lb_readers`;
let dir = '';
let cfg = '';
let manifest: SeedManifest;
/** `db.name` of every table `migrate table` registered. */
const migrated: string[] = [];

const migrate = (args: string[]): Promise<Run> => run(path.join(ROOT, 'bin', 'migrate'), [...args, '--config', cfg]);
const seed = (extra: string[]): Promise<Run> =>
  run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--readers', ...extra]);
const fq = (id: string): string => {
  const [db, name] = id.split('.') as [string, string];
  return `iceberg."${nsPrefix}${db}"."${name}"`;
};
type Row = Record<string, unknown>;
const sorted = (rows: readonly Row[]): string[] => rows.map((r) => JSON.stringify(r)).sort();

function rowsOf(r: TrinoResult): Row[] {
  if ('error' in r) throw new Error(`Trino: ${r.errorName}: ${r.error}`);
  return r.sample;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-trino-'));
  const mf = path.join(dir, 'manifest.json');
  const s = await seed(['--manifest', mf]);
  if (s.code !== 0) throw new Error(`seeding failed: ${s.stderr}`);
  manifest = JSON.parse(readFileSync(mf, 'utf8')) as SeedManifest;
  const base = readFileSync(path.join(env.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8');
  cfg = path.join(dir, 'migrate.yaml');
  writeFileSync(
    cfg,
    `${base.replace(/(warehouse: .*)/, `$1\n  namespacePrefix: ${nsPrefix}`)}\nplan:\n  databases: [${prefix}_sales, ${prefix}_misc, ${readers}]\n`,
  );
}, 600_000);

afterAll(async () => {
  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  for (const db of manifest?.databases.map((d) => d.name) ?? []) {
    for (const t of await catalog.listTables([`${nsPrefix}${db}`]).catch(() => [])) await catalog.dropTable(t);
    await catalog.dropNamespace([`${nsPrefix}${db}`]).catch(() => undefined);
  }
  await seed(['--drop']);
  rmSync(dir, { recursive: true, force: true });
}, 600_000);

describe('Trino as a third reader', () => {
  it('assess and the plan report flag the float-stored double (READER_FLOAT_AS_DOUBLE, warn, with the Trino workaround); no other seeded table is flagged', async () => {
    const a = await migrate(['assess', '--json', ...[`${prefix}_sales`, `${prefix}_misc`, readers].flatMap((d) => ['--database', d])]);
    expect(a.code).toBe(0);
    const tables = (
      JSON.parse(a.stdout) as {
        tables: { id: string; class: string; findings: { code: string; effect: string; evidence: string; remediation: string }[] }[];
      }
    ).tables;
    const withCode = (code: string): string[] =>
      tables
        .filter((t) => t.findings.some((f) => f.code === code))
        .map((t) => t.id)
        .sort();
    // NULL partitions: every seeded table that has one (orders, special_parts), from the manifest.
    const nullParts = manifest.tables
      .filter((t) => t.partitions.some((p) => p.values.some((v) => v === null)))
      .map((t) => `${t.db}.${t.name}`)
      .sort();
    expect(nullParts).toEqual([`${prefix}_sales.orders`, `${prefix}_sales.special_parts`]);
    expect(withCode('READER_NULL_PARTITION_NOT_EQUAL')).toEqual(nullParts);
    expect(withCode('READER_FLOAT_AS_DOUBLE')).toEqual([`${readers}.float_as_double`]);
    const flagged = tables.filter((t) => t.findings.some((f) => f.code === 'READER_FLOAT_AS_DOUBLE'));
    expect(flagged.map((t) => t.id)).toEqual([`${readers}.float_as_double`]);
    const t = flagged[0]!;
    expect(t.class).toBe('migrate-with-warnings');
    const f = t.findings.filter((x) => x.code === 'READER_FLOAT_AS_DOUBLE');
    // Both ways of knowing: the partition that still declares float (HMS), the footer of the one that does not.
    expect(f.map((x) => x.evidence.replace(/ of s3a:.*\)/, ')'))).toEqual([
      'column(s) reading are double in the table but stored as FLOAT in Parquet (HMS: partition(s) region=us declare float)',
      'column(s) reading are double in the table but stored as FLOAT in Parquet (footers: sampled 1 file(s))',
    ]);
    for (const x of f) {
      expect(x.effect).toBe('warn');
      expect(x.remediation).toContain('parquet_ignore_statistics = true');
    }
    const report = path.join(dir, 'plan.md');
    const p = await migrate(['plan', '--out', path.join(dir, 'plan.json'), '--report', report]);
    expect(p.code).toBe(0);
    const line = readFileSync(report, 'utf8')
      .split('\n')
      .find((l) => l.includes(`${readers}.float_as_double`));
    expect(line).toContain('migrate-with-warnings');
    expect(line).toContain('READER_FLOAT_AS_DOUBLE');
  }, 300_000);

  it('Trino reads every table `migrate table` migrates with the Hive source content checksum (and PyIceberg agrees on the reader-limit table)', async () => {
    for (const t of manifest.tables.filter((x) => x.kind !== 'view')) {
      const r = await migrate(['table', `${t.db}.${t.name}`, '--json']);
      // Refused tables (rewrite-required layouts) exit 1 with their code and register nothing.
      expect([0, 1]).toContain(r.code);
      if (r.code === 0) migrated.push(`${t.db}.${t.name}`);
    }
    const names = (ns: string[]) => ns.map((id) => id.split('.')[1]).sort();
    // Every metadata-only table of the warehouse, Avro and ORC included.
    expect(names(migrated)).toEqual([
      'all_types',
      'customers',
      'drifted',
      'empty_pq',
      'events_avro',
      'float_as_double',
      'metrics_orc',
      'orders',
      'special_parts',
    ]);
    const reads = await readWith(
      'trino',
      migrated.map((id) => `${nsPrefix}${id}`),
    );
    const got = migrated.map((id) => {
      const r = reads.find((x) => x.table === `${nsPrefix}${id}`);
      return { id, rows: r?.rows, checksum: r?.checksum, error: r?.error };
    });
    const want = migrated.map((id) => {
      const t = manifest.tables.find((x) => `${x.db}.${x.name}` === id)!;
      return { id, rows: t.rows, checksum: t.checksum, error: undefined };
    });
    expect(got).toEqual(want);
    const py = await readWith('pyiceberg', [`${nsPrefix}${readers}.float_as_double`]);
    expect(py.map((r) => r.checksum)).toEqual([want.find((w) => w.id.endsWith('.float_as_double'))!.checksum]);
  }, 900_000);

  it('filtered queries (partition columns, non-partition columns, NULL partitions, escaped values) return exactly the matching rows', async () => {
    const orders = `${prefix}_sales.orders`;
    const special = `${prefix}_sales.special_parts`;
    const allTypes = `${prefix}_sales.all_types`;
    expect(migrated).toEqual(expect.arrayContaining([orders, special, allTypes]));
    const full = new Map<string, Row[]>();
    for (const id of [orders, special, allTypes]) full.set(id, rowsOf(await trinoSql(`SELECT * FROM ${fq(id)}`)));
    const cases: [string, string, (r: Row) => boolean][] = [
      [orders, `year = 2024 AND region = 'eu'`, (r) => r.year === 2024 && r.region === 'eu'],
      [orders, `region IS NULL`, (r) => r.region === null],
      [orders, `year >= 2024 AND region > 'eu'`, (r) => (r.year as number) >= 2024 && r.region !== null && (r.region as string) > 'eu'],
      [orders, `year <> 2024`, (r) => r.year !== 2024],
      [orders, `amount > 5000`, (r) => Number(r.amount) > 5000],
      [
        orders,
        `ordered_at >= TIMESTAMP '2024-06-01 00:00:00' AND customer < 'c020'`,
        (r) => (r.ordered_at as string) >= '2024-06-01T00:00:00' && (r.customer as string) < 'c020',
      ],
      [special, `k = 'a/b' OR k = 'ünï€'`, (r) => r.k === 'a/b' || r.k === 'ünï€'],
      [special, `k IS NULL`, (r) => r.k === null],
      [allTypes, `id BETWEEN 10 AND 30 AND flag`, (r) => (r.id as number) >= 10 && (r.id as number) <= 30 && r.flag === true],
      [
        allTypes,
        `score < 0 AND day >= DATE '2022-01-01'`,
        (r) => r.score !== null && Number(r.score) < 0 && (r.day as string) >= '2022-01-01',
      ],
    ];
    for (const [id, where, pick] of cases) {
      const want = full.get(id)!.filter(pick);
      expect({ where, n: want.length > 0 }).toEqual({ where, n: true });
      const got = rowsOf(await trinoSql(`SELECT * FROM ${fq(id)} WHERE ${where}`));
      expect({ where, rows: sorted(got) }).toEqual({ where, rows: sorted(want) });
    }
  }, 600_000);

  it("NULL partitions: Trino keeps the NULL partition's rows for region <> 'eu' (also NOT IN, NOT =, with IS NOT NULL); coalesce() gives the SQL answer", async () => {
    const orders = fq(`${prefix}_sales.orders`);
    expect(migrated).toContain(`${prefix}_sales.orders`);
    const all = rowsOf(await trinoSql(`SELECT * FROM ${orders}`));
    const sqlAnswer = sorted(all.filter((r) => r.region !== null && r.region !== 'eu'));
    const nulls = all.filter((r) => r.region === null);
    expect([sqlAnswer.length, nulls.length]).toEqual([13, 13]);
    for (const where of [`region <> 'eu'`, `region NOT IN ('eu')`, `NOT (region = 'eu')`, `region IS NOT NULL AND region <> 'eu'`]) {
      const got = rowsOf(await trinoSql(`SELECT * FROM ${orders} WHERE ${where}`));
      // The reader limit as measured: the SQL answer plus every row of the NULL partition.
      expect({ where, rows: sorted(got) }).toEqual({ where, rows: [...sqlAnswer, ...sorted(nulls)].sort() });
    }
    const fixed = rowsOf(await trinoSql(`SELECT * FROM ${orders} WHERE coalesce(region, '<none>') <> 'eu'`));
    expect(sorted(fixed.filter((r) => r.region !== null))).toEqual(sqlAnswer);
    expect(fixed.filter((r) => r.region === null)).toHaveLength(13);
    const strict = rowsOf(await trinoSql(`SELECT * FROM ${orders} WHERE coalesce(region, 'eu') <> 'eu'`));
    expect(sorted(strict)).toEqual(sqlAnswer);
  }, 300_000);

  it('float stored under double: Trino range/equality predicates on the column fail with "Corrupted statistics"; iceberg.parquet_ignore_statistics=true returns the right rows', async () => {
    const id = `${readers}.float_as_double`;
    expect(migrated).toContain(id);
    const all = rowsOf(await trinoSql(`SELECT * FROM ${fq(id)}`));
    expect(all).toHaveLength(12);
    // Comparisons that a file's Iceberg bounds cannot settle reach Trino's Parquet row-group filter and fail.
    for (const where of ['reading > -1.25', 'reading = -1.5', "reading < -1.25 AND region = 'eu'", 'reading BETWEEN -1.45 AND -1.05']) {
      const plain = await trinoSql(`SELECT * FROM ${fq(id)} WHERE ${where}`);
      expect(plain).toMatchObject({
        errorName: 'ICEBERG_BAD_DATA',
        error: expect.stringMatching(/Corrupted statistics for column .*reading/),
      });
    }
    // Settled by the file bounds (every row, or none), IS NOT NULL and <>: no row-group filter, no error.
    expect(rowsOf(await trinoSql(`SELECT * FROM ${fq(id)} WHERE reading < 0`))).toHaveLength(12);
    expect(rowsOf(await trinoSql(`SELECT * FROM ${fq(id)} WHERE reading > 5`))).toHaveLength(0);
    expect(rowsOf(await trinoSql(`SELECT * FROM ${fq(id)} WHERE reading IS NOT NULL`))).toHaveLength(12);
    expect(rowsOf(await trinoSql(`SELECT * FROM ${fq(id)} WHERE reading <> -1.5`))).toHaveLength(10);
    // Predicates on the other columns are not affected.
    expect(rowsOf(await trinoSql(`SELECT * FROM ${fq(id)} WHERE region = 'eu' AND id < 3`))).toHaveLength(3);
    const ok = await trinoSql(`SELECT * FROM ${fq(id)} WHERE reading > -1.25`, { 'iceberg.parquet_ignore_statistics': 'true' });
    const want = all.filter((r) => Number(r.reading) > -1.25);
    expect(want.length).toBe(6);
    expect(sorted(rowsOf(ok))).toEqual(sorted(want));
  }, 300_000);

  it("the other readers on both limits: Spark answers as SQL says; PyIceberg's != keeps the NULL partition too", async () => {
    const ordersNs = `${nsPrefix}${prefix}_sales`;
    const floatNs = `${nsPrefix}${readers}`;
    const spark = await run(
      env.HIM_VERIFIER_PYTHON as string,
      [
        path.join(ROOT, 'dev/verifier/spark_sql.py'),
        '--catalog-uri',
        env.HIM_ICEBERG_REST_URI as string,
        '--s3-endpoint',
        env.HIM_S3_ENDPOINT as string,
        '--sql',
        `SELECT region, count(*) FROM \`${ordersNs}\`.orders WHERE region <> 'eu' GROUP BY region`,
        '--sql',
        `SELECT id FROM \`${floatNs}\`.float_as_double WHERE reading > -1.25 ORDER BY id`,
      ],
      600_000,
    );
    expect(spark.code).toBe(0);
    expect((JSON.parse(spark.stdout) as { results: string[][][] }).results).toEqual([
      [['us', '13']],
      [['3'], ['4'], ['5'], ['103'], ['104'], ['105']],
    ]);
    const script = [
      'import sys, json',
      `sys.path.insert(0, ${JSON.stringify(path.join(ROOT, 'dev/verifier'))})`,
      'from read_table import pyiceberg_catalog',
      'c = pyiceberg_catalog(sys.argv[1], sys.argv[2])',
      't = c.load_table(sys.argv[3]).scan(row_filter="region != \'eu\'").to_arrow()',
      'f = c.load_table(sys.argv[4]).scan(row_filter="reading > -1.25").to_arrow()',
      'print(json.dumps({"regions": sorted(set(map(str, t.column("region").to_pylist()))), "rows": t.num_rows, "ids": sorted(f.column("id").to_pylist())}))',
    ].join('\n');
    const py = await run(
      env.HIM_VERIFIER_PYTHON as string,
      ['-c', script, env.HIM_ICEBERG_REST_URI as string, env.HIM_S3_ENDPOINT as string, `${ordersNs}.orders`, `${floatNs}.float_as_double`],
      300_000,
    );
    expect(py.code).toBe(0);
    // PyIceberg: NULL partition kept by != (26 = 13 'us' + 13 NULL); the float predicate is right.
    expect(JSON.parse(py.stdout)).toEqual({ regions: ['None', 'us'], rows: 26, ids: [3, 4, 5, 103, 104, 105] });
  }, 900_000);

  it("PyIceberg 0.12's HiveCatalog cannot list or load tables on HMS 4.0.1 (the Thrift calls it uses were removed)", async () => {
    const script = [
      'import sys, json',
      'from pyiceberg.catalog.hive import HiveCatalog',
      'c = HiveCatalog("h", uri=sys.argv[1])',
      'out = {}',
      'for k, f in (("namespaces", lambda: [".".join(n) for n in c.list_namespaces()]), ("list", lambda: c.list_tables(sys.argv[2])), ("load", lambda: str(c.load_table(sys.argv[2] + ".orders")))):',
      '    try: out[k] = {"ok": f()}',
      '    except Exception as e: out[k] = {"error": type(e).__name__ + ": " + str(e)}',
      'print(json.dumps(out))',
    ].join('\n');
    const r = await run(env.HIM_VERIFIER_PYTHON as string, ['-c', script, env.HIM_HMS_PG_URI as string, `${prefix}_sales`], 120_000);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, { ok?: string[]; error?: string }>;
    expect(out.namespaces?.ok).toContain(`${prefix}_sales`);
    expect(out.list?.error).toBe("TApplicationException: Invalid method name: 'get_table_objects_by_name'");
    expect(out.load?.error).toBe("TApplicationException: Invalid method name: 'get_table'");
  }, 180_000);
});
