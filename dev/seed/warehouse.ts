// Seed the realistic warehouse: generate (Python, deterministic) → upload files → register in HMS.
// Idempotent: a marker database created last carries the manifest hash; the same hash means
// "already seeded", anything else (or a half-made run) is dropped (deleteData=false) and the
// seeder's own S3 prefix deleted before seeding again. Dev tooling.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HmsConnection } from '../../adapters/hms/thrift/connection';
import { openHms } from '../../adapters/hms/thrift/connection';
import { MANIFEST_HASH_PARAM, markerDatabase, readManifest } from './manifest';
import type { SeedManifest, SeedTable } from './manifest';
import { deletePrefix, mapLimit, putObject, s3Client } from './s3';
import type { S3Settings } from './s3';
import { databaseObject, partitionObject, tableObject } from './thrift-objects';
import { runPython } from './python';

export interface SeedOptions {
  readonly hms: string;
  readonly seed: number;
  readonly prefix: string;
  readonly bucket: string;
  readonly s3: S3Settings;
  readonly python: string;
  /** Also seed `<prefix>_lb_readers` (reader-limit cases: Parquet FLOAT files under a Hive double). */
  readonly readers?: boolean;
  /** Drop and seed again even when the marker says this manifest is already there. */
  readonly force: boolean;
  readonly log: (msg: string) => void;
}

/** A table HMS refused, and what the seeder registered instead. */
export interface Refusal {
  readonly table: string;
  readonly error: string;
  readonly fallback: string;
}

export interface SeedResult {
  readonly manifest: SeedManifest;
  readonly manifestText: string;
  readonly manifestSha256: string;
  readonly status: 'already-seeded' | 'seeded';
  readonly refused: readonly Refusal[];
  readonly seconds: number;
}

// The first S3 call after an HMS start takes tens of seconds (S3A set-up).
const CALL_TIMEOUT_MS = 180_000;
/** Fixed create time: HMS may overwrite it, but what we send is deterministic. */
const CREATE_TIME = 1_717_200_000;

async function getDatabaseParams(hms: HmsConnection, name: string): Promise<Record<string, string> | undefined> {
  try {
    return (await hms.call('get_database', (c) => c.get_database(name))).parameters ?? {};
  } catch (e) {
    if (/NoSuchObjectException/.test((e as Error).message)) return undefined;
    throw e;
  }
}

async function dropIfPresent(hms: HmsConnection, db: string): Promise<boolean> {
  if ((await getDatabaseParams(hms, db)) === undefined) return false;
  // deleteData=false: HMS must not touch the files; the seeder deletes only its own prefix.
  await hms.call('drop_database', (c) => c.drop_database(db, false, true));
  return true;
}

/** Create one table; a table HMS refuses (full ACID without hive-exec) falls back as documented. */
async function createTable(hms: HmsConnection, t: SeedTable, refused: Refusal[]): Promise<void> {
  try {
    await hms.call('create_table', (c) => c.create_table(tableObject(t, CREATE_TIME)));
  } catch (e) {
    const msg = (e as Error).message;
    if (t.kind !== 'acid' || !/ACID compliant format|transactional/i.test(msg)) throw e;
    // A standalone HMS cannot load OrcInputFormat/AcidOutputFormat (hive-exec), so its
    // TransactionalValidationListener refuses transactional=true. Register the same files and
    // layout as a plain managed ORC table, and say so in the result.
    const params = { ...t.params, 'him.seed.intended': 'transactional=true', 'him.seed.refused': msg.slice(0, 200) };
    delete (params as Record<string, string>).transactional;
    delete (params as Record<string, string>).transactional_properties;
    await hms.call('create_table', (c) => c.create_table(tableObject({ ...t, params }, CREATE_TIME)));
    refused.push({
      table: `${t.db}.${t.name}`,
      error: msg,
      fallback: 'MANAGED_TABLE ORC without transactional params (ACID directory layout kept)',
    });
  }
}

async function register(hms: HmsConnection, m: SeedManifest, refused: Refusal[]): Promise<void> {
  for (const d of m.databases) await hms.call('create_database', (c) => c.create_database(databaseObject(d.name, d.location)));
  // Tables before views; views in manifest order (a view on a view comes after its base).
  const ordered = [...m.tables.filter((t) => t.tableType !== 'VIRTUAL_VIEW'), ...m.tables.filter((t) => t.tableType === 'VIRTUAL_VIEW')];
  for (const t of ordered) {
    await createTable(hms, t, refused);
    if (t.partitions.length > 0) {
      const parts = t.partitions.map((p) => partitionObject(t, p, CREATE_TIME));
      await hms.call('add_partitions', (c) => c.add_partitions(parts));
    }
  }
}

function generateArgs(o: Pick<SeedOptions, 'seed' | 'prefix' | 'bucket' | 'readers'>, work: string): string[] {
  return [
    'generate.py',
    '--out',
    work,
    '--seed',
    String(o.seed),
    '--prefix',
    o.prefix,
    '--bucket',
    o.bucket,
    ...(o.readers ? ['--readers'] : []),
  ];
}

export async function seedWarehouse(o: SeedOptions): Promise<SeedResult> {
  const t0 = performance.now();
  const work = mkdtempSync(path.join(os.tmpdir(), 'him-seed-'));
  const s3 = s3Client(o.s3);
  const hms = await openHms(o.hms, { connectTimeoutMs: 10_000, callTimeoutMs: CALL_TIMEOUT_MS });
  try {
    await runPython(o.python, generateArgs(o, work));
    const { manifest, text, sha256 } = readManifest(path.join(work, 'manifest.json'));
    const marker = markerDatabase(o.prefix);
    const seconds = (): number => (performance.now() - t0) / 1000;

    const markerParams = await getDatabaseParams(hms, marker);
    if (!o.force && markerParams?.[MANIFEST_HASH_PARAM] === sha256) {
      o.log(`warehouse '${o.prefix}' already seeded with this manifest (${sha256.slice(0, 12)}): nothing to do`);
      return { manifest, manifestText: text, manifestSha256: sha256, status: 'already-seeded', refused: [], seconds: seconds() };
    }
    // Marker first: a crash during the clean-up leaves no false "complete".
    for (const db of [marker, ...manifest.databases.map((d) => d.name)]) {
      if (await dropIfPresent(hms, db)) o.log(`dropped database ${db} (deleteData=false)`);
    }
    const removed = await deletePrefix(s3, manifest.bucket, `${manifest.rootKey}/`);
    if (removed > 0) o.log(`deleted ${removed} object(s) under s3://${manifest.bucket}/${manifest.rootKey}/`);

    const files = manifest.tables.flatMap((t) => t.files);
    await mapLimit(files, 16, (f) => putObject(s3, manifest.bucket, f.key, readFileSync(path.join(work, 'files', f.key))));
    o.log(`uploaded ${files.length} data file(s) to s3://${manifest.bucket}/${manifest.rootKey}/`);

    const refused: Refusal[] = [];
    await register(hms, manifest, refused);
    for (const r of refused) o.log(`HMS refused ${r.table}: ${r.error.split('\n')[0] ?? ''} → registered as ${r.fallback}`);
    await hms.call('create_database', (c) =>
      c.create_database(
        databaseObject(marker, `${manifest.root}/${marker}.db`, {
          [MANIFEST_HASH_PARAM]: sha256,
          'him.seed.seed': String(o.seed),
          'him.seed.refused': refused.map((r) => r.table).join(','),
        }),
      ),
    );
    o.log(
      `seeded ${manifest.tables.length} tables/views in ${manifest.databases.map((d) => d.name).join(', ')} in ${seconds().toFixed(1)} s`,
    );
    return { manifest, manifestText: text, manifestSha256: sha256, status: 'seeded', refused, seconds: seconds() };
  } finally {
    hms.close();
    s3.destroy();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Drop everything a seed/prefix makes (HMS with deleteData=false, then its S3 prefix). */
export async function unseedWarehouse(
  o: Pick<SeedOptions, 'hms' | 's3' | 'python' | 'seed' | 'prefix' | 'bucket' | 'readers'>,
): Promise<void> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'him-seed-'));
  let manifest: SeedManifest;
  try {
    await runPython(o.python, generateArgs(o, work));
    manifest = readManifest(path.join(work, 'manifest.json')).manifest;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const s3 = s3Client(o.s3);
  const hms = await openHms(o.hms, { connectTimeoutMs: 10_000, callTimeoutMs: CALL_TIMEOUT_MS });
  try {
    for (const db of [markerDatabase(manifest.prefix), ...manifest.databases.map((d) => d.name)]) await dropIfPresent(hms, db);
    await deletePrefix(s3, manifest.bucket, `${manifest.rootKey}/`);
  } finally {
    hms.close();
    s3.destroy();
  }
}
