// One recursive listing answering many directory listings (core/storage/tree-listing.ts): for
// random key trees (directory markers, nested and repeated locations, empty segments, hidden
// names), each location's rows equal what S3's own ListObjectsV2 semantics give for that location
// alone — derived here per location, the way the server filters (prefix, then the `/` delimiter).
import type { ListEntry } from '../../../core/storage/object-store';
import type { RawObject } from '../../../core/storage/tree-listing';
import { rowsByPrefix, sharedDirectory } from '../../../core/storage/tree-listing';

const BASE = 's3://bucket/';

/** What `S3ObjectStore.list(prefix)` yields on one page: common prefixes, then contents (markers skipped). */
function s3List(objects: readonly RawObject[], prefix: string, recursive: boolean): ListEntry[] {
  const under = objects.filter((o) => o.key.startsWith(prefix));
  if (recursive)
    return under
      .filter((o) => o.key !== prefix && !o.key.endsWith('/'))
      .map((o) => ({ kind: 'file', path: BASE + o.key, size: o.size, lastModified: o.lastModified, etag: o.etag }));
  const common = new Set<string>();
  const contents: RawObject[] = [];
  for (const o of under) {
    const rest = o.key.slice(prefix.length);
    const d = rest.indexOf('/');
    if (d >= 0) common.add(prefix + rest.slice(0, d + 1));
    else contents.push(o);
  }
  return [
    ...[...common].sort().map((p): ListEntry => ({ kind: 'directory', path: BASE + p.replace(/\/$/, '') })),
    ...contents
      .filter((o) => o.key !== prefix && !o.key.endsWith('/'))
      .map((o): ListEntry => ({ kind: 'file', path: BASE + o.key, size: o.size, lastModified: o.lastModified, etag: o.etag })),
  ];
}

/** A small deterministic generator (tests must not flake). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomTree(r: () => number): { objects: RawObject[]; prefixes: string[] } {
  const seg = (): string => ['a', 'b', 'p=1', 'p=10', '_tmp', '.hive', '', 'x y'][Math.floor(r() * 8)] as string;
  const keys = new Set<string>();
  const n = 1 + Math.floor(r() * 40);
  for (let i = 0; i < n; i++) {
    const depth = 1 + Math.floor(r() * 4);
    let k = 'w/t/';
    for (let d = 0; d < depth; d++) k += seg() + (d < depth - 1 ? '/' : '');
    if (r() < 0.15) k += '/'; // a directory marker
    keys.add(k);
  }
  if (r() < 0.3) keys.add('w/t/');
  const objects = [...keys].sort().map((key, i) => ({ key, size: i % 3 === 0 ? 0 : i + 1, lastModified: 1000 + i, etag: `e${i}` }));
  const prefixes: string[] = [];
  const m = 1 + Math.floor(r() * 6);
  for (let i = 0; i < m; i++) {
    const depth = Math.floor(r() * 3);
    let p = 'w/t/';
    for (let d = 0; d < depth; d++) p += `${seg()}/`;
    prefixes.push(p);
  }
  if (r() < 0.2) prefixes.push(prefixes[0] as string); // the same location twice
  return { objects, prefixes };
}

describe('rowsByPrefix', () => {
  it('gives every location the rows S3 lists for it alone, over 2,000 random trees, with and without recursion', () => {
    const r = rng(7);
    let rowsSeen = 0;
    for (let t = 0; t < 2000; t++) {
      const { objects, prefixes } = randomTree(r);
      for (const recursive of [false, true]) {
        const got = rowsByPrefix(objects, 'w/t/', prefixes, recursive, BASE);
        prefixes.forEach((p, i) => {
          expect(got[i]).toEqual(s3List(objects, p, recursive));
          rowsSeen += got[i]?.length ?? 0;
        });
      }
    }
    expect(rowsSeen).toBeGreaterThan(10_000); // the trees were not trivially empty
  });

  it('reports a marker-only sub-directory, skips the location’s own marker, and keeps p=1 apart from p=10', () => {
    const objects: RawObject[] = ['t/p=1/', 't/p=1/f1', 't/p=1/sub/', 't/p=10/f2'].map((key) => ({
      key,
      size: 5,
      lastModified: 1,
      etag: 'x',
    }));
    const [p1, p10] = rowsByPrefix(objects, 't/', ['t/p=1/', 't/p=10/'], false, BASE);
    expect(p1).toEqual([
      { kind: 'directory', path: `${BASE}t/p=1/sub` },
      { kind: 'file', path: `${BASE}t/p=1/f1`, size: 5, lastModified: 1, etag: 'x' },
    ]);
    expect(p10?.map((e) => e.path)).toEqual([`${BASE}t/p=10/f2`]);
  });
});

describe('sharedDirectory', () => {
  it('is the deepest directory every prefix lies under, never a partial segment or the bucket root', () => {
    expect(sharedDirectory(['w/t/p=1/', 'w/t/p=10/'])).toBe('w/t/');
    expect(sharedDirectory(['w/t/a=1/b=2/', 'w/t/a=1/b=3/'])).toBe('w/t/a=1/');
    expect(sharedDirectory(['w/t/', 'w/t/p=1/'])).toBe('w/t/');
    expect(sharedDirectory(['w/t/', 'x/t/'])).toBeUndefined();
    expect(sharedDirectory([])).toBeUndefined();
  });
});
