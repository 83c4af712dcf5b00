// The reader-matrix warehouse (test/e2e/reader-matrix.test.ts): generate_matrix.py writes one table
// per encoding key of core/readers/encodings.ts (two files each, footers checked against the key);
// this uploads the files under s3://<bucket>/seed-readers/<db>/ and registers the database and its
// tables in HMS over Thrift, as dev/seed does. Re-seeding drops the database first (deleteData=false)
// and its own S3 prefix. Dev tooling.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openHms } from '../../adapters/hms/thrift/connection';
import type { SeedTable } from '../seed/manifest';
import { deletePrefix, mapLimit, putObject, s3Client } from '../seed/s3';
import type { S3Settings } from '../seed/s3';
import { databaseObject, tableObject } from '../seed/thrift-objects';
import { execFile } from 'node:child_process';

const CREATE_TIME = 1_717_200_000;

/** A predicate on one column with its literal as text, typed by `type` (a Hive type), and the count Hive gives. */
export interface MatrixPredicate {
  readonly column: string;
  readonly op: '>' | '<' | '=' | 'is_null';
  readonly literal: string | null;
  readonly type: string;
  readonly expected: number;
}

export type MatrixTable = SeedTable & { readonly encoding: string; readonly predicates: readonly MatrixPredicate[] };

export interface MatrixSeed {
  readonly database: { readonly name: string; readonly location: string };
  readonly bucket: string;
  readonly rootKey: string;
  readonly tables: readonly MatrixTable[];
}

function python(py: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(py, [path.join(__dirname, 'generate_matrix.py'), ...args], { timeout: 120_000, maxBuffer: 16 << 20 }, (err, _out, stderr) =>
      err ? reject(new Error(`generate_matrix.py failed: ${err.message}\n${stderr}`)) : resolve(),
    );
  });
}

export async function seedMatrix(o: {
  readonly hms: string;
  readonly db: string;
  readonly bucket: string;
  readonly s3: S3Settings;
  readonly python: string;
  readonly keys?: readonly string[];
  readonly log: (m: string) => void;
}): Promise<MatrixSeed> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'him-matrix-'));
  const s3 = s3Client(o.s3);
  const hms = await openHms(o.hms, { connectTimeoutMs: 10_000, callTimeoutMs: 180_000 });
  try {
    await python(o.python, ['--out', work, '--db', o.db, '--bucket', o.bucket, ...(o.keys ? ['--keys', o.keys.join(',')] : [])]);
    const seed = JSON.parse(readFileSync(path.join(work, 'tables.json'), 'utf8')) as MatrixSeed;
    const exists = await hms
      .call('get_database', (c) => c.get_database(o.db))
      .then(
        () => true,
        (e: Error) => {
          if (/NoSuchObjectException/.test(e.message)) return false;
          throw e;
        },
      );
    if (exists) await hms.call('drop_database', (c) => c.drop_database(o.db, false, true));
    await deletePrefix(s3, seed.bucket, `${seed.rootKey}/${o.db}/`);
    const files = seed.tables.flatMap((t) => t.files);
    await mapLimit(files, 8, (f) => putObject(s3, seed.bucket, f.key, readFileSync(path.join(work, 'files', f.key))));
    await hms.call('create_database', (c) => c.create_database(databaseObject(o.db, seed.database.location)));
    for (const t of seed.tables) await hms.call('create_table', (c) => c.create_table(tableObject(t, CREATE_TIME)));
    o.log(`seeded ${seed.tables.length} tables in ${o.db} (${files.length} files)`);
    return seed;
  } finally {
    hms.close();
    s3.destroy();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Drop the database (deleteData=false) and the files under its prefix. */
export async function dropMatrix(o: {
  readonly hms: string;
  readonly db: string;
  readonly bucket: string;
  readonly s3: S3Settings;
}): Promise<void> {
  const s3 = s3Client(o.s3);
  const hms = await openHms(o.hms, { connectTimeoutMs: 10_000, callTimeoutMs: 180_000 });
  try {
    await hms.call('drop_database', (c) => c.drop_database(o.db, false, true)).catch(() => undefined);
    await deletePrefix(s3, o.bucket, `seed-readers/${o.db}/`);
  } finally {
    hms.close();
    s3.destroy();
  }
}
