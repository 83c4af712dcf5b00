// Inventory of the seeded warehouse (dev/seed) on every HMS of the stack: hms-pg and hms-mariadb
// (4.0.1) read through Thrift and through the backing DB must give deep-equal models for every
// seeded table; on all three (incl. hms3-pg, 3.1.3, Thrift only) every table of the seed manifest is
// returned with its columns, types, params, partition values (incl. null) and locations. One seed
// prefix per HMS (the seeder's rule: a prefix owns its S3 files); dropped again with --drop.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { MysqlHmsReader } from '../../../adapters/hms/db/mysql';
import { PostgresHmsReader } from '../../../adapters/hms/db/postgres';
import { ThriftHmsReader } from '../../../adapters/hms/thrift/reader';
import type { HmsReader, TableInventory } from '../../../core/hive/model';
import type { SeedManifest, SeedTable } from '../../../dev/seed/manifest';
import { testStack } from '../../helpers/stack-env';

const run = promisify(execFile);
const env = testStack();
const ROOT = path.resolve(__dirname, '../../..');
const tag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

interface Hms {
  readonly name: string;
  readonly uri: string;
  readonly prefix: string;
  /** Backing-DB reader of this HMS; undefined when only the Thrift path is checked. */
  readonly openDb: (() => Promise<HmsReader>) | undefined;
}

const servers: Hms[] = [
  {
    name: 'hms-pg',
    uri: env.HIM_HMS_PG_URI as string,
    prefix: `inv_pg_${tag}`,
    openDb: () => PostgresHmsReader.open(env.HIM_HMS_POSTGRES_URL as string),
  },
  {
    name: 'hms-mariadb',
    uri: env.HIM_HMS_MARIADB_URI as string,
    prefix: `inv_my_${tag}`,
    openDb: () => MysqlHmsReader.open(env.HIM_MARIADB_URL as string),
  },
];
if (env.HIM_HMS3_PG_URI !== undefined && process.env.HIM_TEST_COMPONENTS?.split(',').includes('hms3-pg') !== false) {
  // HMS 3.1.3 keeps its schema in the `hms3` database of the same Postgres (dev/stack hms3-pg).
  servers.push({
    name: 'hms3-pg',
    uri: env.HIM_HMS3_PG_URI,
    prefix: `inv_h3_${tag}`,
    openDb: () => PostgresHmsReader.open((env.HIM_HMS_POSTGRES_URL as string).replace(/\/hms$/, '/hms3')),
  });
}

const tmp = mkdtempSync(path.join(tmpdir(), 'him-inv-'));
const manifestFile = (h: Hms): string => path.join(tmp, `${h.prefix}.json`);

async function seed(h: Hms, extra: string[]): Promise<void> {
  await run('npx', ['tsx', 'dev/seed/main.ts', '--hms', h.uri, '--prefix', h.prefix, '--manifest', manifestFile(h), ...extra], {
    cwd: ROOT,
    timeout: 300_000,
  });
}

/** Every table of every database of the seed, read with `reader`, keyed `db.table`. */
async function inventory(reader: HmsReader, m: SeedManifest): Promise<Map<string, TableInventory>> {
  const out = new Map<string, TableInventory>();
  for (const db of [...new Set(m.tables.map((t) => t.db))]) {
    for (const t of await reader.getTables(db, await reader.listTables(db))) out.set(`${db}.${t.table.name}`, t);
  }
  return out;
}

const cols = (xs: SeedTable['columns']): { name: string; type: string }[] => xs.map((c) => ({ name: c.name, type: c.type }));

/** What the manifest says about one table, checked field by field. */
function expectMatchesManifest(got: TableInventory | undefined, t: SeedTable): void {
  expect(got).toBeDefined();
  const { table, partitions } = got as TableInventory;
  expect({ t: t.name, type: table.tableType, owner: table.owner }).toEqual({ t: t.name, type: t.tableType, owner: t.owner });
  expect(table.sd.columns.map((c) => ({ name: c.name, type: c.type }))).toEqual(cols(t.columns));
  expect(table.partitionKeys.map((c) => ({ name: c.name, type: c.type }))).toEqual(cols(t.partitionKeys));
  // The standalone HMS refuses real ACID; the seeder registers it without the transactional params.
  if (t.kind !== 'acid') expect(table.parameters).toMatchObject(t.params);
  expect(table.sd.numBuckets).toBe(t.numBuckets);
  expect(table.sd.bucketColumns).toEqual(t.bucketCols);
  expect(table.sd.inputFormat).toBe(t.format === 'view' ? table.sd.inputFormat : t.storage.inputFormat);
  if (t.location !== null) expect(table.sd.location).toBe(t.location);
  if (t.format === 'view')
    expect({ o: table.viewOriginalText, e: table.viewExpandedText }).toEqual({ o: t.viewOriginalText, e: t.viewExpandedText });
  if (t.skew !== null) {
    expect(table.sd.skewed?.columnNames).toEqual(t.skew.cols);
    expect(table.sd.skewed?.values).toEqual(t.skew.values);
  }
  const want = [...t.partitions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  expect(partitions.map((p) => ({ name: p.name, values: p.values, location: p.sd.location }))).toEqual(
    want.map((p) => ({ name: p.name, values: p.values, location: p.location })),
  );
  for (const p of want.filter((x) => x.columns !== null)) {
    expect(partitions.find((x) => x.name === p.name)?.sd.columns.map((c) => ({ name: c.name, type: c.type }))).toEqual(
      cols(p.columns ?? []),
    );
  }
}

describe.each(servers.map((h) => [h.name, h] as const))('inventory of the seeded warehouse on %s', (_name, h) => {
  let m: SeedManifest;
  let thrift: ThriftHmsReader;
  let viaThrift: Map<string, TableInventory>;

  beforeAll(async () => {
    await seed(h, []);
    m = JSON.parse(readFileSync(manifestFile(h), 'utf8')) as SeedManifest;
    thrift = new ThriftHmsReader({ uri: h.uri, poolSize: 3, tableBatchSize: 5, partitionBatchSize: 3 });
    viaThrift = await inventory(thrift, m);
  });
  afterAll(async () => {
    await thrift?.close();
    await seed(h, ['--drop']).catch(() => undefined);
  });

  it('Thrift: returns every seeded table and nothing else', async () => {
    expect([...viaThrift.keys()].sort()).toEqual(m.tables.map((t) => `${t.db}.${t.name}`).sort());
    const dbs = await thrift.listDatabases();
    for (const db of new Set(m.tables.map((t) => t.db))) expect(dbs).toContain(db);
  });

  it('Thrift: every table matches the manifest (types, params, partitions incl. null, locations)', () => {
    for (const t of m.tables) expectMatchesManifest(viaThrift.get(`${t.db}.${t.name}`), t);
  });

  it('Thrift: specific objects — the null partition, special characters, schema drift, a view on a view', () => {
    const orders = viaThrift.get(`${h.prefix}_sales.orders`);
    const nul = orders?.partitions.find((p) => p.values[1] === null);
    expect(nul?.name).toBe('year=2025/region=__HIVE_DEFAULT_PARTITION__');
    expect(nul?.values).toEqual(['2025', null]);
    expect(orders?.partitions.find((p) => p.name === 'year=2023/region=eu')?.sd.location).toBe(
      `s3a://hive/seed/${h.prefix}/outside/${h.prefix}_sales/orders_2023_eu`,
    );
    const special = viaThrift.get(`${h.prefix}_sales.special_parts`)?.partitions;
    expect(special?.find((p) => p.name === 'k=a%2Fb')?.values).toEqual(['a/b']);
    expect(special?.find((p) => p.name === 'k=q%3F%23%2A')?.values).toEqual(['q?#*']);
    expect(special?.find((p) => p.name === 'k=__HIVE_DEFAULT_PARTITION__')?.values).toEqual([null]);
    const drifted = viaThrift.get(`${h.prefix}_sales.drifted`);
    expect(drifted?.partitions.find((p) => p.name === 'p=1')?.sd.columns).not.toEqual(drifted?.table.sd.columns);
    const allTypes = viaThrift.get(`${h.prefix}_sales.all_types`)?.table.sd.columns;
    expect(allTypes?.find((c) => c.name === 'attrs')?.type).toBe('map<string,int>');
    expect(allTypes?.find((c) => c.name === 'info')?.type).toBe('struct<a:int,b:string>');
    const insertOnly = viaThrift.get(`${h.prefix}_misc.audit_insert_only`)?.table;
    expect(insertOnly?.parameters).toMatchObject({ transactional: 'true', transactional_properties: 'insert_only' });
    expect(viaThrift.get(`${h.prefix}_sales.v_orders_eu_big`)?.table.viewOriginalText).toContain('v_orders_eu');
    expect(viaThrift.get(`${h.prefix}_misc.users_bucketed`)?.table.sd.numBuckets).toBe(4);
  });

  const openDb = h.openDb;
  if (openDb !== undefined)
    it('backing DB: deep-equal to the Thrift path for every seeded table and database', async () => {
      const reader = await openDb();
      try {
        const viaDb = await inventory(reader, m);
        expect([...viaDb.keys()].sort()).toEqual([...viaThrift.keys()].sort());
        for (const [key, t] of viaThrift) expect({ key, ...viaDb.get(key) }).toEqual({ key, ...t });
        for (const db of new Set(m.tables.map((t) => t.db))) expect(await reader.getDatabase(db)).toEqual(await thrift.getDatabase(db));
      } finally {
        await reader.close();
      }
    });
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));
