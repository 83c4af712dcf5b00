// A seeded Hive table kept being written after it was planned or migrated: partitions copied under
// new values (their files copied, as a new daily partition would be written) and partitions
// overwritten (new files written, the old ones deleted: what INSERT OVERWRITE does), always inside
// the test's own seeded data. Also the seed manifest of the table as Hive has it afterwards, for
// the verifier's checksum (dev/seed/read_files.py).
import type { HivePartition } from '../../core/hive/model';
import type { ObjectStore } from '../../core/storage/object-store';
import type { SeedFile, SeedManifest, SeedPartition, SeedTable } from '../../dev/seed/manifest';

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
