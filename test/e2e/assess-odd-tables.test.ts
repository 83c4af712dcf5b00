// `migrate assess` and `plan` on the odd tables apply would trip on, made in the
// stack's HMS (hms-pg) and S3: an int partition whose value is `abc`, an empty and a relative
// location (HMS refuses both over Thrift, so they are set in its backing database, as a direct edit or
// another tool would leave them), tables sharing one location (s3a/s3 spellings, one nested), a
// Spark-like table without HMS stats whose files came later, and a zero-byte .parquet — then
// `migrate table` on the last: the zero-byte file is left out and listed in the validation record.
import { DeleteObjectsCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { RestCatalog } from '../../adapters/catalog/rest';
import { importEsmFile } from '../../adapters/formats/hyparquet';
import { ThriftHmsWriter } from '../../adapters/hms/thrift/writer';
import type { HiveTable } from '../../core/hive/model';
import { MIGRATE, run } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';
import { partition, table } from '../unit/assess/fixture';

const env = testStack();
const db = uniqueName('himodd').toLowerCase();
const BUCKET = 'warehouse';
const loc = (rest: string): string => `s3a://${BUCKET}/${db}/${rest}`;
const nsPrefix = `${db}_`;
let dir = '';
let cfg = '';
let parquet: Buffer;
const s3 = new S3Client({ endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true });
const hms = new ThriftHmsWriter({ uri: env.HIM_HMS_PG_URI as string });
const put = (key: string, body: Buffer): Promise<unknown> =>
  s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${db}/${key}`, Body: body }));

/** Sets a table's location in HMS's backing database (Thrift refuses empty and relative ones). */
async function setLocation(name: string, location: string): Promise<void> {
  const pg = new Client({ connectionString: env.HIM_HMS_POSTGRES_URL });
  await pg.connect();
  try {
    const r = await pg.query(
      'UPDATE "SDS" SET "LOCATION" = $1 WHERE "SD_ID" = (SELECT t."SD_ID" FROM "TBLS" t JOIN "DBS" d ON d."DB_ID" = t."DB_ID" WHERE d."NAME" = $2 AND t."TBL_NAME" = $3)',
      [location, db, name],
    );
    if (r.rowCount !== 1) throw new Error(`no SDS row for ${db}.${name}`);
  } finally {
    await pg.end();
  }
}

const ext = (name: string, location: string, o: Partial<HiveTable> = {}): HiveTable =>
  table({ database: db, name, sd: { location }, parameters: { EXTERNAL: 'TRUE' }, ...o });
const TABLES: readonly HiveTable[] = [
  ext('int_abc', loc('int_abc'), { partitionKeys: [{ name: 'p', type: 'int', comment: null }] }),
  ext('empty_loc', loc('empty_loc')),
  ext('rel_loc', loc('rel_loc')),
  ext('shared_a', loc('shared')),
  ext('shared_b', `s3://${BUCKET}/${db}/shared/`),
  ext('shared_nested', loc('shared/nested')),
  ext('spark_like', loc('spark_like')),
  ext('zero_byte', loc('zero_byte')),
  ext('plain', loc('plain'), { parameters: { EXTERNAL: 'TRUE', numFiles: '1', totalSize: '1' } }),
];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-odd-'));
  cfg = path.join(dir, 'migrate.yaml');
  writeFileSync(
    cfg,
    readFileSync(path.join(env.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8').replace(
      /(warehouse: .*)/,
      `$1\n  namespacePrefix: ${nsPrefix}`,
    ),
  );
  const w = await importEsmFile<{ parquetWriteBuffer(o: { columnData: { name: string; data: unknown[]; type: string }[] }): ArrayBuffer }>(
    require.resolve('hyparquet-writer'),
  );
  parquet = Buffer.from(
    w.parquetWriteBuffer({
      columnData: [
        { name: 'id', data: [1n, 2n, 3n], type: 'INT64' },
        { name: 'v', data: ['a', 'b', 'c'], type: 'STRING' },
      ],
    }),
  );
  // Files that exist before the tables: HMS may gather stats over them.
  await put('zero_byte/part-0.parquet', parquet);
  await put('zero_byte/part-1.parquet', Buffer.alloc(0));
  await put('plain/part-0.parquet', parquet);
  await put('shared/part-0.parquet', parquet);
  await put('int_abc/p=1/part-0.parquet', parquet);
  await put('int_abc/p=abc/part-0.parquet', parquet);
  await hms.createDatabase({
    name: db,
    description: 'odd tables',
    locationUri: loc(''),
    parameters: {},
    owner: 'him-test',
    ownerType: 'USER',
  });
  for (const t of TABLES) await hms.createTable(t);
  await hms.addPartitions(db, 'int_abc', [
    { ...partition('p=1', { sd: { location: loc('int_abc/p=1') } }), values: ['1'] },
    { ...partition('p=abc', { sd: { location: loc('int_abc/p=abc') } }), values: ['abc'] },
  ]);
  // Spark creates the table first (HMS sees an empty directory, gathers no stats) and writes after.
  await put('spark_like/part-00000.snappy.parquet', parquet);
  await put('spark_like/part-00001.snappy.parquet', parquet);
  await put('spark_like/_SUCCESS', Buffer.alloc(0));
  await setLocation('empty_loc', '');
  await setLocation('rel_loc', 'warehouse/rel_loc');
}, 120_000);

afterAll(async () => {
  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  for (const t of await catalog.listTables([`${nsPrefix}${db}`]).catch(() => [])) await catalog.dropTable(t);
  await catalog.dropNamespace([`${nsPrefix}${db}`]).catch(() => undefined);
  // Valid locations again, so HMS can drop the tables (files stay: deleteData is always false).
  await setLocation('empty_loc', loc('empty_loc')).catch(() => undefined);
  await setLocation('rel_loc', loc('rel_loc')).catch(() => undefined);
  for (const t of TABLES) await hms.dropTable(db, t.name).catch(() => undefined);
  await hms.dropDatabase(db).catch(() => undefined);
  await hms.close();
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${db}/` }));
  const keys = (listed.Contents ?? []).map((o) => ({ Key: o.Key as string }));
  if (keys.length > 0) await s3.send(new DeleteObjectsCommand({ Bucket: BUCKET, Delete: { Objects: keys } }));
  s3.destroy();
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

interface AssessedJson {
  id: string;
  class: string;
  files: number;
  bytes: number;
  sizeSource: string;
  findings: { code: string; severity: string; evidence: string }[];
}

describe('assess: odd tables get their codes before apply would trip on them', () => {
  let tables = new Map<string, AssessedJson>();
  const id = (n: string): string => `${db}.${n}`;
  const warnings = (n: string): string[] => (tables.get(id(n))?.findings ?? []).filter((f) => f.severity !== 'info').map((f) => f.code);
  const all = (n: string): string[] => (tables.get(id(n))?.findings ?? []).map((f) => f.code);

  beforeAll(async () => {
    const r = await run(MIGRATE, ['assess', '--config', cfg, '--database', db, '--json']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    tables = new Map((JSON.parse(r.stdout) as { tables: AssessedJson[] }).tables.map((t) => [t.id, t]));
  }, 120_000);

  it('each odd table has its code and class; a plain table migrates', () => {
    const got = Object.fromEntries(
      [...tables.values()].map((t) => [t.id.slice(db.length + 1), [t.class, warnings(t.id.slice(db.length + 1))]]),
    );
    expect(got).toEqual({
      int_abc: ['rewrite-required', ['PARTITION_VALUE_INVALID']],
      empty_loc: ['rewrite-required', ['LOCATION_INVALID']],
      rel_loc: ['rewrite-required', ['LOCATION_INVALID']],
      shared_a: ['rewrite-required', ['LOCATION_SHARED', 'DATA_IN_SUBDIRECTORIES']],
      shared_b: ['rewrite-required', ['LOCATION_SHARED', 'DATA_IN_SUBDIRECTORIES']],
      shared_nested: ['rewrite-required', ['LOCATION_SHARED']],
      spark_like: ['migrate', []],
      zero_byte: ['migrate-with-warnings', ['FILE_EMPTY']],
      plain: ['migrate', []],
    });
    expect(tables.get(id('int_abc'))!.findings.find((f) => f.code === 'PARTITION_VALUE_INVALID')!.evidence).toContain(
      '"abc" is not a valid int',
    );
    expect(tables.get(id('rel_loc'))!.findings.find((f) => f.code === 'LOCATION_INVALID')!.evidence).toContain(
      'relative location "warehouse/rel_loc"',
    );
    expect(tables.get(id('shared_nested'))!.findings.find((f) => f.code === 'LOCATION_SHARED')!.evidence).toContain(id('shared_a'));
    expect(tables.get(id('zero_byte'))!.findings.find((f) => f.code === 'FILE_EMPTY')!.evidence).toContain('zero_byte/part-1.parquet');
  });

  it('the stats-less Spark-like table is sized from storage, not EMPTY_TABLE; plan waves see its files and bytes', async () => {
    const t = tables.get(id('spark_like'))!;
    expect(all('spark_like')).toEqual(['STATS_MISSING', 'SIZE_FROM_STORAGE']);
    expect([t.files, t.bytes, t.sizeSource]).toEqual([2, 2 * parquet.length, 'storage']);
    const out = path.join(dir, 'plan.json');
    const p = await run(MIGRATE, ['plan', '--config', cfg, '--database', db, '--out', out]);
    expect({ code: p.code, stderr: p.stderr }).toEqual({ code: 0, stderr: '' });
    const plan = JSON.parse(readFileSync(out, 'utf8')) as {
      waves: { tables: { id: string; files: number; bytes: number }[] }[];
      notPlanned: { id: string }[];
    };
    const planned = plan.waves.flatMap((w) => w.tables);
    expect(planned.find((x) => x.id === id('spark_like'))).toMatchObject({ files: 2, bytes: 2 * parquet.length });
    expect(planned.map((x) => x.id).sort()).toEqual([id('plain'), id('spark_like'), id('zero_byte')]);
  }, 120_000);

  it('migrate table on the zero-byte table: the file is left out and listed in the validation record', async () => {
    const r = await run(MIGRATE, ['table', id('zero_byte'), '--config', cfg, '--json']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const out = JSON.parse(r.stdout) as {
      dataFiles: number;
      validation: { ok: boolean; skipped: { path: string; reason: string }[]; files: { listed: number } };
    };
    expect(out.dataFiles).toBe(1);
    expect(out.validation.ok).toBe(true);
    expect(out.validation.files.listed).toBe(1);
    expect(out.validation.skipped).toEqual([{ path: `${loc('zero_byte')}/part-1.parquet`, reason: 'zero-byte' }]);
  }, 180_000);
});
