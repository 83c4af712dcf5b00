// The left-behind warehouse (`dev/seed/main.ts --left-behind warehouse`): ONE database, `lb_warehouse`,
// holding every kind of table a metadata-only migration leaves behind, made by the existing
// seed modules given this database: views.ts (two Parquet tables, a CSV table, a view, a view over it,
// a view over the CSV table), acid.ts (insert-only ACID tables with committed and aborted writes),
// lb-rewrite.ts (a '|'-delimited CSV table with a header line, a bucketed table, a table with data in
// sub-directories); and, made here (lb_warehouse.py writes the files): a Parquet table whose old
// partitions have `s struct<a:int>` and the table `s struct<a:int,b:string>`, a Parquet table with a
// uniontype column (left out even with --rewrite: TYPE_UNSUPPORTED) and a view over it. Returns per table what a test needs:
// the path it should take, expected rows + canonical content checksum (committed rows only for the
// ACID tables), every source file with its sha256, and the aborted writes' files. Dev tooling.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { openHms } from '../../adapters/hms/thrift/connection';
import { seedAcid } from './acid';
import type { AcidSeedManifest } from './acid';
import { seedRewriteWarehouse } from './lb-rewrite';
import type { SeedTable } from './manifest';
import { runPython } from './python';
import { deletePrefix, putObject, s3Client } from './s3';
import type { S3Settings } from './s3';
import { partitionObject, tableObject } from './thrift-objects';
import { seedViews } from './views';

export const LB_WAREHOUSE_DB = 'lb_warehouse';
const CREATE_TIME = 1_717_200_000;

/** The path a table should take through `plan --rewrite` (core/report/path.ts's names). */
export type WarehousePath = 'metadata-only' | 'view' | 'insert-only' | 'rewrite' | 'left-out';

export interface WarehouseSeedFile {
  /** s3:// URI. */
  readonly uri: string;
  readonly sha256: string;
  /** Written by an aborted transaction: must not be in the Iceberg table. */
  readonly aborted: boolean;
}

export interface WarehouseSeedTable {
  readonly id: string;
  readonly name: string;
  readonly path: WarehousePath;
  /** For 'left-out': the finding code that keeps it out. */
  readonly code?: string;
  /** Expected content (what Hive reads); absent for views and left-out tables. */
  readonly rows?: number;
  readonly checksum?: string;
  readonly files: readonly WarehouseSeedFile[];
  /** s3:// of the table (null for views). */
  readonly location: string | null;
  /** Views: Hive's expanded text. */
  readonly viewExpandedText?: string;
}

export interface WarehouseSeed {
  readonly database: string;
  readonly bucket: string;
  readonly tables: readonly WarehouseSeedTable[];
}

export interface WarehouseSeedOptions {
  readonly hms: string;
  readonly bucket: string;
  readonly s3: S3Settings;
  readonly python: string;
  readonly log: (m: string) => void;
}

const s3uri = (u: string): string => u.replace(/^s3a:\/\//, 's3://');

const PARQUET = {
  inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
  outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
  serde: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
  serdeParams: { 'serialization.format': '1' },
};
const VIEW_STORAGE = {
  inputFormat: 'org.apache.hadoop.mapred.SequenceFileInputFormat',
  outputFormat: 'org.apache.hadoop.hive.ql.io.HiveSequenceFileOutputFormat',
  serde: null,
  serdeParams: {},
};

function hiveObject(db: string, name: string, over: Partial<SeedTable>): SeedTable {
  return {
    db,
    name,
    kind: 'external',
    tableType: 'EXTERNAL_TABLE',
    format: 'parquet',
    owner: 'seed',
    columns: [],
    partitionKeys: [],
    location: null,
    params: {},
    storage: VIEW_STORAGE,
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
    ...over,
  };
}

/**
 * A Parquet table with a `uniontype` column (Iceberg has no union type: TYPE_UNSUPPORTED, which no rewrite
 * resolves) and a view over it. No files: its class comes from its schema. (A full-ACID table cannot be
 * made here: a standalone HMS without hive-exec refuses transactional=true on ORC; see warehouse.ts.)
 */
function unionAndView(db: string, location: string): [SeedTable, SeedTable] {
  const cols = [
    { name: 'id', type: 'bigint', comment: '' },
    { name: 'u', type: 'uniontype<int,string>', comment: '' },
  ];
  const table = hiveObject(db, 'legacy_union', { columns: cols, location, params: { EXTERNAL: 'TRUE' }, storage: PARQUET });
  const view = hiveObject(db, 'v_legacy_union', {
    kind: 'view',
    tableType: 'VIRTUAL_VIEW',
    format: 'view',
    columns: [cols[0] as SeedTable['columns'][number]],
    viewOriginalText: `SELECT id FROM ${db}.legacy_union WHERE id > 100`,
    viewExpandedText: `SELECT \`legacy_union\`.\`id\` FROM \`${db}\`.\`legacy_union\` WHERE \`legacy_union\`.\`id\` > 100`,
  });
  return [table, view];
}

async function sha256Of(s3: ReturnType<typeof s3Client>, bucket: string, key: string): Promise<string> {
  const r = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return createHash('sha256')
    .update(await (r.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray())
    .digest('hex');
}

type Sums = Record<string, { rows: number; checksum: string }>;

/** The insert-only tables' entries: every write's file, hashed as it sits on S3, aborted ones marked. */
async function acidEntries(o: WarehouseSeedOptions, m: AcidSeedManifest, sums: Sums): Promise<WarehouseSeedTable[]> {
  const s3 = s3Client(o.s3);
  try {
    const out: WarehouseSeedTable[] = [];
    for (const t of m.tables) {
      const files: WarehouseSeedFile[] = [];
      for (const w of t.writes)
        for (const r of w.rows) {
          const key = r.file.replace(/^s3a?:\/\/[^/]+\//, '');
          files.push({ uri: s3uri(r.file), sha256: await sha256Of(s3, o.bucket, key), aborted: w.state === 'aborted' });
        }
      out.push({ id: `${m.database}.${t.name}`, name: t.name, path: 'insert-only', ...sums[t.name], files, location: s3uri(t.location) });
    }
    return out;
  } finally {
    s3.destroy();
  }
}

/** nested_events (from lb_warehouse.py), the union-typed table and the view over it: uploaded and registered. */
async function seedOwnTables(o: WarehouseSeedOptions, nested: SeedTable, work: string, rootKey: string): Promise<SeedTable[]> {
  const s3 = s3Client(o.s3);
  const hms = await openHms(o.hms, { connectTimeoutMs: 10_000, callTimeoutMs: 180_000 });
  try {
    for (const f of nested.files) await putObject(s3, o.bucket, f.key, readFileSync(path.join(work, 'files', f.key)));
    const [union, view] = unionAndView(LB_WAREHOUSE_DB, `s3a://${o.bucket}/${rootKey}/legacy_union`);
    for (const t of [nested, union, view]) await hms.call('create_table', (c) => c.create_table(tableObject(t, CREATE_TIME)));
    const parts = nested.partitions.map((p) => partitionObject(nested, p, CREATE_TIME));
    await hms.call('add_partitions', (c) => c.add_partitions(parts));
    return [nested, union, view];
  } finally {
    hms.close();
    s3.destroy();
  }
}

const fileOf = (f: { location: string; sha256: string }): WarehouseSeedFile => ({
  uri: s3uri(f.location),
  sha256: f.sha256,
  aborted: false,
});

/** Drop `lb_warehouse` (deleteData=false) and seed it again; see the header for what it holds. */
export async function seedLeftBehindWarehouse(o: WarehouseSeedOptions): Promise<WarehouseSeed> {
  const db = LB_WAREHOUSE_DB;
  const common = { hms: o.hms, bucket: o.bucket, s3: o.s3, log: o.log };
  // views.ts drops and creates the database; the others seed into it.
  const views = await seedViews({ ...common, python: o.python, db });
  const acid = await seedAcid({ ...common, python: o.python, database: db, keepDatabase: true, tables: ['io_events', 'io_sales'] });
  const rw = await seedRewriteWarehouse({
    ...common,
    database: db,
    keepDatabase: true,
    tables: ['csv_pipe_header', 'bucketed_ctrl_a', 'subdirs_csv'],
  });
  const work = mkdtempSync(path.join(os.tmpdir(), 'him-seed-lbw-'));
  const rootKey = `lb-wh/${db}`;
  try {
    const s3 = s3Client(o.s3);
    await deletePrefix(s3, o.bucket, `${rootKey}/`).finally(() => s3.destroy());
    writeFileSync(path.join(work, 'acid.json'), JSON.stringify(acid));
    const py = JSON.parse(
      await runPython(o.python, [
        'lb_warehouse.py',
        '--out',
        work,
        '--db',
        db,
        '--bucket',
        o.bucket,
        '--root',
        rootKey,
        '--acid',
        path.join(work, 'acid.json'),
      ]),
    ) as { nested: SeedTable; checksums: Sums };
    const own = await seedOwnTables(o, py.nested, work, rootKey);
    const sums = py.checksums;
    const entry = (t: SeedTable, p: WarehousePath, code?: string): WarehouseSeedTable => ({
      id: `${db}.${t.name}`,
      name: t.name,
      path: p,
      ...(code === undefined ? {} : { code }),
      ...(p === 'view' || p === 'left-out' ? {} : sums[t.name]),
      files: t.files.map(fileOf),
      location: t.location === null ? null : s3uri(t.location),
      ...(t.viewExpandedText === null ? {} : { viewExpandedText: t.viewExpandedText }),
    });
    const [nested, union, unionView] = own as [SeedTable, SeedTable, SeedTable];
    const tables: WarehouseSeedTable[] = [
      ...views.tables.map((t) => entry(t, t.tableType === 'VIRTUAL_VIEW' ? 'view' : t.format === 'text' ? 'rewrite' : 'metadata-only')),
      ...(await acidEntries(o, acid, sums)),
      ...rw.tables.map((t) => ({
        id: t.id,
        name: t.name,
        path: 'rewrite' as const,
        rows: t.rows,
        checksum: t.checksum,
        location: s3uri(t.location),
        files: t.files.map((f) => ({ uri: `s3://${rw.bucket}/${f.key}`, sha256: f.sha256, aborted: false })),
      })),
      entry(nested, 'metadata-only'),
      entry(union, 'left-out', 'TYPE_UNSUPPORTED'),
      entry(unionView, 'left-out', 'VIEW_BASE_NOT_MIGRATED'),
    ];
    o.log(`seeded ${tables.length} tables and views in ${db}`);
    return { database: db, bucket: o.bucket, tables: tables.sort((a, b) => (a.id < b.id ? -1 : 1)) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
