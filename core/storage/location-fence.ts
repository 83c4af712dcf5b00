// Where a table's files may be: the location fence. A table or partition location is
// listed, read and registered into a shared catalog, so it must name an object store this tool
// reads (s3, s3a, s3n) — or, only where the operator allowed it, a local directory under one of
// `storage.localRoots`. Any other scheme (hdfs:, viewfs:, wasb:, gs:, http:, …) is refused, and a
// local path is compared after normalising what could escape a root: percent-encoding, `.`/`..`
// segments, repeated or trailing slashes, and — through the injected `realpath` (the only I/O, done
// by the caller's adapter) — symlinked prefixes. Pure; no I/O.
import { ErrorCode, MigrationError } from '../errors';
import type { TableInventory } from '../hive/model';
/** The schemes the storage adapter reads as an object store (adapters/storage/routing-store.ts). */
export const OBJECT_STORE_SCHEMES: readonly string[] = ['s3', 's3a', 's3n'];

export interface LocationFence {
  /** Absolute local directories `file:` (and bare absolute path) locations may lie under; empty: none. */
  readonly localRoots: readonly string[];
  /** Resolves symlinks of an absolute path (its longest existing prefix); absent: lexical only. */
  readonly realpath?: (p: string) => string;
}

/** No local roots: object stores only (the default of every configured path). */
export const OBJECT_STORES_ONLY: LocationFence = { localRoots: [] };

/** `p` normalised: `.`/`..` resolved (never above `/`), no repeated or trailing slash. */
export function normalise(p: string): string {
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return `/${out.join('/')}`;
}

const within = (p: string, root: string): boolean => root === '/' || p === root || p.startsWith(`${root}/`);

/** The local path a `file:` URI names, or why it names none this tool accepts. */
function filePath(rest: string): { path: string } | { problem: string } {
  let p = rest;
  if (p.startsWith('//')) {
    const authority = /^\/\/([^/]*)/.exec(p)?.[1] ?? '';
    if (authority !== '' && authority.toLowerCase() !== 'localhost')
      return { problem: `a file: URI naming host ${JSON.stringify(authority)}` };
    p = p.slice(2 + authority.length);
  }
  if (!p.startsWith('/')) return { problem: 'a file: URI without an absolute path' };
  try {
    p = decodeURIComponent(p);
  } catch {
    return { problem: 'a file: URI with a malformed percent-encoding' };
  }
  return { path: p };
}

/**
 * Why `location` is outside the fence, or null when it is allowed. A relative or empty location is
 * not judged here (LOCATION_INVALID covers it).
 */
export function locationFenceProblem(location: string | null, fence: LocationFence): string | null {
  if (location === null || location.trim() === '') return null;
  const loc = location.trim();
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/s.exec(loc);
  let local: string;
  if (m === null) {
    if (!loc.startsWith('/')) return null;
    local = loc;
  } else {
    const scheme = (m[1] ?? '').toLowerCase();
    if (OBJECT_STORE_SCHEMES.includes(scheme)) return null;
    if (scheme !== 'file')
      return `scheme ${scheme}: is not an object store this tool reads (${OBJECT_STORE_SCHEMES.join(', ')}), and file: only under storage.localRoots`;
    const f = filePath(m[2] ?? '');
    if ('problem' in f) return f.problem;
    local = f.path;
  }
  if (local.includes('\0')) return 'a local path with a NUL byte';
  if (fence.localRoots.length === 0) return 'a local path, and storage.localRoots allows none';
  const lexical = normalise(local);
  const roots = fence.localRoots.map(normalise);
  const inside = (p: string, rs: readonly string[]): boolean => rs.some((r) => within(p, r));
  const listed = `storage.localRoots (${roots.join(', ')})`;
  const { realpath } = fence;
  if (realpath === undefined) return inside(lexical, roots) ? null : `local path ${lexical} is outside ${listed}`;
  // What the worker would really open: the path and the roots with their symlinks resolved.
  const real = normalise(realpath(lexical));
  if (
    inside(
      real,
      roots.map((r) => normalise(realpath(r))),
    )
  )
    return null;
  if (real === lexical) return `local path ${lexical} is outside ${listed}`;
  return `local path ${lexical} resolves through a symlink to ${real}, outside ${listed}`;
}

/** The table's and each partition's fence problem, as `<what> at <location>: <why>` lines. */
export function fenceViolations(
  places: readonly { readonly what: string; readonly location: string | null }[],
  fence: LocationFence,
): string[] {
  const out: string[] = [];
  for (const p of places) {
    const why = locationFenceProblem(p.location, fence);
    if (why !== null) out.push(`${p.what} at ${p.location ?? ''}: ${why}`);
  }
  return out;
}

/**
 * LOCATION_NOT_ALLOWED (not retryable) when the table or one of its partitions is outside `fence`,
 * else null (also without a fence). `after` says what was not done (`nothing was written`).
 */
export function fenceRefusal(tableId: string, inv: TableInventory, fence: LocationFence | undefined, after: string): MigrationError | null {
  if (fence === undefined) return null;
  const hits = fenceViolations(
    [
      { what: 'the table', location: inv.table.sd.location },
      ...inv.partitions.map((p) => ({ what: `partition ${p.name}`, location: p.sd.location })),
    ],
    fence,
  );
  if (hits.length === 0) return null;
  return new MigrationError(
    ErrorCode.LOCATION_NOT_ALLOWED,
    `${tableId}: ${hits.slice(0, 5).join('; ')}${hits.length > 5 ? ` (+${hits.length - 5} more)` : ''}; ${after}`,
    { table: tableId, locations: hits.length },
    { retryable: false },
  );
}
