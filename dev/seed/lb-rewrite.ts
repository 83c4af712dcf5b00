// The rewrite path's warehouse: database `lb_rewrite` with tables only a rewrite
// migrates — a '|'-delimited text table with a header line (partitioned), a bucketed text table with
// Hive's default ^A delimiter, an OpenCSVSerde table whose files sit in sub-directories, and a JSON
// table. Deterministic rows; each table's expected row count and canonical.py content checksum are
// computed here from the rows written (the Hive content the rewrite must reproduce). Dev tooling.
import { createHash } from 'node:crypto';
import type { HmsConnection } from '../../adapters/hms/thrift/connection';
import { openHms } from '../../adapters/hms/thrift/connection';
import type { SeedColumn, SeedPartition, SeedTable } from './manifest';
import { deletePrefix, putObject, s3Client } from './s3';
import type { S3Settings } from './s3';
import { databaseObject, partitionObject, tableObject } from './thrift-objects';

export const LB_REWRITE_DB = 'lb_rewrite';
const TEXT_IN = 'org.apache.hadoop.mapred.TextInputFormat';
const TEXT_OUT = 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat';
const LAZY = 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe';
const CREATE_TIME = 1_717_200_000;

type Value = string | number | null;
type Row = Record<string, Value>;

export interface RewriteSeedFile {
  readonly key: string;
  readonly sha256: string;
  readonly size: number;
}

export interface RewriteSeedTable {
  readonly id: string;
  readonly name: string;
  readonly rows: number;
  /** canonical.py: sha256 over the sorted canonical JSON lines of every row (columns + partition columns). */
  readonly checksum: string;
  readonly bytes: number;
  readonly files: readonly RewriteSeedFile[];
  readonly location: string;
}

export interface RewriteSeedManifest {
  readonly database: string;
  readonly bucket: string;
  readonly rootKey: string;
  readonly tables: readonly RewriteSeedTable[];
}

/** canonical.py's canonical JSON for rows of ints (|v| < 2^53), ASCII strings and nulls: sorted keys, no spaces. */
export function canonicalLine(row: Row): string {
  const keys = Object.keys(row).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(row[k])}`).join(',')}}`;
}

export function contentChecksum(rows: readonly Row[]): string {
  const lines = rows.map(canonicalLine).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(lines.join('\n'), 'utf8').digest('hex');
}

const col = (name: string, type: string): SeedColumn => ({ name, type, comment: '' });

interface Draft {
  readonly name: string;
  readonly columns: readonly SeedColumn[];
  readonly partitionKeys: readonly SeedColumn[];
  readonly serde: string;
  readonly serdeParams: Record<string, string>;
  readonly params: Record<string, string>;
  readonly numBuckets: number;
  readonly bucketCols: readonly string[];
  /** Relative key under the table (or partition) directory → file body; with the rows it holds. */
  readonly parts: readonly { values: readonly string[]; files: readonly { rel: string; body: string }[] }[];
  readonly rows: readonly Row[];
}

function csvPipe(): Draft {
  const rows: Row[] = [];
  const parts = ['2024-01-01', '2024-01-02'].map((dt, p) => {
    const lines = ['id|name|amount'];
    for (let i = 0; i < 50; i++) {
      const id = p * 100 + i;
      const name = i === 7 ? '' : `name ${id}, with comma`;
      const amount = i === 3 ? null : id * 1_000_003;
      rows.push({ id, name, amount, dt });
      lines.push(`${id}|${name}|${amount === null ? '\\N' : amount}`);
    }
    return {
      values: [dt],
      files: [
        { rel: '000000_0', body: `${lines.join('\n')}\n` },
        { rel: '_SUCCESS', body: '' },
      ],
    };
  });
  return {
    name: 'csv_pipe_header',
    columns: [col('id', 'int'), col('name', 'string'), col('amount', 'bigint')],
    partitionKeys: [col('dt', 'string')],
    serde: LAZY,
    serdeParams: { 'field.delim': '|', 'serialization.format': '|' },
    params: { EXTERNAL: 'TRUE', 'skip.header.line.count': '1' },
    numBuckets: -1,
    bucketCols: [],
    parts,
    rows,
  };
}

function bucketed(): Draft {
  const rows: Row[] = [];
  const buckets: string[][] = [[], [], [], []];
  for (let id = 0; id < 60; id++) {
    const row = { id, city: ['Oslo', 'Lima', 'Pune', 'Kyiv', 'Baku'][id % 5] ?? '', score: (id * 37) % 101 };
    rows.push(row);
    buckets[id % 4]?.push(`${row.id}\u0001${row.city}\u0001${row.score}`);
  }
  const files = buckets.map((lines, b) => ({ rel: `00000${b}_0`, body: `${lines.join('\n')}\n` }));
  return {
    name: 'bucketed_ctrl_a',
    columns: [col('id', 'int'), col('city', 'string'), col('score', 'int')],
    partitionKeys: [],
    serde: LAZY,
    serdeParams: { 'serialization.format': '1' },
    params: { EXTERNAL: 'TRUE' },
    numBuckets: 4,
    bucketCols: ['id'],
    parts: [{ values: [], files }],
    rows,
  };
}

function subdirsCsv(): Draft {
  const rows: Row[] = [];
  const groups: string[][] = [[], []];
  for (let i = 0; i < 40; i++) {
    const row = { id: String(i), note: `note ${i}; semi ${i % 3}` };
    rows.push(row);
    groups[i % 2]?.push(`'${row.id}';'${row.note}'`);
  }
  return {
    name: 'subdirs_csv',
    columns: [col('id', 'string'), col('note', 'string')],
    partitionKeys: [],
    serde: 'org.apache.hadoop.hive.serde2.OpenCSVSerde',
    serdeParams: { separatorChar: ';', quoteChar: "'" },
    params: { EXTERNAL: 'TRUE' },
    numBuckets: -1,
    bucketCols: [],
    parts: [
      {
        values: [],
        files: [
          { rel: 'HIVE_UNION_SUBDIR_1/000000_0', body: `${(groups[0] ?? []).join('\n')}\n` },
          { rel: 'HIVE_UNION_SUBDIR_2/nested/000000_0', body: `${(groups[1] ?? []).join('\n')}\n` },
        ],
      },
    ],
    rows,
  };
}

function jsonEvents(): Draft {
  const rows: Row[] = [];
  const lines: string[] = [];
  for (let id = 0; id < 30; id++) {
    const row = { id, kind: id % 4 === 0 ? null : `k${id % 4}`, region: 'eu' };
    rows.push(row);
    lines.push(JSON.stringify(row.kind === null ? { id } : { id, kind: row.kind }));
  }
  return {
    name: 'json_events',
    columns: [col('id', 'int'), col('kind', 'string')],
    partitionKeys: [col('region', 'string')],
    serde: 'org.apache.hive.hcatalog.data.JsonSerDe',
    serdeParams: {},
    params: { EXTERNAL: 'TRUE' },
    numBuckets: -1,
    bucketCols: [],
    parts: [{ values: ['eu'], files: [{ rel: 'part-00000.json', body: `${lines.join('\n')}\n` }] }],
    rows,
  };
}

export const DRAFTS: readonly (() => Draft)[] = [csvPipe, bucketed, subdirsCsv, jsonEvents];

function seedTable(d: Draft, bucket: string, rootKey: string, db: string): { table: SeedTable; files: { key: string; body: string }[] } {
  const location = `s3a://${bucket}/${rootKey}/${d.name}`;
  const files: { key: string; body: string }[] = [];
  const partitions: SeedPartition[] = [];
  for (const p of d.parts) {
    const dir = p.values.length === 0 ? '' : `/${d.partitionKeys.map((k, i) => `${k.name}=${p.values[i] ?? ''}`).join('/')}`;
    for (const f of p.files) files.push({ key: `${rootKey}/${d.name}${dir}/${f.rel}`, body: f.body });
    if (p.values.length > 0)
      partitions.push({
        values: p.values,
        hmsValues: p.values,
        name: dir.slice(1),
        location: `${location}${dir}`,
        columns: null,
        files: [],
        rows: 0,
      });
  }
  const table: SeedTable = {
    db,
    name: d.name,
    kind: 'external',
    tableType: 'EXTERNAL_TABLE',
    format: 'text',
    owner: 'seed',
    columns: d.columns,
    partitionKeys: d.partitionKeys,
    location,
    params: d.params,
    storage: { inputFormat: TEXT_IN, outputFormat: TEXT_OUT, serde: d.serde, serdeParams: d.serdeParams },
    numBuckets: d.numBuckets,
    bucketCols: d.bucketCols,
    sortCols: [],
    skew: null,
    viewOriginalText: null,
    viewExpandedText: null,
    partitions,
    files: [],
    rows: d.rows.length,
    checksum: contentChecksum(d.rows),
    hints: ['rewrite-required'],
  };
  return { table, files };
}

async function dropDb(hms: HmsConnection, db: string): Promise<void> {
  try {
    await hms.call('drop_database', (c) => c.drop_database(db, false, true));
  } catch (e) {
    if (!/NoSuchObjectException/.test((e as Error).message)) throw e;
  }
}

export interface RewriteSeedOptions {
  readonly hms: string;
  readonly bucket: string;
  readonly s3: S3Settings;
  readonly log: (m: string) => void;
  /** The database (default `lb_rewrite`). */
  readonly database?: string;
  /** Seed into an existing database (another seed module made it; dev/seed/lb-warehouse.ts): no drop, no create. */
  readonly keepDatabase?: boolean;
  /** Only these tables (default all: csv_pipe_header, bucketed_ctrl_a, subdirs_csv, json_events). */
  readonly tables?: readonly string[];
}

/** Drop and seed `lb_rewrite` (or `database`) again (HMS drop with deleteData=false, then only our S3 prefix). */
export async function seedRewriteWarehouse(o: RewriteSeedOptions): Promise<RewriteSeedManifest> {
  const db = o.database ?? LB_REWRITE_DB;
  const rootKey = `lb/${db}`;
  const s3 = s3Client(o.s3);
  const hms = await openHms(o.hms, { connectTimeoutMs: 10_000, callTimeoutMs: 180_000 });
  try {
    if (o.keepDatabase !== true) await dropDb(hms, db);
    await deletePrefix(s3, o.bucket, `${rootKey}/`);
    if (o.keepDatabase !== true)
      await hms.call('create_database', (c) => c.create_database(databaseObject(db, `s3a://${o.bucket}/${rootKey}`)));
    const tables: RewriteSeedTable[] = [];
    for (const d of DRAFTS.map((make) => make()).filter((x) => o.tables === undefined || o.tables.includes(x.name))) {
      const { table, files } = seedTable(d, o.bucket, rootKey, db);
      for (const f of files) await putObject(s3, o.bucket, f.key, Buffer.from(f.body, 'utf8'));
      await hms.call('create_table', (c) => c.create_table(tableObject(table, CREATE_TIME)));
      if (table.partitions.length > 0) {
        const parts = table.partitions.map((p) => partitionObject(table, p, CREATE_TIME));
        await hms.call('add_partitions', (c) => c.add_partitions(parts));
      }
      const seeded = files.map((f) => ({
        key: f.key,
        sha256: createHash('sha256').update(f.body).digest('hex'),
        size: Buffer.byteLength(f.body),
      }));
      tables.push({
        id: `${db}.${d.name}`,
        name: d.name,
        rows: d.rows.length,
        checksum: table.checksum ?? '',
        bytes: seeded.reduce((n, f) => n + f.size, 0),
        files: seeded,
        location: table.location ?? '',
      });
    }
    o.log(`seeded ${tables.length} rewrite tables in ${db}`);
    return { database: db, bucket: o.bucket, rootKey, tables };
  } finally {
    hms.close();
    s3.destroy();
  }
}
