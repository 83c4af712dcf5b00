// `migrate assess` and `migrate plan` end to end: the real CLI binary against the stack's HMS
// (hms-pg, as $HIM_STATE_DIR/migrate.yaml names it) on the seeded warehouse under a prefix of our
// own: the class and codes of every table, views in later waves than what they read, the report
// and the SVG, --diff, and bad input (exit 2, nothing written). The seed is dropped afterwards.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Run } from '../helpers/cli';
import { MIGRATE, TSX, run } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';

const env = testStack();
const stackCfg = path.join(env.HIM_STATE_DIR as string, 'migrate.yaml');
const prefix = uniqueName('himp').toLowerCase();
const sales = `${prefix}_sales`;
const misc = `${prefix}_misc`;
const scope = ['--database', sales, '--database', misc];
let dir = '';

const migrate = (args: string[]): Promise<Run> => run(MIGRATE, args);
const seed = (extra: string[]): Promise<Run> =>
  run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, ...extra]);

/** The stack's config plus a `plan` section (YAML), written to our temp dir. */
function config(name: string, planYaml: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, `${readFileSync(stackCfg, 'utf8')}\nplan:\n${planYaml.replace(/^/gm, '  ')}\n`);
  return file;
}

/** Expected class and codes per table (manifest hints, checked by hand; see the notes). */
const EXPECTED: Record<string, [string, string[]]> = {
  // INT96 is only visible in the files (storage sample: the second file stores ts as INT96).
  [`${sales}.all_types`]: ['migrate-with-warnings', ['INT96_TIMESTAMP']],
  [`${sales}.orders`]: ['migrate-with-warnings', ['PARTITION_OUTSIDE_LOCATION']],
  [`${sales}.special_parts`]: ['migrate', []],
  [`${sales}.drifted`]: ['migrate-with-warnings', ['PARTITION_SCHEMA_DRIFT']],
  [`${sales}.customers`]: ['migrate-with-warnings', ['MANAGED_TABLE']],
  [`${sales}.v_orders_eu`]: ['migrate-with-warnings', ['VIEW']],
  [`${sales}.v_orders_eu_big`]: ['migrate-with-warnings', ['VIEW']],
  [`${misc}.v_big_customers`]: ['migrate-with-warnings', ['VIEW']],
  // Its Avro files' `date` logical type: the reader matrix measures PyIceberg failing on Avro data files
  // (core/readers/matrix.ts avro.logical.date), a reader limit (warn), docs/readers.md.
  [`${misc}.events_avro`]: ['migrate-with-warnings', ['READER_ENCODING_LIMIT']],
  [`${misc}.metrics_orc`]: ['migrate', []],
  [`${misc}.ledger_csv`]: ['rewrite-required', ['UNSUPPORTED_FORMAT']],
  // The standalone HMS refuses transactional=true ORC (dev/seed/README.md); the seeder registers a
  // plain managed ORC table instead, so HMS metadata shows no ACID marker.
  // …but its files sit in base_*/ sub-directories, which the storage sample finds.
  [`${misc}.accounts_acid`]: ['rewrite-required', ['MANAGED_TABLE', 'DATA_IN_SUBDIRECTORIES']],
  // Insert-only: read with its valid write ids (INSERT_ONLY_METADATA, info), but the seeder wrote its
  // delta_1/delta_2 files without transactions: write ids above the metastore's watermark 0.
  [`${misc}.audit_insert_only`]: ['rewrite-required', ['DATA_IN_SUBDIRECTORIES']],
  [`${misc}.users_bucketed`]: ['rewrite-required', ['BUCKETED']],
  [`${misc}.visits_skewed`]: ['rewrite-required', ['SKEWED_SUBDIRECTORIES', 'DATA_IN_SUBDIRECTORIES']],
  // HMS gathers no fast stats for an empty location, so emptiness is not visible in metadata.
  [`${misc}.empty_pq`]: ['migrate', []],
};

interface PlanJson {
  waves: { number: number; tables: { id: string; class: string; team: string | null }[] }[];
  notPlanned: { id: string; reason: string }[];
  hash: string;
}

describe('migrate assess / plan (seeded warehouse)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-plan-'));
    const r = await seed([]);
    if (r.code !== 0) throw new Error(`seeding failed: ${r.stderr}`);
  });
  afterAll(async () => {
    await seed(['--drop']);
    rmSync(dir, { recursive: true, force: true });
  });

  it('assess --json: every table has its expected class and codes', async () => {
    const r = await migrate(['assess', '--config', stackCfg, '--json', ...scope]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      tables: { id: string; class: string; findings: { code: string; severity: string }[] }[];
      edges: { from: string; to: string }[];
    };
    const got = Object.fromEntries(
      out.tables.map((t) => [t.id, [t.class, t.findings.filter((f) => f.severity !== 'info').map((f) => f.code)]]),
    );
    expect(got).toEqual(EXPECTED);
    expect(out.edges).toEqual(
      expect.arrayContaining([
        { from: `${sales}.orders`, to: `${sales}.v_orders_eu`, reason: 'view' },
        { from: `${sales}.v_orders_eu_big`, to: `${misc}.v_big_customers`, reason: 'view' },
      ]),
    );
  });

  // Findings only the files' listing and footers can give (the reader matrix's from the footers' encodings).
  const FROM_FILES = new Set([
    'DATA_IN_SUBDIRECTORIES',
    'INT96_TIMESTAMP',
    'READER_MISREAD',
    'READER_ENCODING_LIMIT',
    'READER_ENCODING_UNMEASURED',
  ]);

  it('assess with S3 credentials the server refuses: each sampled table says STORAGE_NOT_SAMPLED with the coded cause, nothing else changes', async () => {
    const r = await run(MIGRATE, ['assess', '--config', stackCfg, '--json', ...scope], 600_000, {
      AWS_SECRET_ACCESS_KEY: 'not-the-secret',
    });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      tables: { id: string; class: string; findings: { code: string; severity: string; evidence: string }[] }[];
    };
    const sampled = out.tables.filter((t) => t.findings.some((f) => f.code === 'STORAGE_NOT_SAMPLED'));
    // Every Parquet/ORC/Avro table with a location (not the views, not text/CSV).
    expect(sampled.map((t) => t.id).sort()).toEqual(
      Object.keys(EXPECTED)
        .filter((id) => !/\.v_|ledger_csv/.test(id))
        .sort(),
    );
    for (const t of sampled) {
      const f = t.findings.find((x) => x.code === 'STORAGE_NOT_SAMPLED');
      expect(f?.severity).toBe('warn');
      expect(f?.evidence).toMatch(/STORAGE_ACCESS_DENIED/);
      // What only the files could tell is absent; the metadata's findings are all still there.
      const codes = t.findings.filter((x) => x.severity !== 'info').map((x) => x.code);
      expect(codes).toEqual([...(EXPECTED[t.id]?.[1] ?? []).filter((c) => !FROM_FILES.has(c)), 'STORAGE_NOT_SAMPLED']);
    }
  });

  it('plan --out --report --graph: views after their sources, report and SVG written', async () => {
    const out = path.join(dir, 'plan.json');
    const r = await migrate([
      'plan',
      '--config',
      stackCfg,
      ...scope,
      '--out',
      out,
      '--report',
      path.join(dir, 'report.md'),
      '--graph',
      path.join(dir, 'plan.svg'),
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const plan = JSON.parse(readFileSync(out, 'utf8')) as PlanJson;
    const wave = new Map(plan.waves.flatMap((w) => w.tables.map((t) => [t.id, w.number] as const)));
    expect(wave.get(`${sales}.v_orders_eu`)!).toBeGreaterThan(wave.get(`${sales}.orders`)!);
    expect(wave.get(`${sales}.v_orders_eu_big`)!).toBeGreaterThan(wave.get(`${sales}.v_orders_eu`)!);
    expect(wave.get(`${misc}.v_big_customers`)!).toBeGreaterThan(wave.get(`${sales}.v_orders_eu_big`)!);
    expect(plan.notPlanned.map((n) => n.id).sort()).toEqual([
      `${misc}.accounts_acid`,
      `${misc}.audit_insert_only`,
      `${misc}.ledger_csv`,
      `${misc}.users_bucketed`,
      `${misc}.visits_skewed`,
    ]);
    const report = readFileSync(path.join(dir, 'report.md'), 'utf8');
    expect(report).toContain('Waves × teams');
    expect(report).toContain(`${sales}.orders`);
    const html = path.join(dir, 'report.html');
    expect((await migrate(['plan', '--config', stackCfg, ...scope, '--out', path.join(dir, 'plan2.json'), '--report', html])).code).toBe(0);
    expect(readFileSync(html, 'utf8')).toMatch(/^<!DOCTYPE html>[\s\S]*Waves × teams[\s\S]*<\/html>\n$/);
    const bad = await migrate([
      'plan',
      '--config',
      stackCfg,
      ...scope,
      '--out',
      path.join(dir, 'plan3.json'),
      '--report',
      path.join(dir, 'report.pdf'),
    ]);
    expect(bad.code).toBe(2);
    expect(existsSync(path.join(dir, 'plan3.json'))).toBe(false);
    const svg = readFileSync(path.join(dir, 'plan.svg'), 'utf8');
    expect(svg).toMatch(/^<\?xml[\s\S]*<svg[\s\S]*<\/svg>\s*$/);
    const nodes = svg.match(/<g id="node\d+" class="node">/g) ?? [];
    expect(nodes.length).toBe(wave.size);
    for (const id of wave.keys()) expect(svg).toContain(`<title>${id}</title>`);
  });

  it('--graph .dot/.mmd and --diff: same plan is empty, a smaller cap moves tables', async () => {
    const a = path.join(dir, 'a.json');
    const b = path.join(dir, 'b.json');
    expect((await migrate(['plan', '--config', stackCfg, ...scope, '--out', a, '--graph', path.join(dir, 'g.dot')])).code).toBe(0);
    expect(readFileSync(path.join(dir, 'g.dot'), 'utf8')).toMatch(/^digraph/);
    const small = config('small.yaml', 'waves:\n  maxTablesPerWave: 3');
    expect((await migrate(['plan', '--config', small, ...scope, '--out', b, '--graph', path.join(dir, 'g.mmd')])).code).toBe(0);
    expect(readFileSync(path.join(dir, 'g.mmd'), 'utf8')).toMatch(/^flowchart/);
    const same = await migrate(['plan', '--config', stackCfg, '--diff', a, a, '--json']);
    expect(JSON.parse(same.stdout)).toMatchObject({ ok: true, same: true });
    const d = await migrate(['plan', '--config', stackCfg, '--diff', a, b]);
    expect(d.code).toBe(0);
    expect(d.stdout).toMatch(/^~ .+: wave \d+ → \d+$/m);
  });

  it('declared lineage orders a written table after what it reads; ownership mapping names the teams', async () => {
    const lineage = path.join(dir, 'lineage.yaml');
    writeFileSync(lineage, `version: 1\njobs:\n  - name: enrich\n    reads: [${sales}.orders]\n    writes: [${misc}.events_avro]\n`);
    const cfg = config(
      'lineage.yaml.cfg',
      `lineage: ${lineage}\nownership:\n  databases: { ${sales}: sales-team }\n  patterns: [{ regex: '_misc\\.', team: misc-team }]`,
    );
    const out = path.join(dir, 'lineage-plan.json');
    const report = path.join(dir, 'lineage-report.md');
    const r = await migrate(['plan', '--config', cfg, ...scope, '--out', out, '--report', report]);
    expect(r.stderr).toBe('');
    const plan = JSON.parse(readFileSync(out, 'utf8')) as PlanJson;
    const wave = new Map(plan.waves.flatMap((w) => w.tables.map((t) => [t.id, w.number] as const)));
    expect(wave.get(`${misc}.events_avro`)!).toBeGreaterThan(wave.get(`${sales}.orders`)!);
    const teams = new Map(plan.waves.flatMap((w) => w.tables.map((t) => [t.id, t.team] as const)));
    expect([teams.get(`${sales}.orders`), teams.get(`${misc}.events_avro`)]).toEqual(['sales-team', 'misc-team']);
    expect(readFileSync(report, 'utf8')).toMatch(/misc-team.*sales-team/);
  });

  const bad: [string, string, string, RegExp][] = [
    [
      'malformed lineage YAML',
      'lineage: LINEAGE',
      'version: 1\njobs: [ {name: x, reads: [a.b}\n',
      /LINEAGE_INVALID.*lineage\.yaml:\d+:\d+/,
    ],
    [
      'lineage schema error',
      'lineage: LINEAGE',
      'version: 1\njobs:\n  - name: j\n    reads: [nodot]\n    writes: []\n',
      /LINEAGE_INVALID[\s\S]*jobs\[0\]\.reads\[0\]: expected db\.table/,
    ],
    ['unknown table in a pin', 'waves:\n  pins:\n    nodb.nosuch: 2', '', /PLAN_UNKNOWN_TABLE[\s\S]*nodb\.nosuch/],
    [
      'contradictory caps',
      'waves:\n  maxTablesPerWave: 2\n  canary: { tables: 5 }',
      '',
      /PLAN_CONTRADICTORY_CAPS[\s\S]*plan\.waves\.canary\.tables/,
    ],
  ];
  it.each(bad)('bad input: %s → exit 2, coded path-precise error, nothing written', async (name, planYaml, lineage, message) => {
    const slug = name.replace(/\W+/g, '-');
    const lineageFile = path.join(dir, `${slug}-lineage.yaml`);
    if (lineage !== '') writeFileSync(lineageFile, lineage);
    const cfg = config(`${slug}.yaml`, planYaml.replace('LINEAGE', lineageFile));
    const out = path.join(dir, `${slug}-plan.json`);
    const report = path.join(dir, `${slug}-report.md`);
    const r = await migrate(['plan', '--config', cfg, ...scope, '--out', out, '--report', report]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(existsSync(out) || existsSync(report)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });
  it('an unreachable target catalog → CATALOG_UNREACHABLE saying why plan reads it, exit 1, nothing written', async () => {
    const cfg = config('no-catalog.yaml', 'waves:\n  maxTablesPerWave: 10');
    const out = path.join(dir, 'no-catalog-plan.json');
    const r = await migrate(['plan', '--config', cfg, ...scope, '--set', 'catalog.uri=http://127.0.0.1:1', '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/CATALOG_UNREACHABLE[\s\S]*read to leave out the tables it already holds/);
    expect(existsSync(out)).toBe(false);
  });
});
