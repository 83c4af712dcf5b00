// Many directory listings answered by one: the rows `ObjectStore.list(location)` yields for each of
// a table's partition locations, computed from a single recursive listing of the prefix they share
// (every key under it, directory markers included). Why: a table of N partitions costs N
// ListObjectsV2 requests listed one location at a time, and ceil(keys / page size) requests listed
// once, which is what most of the listing cost of a conversion was (one request per partition
// for the write and again for the validation). The rules are S3's: with the `/` delimiter a
// location's immediate objects are files and every deeper key shows its first segment as one
// directory row (a directory marker `dir/` included); recursively every non-marker key below it is
// a file; a location's own marker is no row. Pure; no I/O.
import type { ListEntry } from './object-store';

/** One object of a recursive listing, as the S3 server returned it (directory markers end in `/`). */
export interface RawObject {
  readonly key: string;
  readonly size: number;
  readonly lastModified: number;
  readonly etag: string;
}

/**
 * The longest directory prefix (ending in `/`, at least one segment) shared by every key in
 * `prefixes` (each a directory key ending in `/`), or undefined when they share none.
 */
export function sharedDirectory(prefixes: readonly string[]): string | undefined {
  const [first, ...rest] = prefixes;
  if (first === undefined) return undefined;
  let shared = first;
  for (const p of rest) {
    let n = 0;
    const max = Math.min(shared.length, p.length);
    while (n < max && shared.charCodeAt(n) === p.charCodeAt(n)) n++;
    shared = shared.slice(0, n);
  }
  const cut = shared.lastIndexOf('/');
  return cut <= 0 ? undefined : shared.slice(0, cut + 1);
}

/**
 * The rows of each prefix in `prefixes` (directory keys ending in `/`, all under `root`), in the
 * order a one-page listing yields them: directories first, then files, each in key order.
 * `objects` must be sorted by key (as S3 returns them); `base` is put before every key
 * (`s3://bucket/`). A prefix given twice gets the same rows twice.
 */
export function rowsByPrefix(
  objects: Iterable<RawObject>,
  root: string,
  prefixes: readonly string[],
  recursive: boolean,
  base: string,
): ListEntry[][] {
  const at = new Map<string, number[]>();
  prefixes.forEach((p, i) => {
    const list = at.get(p);
    if (list === undefined) at.set(p, [i]);
    else list.push(i);
  });
  const dirs = prefixes.map(() => new Set<string>());
  const files: ListEntry[][] = prefixes.map(() => []);
  for (const o of objects) {
    // Every ancestor directory of the key at or below the root that is a listed prefix.
    for (let cut = o.key.indexOf('/', root.length - 1); cut >= 0; cut = o.key.indexOf('/', cut + 1)) {
      const owners = at.get(o.key.slice(0, cut + 1));
      if (owners === undefined) continue;
      const rel = o.key.slice(cut + 1);
      if (rel === '') continue; // the location's own marker
      for (const i of owners) {
        if (recursive) {
          if (!rel.endsWith('/')) (files[i] as ListEntry[]).push(fileRow(base, o));
          continue;
        }
        const slash = rel.indexOf('/');
        if (slash >= 0) (dirs[i] as Set<string>).add(base + o.key.slice(0, cut + 1 + slash));
        else (files[i] as ListEntry[]).push(fileRow(base, o));
      }
    }
  }
  return prefixes.map((_, i) => [
    ...[...(dirs[i] as Set<string>)].map((path): ListEntry => ({ kind: 'directory', path })),
    ...(files[i] as ListEntry[]),
  ]);
}

function fileRow(base: string, o: RawObject): ListEntry {
  return { kind: 'file', path: base + o.key, size: o.size, lastModified: o.lastModified, etag: o.etag };
}
