// A seeded Hive table kept being written after it was planned or migrated: partitions copied under
// new values (their files copied, as a new daily partition would be written) and partitions
// overwritten (new files written, the old ones deleted: what INSERT OVERWRITE does), always inside
// the test's own seeded data. Also the seed manifest of the table as Hive has it afterwards, for
// the verifier's checksum (dev/seed/read_files.py).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { HivePartition } from '../../core/hive/model';
import type { ObjectStore } from '../../core/storage/object-store';
import type { SeedFile, SeedManifest, SeedPartition, SeedTable } from '../../dev/seed/manifest';
import { ROOT, TSX, run } from './cli';
import { suiteConfig } from './e2e-suite';
import { testStack } from './stack-env';

const norm = (s: string) => s.replace(/^s3a?:\/\//, '').replace(/\/+$/, '');

/** The seeded files directly under `location`. */
export function* seededFilesUnder(manifest: SeedManifest, location: string): Generator<SeedFile & { name: string }> {
  for (const t of manifest.tables)
    for (const f of t.files)
      if (norm(f.location.slice(0, f.location.lastIndexOf('/'))) === norm(location))
        yield { ...f, name: f.location.slice(f.location.lastIndexOf('/') + 1) };
}

/** The copy of `f` at `location` named `name` (same bytes, rows and partition `partition`). */
function copied(f: SeedFile, location: string, name: string, partition: string): SeedFile {
  const uri = `${location}/${name}`;
  return { ...f, location: uri, key: uri.replace(/^s3a?:\/\/[^/]+\//, ''), partition };
}

/** Copy the seeded files under `from` to `to` (create-only), renamed by `rename`; returns the copies. */
export async function copyFiles(
  store: ObjectStore,
  manifest: SeedManifest,
  from: string,
  to: string,
  partition: string,
  rename: (name: string) => string = (n) => n,
): Promise<SeedFile[]> {
  const out: SeedFile[] = [];
  for (const f of [...seededFilesUnder(manifest, from)]) {
    await store.put(`${to}/${rename(f.name)}`, await store.readRange(f.location, 0, f.size), { ifNoneMatch: '*' });
    out.push(copied(f, to, rename(f.name), partition));
  }
  return out;
}

/** A copy of an existing partition under new values: its files copied to the new location, its parameters (stats) kept. */
export async function copyPartition(
  store: ObjectStore,
  manifest: SeedManifest,
  src: HivePartition,
  tableLocation: string,
  keys: readonly string[],
  values: string[],
): Promise<{ partition: HivePartition; files: SeedFile[] }> {
  const name = keys.map((k, i) => `${k}=${values[i] ?? ''}`).join('/');
  const location = `${tableLocation}/${name}`;
  const files = await copyFiles(store, manifest, src.sd.location as string, location, name);
  return { partition: { ...src, values, name, createTime: Math.floor(Date.now() / 1000), sd: { ...src.sd, location } }, files };
}

/** `t` as Hive has it after the changes: `removed` files gone, `added` files (and their new partitions) there. */
export function tableAfter(
  t: SeedTable,
  added: readonly SeedFile[],
  removed: readonly string[],
  newPartitions: readonly SeedPartition[],
): SeedTable {
  const gone = new Set(removed.map(norm));
  const files = [...t.files.filter((f) => !gone.has(norm(f.location))), ...added];
  return { ...t, files, partitions: [...t.partitions, ...newPartitions], rows: files.reduce((s, f) => s + f.rows, 0), checksum: null };
}

/** Seed the warehouse under `prefix` (dev/seed) into `dir`; returns its manifest. */
export async function seedWarehouse(prefix: string, dir: string): Promise<SeedManifest> {
  const env = testStack();
  const mf = path.join(dir, 'manifest.json');
  const s = await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--manifest', mf]);
  if (s.code !== 0) throw new Error(`seeding failed: ${s.stderr}`);
  return JSON.parse(readFileSync(mf, 'utf8')) as SeedManifest;
}

/**
 * The stack's migrate.yaml for one test in `dir`: its own task queue, target namespaces prefixed
 * `nsPrefix`, a plan of `tables` of database `db` in one wave. Returns the file.
 */
export function liveConfig(o: { dir: string; queue: string; nsPrefix: string; db: string; tables: readonly string[] }): string {
  const include = `^${o.db}\\.(${o.tables.join('|')})$`;
  return suiteConfig({
    dir: o.dir,
    queue: o.queue,
    nsPrefix: o.nsPrefix,
    databases: [o.db],
    planYaml: `  waves:\n    maxTablesPerWave: 10\n    scope:\n      include: ['${include}']\n`,
  });
}

/** A partition added through HMS as the seed manifest describes one (for `tableAfter`). */
export const seedPartition = (p: HivePartition): SeedPartition => ({
  values: p.values,
  hmsValues: p.values.map((v) => v ?? '__HIVE_DEFAULT_PARTITION__'),
  name: p.name,
  location: p.sd.location as string,
  columns: null,
  files: [],
  rows: 0,
});

/** The verifier's rows and checksum of `t` computed from its files (dev/seed/read_files.py over a manifest, written in `dir`, saying what Hive has). */
export async function hiveContent(dir: string, manifest: SeedManifest, t: SeedTable): Promise<{ rows: number; checksum: string }> {
  const env = testStack();
  const file = path.join(dir, `manifest-${t.name}.json`);
  writeFileSync(file, JSON.stringify({ ...manifest, tables: [t] }));
  const r = await run(env.HIM_VERIFIER_PYTHON as string, [
    path.join(ROOT, 'dev/seed/read_files.py'),
    '--manifest',
    file,
    '--table',
    `${t.db}.${t.name}`,
    '--s3-endpoint',
    env.HIM_S3_ENDPOINT as string,
  ]);
  if (r.code !== 0) throw new Error(`read_files.py failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { rows: number; checksum: string };
}
