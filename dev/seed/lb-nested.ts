// The nested schema evolution warehouse (`dev/seed/main.ts --left-behind nested`):
// lb_nested.py writes Parquet tables whose old partition keeps an older nested schema (struct field
// added / reordered / promoted, list and map value structs that gained a field, a case-variant
// nested name, an undeclared footer column, one incompatible change) with each table's Hive content
// checksum; this uploads the files and registers database, tables and partitions (each partition
// with its own columns, as Hive leaves it after ALTER TABLE without CASCADE). Re-seeding drops the
// database first (deleteData=false) and its own S3 prefix. Dev tooling.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openHms } from '../../adapters/hms/thrift/connection';
import type { SeedTable } from './manifest';
import { runPython } from './python';
import { deletePrefix, mapLimit, putObject, s3Client } from './s3';
import type { S3Settings } from './s3';
import { databaseObject, partitionObject, tableObject } from './thrift-objects';

export const LB_NESTED_DB = 'lb_nested';
const CREATE_TIME = 1_717_200_000;

export interface NestedSeed {
  readonly database: { readonly name: string; readonly location: string };
  readonly bucket: string;
  readonly rootKey: string;
  readonly tables: readonly SeedTable[];
}

export async function seedNested(o: {
  hms: string;
  db?: string;
  bucket: string;
  s3: S3Settings;
  python: string;
  log: (m: string) => void;
}): Promise<NestedSeed> {
  const db = o.db ?? LB_NESTED_DB;
  const work = mkdtempSync(path.join(os.tmpdir(), 'him-seed-nested-'));
  const s3 = s3Client(o.s3);
  const hms = await openHms(o.hms, { connectTimeoutMs: 10_000, callTimeoutMs: 180_000 });
  try {
    await runPython(o.python, ['lb_nested.py', '--out', work, '--db', db, '--bucket', o.bucket]);
    const seed = JSON.parse(readFileSync(path.join(work, 'tables.json'), 'utf8')) as NestedSeed;
    // get_database first: HMS 3.1.3 answers drop_database of a missing database with a MetaException (NPE).
    const exists = await hms
      .call('get_database', (c) => c.get_database(db))
      .then(
        () => true,
        (e: Error) => {
          if (/NoSuchObjectException/.test(e.message)) return false;
          throw e;
        },
      );
    if (exists) {
      await hms.call('drop_database', (c) => c.drop_database(db, false, true));
      o.log(`dropped database ${db} (deleteData=false)`);
    }
    await deletePrefix(s3, seed.bucket, `${seed.rootKey}/${db}/`);
    const files = seed.tables.flatMap((t) => t.files);
    await mapLimit(files, 8, (f) => putObject(s3, seed.bucket, f.key, readFileSync(path.join(work, 'files', f.key))));
    await hms.call('create_database', (c) => c.create_database(databaseObject(db, seed.database.location)));
    for (const t of seed.tables) {
      await hms.call('create_table', (c) => c.create_table(tableObject(t, CREATE_TIME)));
      const parts = t.partitions.map((p) => partitionObject(t, p, CREATE_TIME));
      if (parts.length > 0) await hms.call('add_partitions', (c) => c.add_partitions(parts));
    }
    o.log(`seeded ${seed.tables.length} tables in ${db} (${files.length} files)`);
    return seed;
  } finally {
    hms.close();
    s3.destroy();
    rmSync(work, { recursive: true, force: true });
  }
}
