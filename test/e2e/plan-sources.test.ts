// `migrate assess` and `migrate plan` read the warehouse through any HmsReader: over Thrift, or from
// the HMS backing database (--source db, the default when hms.db is configured). Both must give the
// same plan: the same tables in the same waves, the same classes, codes and fingerprints (apply
// re-reads each table over Thrift and refuses SOURCE_CHANGED when the fingerprint differs). And the
// JDBC catalog is selectable by config (catalog.type: jdbc): doctor reaches it, `migrate table`
// registers and validates a table in it, and the adapter reads the entry back.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { JdbcIcebergCatalog } from '../../adapters/catalog/jdbc';
import type { ObjectStore } from '../../core/storage/object-store';
import type { PlanFile } from '../../core/plan/plan-file';
import type { Run } from '../helpers/cli';
import { MIGRATE, TSX, run, withCatalogSection } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';

const env = testStack();
const prefix = uniqueName('himsrc').toLowerCase();
const sales = `${prefix}_sales`;
const misc = `${prefix}_misc`;
const scope = ['--database', sales, '--database', misc];
const jdbcDb = `${prefix}_jdbc`;
const adminUrl = env.HIM_POSTGRES_URL as string;
let dir = '';
let cfg = '';

const migrate = (args: string[]): Promise<Run> => run(MIGRATE, [...args, '--config', cfg]);
const dbUrl = (): string => env.HIM_HMS_POSTGRES_URL as string;
const jdbcUrl = (): string => adminUrl.replace(/\/[^/]*$/, `/${jdbcDb}`);

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-sources-'));
  const s = await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix]);
  if (s.code !== 0) throw new Error(s.stderr);
  cfg = path.join(dir, 'migrate.yaml');
  writeFileSync(cfg, readFileSync(path.join(env.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8'));
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${jdbcDb}`);
  await admin.end();
}, 300_000);

afterAll(async () => {
  await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--drop']);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${jdbcDb} WITH (FORCE)`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}, 300_000);

async function planVia(source: string[], out: string): Promise<PlanFile> {
  const r = await migrate(['plan', ...scope, ...source, '--out', path.join(dir, out), '--json']);
  expect([r.code, r.stderr]).toEqual([0, '']);
  return JSON.parse(readFileSync(path.join(dir, out), 'utf8')) as PlanFile;
}

/** What must not depend on the source: tables per wave with class and fingerprint, not planned, findings. */
function content(p: PlanFile): unknown {
  return { waves: p.waves.map((w) => w.tables.map((t) => [t.id, t.class, t.fingerprint])), notPlanned: p.notPlanned, findings: p.findings };
}

describe('plan and assess from the backing database', () => {
  it('plan --source db gives the same tables, waves, classes and fingerprints as Thrift', async () => {
    const thrift = await planVia(['--source', 'thrift'], 'thrift.json');
    const db = await planVia(['--source', 'db', '--set', `hms.db.url=${dbUrl()}`], 'db.json');
    expect(thrift.waves.reduce((n, w) => n + w.tables.length, 0)).toBeGreaterThan(10);
    expect(content(db)).toEqual(content(thrift));
    expect(thrift.source).toEqual({ uri: env.HIM_HMS_PG_URI, label: 'thrift' });
    expect(db.source.label).toBe('db');
    expect(db.source.uri).toMatch(/^postgres:\/\/.*\/hms$/);
  }, 300_000);

  it('hms.db configured: plan reads the database by default; assess --source db has the same classes and codes', async () => {
    const byDefault = await planVia(['--set', `hms.db.url=${dbUrl()}`], 'default.json');
    expect(byDefault.source.label).toBe('db');
    const a = await migrate(['assess', ...scope, '--json']);
    const b = await migrate(['assess', ...scope, '--json', '--source', 'db', '--set', `hms.db.url=${dbUrl()}`]);
    expect([a.code, b.code]).toEqual([0, 0]);
    type T = { id: string; class: string; fingerprint: string; findings: { code: string }[] };
    // The one difference: an insert-only table's valid write ids need Thrift (get_valid_write_ids).
    const acid = (c: string): string => (c === 'INSERT_ONLY_METADATA' ? 'INSERT_ONLY_TABLE' : c);
    const view = (r: Run): unknown =>
      (JSON.parse(r.stdout) as { tables: T[] }).tables.map((t) => [t.id, t.class, t.fingerprint, t.findings.map((f) => acid(f.code))]);
    expect(view(b)).toEqual(view(a));
    const codesOf = (r: Run): string[] =>
      (JSON.parse(r.stdout) as { tables: T[] }).tables.find((t) => t.id.endsWith('.audit_insert_only'))?.findings.map((f) => f.code) ?? [];
    expect([codesOf(a), codesOf(b)]).toEqual([
      ['INSERT_ONLY_METADATA', 'DATA_IN_SUBDIRECTORIES'],
      ['INSERT_ONLY_TABLE', 'DATA_IN_SUBDIRECTORIES'],
    ]);
  }, 300_000);

  it('--source db without hms.db.url is a usage error (exit 2), nothing written', async () => {
    const r = await migrate(['plan', ...scope, '--source', 'db', '--out', path.join(dir, 'none.json'), '--json']);
    expect(r.code).toBe(2);
    expect((JSON.parse(r.stdout) as { error: { code: string } }).error.code).toBe('USAGE');
  }, 120_000);
});

describe('catalog.type: jdbc', () => {
  it('doctor reaches it and migrate table registers and validates a table in it', async () => {
    const base = readFileSync(cfg, 'utf8');
    const jdbcCfg = path.join(dir, 'jdbc.yaml');
    writeFileSync(
      jdbcCfg,
      withCatalogSection(base, `catalog:\n  name: jdbc-lake\n  type: jdbc\n  uri: ${jdbcUrl()}\n  namespacePrefix: ${prefix}_\n`),
    );
    const doctor = await run(MIGRATE, ['doctor', '--config', jdbcCfg, '--json']);
    const checks = (JSON.parse(doctor.stdout) as { checks: { component: string; ok: boolean; detail: string }[] }).checks;
    expect(checks.find((c) => c.component === 'catalog')).toMatchObject({ ok: true, detail: 'jdbc catalog tables readable' });
    const t = await run(MIGRATE, ['table', `${misc}.events_avro`, '--config', jdbcCfg, '--json']);
    expect([t.code, t.stderr]).toEqual([0, '']);
    const summary = JSON.parse(t.stdout) as { ok: boolean; registration: string; metadataLocation: string; validation: { ok: boolean } };
    expect(summary).toMatchObject({ ok: true, registration: 'registered', validation: { ok: true } });
    const noStore = {} as ObjectStore;
    const catalog = await JdbcIcebergCatalog.connect({ url: jdbcUrl(), catalogName: 'jdbc-lake', store: noStore });
    try {
      expect(await catalog.listTables([`${prefix}_${misc}`])).toEqual([{ namespace: [`${prefix}_${misc}`], name: 'events_avro' }]);
    } finally {
      await catalog.close();
    }
  }, 300_000);
});
