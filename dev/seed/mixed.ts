// Mixed mode: the rehearsal's warehouse (bench/rehearsal). N tables in one database, half of them
// unpartitioned and half partitioned (1, 2, 4, 5 or 10 partitions), 10–30 tiny Parquet files each
// (20 on average), and B "big" tables of P partitions × 1 file (5,000 by default). The layout is a
// pure function of the table's index, so a table's shape never has to be held in memory: the
// seeder and the benches recompute it. Files go up before a table or partition is registered, with
// fast stats (numFiles, totalSize), as scale mode does. A marker database created last makes the
// next run reuse the warehouse; an interrupted run resumes (existing tables keep what they have,
// missing partitions are added). Dev tooling.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HmsConnection } from '../../adapters/hms/thrift/connection';
import { openHms } from '../../adapters/hms/thrift/connection';
import * as ttypes from '../../thrift-idl/gen/hive_metastore_types';
import type { SeedTable } from './manifest';
import { deletePrefix, mapLimit, putObject, s3Client } from './s3';
import type { S3Settings } from './s3';
import { databaseObject, partitionObject, tableObject } from './thrift-objects';
import { runPython } from './python';
import { parquetSeedTable, partitionOf } from './scale';

export interface MixedOptions {
  readonly hms: string;
  readonly prefix: string;
  readonly bucket: string;
  readonly s3: S3Settings;
  readonly python: string;
  readonly tables: number;
  /** Tables with `bigPartitions` partitions of one file each (the first `big` indexes). */
  readonly big: number;
  readonly bigPartitions: number;
  readonly concurrency: number;
  readonly batch: number;
  readonly force: boolean;
  readonly log: (msg: string) => void;
}

export interface MixedResult {
  readonly status: 'already-seeded' | 'seeded';
  readonly database: string;
  readonly tables: number;
  readonly partitioned: number;
  readonly partitions: number;
  readonly files: number;
  readonly seconds: number;
}

/** One table's shape: `partitions` 0 = unpartitioned (its files directly under its location). */
export interface MixedShape {
  readonly name: string;
  readonly partitions: number;
  readonly filesPerPartition: number;
  readonly files: number;
}

const CALL_TIMEOUT_MS = 180_000;
const CREATE_TIME = 1_717_200_000;
const MIXED_PARAM = 'him.seed.mixed';
const PARTS = [1, 2, 4, 5, 10] as const;
/** In the database's name: a layout change gets a warehouse of its own (layout 1, `mixed`, had 10, 17 or 24 files per table). */
const LAYOUT = 'mixed2';

const pad = (n: number, w: number): string => String(n).padStart(w, '0');

export const mixedTag = (o: Pick<MixedOptions, 'tables' | 'big' | 'bigPartitions'>): string => `${o.tables}x${o.big}x${o.bigPartitions}`;
export const mixedDatabase = (o: Pick<MixedOptions, 'prefix' | 'tables' | 'big' | 'bigPartitions'>): string =>
  `${o.prefix}_${LAYOUT}_${mixedTag(o)}`;
const rootKeyOf = (o: Pick<MixedOptions, 'prefix' | 'tables' | 'big' | 'bigPartitions'>): string =>
  `seed/${o.prefix}/${LAYOUT}_${mixedTag(o)}`;

/** Table `i` of the mixed warehouse: deterministic, 20 files on average outside the big ones. */
export function mixedShape(o: Pick<MixedOptions, 'tables' | 'big' | 'bigPartitions'>, i: number): MixedShape {
  const name = `t${pad(i, String(o.tables - 1).length)}`;
  if (i < o.big) return { name, partitions: o.bigPartitions, filesPerPartition: 1, files: o.bigPartitions };
  const files = 10 + ((i * 13) % 21); // 13 is prime to 21: every count 10-30 equally often
  if (i % 2 === 0) return { name, partitions: 0, filesPerPartition: files, files };
  const partitions = PARTS[Math.floor(i / 2) % PARTS.length] as number;
  const per = Math.max(1, Math.round(files / partitions));
  return { name, partitions, filesPerPartition: per, files: per * partitions };
}

const tableOf = (db: string, root: string, s: MixedShape): SeedTable => parquetSeedTable(db, root, s.name, s.partitions > 0);

const fastStats = (files: number, bytes: number): Record<string, string> => ({
  numFiles: String(files),
  totalSize: String(files * bytes),
  numFilesErasureCoded: '0',
  numRows: String(files),
  rawDataSize: '0',
});

async function dbParams(hms: HmsConnection, name: string): Promise<Record<string, string> | undefined> {
  try {
    return (await hms.call('get_database', (c) => c.get_database(name))).parameters ?? {};
  } catch (e) {
    if (/NoSuchObjectException/.test((e as Error).message)) return undefined;
    throw e;
  }
}

const fileKeys = (bucket: string, dir: string, n: number): string[] =>
  Array.from({ length: n }, (_, f) => `${dir.slice(`s3a://${bucket}/`.length)}/part-${pad(f, 5)}.parquet`);

async function tinyParquet(python: string): Promise<Buffer> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'him-mixed-'));
  try {
    await runPython(python, ['generate.py', '--tiny', path.join(work, 'tiny.parquet')]);
    return readFileSync(path.join(work, 'tiny.parquet'));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function seedOne(hms: HmsConnection, s3: ReturnType<typeof s3Client>, o: MixedOptions, t: SeedTable, s: MixedShape, tiny: Buffer) {
  const exists = await hms
    .call('get_table_req', (c) => c.get_table_req(new ttypes.GetTableRequest({ dbName: t.db, tblName: t.name })))
    .then(
      () => true,
      (e: Error) => {
        if (/NoSuchObjectException/.test(e.message)) return false;
        throw e;
      },
    );
  if (s.partitions === 0) {
    if (exists) return;
    await mapLimit(fileKeys(o.bucket, t.location as string, s.files), 8, (k) => putObject(s3, o.bucket, k, tiny));
    const withStats = { ...t, params: { ...t.params, ...fastStats(s.files, tiny.length) } };
    await hms.call('create_table', (c) => c.create_table(tableObject(withStats, CREATE_TIME)));
    return;
  }
  const have = exists ? new Set(await hms.call('get_partition_names', (c) => c.get_partition_names(t.db, t.name, -1))) : new Set<string>();
  if (!exists) await hms.call('create_table', (c) => c.create_table(tableObject(t, CREATE_TIME)));
  // Partitions in batches: files of a batch first, then one add_partitions (bounded memory for 5,000+).
  const missing = Array.from({ length: s.partitions }, (_, p) => p).filter((p) => !have.has(`p=${p}`));
  for (let i = 0; i < missing.length; i += o.batch) {
    const parts = missing.slice(i, i + o.batch).map((p) => partitionOf(t, p));
    const keys = parts.flatMap((p) => fileKeys(o.bucket, p.location, s.filesPerPartition));
    await mapLimit(keys, 8, (k) => putObject(s3, o.bucket, k, tiny));
    const objs = parts.map((p) => partitionObject(t, p, CREATE_TIME, fastStats(s.filesPerPartition, tiny.length)));
    await hms.call('add_partitions', (c) => c.add_partitions(objs));
  }
}

/** Seed (or reuse, or resume) the mixed warehouse `o` describes. */
export async function seedMixed(o: MixedOptions): Promise<MixedResult> {
  const t0 = performance.now();
  const tag = mixedTag(o);
  const db = mixedDatabase(o);
  const marker = `${db}_complete`;
  const root = `s3a://${o.bucket}/${rootKeyOf(o)}`;
  const totals = { tables: o.tables, partitioned: 0, partitions: 0, files: 0 };
  for (let i = 0; i < o.tables; i++) {
    const s = mixedShape(o, i);
    totals.partitioned += s.partitions > 0 ? 1 : 0;
    totals.partitions += s.partitions;
    totals.files += s.files;
  }
  const seconds = (): number => Number(((performance.now() - t0) / 1000).toFixed(1));
  const first = await openHms(o.hms, { connectTimeoutMs: 10_000, callTimeoutMs: CALL_TIMEOUT_MS });
  try {
    if (!o.force && (await dbParams(first, marker))?.[MIXED_PARAM] === tag) {
      o.log(`mixed warehouse ${db} already seeded (marker ${marker}): reusing it`);
      return { status: 'already-seeded', database: db, ...totals, seconds: seconds() };
    }
    if ((await dbParams(first, db)) === undefined)
      await first.call('create_database', (c) => c.create_database(databaseObject(db, `${root}/${db}.db`, { [MIXED_PARAM]: tag })));
  } finally {
    first.close();
  }
  const s3 = s3Client(o.s3);
  try {
    const tiny = await tinyParquet(o.python);
    let next = 0;
    let done = 0;
    const worker = async (): Promise<void> => {
      const hms = await openHms(o.hms, { connectTimeoutMs: 10_000, callTimeoutMs: CALL_TIMEOUT_MS });
      try {
        while (next < o.tables) {
          const s = mixedShape(o, next++);
          await seedOne(hms, s3, o, tableOf(db, root, s), s, tiny);
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
        c.create_database(databaseObject(marker, `${root}/${marker}.db`, { [MIXED_PARAM]: tag, 'him.seed.seconds': String(seconds()) })),
      );
    } finally {
      marked.close();
    }
  } finally {
    s3.destroy();
  }
  o.log(
    `seeded ${db}: ${totals.tables} tables (${totals.partitioned} partitioned), ${totals.partitions} partitions, ${totals.files} files in ${seconds()} s`,
  );
  return { status: 'seeded', database: db, ...totals, seconds: seconds() };
}

/**
 * Partition `p=<p>` of `files` tiny files added to each of the tables `indexes` of the mixed
 * warehouse (partitioned ones only; a table that has it already is left as it is). Returns how many
 * got it. For the rehearsal's sync round.
 */
export async function addMixedPartition(o: MixedOptions, indexes: readonly number[], p: number, files: number): Promise<number> {
  const db = mixedDatabase(o);
  const root = `s3a://${o.bucket}/${rootKeyOf(o)}`;
  const s3 = s3Client(o.s3);
  let added = 0;
  try {
    const tiny = await tinyParquet(o.python);
    let next = 0;
    const worker = async (): Promise<void> => {
      const hms = await openHms(o.hms, { connectTimeoutMs: 10_000, callTimeoutMs: CALL_TIMEOUT_MS });
      try {
        while (next < indexes.length) {
          const s = mixedShape(o, indexes[next++] as number);
          if (s.partitions === 0) continue;
          const t = tableOf(db, root, s);
          const part = partitionOf(t, p);
          const got = await hms.call('get_partition_names', (c) => c.get_partition_names(t.db, t.name, -1));
          if (got.includes(part.name)) continue;
          await mapLimit(fileKeys(o.bucket, part.location, files), 8, (k) => putObject(s3, o.bucket, k, tiny));
          const obj = partitionObject(t, part, Math.floor(Date.now() / 1000), fastStats(files, tiny.length));
          await hms.call('add_partitions', (c) => c.add_partitions([obj]));
          added++;
        }
      } finally {
        hms.close();
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, worker));
  } finally {
    s3.destroy();
  }
  return added;
}

/** Remove the mixed warehouse: marker first, then the database (deleteData=false), then its S3 prefix. */
export async function dropMixed(o: Pick<MixedOptions, 'hms' | 'prefix' | 'bucket' | 's3' | 'tables' | 'big' | 'bigPartitions' | 'log'>) {
  const db = mixedDatabase(o);
  const hms = await openHms(o.hms, { connectTimeoutMs: 10_000, callTimeoutMs: 600_000 });
  const s3 = s3Client(o.s3);
  try {
    for (const name of [`${db}_complete`, db])
      if ((await dbParams(hms, name)) !== undefined) await hms.call('drop_database', (c) => c.drop_database(name, false, true));
    const n = await deletePrefix(s3, o.bucket, `${rootKeyOf(o)}/`);
    o.log(`dropped ${db} and ${n} object(s) under s3://${o.bucket}/${rootKeyOf(o)}/`);
  } finally {
    hms.close();
    s3.destroy();
  }
}
