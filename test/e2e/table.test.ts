// `migrate table <db>.<table>`: the CLI binary converts one seeded table (dry run first: decisions,
// nothing written), registers and validates it, a rerun registers once with byte-identical files,
// a refused table exits 1 with its code and registers nothing, bad input exits 2. Through the Hive
// catalog: register mode creates the Iceberg table in HMS under the prefixed database; an in-place
// catalog is refused (replacing a Hive table is apply's job: saved original, audit, rollback).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RestCatalog } from '../../adapters/catalog/rest';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { ThriftHmsWriter } from '../../adapters/hms/thrift/writer';
import type { Run } from '../helpers/cli';
import { ROOT, TSX, run, withCatalogSection } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';

const root = ROOT;
const env = testStack();
const prefix = uniqueName('himt').toLowerCase();
const nsPrefix = `${prefix}_`;
const sales = `${prefix}_sales`;
const misc = `${prefix}_misc`;
let dir = '';
let cfg = '';

const migrate = (args: string[]): Promise<Run> => run(path.join(root, 'bin', 'migrate'), [...args, '--config', cfg]);
const tsx = TSX;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-table-'));
  const s = await run(tsx, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix]);
  if (s.code !== 0) throw new Error(s.stderr);
  cfg = path.join(dir, 'migrate.yaml');
  const base = readFileSync(path.join(env.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8');
  writeFileSync(cfg, base.replace(/(warehouse: .*)/, `$1\n  namespacePrefix: ${nsPrefix}`));
}, 300_000);

afterAll(async () => {
  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  for (const db of [sales, misc]) {
    for (const t of await catalog.listTables([`${nsPrefix}${db}`]).catch(() => [])) await catalog.dropTable(t);
    await catalog.dropNamespace([`${nsPrefix}${db}`]).catch(() => undefined);
  }
  await run(tsx, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--drop']);
  rmSync(dir, { recursive: true, force: true });
}, 300_000);

describe('migrate table', () => {
  it('--dry-run decides and writes nothing; a real run registers and validates; a rerun registers once', async () => {
    const dry = await migrate(['table', `${sales}.orders`, '--dry-run', '--json']);
    expect(dry.code).toBe(0);
    const d = JSON.parse(dry.stdout) as {
      registration: string;
      partitionFields: string[];
      locations: number;
      files: unknown[];
      metadataLocation: string;
    };
    expect(d).toMatchObject({ registration: 'dry-run', partitionFields: ['year', 'region'], locations: 5, files: [] });
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    expect(await catalog.tableExists({ namespace: [`${nsPrefix}${sales}`], name: 'orders' })).toBe(false);

    expect((await migrate(['table', `${sales}.orders`, '--catalog', 'other-catalog'])).code).toBe(2);
    const real = await migrate(['table', `${sales}.orders`, '--catalog', 'local-rest', '--json']);
    expect(real.code).toBe(0);
    const r = JSON.parse(real.stdout) as {
      ok: boolean;
      registration: string;
      dataFiles: number;
      records: number;
      metadataLocation: string;
      files: { outcome: string }[];
      validation: { ok: boolean };
    };
    expect(r).toMatchObject({
      ok: true,
      registration: 'registered',
      dataFiles: 10,
      records: 65,
      metadataLocation: d.metadataLocation,
      validation: { ok: true },
    });
    expect(r.files.every((f) => f.outcome === 'created')).toBe(true);
    expect((await catalog.loadTable({ namespace: [`${nsPrefix}${sales}`], name: 'orders' })).metadataLocation).toBe(d.metadataLocation);

    const again = await migrate(['table', `${sales}.orders`, '--json']);
    const a = JSON.parse(again.stdout) as { registration: string; files: { outcome: string }[] };
    expect(again.code).toBe(0);
    expect(a.registration).toBe('already-registered');
    expect(a.files.every((f) => f.outcome === 'identical')).toBe(true);

    const text = await migrate(['table', `${sales}.all_types`]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/all_types → local-rest:.*all_types: registered, validated/);
  }, 300_000);

  it('hive catalog: register mode registers and validates in HMS; in-place mode is refused and changes nothing', async () => {
    const hiveCfg = path.join(dir, 'hive.yaml');
    const base = readFileSync(path.join(env.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8');
    const hmsUri = env.HIM_HMS_PG_URI as string;
    const withCatalog = (c: string): string => withCatalogSection(base, c);
    writeFileSync(hiveCfg, withCatalog(`catalog:\n  name: hms\n  type: hive\n  uri: ${hmsUri}\n  namespacePrefix: ${nsPrefix}hive_\n`));
    const reg = await run(path.join(root, 'bin', 'migrate'), ['table', `${sales}.orders`, '--json', '--config', hiveCfg]);
    expect({ code: reg.code, err: reg.code === 0 ? '' : reg.stderr }).toEqual({ code: 0, err: '' });
    expect(JSON.parse(reg.stdout)).toMatchObject({
      ok: true,
      registration: 'registered',
      target: `hms:${nsPrefix}hive_${sales}.orders`,
      validation: { ok: true },
    });
    const hms = new ThriftHmsReader({ uri: hmsUri });
    try {
      const [t] = await hms.getTables(`${nsPrefix}hive_${sales}`, ['orders']);
      expect(t?.table.parameters).toMatchObject({ table_type: 'ICEBERG', metadata_location: JSON.parse(reg.stdout).metadataLocation });
      const [before] = await hms.getTables(sales, ['customers']);
      writeFileSync(hiveCfg, withCatalog(`catalog:\n  name: hms\n  type: hive\n  uri: ${hmsUri}\n  mode: in-place\n`));
      const inPlace = await run(path.join(root, 'bin', 'migrate'), ['table', `${sales}.customers`, '--json', '--config', hiveCfg]);
      expect(inPlace.code).toBe(2);
      expect(JSON.parse(inPlace.stdout)).toMatchObject({ ok: false, error: { code: 'USAGE' } });
      expect(JSON.parse(inPlace.stdout).error.message).toContain('migrate plan + apply');
      const [after] = await hms.getTables(sales, ['customers']);
      expect(after).toEqual(before);
    } finally {
      const writer = new ThriftHmsWriter(hms.caller);
      await writer.dropTable(`${nsPrefix}hive_${sales}`, 'orders').catch(() => undefined);
      await writer.dropDatabase(`${nsPrefix}hive_${sales}`).catch(() => undefined);
      await hms.close();
    }
  }, 300_000);

  it('refused tables exit 1 with their code; bad input exits 2', async () => {
    const skew = await migrate(['table', `${misc}.visits_skewed`]);
    expect(skew.code).toBe(1);
    expect(skew.stderr).toContain('CONVERT_SUBDIRECTORY');
    const view = await migrate(['table', `${sales}.v_orders_eu`, '--json']);
    expect(view.code).toBe(2);
    expect(JSON.parse(view.stdout)).toMatchObject({ ok: false, error: { code: 'USAGE' } });
    const missing = await migrate(['table', `${sales}.nope`]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('HMS_NOT_FOUND');
    expect((await migrate(['table', 'no_dot'])).code).toBe(2);
  }, 300_000);
});
