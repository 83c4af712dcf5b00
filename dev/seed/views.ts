// The views warehouse (`dev/seed/main.ts --views <db>`): views.py writes two Parquet
// tables, a CSV table and three Hive views (one over a table, one over that view and the other
// table, one over the CSV table); this uploads the files and registers them in HMS, tables before
// views. Re-seeding drops the database first (deleteData=false) and its own S3 prefix. Dev tooling.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openHms } from '../../adapters/hms/thrift/connection';
import type { SeedTable } from './manifest';
import { runPython } from './python';
import { deletePrefix, mapLimit, putObject, s3Client } from './s3';
import type { S3Settings } from './s3';
import { databaseObject, tableObject } from './thrift-objects';

export interface ViewsSeed {
  readonly database: { readonly name: string; readonly location: string };
  readonly bucket: string;
  readonly rootKey: string;
  readonly tables: readonly SeedTable[];
}

const CREATE_TIME = 1_717_200_000;

export async function seedViews(o: {
  hms: string;
  db: string;
  bucket: string;
  s3: S3Settings;
  python: string;
  log: (m: string) => void;
}): Promise<ViewsSeed> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'him-seed-views-'));
  const s3 = s3Client(o.s3);
  const hms = await openHms(o.hms, { connectTimeoutMs: 10_000, callTimeoutMs: 180_000 });
  try {
    await runPython(o.python, ['views.py', '--out', work, '--db', o.db, '--bucket', o.bucket]);
    const seed = JSON.parse(readFileSync(path.join(work, 'tables.json'), 'utf8')) as ViewsSeed;
    try {
      await hms.call('drop_database', (c) => c.drop_database(o.db, false, true));
      o.log(`dropped database ${o.db} (deleteData=false)`);
    } catch (e) {
      if (!/NoSuchObjectException/.test((e as Error).message)) throw e;
    }
    await deletePrefix(s3, seed.bucket, `${seed.rootKey}/`);
    const files = seed.tables.flatMap((t) => t.files);
    await mapLimit(files, 8, (f) => putObject(s3, seed.bucket, f.key, readFileSync(path.join(work, 'files', f.key))));
    await hms.call('create_database', (c) => c.create_database(databaseObject(o.db, seed.database.location)));
    const ordered = [
      ...seed.tables.filter((t) => t.tableType !== 'VIRTUAL_VIEW'),
      ...seed.tables.filter((t) => t.tableType === 'VIRTUAL_VIEW'),
    ];
    for (const t of ordered) await hms.call('create_table', (c) => c.create_table(tableObject(t, CREATE_TIME)));
    o.log(`seeded ${seed.tables.length} tables/views in ${o.db} (${files.length} files)`);
    return seed;
  } finally {
    hms.close();
    s3.destroy();
    rmSync(work, { recursive: true, force: true });
  }
}
