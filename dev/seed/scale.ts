// Scale mode: N tables × M partitions × K tiny Parquet files in one database, for metadata-heavy
// benchmarks. Parallel (C Thrift connections, each taking the next table), add_partitions in
// batches, files uploaded before a partition is registered and fast stats (numFiles, totalSize)
// sent with it, so HMS neither creates the directory nor lists it. A marker database created last
// makes the next run reuse the warehouse; an interrupted run resumes (existing tables keep their
// partitions, missing ones are added). Dev tooling.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HmsConnection } from '../../adapters/hms/thrift/connection';
import { openHms } from '../../adapters/hms/thrift/connection';
import type { SeedPartition, SeedTable } from './manifest';
import { deletePrefix, mapLimit, putObject, s3Client } from './s3';
import type { S3Settings } from './s3';
import { databaseObject, partitionObject, tableObject } from './thrift-objects';
import { runPython } from './python';

export interface ScaleOptions {
  readonly hms: string;
  readonly prefix: string;
  readonly bucket: string;
  readonly s3: S3Settings;
  readonly python: string;
  readonly tables: number;
  readonly partitions: number;
  readonly files: number;
  readonly concurrency: number;
  readonly batch: number;
  readonly force: boolean;
  readonly log: (msg: string) => void;
}

export interface ScaleResult {
  readonly status: 'already-seeded' | 'seeded';
  readonly database: string;
  readonly tables: number;
  readonly partitions: number;
  readonly files: number;
  readonly seconds: number;
  readonly phases?: { readonly listSeconds: number; readonly seedSeconds: number };
}

const CALL_TIMEOUT_MS = 180_000;
const CREATE_TIME = 1_717_200_000;
const SCALE_PARAM = 'him.seed.scale';

const pad = (n: number, w: number): string => String(n).padStart(w, '0');

/** A tiny Parquet table of the scale and mixed warehouses: (id bigint, v string), partitioned by p int or not. */
export function parquetSeedTable(db: string, root: string, name: string, partitioned: boolean): SeedTable {
  return {
    db,
    name,
    kind: 'external',
    tableType: 'EXTERNAL_TABLE',
    format: 'parquet',
    owner: 'him-seed',
    columns: [
      { name: 'id', type: 'bigint', comment: '' },
      { name: 'v', type: 'string', comment: '' },
    ],
    partitionKeys: partitioned ? [{ name: 'p', type: 'int', comment: '' }] : [],
    location: `${root}/${name}`,
    params: { EXTERNAL: 'TRUE' },
    storage: {
      inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
      outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
      serde: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
      serdeParams: { 'serialization.format': '1' },
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
    hints: ['metadata-only'],
  };
}

function scaleTable(db: string, root: string, i: number, width: number): SeedTable {
  return parquetSeedTable(db, root, `t${pad(i, width)}`, true);
}

/** Partition p=<p> of a table of those warehouses. */
export const partitionOf = (t: SeedTable, p: number): SeedPartition => ({
  values: [String(p)],
  hmsValues: [String(p)],
  name: `p=${p}`,
  location: `${t.location}/p=${p}`,
  columns: null,
  files: [],
  rows: 0,
});

async function dbParams(hms: HmsConnection, name: string): Promise<Record<string, string> | undefined> {
  try {
    return (await hms.call('get_database', (c) => c.get_database(name))).parameters ?? {};
  } catch (e) {
    if (/NoSuchObjectException/.test((e as Error).message)) return undefined;
    throw e;
  }
}

export async function seedScale(o: ScaleOptions): Promise<ScaleResult> {
  const t0 = performance.now();
  const tag = `${o.tables}x${o.partitions}x${o.files}`;
  const db = `${o.prefix}_scale_${tag}`;
  const marker = `${db}_complete`;
  const rootKey = `seed/${o.prefix}/scale_${tag}`;
  const root = `s3a://${o.bucket}/${rootKey}`;
  const totals = { tables: o.tables, partitions: o.tables * o.partitions, files: o.tables * o.partitions * o.files };
  const seconds = (): number => Number(((performance.now() - t0) / 1000).toFixed(1));

  const first = await openHms(o.hms, { connectTimeoutMs: 10_000, callTimeoutMs: CALL_TIMEOUT_MS });
  let existing = new Set<string>();
  try {
    if (!o.force && (await dbParams(first, marker))?.[SCALE_PARAM] === tag) {
      o.log(`scale warehouse ${db} already seeded (marker ${marker}): reusing it`);
      return { status: 'already-seeded', database: db, ...totals, seconds: seconds() };
    }
    if ((await dbParams(first, db)) === undefined) {
      await first.call('create_database', (c) => c.create_database(databaseObject(db, `${root}/${db}.db`, { [SCALE_PARAM]: tag })));
    } else {
      existing = new Set(await first.call('get_all_tables', (c) => c.get_all_tables(db)));
      o.log(`resuming ${db}: ${existing.size} table(s) already there`);
    }
  } finally {
    first.close();
  }
  const tListed = performance.now();

  const work = mkdtempSync(path.join(os.tmpdir(), 'him-scale-'));
  const s3 = s3Client(o.s3);
  try {
    await runPython(o.python, ['generate.py', '--tiny', path.join(work, 'tiny.parquet')]);
    const tiny = readFileSync(path.join(work, 'tiny.parquet'));
    const width = String(o.tables - 1).length;
    let next = 0;
    let done = 0;
    const worker = async (): Promise<void> => {
      const hms = await openHms(o.hms, { connectTimeoutMs: 10_000, callTimeoutMs: CALL_TIMEOUT_MS });
      try {
        while (next < o.tables) {
          const t = scaleTable(db, root, next++, width);
          await seedOneTable(hms, s3, o, t, tiny, existing.has(t.name));
          if (++done % 500 === 0) o.log(`${done}/${o.tables} tables (${seconds()} s)`);
        }
      } finally {
        hms.close();
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, worker));
    const marked = await openHms(o.hms, { connectTimeoutMs: 10_000, callTimeoutMs: CALL_TIMEOUT_MS });
    try {
      await marked.call('create_database', (c) =>
        c.create_database(databaseObject(marker, `${root}/${marker}.db`, { [SCALE_PARAM]: tag, 'him.seed.seconds': String(seconds()) })),
      );
    } finally {
      marked.close();
    }
  } finally {
    s3.destroy();
    rmSync(work, { recursive: true, force: true });
  }
  const listSeconds = Number(((tListed - t0) / 1000).toFixed(1));
  o.log(
    `seeded ${db}: ${totals.tables} tables, ${totals.partitions} partitions, ${totals.files} files in ${seconds()} s (concurrency ${o.concurrency}, batch ${o.batch})`,
  );
  return {
    status: 'seeded',
    database: db,
    ...totals,
    seconds: seconds(),
    phases: { listSeconds, seedSeconds: Number((seconds() - listSeconds).toFixed(1)) },
  };
}

async function seedOneTable(
  hms: HmsConnection,
  s3: ReturnType<typeof s3Client>,
  o: ScaleOptions,
  t: SeedTable,
  tiny: Buffer,
  exists: boolean,
): Promise<void> {
  let have = new Set<string>();
  if (exists) have = new Set(await hms.call('get_partition_names', (c) => c.get_partition_names(t.db, t.name, -1)));
  const missing = Array.from({ length: o.partitions }, (_, p) => partitionOf(t, p)).filter((p) => !have.has(p.name));
  if (exists && missing.length === 0) return;
  // Files first: HMS then finds each partition directory present and does not create a marker.
  const keys = missing.flatMap((p) =>
    Array.from({ length: o.files }, (_, f) => `${p.location.slice(`s3a://${o.bucket}/`.length)}/part-${pad(f, 5)}.parquet`),
  );
  await mapLimit(keys, 8, (k) => putObject(s3, o.bucket, k, tiny));
  if (!exists) await hms.call('create_table', (c) => c.create_table(tableObject(t, CREATE_TIME)));
  // Fast stats present: HMS skips listing each new partition (MetaStoreServerUtils.updatePartitionStatsFast).
  const stats = {
    numFiles: String(o.files),
    totalSize: String(o.files * tiny.length),
    numFilesErasureCoded: '0',
    numRows: String(o.files),
    rawDataSize: '0',
  };
  for (let i = 0; i < missing.length; i += o.batch) {
    const parts = missing.slice(i, i + o.batch).map((p) => partitionObject(t, p, CREATE_TIME, stats));
    await hms.call('add_partitions', (c) => c.add_partitions(parts));
  }
}

/** Remove a scale warehouse: marker first, then the database (deleteData=false), then its S3 prefix. */
export async function dropScale(
  o: Pick<ScaleOptions, 'hms' | 'prefix' | 'bucket' | 's3' | 'tables' | 'partitions' | 'files' | 'log'>,
): Promise<void> {
  const tag = `${o.tables}x${o.partitions}x${o.files}`;
  const db = `${o.prefix}_scale_${tag}`;
  const hms = await openHms(o.hms, { connectTimeoutMs: 10_000, callTimeoutMs: 600_000 });
  const s3 = s3Client(o.s3);
  try {
    for (const name of [`${db}_complete`, db]) {
      if ((await dbParams(hms, name)) !== undefined) await hms.call('drop_database', (c) => c.drop_database(name, false, true));
    }
    const n = await deletePrefix(s3, o.bucket, `seed/${o.prefix}/scale_${tag}/`);
    o.log(`dropped ${db} and ${n} object(s) under s3://${o.bucket}/seed/${o.prefix}/scale_${tag}/`);
  } finally {
    hms.close();
    s3.destroy();
  }
}

/**
 * One more partition `p=<p>` with `o.files` tiny Parquet files in every table of the scale
 * warehouse `o` describes (seeded already): files uploaded first, then one add_partitions per
 * table (fast stats sent, as seedScale does). A table that has the partition already is left as
 * it is (a rerun after an interruption). Only the first `count` tables with `count`. For the sync bench: what a day of new data looks like on
 * the Hive side of 1,000 migrated tables. Returns the tables that got the partition.
 */
export async function addScalePartition(o: ScaleOptions, p: number, seededPartitions: number, count = o.tables): Promise<number> {
  const tag = `${o.tables}x${seededPartitions}x${o.files}`;
  const db = `${o.prefix}_scale_${tag}`;
  const root = `s3a://${o.bucket}/seed/${o.prefix}/scale_${tag}`;
  const work = mkdtempSync(path.join(os.tmpdir(), 'him-scale-'));
  const s3 = s3Client(o.s3);
  let added = 0;
  try {
    await runPython(o.python, ['generate.py', '--tiny', path.join(work, 'tiny.parquet')]);
    const tiny = readFileSync(path.join(work, 'tiny.parquet'));
    const width = String(o.tables - 1).length;
    const stats = {
      numFiles: String(o.files),
      totalSize: String(o.files * tiny.length),
      numFilesErasureCoded: '0',
      numRows: String(o.files),
      rawDataSize: '0',
    };
    let next = 0;
    const worker = async (): Promise<void> => {
      const hms = await openHms(o.hms, { connectTimeoutMs: 10_000, callTimeoutMs: CALL_TIMEOUT_MS });
      try {
        while (next < count) {
          const t = scaleTable(db, root, next++, width);
          const part = partitionOf(t, p);
          const have = new Set(await hms.call('get_partition_names', (c) => c.get_partition_names(t.db, t.name, -1)));
          if (have.has(part.name)) continue;
          const keys = Array.from(
            { length: o.files },
            (_, f) => `${part.location.slice(`s3a://${o.bucket}/`.length)}/part-${pad(f, 5)}.parquet`,
          );
          await mapLimit(keys, 8, (k) => putObject(s3, o.bucket, k, tiny));
          await hms.call('add_partitions', (c) => c.add_partitions([partitionObject(t, part, Math.floor(Date.now() / 1000), stats)]));
          added++;
        }
      } finally {
        hms.close();
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, worker));
  } finally {
    s3.destroy();
    rmSync(work, { recursive: true, force: true });
  }
  return added;
}
