// Two reader findings, INT64 millisecond timestamps and NULL lists, against the reader matrix
// (core/readers/matrix.ts, measured by test/e2e/reader-matrix.test.ts), on the real stack (HMS, S3, the REST catalog; pyarrow in the
// verifier venv writes the files): a Hive `timestamp` table whose Parquet files are INT64
// TIMESTAMP(MILLIS) and a Hive `array<string>` table whose Parquet lists are the non-compliant
// 3-level form (element named `item`) holding a NULL list. assess/plan read the footers, classify them
// (parquet.ts.int64-millis-local, parquet.list.3-level-item) and decide per the matrix and
// readers.required: a required reader reading wrong → READER_MISREAD (rewrite-required, not planned
// metadata-only) and `migrate table` refuses CONVERT_READER_MISREAD (exit 1, nothing registered); a
// reader not required → READER_ENCODING_LIMIT (warn) and the table migrates. Expectations follow the
// matrix's rows: the test reads the row and asserts the decision that the row implies.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RestCatalog } from '../../adapters/catalog/rest';
import { openHms } from '../../adapters/hms/thrift/connection';
import { tableIdent } from '../../core/catalog/catalog';
import type { Reader } from '../../core/readers/encodings';
import { READERS } from '../../core/readers/encodings';
import { READER_MATRIX } from '../../core/readers/matrix';
import type { SeedTable } from '../../dev/seed/manifest';
import { deletePrefix, putObject, s3Client } from '../../dev/seed/s3';
import { databaseObject, tableObject } from '../../dev/seed/thrift-objects';
import type { Run } from '../helpers/cli';
import { ROOT, run } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';

const env = testStack();
const prefix = uniqueName('himrf').toLowerCase();
const DB = `${prefix}_readers`;
const nsPrefix = `${prefix}_`;
const BUCKET = 'warehouse';
const ROOT_KEY = `e2e/${prefix}`;
const MILLIS_KEY = 'parquet.ts.int64-millis-local';
const ITEM_KEY = 'parquet.list.3-level-item';
const ITEM_STRUCT_KEY = 'parquet.list.3-level-item-struct';
let dir = '';
let baseCfg = '';

const s3 = s3Client({
  endpoint: env.HIM_S3_ENDPOINT as string,
  region: env.AWS_REGION as string,
  accessKeyId: env.AWS_ACCESS_KEY_ID as string,
  secretAccessKey: env.AWS_SECRET_ACCESS_KEY as string,
});

/** pyarrow writes the files the way the writers in the field do. */
const WRITER = `
import datetime as dt, sys, pyarrow as pa, pyarrow.parquet as pq
out = sys.argv[1]
ts = [dt.datetime(2024, 6, d, 0, 0) for d in range(1, 6)]
pq.write_table(pa.table({"id": pa.array(range(5), pa.int32()), "ts": pa.array(ts, pa.timestamp("us"))}),
               f"{out}/millis.parquet", coerce_timestamps="ms")
tags = pa.array([["a", "b"], None, [], ["c"]], pa.list_(pa.string()))
pq.write_table(pa.table({"id": pa.array(range(4), pa.int32()), "tags": tags}), f"{out}/item.parquet",
               use_compliant_nested_type=False)
st = pa.struct([pa.field("a", pa.int32()), pa.field("b", pa.string())])
structs = pa.array([[{"a": 1, "b": "x"}], None, [], [{"a": None, "b": "y"}, None]], pa.list_(pa.field("item", st)))
pq.write_table(pa.table({"id": pa.array(range(4), pa.int32()), "items": structs}), f"{out}/item_structs.parquet",
               use_compliant_nested_type=False)
for f in ("millis", "item", "item_structs"):
    print(f, pq.ParquetFile(f"{out}/{f}.parquet").schema)
`;

const parquetTable = (name: string, columns: [string, string][]): SeedTable => ({
  db: DB,
  name,
  kind: 'external',
  tableType: 'EXTERNAL_TABLE',
  format: 'parquet',
  owner: 'him-e2e',
  columns: columns.map(([n, type]) => ({ name: n, type, comment: '' })),
  partitionKeys: [],
  location: `s3a://${BUCKET}/${ROOT_KEY}/${DB}/${name}`,
  params: { EXTERNAL: 'TRUE' },
  storage: {
    inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
    outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
    serde: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
    serdeParams: {},
  },
  numBuckets: -1,
  bucketCols: [],
  sortCols: [],
  skew: null,
  viewOriginalText: null,
  viewExpandedText: null,
  partitions: [],
  files: [],
  rows: 0,
  checksum: null,
  hints: [],
});

interface Finding {
  code: string;
  effect: string;
  evidence: string;
}
interface Assessed {
  id: string;
  class: string;
  findings: Finding[];
}

/** A config file: the stack's, our namespace prefix, the database, and `readers.required` when given. */
function config(name: string, required?: readonly Reader[]): string {
  const f = path.join(dir, `${name}.yaml`);
  const readers = required === undefined ? '' : `readers:\n  required: [${required.join(', ')}]\n`;
  writeFileSync(f, `${baseCfg.replace(/(warehouse: .*)/, `$1\n  namespacePrefix: ${nsPrefix}`)}\nplan:\n  databases: [${DB}]\n${readers}`);
  return f;
}

const migrate = (cfg: string, args: string[]): Promise<Run> => run(path.join(ROOT, 'bin', 'migrate'), [...args, '--config', cfg]);

async function assess(cfg: string): Promise<Map<string, Assessed>> {
  const a = await migrate(cfg, ['assess', '--json', '--database', DB]);
  expect({ code: a.code, stderr: a.stderr }).toEqual({ code: 0, stderr: '' });
  const tables = (JSON.parse(a.stdout) as { tables: Assessed[] }).tables;
  return new Map(tables.map((t) => [t.id.split('.')[1] as string, t]));
}

/** What the matrix says each reader does with `key` (undefined: no measured row). */
const row = (key: string) => READER_MATRIX.find((r) => r.key === key);
const wrongReaders = (key: string): Reader[] => READERS.filter((r) => row(key)?.cells[r].verdict === 'wrong');

/** PyIceberg's read of one migrated table of ours: its row count and up to 10 rows. */
async function pyicebergRead(name: string): Promise<{ rows: number; sample: Record<string, unknown>[]; error?: string }> {
  const r = await run(env.HIM_VERIFIER_PYTHON as string, [
    path.join(ROOT, 'dev/verifier/read_tables.py'),
    '--engines',
    'pyiceberg',
    '--catalog-uri',
    env.HIM_ICEBERG_REST_URI as string,
    '--s3-endpoint',
    env.HIM_S3_ENDPOINT as string,
    '--sample',
    '10',
    `${nsPrefix}${DB}.${name}`,
  ]);
  return JSON.parse(r.stdout.trim()) as { rows: number; sample: Record<string, unknown>[]; error?: string };
}

async function registered(name: string): Promise<boolean> {
  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  return catalog.tableExists(tableIdent([`${nsPrefix}${DB}`], name));
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-reader-findings-'));
  execFileSync(env.HIM_VERIFIER_PYTHON as string, ['-c', WRITER, dir], { encoding: 'utf8' });
  baseCfg = readFileSync(path.join(env.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8');
  const hms = await openHms(env.HIM_HMS_PG_URI as string, { connectTimeoutMs: 10_000, callTimeoutMs: 60_000 });
  try {
    await hms.call('create_database', (c) => c.create_database(databaseObject(DB, `s3a://${BUCKET}/${ROOT_KEY}/${DB}`)));
    for (const [name, file, cols] of [
      [
        'millis',
        'millis.parquet',
        [
          ['id', 'int'],
          ['ts', 'timestamp'],
        ],
      ],
      [
        'item_list',
        'item.parquet',
        [
          ['id', 'int'],
          ['tags', 'array<string>'],
        ],
      ],
      [
        'item_structs',
        'item_structs.parquet',
        [
          ['id', 'int'],
          ['items', 'array<struct<a:int,b:string>>'],
        ],
      ],
    ] as const) {
      await putObject(s3, BUCKET, `${ROOT_KEY}/${DB}/${name}/part-0.parquet`, readFileSync(path.join(dir, file)));
      await hms.call('create_table', (c) =>
        c.create_table(
          tableObject(
            parquetTable(
              name,
              cols.map((x) => [...x]),
            ),
            1_717_200_000,
          ),
        ),
      );
    }
  } finally {
    hms.close();
  }
}, 300_000);

afterAll(async () => {
  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  for (const t of await catalog.listTables([`${nsPrefix}${DB}`]).catch(() => [])) await catalog.dropTable(t);
  await catalog.dropNamespace([`${nsPrefix}${DB}`]).catch(() => undefined);
  const hms = await openHms(env.HIM_HMS_PG_URI as string, { connectTimeoutMs: 10_000, callTimeoutMs: 60_000 });
  await hms.call('drop_database', (c) => c.drop_database(DB, false, true)).catch(() => undefined);
  hms.close();
  await deletePrefix(s3, BUCKET, `${ROOT_KEY}/`);
  s3.destroy();
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('reader findings from the matrix (INT64 millisecond timestamps, NULL lists)', () => {
  it('INT64 TIMESTAMP(MILLIS) under a Hive timestamp follows the matrix row: a required reader that reads it wrong makes the table rewrite-required (READER_MISREAD naming reader and key), not planned, and `migrate table` refuses it coded, registering nothing', async () => {
    const cfg = config('default');
    const t = (await assess(cfg)).get('millis')!;
    const wrong = wrongReaders(MILLIS_KEY);
    if (row(MILLIS_KEY) === undefined) {
      // No measured row: nothing is refused on its account; with a matrix, the key is reported unmeasured (info).
      expect(t.findings.map((f) => f.code)).not.toContain('READER_MISREAD');
      const unmeasured = t.findings.some((f) => f.code === 'READER_ENCODING_UNMEASURED' && f.evidence.includes(MILLIS_KEY));
      expect(unmeasured).toBe(READER_MATRIX.length > 0);
      return;
    }
    expect(wrong.length).toBeGreaterThan(0); // the finding: Spark reads millis as micros
    const misread = t.findings.find((f) => f.code === 'READER_MISREAD');
    expect(t.class).toBe('rewrite-required');
    expect(misread?.effect).toBe('rewrite');
    for (const r of wrong)
      expect(misread?.evidence).toContain(`${r} reads ${MILLIS_KEY} wrong (ts in s3a://${BUCKET}/${ROOT_KEY}/${DB}/millis/part-0.parquet)`);

    const planFile = path.join(dir, 'plan.json');
    const report = path.join(dir, 'plan.md');
    const p = await migrate(cfg, ['plan', '--out', planFile, '--report', report]);
    expect(p.code).toBe(0);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as {
      waves: { tables: { id: string }[] }[];
      notPlanned: { id: string; reason: string }[];
    };
    expect(plan.waves.flatMap((w) => w.tables.map((x) => x.id))).not.toContain(`${DB}.millis`);
    expect(plan.notPlanned).toContainEqual({ id: `${DB}.millis`, reason: 'CLASS_REWRITE_REQUIRED' });
    const line = readFileSync(report, 'utf8')
      .split('\n')
      .filter((l) => l.includes(`${DB}.millis`))
      .join('\n');
    expect(line).toContain('READER_MISREAD');

    // Defence in depth: `migrate table` does not assess; the conversion itself refuses the file.
    const m = await migrate(cfg, ['table', `${DB}.millis`, '--json']);
    expect(m.code).toBe(1);
    expect(`${m.stdout}${m.stderr}`).toContain('CONVERT_READER_MISREAD');
    expect(`${m.stdout}${m.stderr}`).toContain(`reads ${MILLIS_KEY} wrong`);
    expect(await registered('millis')).toBe(false);
  }, 600_000);

  it('INT64 TIMESTAMP(MILLIS) with readers.required excluding the readers that misread it: planned with a READER_ENCODING_LIMIT warning naming them, and `migrate table` converts it', async () => {
    const wrong = wrongReaders(MILLIS_KEY);
    const required = READERS.filter((r) => !wrong.includes(r));
    const cfg = config('no-spark', required);
    const t = (await assess(cfg)).get('millis')!;
    expect(t.findings.map((f) => f.code)).not.toContain('READER_MISREAD');
    if (wrong.length === 0) {
      expect(t.findings.map((f) => f.code)).not.toContain('READER_ENCODING_LIMIT');
      return;
    }
    expect(required).not.toContain('spark');
    const limit = t.findings.find((f) => f.code === 'READER_ENCODING_LIMIT');
    expect(t.class).toBe('migrate-with-warnings');
    expect(limit?.effect).toBe('warn');
    for (const r of wrong) expect(limit?.evidence).toContain(`${r} reads wrong ${MILLIS_KEY} (ts in s3a://`);
    const m = await migrate(cfg, ['table', `${DB}.millis`, '--json']);
    expect({ code: m.code, stderr: m.stderr }).toMatchObject({ code: 0 });
    expect(await registered('millis')).toBe(true);
  }, 600_000);

  it('a non-compliant 3-level list (element `item`) holding a NULL list is flagged for the readers the matrix measures wrong: refused while they are required, a warning when they are not', async () => {
    const wrong = wrongReaders(ITEM_KEY);
    const t = (await assess(config('default-item'))).get('item_list')!;
    if (row(ITEM_KEY) === undefined) {
      expect(t.findings.map((f) => f.code)).not.toContain('READER_MISREAD');
      const unmeasured = t.findings.some((f) => f.code === 'READER_ENCODING_UNMEASURED' && f.evidence.includes(ITEM_KEY));
      expect(unmeasured).toBe(READER_MATRIX.length > 0);
      return;
    }
    if (wrong.length === 0) {
      // The matrix measured every reader right on this layout: not flagged, and it reads right (PyIceberg: the NULL list stays NULL).
      expect(t.findings.filter((f) => f.evidence.includes(ITEM_KEY))).toEqual([]);
      const m = await migrate(config('default-item-table'), ['table', `${DB}.item_list`, '--json']);
      expect({ code: m.code, stderr: m.stderr }).toMatchObject({ code: 0 });
      const read = await pyicebergRead('item_list');
      expect(read.error).toBeUndefined();
      expect(read.rows).toBe(4);
      expect(read.sample.find((x) => x.id === 1)?.tags).toBeNull();
      expect(read.sample.find((x) => x.id === 2)?.tags).toEqual([]);
      return;
    }
    expect(t.class).toBe('rewrite-required');
    expect(t.findings.find((f) => f.code === 'READER_MISREAD')?.evidence).toContain(`pyiceberg reads ${ITEM_KEY} wrong (tags in s3a://`);
    const m = await migrate(config('default-item-table'), ['table', `${DB}.item_list`, '--json']);
    expect(m.code).toBe(1);
    expect(`${m.stdout}${m.stderr}`).toContain('CONVERT_READER_MISREAD');
    expect(await registered('item_list')).toBe(false);

    const relaxed = (
      await assess(
        config(
          'no-pyiceberg',
          READERS.filter((r) => !wrong.includes(r)),
        ),
      )
    ).get('item_list')!;
    expect(relaxed.findings.map((f) => f.code)).not.toContain('READER_MISREAD');
    expect(relaxed.findings.find((f) => f.code === 'READER_ENCODING_LIMIT')?.evidence).toContain(
      `pyiceberg reads wrong ${ITEM_KEY} (tags in s3a://`,
    );
  }, 600_000);

  it('NULL lists, as measured: a list of structs (element `item`) — PyIceberg reads a NULL list of structs as [] — is flagged for PyIceberg with the condition (READER_ENCODING_LIMIT, the footers cannot tell NULL lists), migrates, and PyIceberg does read [] for the NULL list', async () => {
    // The measured row, not a branch on it: PyIceberg alone reads this layout wrong, and only for NULL lists.
    expect(wrongReaders(ITEM_STRUCT_KEY)).toEqual(['pyiceberg']);
    const t = (await assess(config('default-structs'))).get('item_structs')!;
    expect(t.class).toBe('migrate-with-warnings');
    expect(t.findings.map((f) => f.code)).not.toContain('READER_MISREAD');
    expect(t.findings.find((f) => f.code === 'READER_ENCODING_LIMIT')?.evidence).toContain(
      `pyiceberg reads wrong ${ITEM_STRUCT_KEY} (items in s3a://${BUCKET}/${ROOT_KEY}/${DB}/item_structs/`,
    );
    expect(t.findings.find((f) => f.code === 'READER_ENCODING_LIMIT')?.evidence).toContain(
      'only where the column holds a NULL list (read as []); the footers cannot tell whether it does',
    );
    const m = await migrate(config('default-structs-table'), ['table', `${DB}.item_structs`, '--json']);
    expect({ code: m.code, stderr: m.stderr }).toMatchObject({ code: 0 });
    // What the flag warns of is real: PyIceberg returns [] where Hive has NULL (id 1), and [] for [] (id 2).
    const read = await pyicebergRead('item_structs');
    expect(read.error).toBeUndefined();
    expect(read.rows).toBe(4);
    expect(read.sample.find((x) => x.id === 1)?.items).toEqual([]);
    expect(read.sample.find((x) => x.id === 2)?.items).toEqual([]);
  }, 600_000);
});
