// The seeded warehouse (dev/seed on hms-pg) converted metadata-only, table by table, through the
// library the workflows use (engine/), registered in the reference REST catalog, and
// read back by engines we did not write: PyIceberg (full scan) and Spark 4.0.5 + Iceberg 1.10.1.
// Each table's order-independent content checksum must equal the seed manifest's, which was
// computed from the original rows with the partition values (nulls, escaped values included).
// Also: refusals are coded and register nothing; a rerun writes byte-identical files and registers
// once; a crash between write and register is finished by a rerun with no orphan; the same
// metadata registered in the JDBC catalog (Iceberg JdbcCatalog layout in Postgres) and in the Hive
// catalog (HMS 3.1.3) is read with exactly the original rows by PyIceberg (its SQL and Hive
// catalogs; Parquet and ORC tables) and by Spark 4.0.5 + Iceberg 1.10.1 (Iceberg's JdbcCatalog and
// HiveCatalog; every table, Avro included), checksum and row count per table, engine and catalog;
// a wrong HMS partition value keeps the row count but fails the checksum (so counts alone prove
// nothing).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { convertTable } from '../../../engine/convert-table';
import { writeIcebergMetadata } from '../../../engine/write-metadata';
import { HiveIcebergCatalog } from '../../../adapters/catalog/hive';
import { JdbcIcebergCatalog } from '../../../adapters/catalog/jdbc';
import { RestCatalog } from '../../../adapters/catalog/rest';
import { ThriftHmsWriter } from '../../../adapters/hms/thrift/writer';
import { ThriftHmsReader } from '../../../adapters/hms/thrift/reader';
import { RoutingObjectStore } from '../../../adapters/storage/routing-store';
import type { TableIdent } from '../../../core/catalog/catalog';
import { tableIdent } from '../../../core/catalog/catalog';
import { prepareConversion } from '../../../core/convert/prepare';
import type { MigrationError } from '../../../core/errors';
import type { TableInventory } from '../../../core/hive/model';
import type { SeedManifest, SeedTable } from '../../../dev/seed/manifest';
import { testStack } from '../../helpers/stack-env';

const run = promisify(execFile);
const env = testStack();
const ROOT = path.resolve(__dirname, '../../..');
const tag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const PREFIX = `conv_${tag}`;
const NS = [`conv_${tag}`];
const PLAN = `test-plan-${tag}`;
const T0 = Date.UTC(2026, 0, 2, 3, 4, 5);
const tmp = mkdtempSync(path.join(tmpdir(), 'him-conv-'));

let manifest: SeedManifest;
let hms: ThriftHmsReader;
let catalog: RestCatalog;
let store: RoutingObjectStore;
const inventories = new Map<string, TableInventory>();

const key = (t: { db: string; name: string }): string => `${t.db}.${t.name}`;
const target = (t: SeedTable, suffix = ''): TableIdent => tableIdent(NS, `${t.db}__${t.name}${suffix}`);
const failure = (p: Promise<unknown>): Promise<MigrationError> =>
  p.then(
    () => Promise.reject(new Error('expected a failure')),
    (e: MigrationError) => e,
  );

function request(inv: TableInventory, ident: TableIdent) {
  return {
    inventory: inv,
    identity: { planHash: PLAN, table: `hms:${inv.table.database}.${inv.table.name}->rest:${ident.namespace.join('.')}.${ident.name}` },
    timestampMs: T0,
    toolVersion: 'test',
    target: ident,
  };
}

interface Read {
  engine: string;
  table: string;
  rows?: number;
  checksum?: string;
  error?: string;
}
/** dev/verifier/read_tables.py: one process (one Spark session) for all `tables`; through the REST catalog unless `catalog` names another (--catalog-type ...). */
async function readBack(
  tables: string[],
  engines = 'pyiceberg,spark',
  catalog: string[] = [],
  extraEnv: Record<string, string> = {},
): Promise<Read[]> {
  const { stdout } = await run(
    env.HIM_VERIFIER_PYTHON ?? 'python3',
    [
      path.join(ROOT, 'dev/verifier/read_tables.py'),
      '--engines',
      engines,
      '--catalog-uri',
      env.HIM_ICEBERG_REST_URI ?? '',
      '--s3-endpoint',
      env.HIM_S3_ENDPOINT ?? '',
      '--jars-dir',
      env.HIM_SPARK_JARS_DIR ?? '',
      ...catalog,
      ...tables,
    ],
    {
      env: { ...process.env, ...env, ...extraEnv },
      maxBuffer: 64 << 20,
      timeout: 400_000,
    },
  );
  return stdout
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Read);
}

/** Converted in the first test: every metadata-only table, and the bucketed one with the opt-in. */
const convertible = (): SeedTable[] => manifest.tables.filter((t) => t.hints.includes('metadata-only') || t.hints.includes('bucketed'));

beforeAll(async () => {
  const file = path.join(tmp, 'manifest.json');
  await run('npx', ['tsx', 'dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', PREFIX, '--manifest', file], {
    cwd: ROOT,
    timeout: 300_000,
  });
  manifest = JSON.parse(readFileSync(file, 'utf8')) as SeedManifest;
  hms = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string });
  for (const db of [...new Set(manifest.tables.map((t) => t.db))]) {
    for (const inv of await hms.getTables(db, await hms.listTables(db))) inventories.set(key({ db, name: inv.table.name }), inv);
  }
  catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  store = new RoutingObjectStore({
    metadataPrefixes: [...inventories.values()].flatMap((i) =>
      i.table.sd.location ? [`${i.table.sd.location.replace(/\/+$/, '')}/metadata/`] : [],
    ),
    s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true },
  });
}, 400_000);

afterAll(async () => {
  for (const t of await catalog.listTables(NS).catch(() => [])) await catalog.dropTable(t);
  await catalog.dropNamespace(NS).catch(() => undefined);
  await hms?.close();
  store?.destroy();
  await run('npx', ['tsx', 'dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', PREFIX, '--drop'], {
    cwd: ROOT,
    timeout: 300_000,
  }).catch(() => undefined);
  rmSync(tmp, { recursive: true, force: true });
}, 400_000);

describe('seeded warehouse → Iceberg (REST catalog), read back by PyIceberg and Spark', () => {
  it('every metadata-only table converts, validates, and both engines read exactly the original rows', async () => {
    const tables = convertible();
    expect(tables.map((t) => t.name).sort()).toEqual(
      expect.arrayContaining(['all_types', 'orders', 'special_parts', 'drifted', 'customers', 'metrics_orc', 'empty_pq']),
    );
    const names: string[] = [];
    for (const t of tables) {
      const inv = inventories.get(key(t));
      expect(inv).toBeDefined();
      const r = await convertTable(store, catalog, {
        ...request(inv as TableInventory, target(t)),
        allowUnbucketed: t.hints.includes('bucketed'),
      });
      expect({ table: key(t), ok: r.validation?.ok, findings: r.validation?.findings }).toEqual({ table: key(t), ok: true, findings: [] });
      expect(r.registration).toBe('registered');
      expect(r.written?.dataFiles).toBe(t.files.length);
      expect(r.written?.records).toBe(t.rows);
      expect(r.validation?.rows.footers).toBe(t.rows);
      names.push(`${NS[0]}.${target(t).name}`);
    }
    const reads = await readBack(names);
    for (const t of tables) {
      const name = `${NS[0]}.${target(t).name}`;
      for (const engine of ['pyiceberg', 'spark']) {
        const got = reads.find((r) => r.table === name && r.engine === engine);
        if (engine === 'pyiceberg' && t.format === 'avro') {
          // PyIceberg 0.12 reads Parquet and ORC data files only; Spark proves the Avro table.
          expect(got?.error).toMatch(/Unsupported file format: FileFormat.AVRO/);
          continue;
        }
        expect({ table: key(t), engine, rows: got?.rows, checksum: got?.checksum, error: got?.error }).toEqual({
          table: key(t),
          engine,
          rows: t.rows,
          checksum: t.checksum,
          error: undefined,
        });
      }
    }
  }, 900_000);

  it('tables that cannot convert metadata-only are refused with a code, and nothing is registered', async () => {
    const expectations: [string, string][] = [];
    for (const t of manifest.tables) {
      if (t.hints.includes('metadata-only')) continue;
      const inv = inventories.get(key(t)) as TableInventory;
      const ident = target(t, '_refused');
      const e = await convertTable(store, catalog, request(inv, ident)).then(
        () => ({ code: 'CONVERTED' }),
        (x: MigrationError) => x,
      );
      expectations.push([key(t), e.code]);
      expect(await catalog.tableExists(ident)).toBe(false);
    }
    const byName = Object.fromEntries(expectations.map(([k, c]) => [k.split('.')[1], c]));
    expect(byName).toMatchObject({ visits_skewed: 'CONVERT_SUBDIRECTORY', users_bucketed: 'CONVERT_BUCKETED' });
    for (const t of manifest.tables.filter((x) => x.kind === 'view')) expect(byName[t.name]).toBe('USAGE');
    for (const t of manifest.tables.filter((x) => x.format === 'text')) expect(byName[t.name]).toBe('FORMAT_UNSUPPORTED');
    // Insert-only, read here without its valid write ids (getTables alone): which deltas are committed is unknown.
    for (const t of manifest.tables.filter((x) => x.kind === 'insert_only')) expect(byName[t.name]).toBe('ACID_WRITE_IDS_UNAVAILABLE');
    // The "ACID" table (HMS refused transactional=true; files in base_*/ as Hive writes them).
    for (const t of manifest.tables.filter((x) => x.kind === 'acid'))
      expect(['CONVERT_SUBDIRECTORY', 'FORMAT_UNSUPPORTED']).toContain(byName[t.name]);
  }, 300_000);

  it('a rerun writes byte-identical files and registers once', async () => {
    const t = manifest.tables.find((x) => x.name === 'orders') as SeedTable;
    const inv = inventories.get(key(t)) as TableInventory;
    const again = await convertTable(store, catalog, request(inv, target(t)));
    expect(again.registration).toBe('already-registered');
    expect(again.validation?.ok).toBe(true);
    expect(new Set(again.written?.files.map((f) => f.outcome))).toEqual(new Set(['identical']));
    expect((await catalog.listTables(NS)).filter((x) => x.name === target(t).name)).toHaveLength(1);
  }, 300_000);

  it('crash after writing, before registering: a rerun registers once and leaves no orphan file', async () => {
    const t = manifest.tables.find((x) => x.name === 'special_parts') as SeedTable;
    const inv = inventories.get(key(t)) as TableInventory;
    const ident = target(t, '_crash');
    const req = request(inv, ident);
    const first = await writeIcebergMetadata(store, prepareConversion(req));
    expect(await catalog.tableExists(ident)).toBe(false);
    const r = await convertTable(store, catalog, req);
    expect(r.registration).toBe('registered');
    expect(r.validation?.ok).toBe(true);
    expect(r.written?.files.map((f) => [f.path, f.outcome])).toEqual(first.files.map((f) => [f.path, 'identical']));
    // No orphan: the metadata directory holds exactly what the two runs named (both tables share
    // the source location, so filter by this identity's file names).
    const listed: string[] = [];
    for await (const e of store.list(r.prepared.metadataDir, { recursive: true })) if (e.kind === 'file') listed.push(e.path);
    const ours = new Set(first.files.map((f) => f.path));
    const mine = listed.filter((p) => ours.has(p) || p.includes(r.prepared.tableUuid) || p.includes(r.prepared.snapshotId.toString()));
    expect(mine.sort()).toEqual([...ours].sort());
  }, 300_000);

  it('a wrong partition value from HMS keeps the row count but fails the content checksum', async () => {
    const t = manifest.tables.find((x) => x.name === 'orders') as SeedTable;
    const inv = inventories.get(key(t)) as TableInventory;
    // Swap the region of one partition (as a lost or mis-parsed partition value would).
    const i = inv.partitions.findIndex((p) => p.values[1] === 'us');
    const tampered: TableInventory = {
      ...inv,
      partitions: inv.partitions.map((p, j) => (j === i ? { ...p, values: [p.values[0] ?? null, 'eu'] } : p)),
    };
    const ident = target(t, '_wrong');
    const r = await convertTable(store, catalog, { ...request(tampered, ident) });
    expect(r.validation?.ok).toBe(true); // storage and manifests agree with (the tampered) HMS…
    const [got] = await readBack([`${NS[0]}.${ident.name}`], 'pyiceberg');
    expect(got?.rows).toBe(t.rows); // …the count is right…
    expect(got?.checksum).not.toBe(t.checksum); // …and only the content checksum shows the loss.
  }, 300_000);

  it('a truncated data file → FORMAT_CORRUPT_FOOTER naming the file; nothing registered, no metadata.json', async () => {
    const t = manifest.tables.find((x) => x.name === 'customers') as SeedTable;
    const inv = inventories.get(key(t)) as TableInventory;
    const src = t.files[0]?.location as string;
    const loc = `s3a://${manifest.bucket}/${manifest.rootKey}/corrupt_${tag}/customers`;
    const bytes = await store.readRange(src, 0, t.files[0]?.size as number);
    await store.put(`${loc}/000000_0`, bytes, { ifNoneMatch: '*' });
    await store.put(`${loc}/000001_0`, bytes.subarray(0, Math.floor(bytes.length / 2)), { ifNoneMatch: '*' });
    const copy: TableInventory = { ...inv, table: { ...inv.table, sd: { ...inv.table.sd, location: loc } } };
    const ident = target(t, '_corrupt');
    const e = await failure(convertTable(store, catalog, request(copy, ident)));
    expect(e.code).toBe('FORMAT_CORRUPT_FOOTER');
    expect(e.message).toContain(`${loc}/000001_0`);
    expect(await catalog.tableExists(ident)).toBe(false);
    const p = prepareConversion(request(copy, ident));
    await expect(store.head(p.metadataLocation)).rejects.toMatchObject({ code: 'STORAGE_NOT_FOUND' });
    // The data files are untouched.
    expect((await store.head(`${loc}/000001_0`)).size).toBe(Math.floor(bytes.length / 2));
  }, 300_000);

  it('the same metadata through the JDBC catalog (Postgres) and the Hive catalog (HMS 3.1): PyIceberg and Spark read the original rows', async () => {
    const tables = convertible();
    expect(tables.some((t) => t.format === 'avro')).toBe(true); // Spark covers the Avro table PyIceberg cannot read
    expect(tables.some((t) => t.rows > 0)).toBe(true);
    const jdbcName = `him_conv_${tag}`;
    const jdbc = await JdbcIcebergCatalog.connect({ url: env.HIM_POSTGRES_URL as string, catalogName: jdbcName, store });
    const hms3 = {
      reader: new ThriftHmsReader({ uri: env.HIM_HMS3_PG_URI as string }),
      writer: new ThriftHmsWriter({ uri: env.HIM_HMS3_PG_URI as string }),
    };
    const hive = new HiveIcebergCatalog({ name: 'hms3', reader: hms3.reader, writer: hms3.writer, store });
    const hiveDb = `conv_${tag}`;
    const names = tables.map((t) => `${NS[0]}.${target(t).name}`); // the same names in both catalogs (hiveDb = NS[0])
    try {
      await jdbc.createNamespace(NS);
      await hive.createNamespace([hiveDb]);
      const sqlUri = (env.HIM_POSTGRES_URL as string).replace(/^postgres:/, 'postgresql+psycopg2:');
      for (const t of tables) {
        const metadataLocation = (await catalog.loadTable(target(t))).metadataLocation;
        expect((await jdbc.registerTable(target(t), metadataLocation)).outcome).toBe('registered');
        expect((await hive.registerTable(tableIdent([hiveDb], target(t).name), metadataLocation)).outcome).toBe('registered');
        if (t.format === 'avro') continue; // PyIceberg 0.12 reads no Avro data files (Spark does, below)
        const viaSql = await run(
          env.HIM_VERIFIER_PYTHON as string,
          [
            path.join(ROOT, 'dev/verifier/read_sql_table.py'),
            '--sql-uri',
            sqlUri,
            '--catalog-name',
            jdbcName,
            '--table',
            `${NS[0]}.${target(t).name}`,
          ],
          { env: { ...process.env, ...env }, maxBuffer: 16 << 20 },
        );
        const viaHive = await run(
          env.HIM_VERIFIER_PYTHON as string,
          [
            path.join(ROOT, 'dev/verifier/read_hive_table.py'),
            '--hms',
            env.HIM_HMS3_PG_URI as string,
            '--table',
            `${hiveDb}.${target(t).name}`,
          ],
          { env: { ...process.env, ...env }, maxBuffer: 16 << 20 },
        );
        for (const [via, out] of [
          ['jdbc', viaSql.stdout],
          ['hive', viaHive.stdout],
        ] as const) {
          const got = JSON.parse(out.trim().split('\n').pop() ?? '{}') as { rows: number; checksum: string };
          expect({ table: key(t), engine: 'pyiceberg', via, rows: got.rows, checksum: got.checksum }).toEqual({
            table: key(t),
            engine: 'pyiceberg',
            via,
            rows: t.rows,
            checksum: t.checksum,
          });
        }
      }
      // Spark 4.0.5 + Iceberg 1.10.1, one session per catalog: Iceberg's JdbcCatalog on the same
      // Postgres rows (its catalog name must be the catalog_name registered above), and Iceberg's
      // HiveCatalog on HMS 3.1 through PySpark's bundled Hive 2.3 metastore client.
      const pg = new URL(env.HIM_POSTGRES_URL as string);
      const viaJdbc = [
        '--catalog-type',
        'jdbc',
        '--catalog-name',
        jdbcName,
        '--jdbc-url',
        `jdbc:postgresql://${pg.host}${pg.pathname}`,
        '--jdbc-user',
        decodeURIComponent(pg.username),
        '--warehouse',
        `s3://${manifest.bucket}/${manifest.rootKey}/spark-jdbc-warehouse`,
      ];
      const viaHms = ['--catalog-type', 'hive', '--hms-uri', env.HIM_HMS3_PG_URI as string];
      for (const [via, args] of [
        ['jdbc', viaJdbc],
        ['hive', viaHms],
      ] as const) {
        const reads = await readBack(names, 'spark', args, pg.password ? { PGPASSWORD: decodeURIComponent(pg.password) } : {});
        expect(reads.map((r) => r.table).sort()).toEqual([...names].sort()); // one line per table, none missing
        for (const t of tables) {
          const got = reads.find((r) => r.table === `${NS[0]}.${target(t).name}`);
          expect({ table: key(t), engine: got?.engine, via, rows: got?.rows, checksum: got?.checksum, error: got?.error }).toEqual({
            table: key(t),
            engine: 'spark',
            via,
            rows: t.rows,
            checksum: t.checksum,
            error: undefined,
          });
        }
      }
    } finally {
      for (const t of tables) {
        await jdbc.dropTable(target(t)).catch(() => undefined);
        await hive.dropTable(tableIdent([hiveDb], target(t).name)).catch(() => undefined);
      }
      await jdbc.dropNamespace(NS).catch(() => undefined);
      await hive.dropNamespace([hiveDb]).catch(() => undefined);
      await jdbc.close();
      await hms3.reader.close();
      await hms3.writer.close();
    }
  }, 1_200_000);
});
