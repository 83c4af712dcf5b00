// Cross-table check over the whole inventory: a table or partition location that equals, contains or
// lies inside a location of another table (LOCATION_SHARED). Such a table cannot be converted on its
// own: its listing takes the other table's files (or its metadata lands in the other's data), and
// one table's rollback or failure leaves the other's state behind. Locations are compared at path
// boundaries, without trailing slashes, with s3/s3a/s3n as one scheme and file:/abs as /abs.
// Pure; no I/O.
import type { TableInventory } from '../hive/model';
import { parseStorageUri } from '../storage/object-store';
import { locationProblem } from './rules/location';
import type { AssessFinding } from './types';
import { AssessCode, finding, isView } from './types';

interface Owned {
  readonly tableId: string;
  /** `table` or the partition's name. */
  readonly what: string;
  readonly location: string;
}

/** A comparable key for a location (`s3:bucket/key` or `local:/path`, no trailing slash), or null. */
export function locationKey(location: string): string | null {
  if (locationProblem(location) !== null) return null;
  try {
    const l = parseStorageUri(location);
    const key = (l.kind === 's3' ? `s3:${l.bucket}/${l.key}` : `local:${l.path}`).replace(/\/+$/, '');
    return key.replace(/\/{2,}/g, '/');
  } catch {
    return null; // Not a location this tool reads (other schemes); nothing to compare.
  }
}

function owned(t: TableInventory): Owned[] {
  const tableId = `${t.table.database}.${t.table.name}`.toLowerCase();
  const out: Owned[] = [];
  if (t.table.sd.location !== null) out.push({ tableId, what: 'table', location: t.table.sd.location });
  for (const p of t.partitions) if (p.sd.location !== null) out.push({ tableId, what: `partition ${p.name}`, location: p.sd.location });
  return out;
}

/** Every proper ancestor key of `key` plus itself, longest first (`s3:b/a/b` → `s3:b/a/b`, `s3:b/a`, `s3:b`). */
export function selfAndAncestors(key: string): string[] {
  const out = [key];
  for (let i = key.lastIndexOf('/'); i > 0; i = key.lastIndexOf('/', i - 1)) out.push(key.slice(0, i));
  return out;
}

/** The non-view tables' locations by key, and the keys sorted (to find the locations inside one). */
export interface LocationIndex {
  readonly byKey: ReadonlyMap<string, readonly Owned[]>;
  readonly sorted: readonly string[];
}

/** Index the inventory's locations once; `sharedLocationsOf` then checks one table against it. */
export function locationIndex(inventory: readonly TableInventory[]): LocationIndex {
  const byKey = new Map<string, Owned[]>();
  for (const t of inventory) {
    if (isView(t)) continue;
    for (const o of owned(t)) {
      const key = locationKey(o.location);
      if (key === null) continue;
      const same = byKey.get(key);
      if (same === undefined) byKey.set(key, [o]);
      else same.push(o);
    }
  }
  return { byKey, sorted: [...byKey.keys()].sort() };
}

/** The first index in `sorted` whose key is ≥ `key` (binary search). */
function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * LOCATION_SHARED for one table against an index of the others (entries of its own id in the index
 * are ignored): the same finding `sharedLocationFindings` gives it over the inventory with it, in
 * O(its locations × (depth + log n)) instead of a pass over every location.
 */
export function sharedLocationsOf(index: LocationIndex, t: TableInventory): AssessFinding[] {
  if (isView(t)) return [];
  const texts = new Set<string>();
  for (const o of owned(t)) {
    const key = locationKey(o.location);
    if (key === null) continue;
    for (const k of selfAndAncestors(key)) {
      for (const other of index.byKey.get(k) ?? []) {
        if (other.tableId === o.tableId) continue;
        texts.add(
          `${o.what} location ${o.location} ${k === key ? 'is also' : 'lies inside'} the ${other.what} location of ${other.tableId}${k === key ? '' : ` (${other.location})`}`,
        );
      }
    }
    const below = `${key}/`;
    for (let i = lowerBound(index.sorted, below); i < index.sorted.length && (index.sorted[i] as string).startsWith(below); i++) {
      for (const other of index.byKey.get(index.sorted[i] as string) ?? []) {
        if (other.tableId === o.tableId) continue;
        texts.add(`${o.what} location ${o.location} contains the ${other.what} location of ${other.tableId} (${other.location})`);
      }
    }
  }
  return texts.size === 0 ? [] : [sharedFinding(texts)];
}

function sharedFinding(texts: ReadonlySet<string>): AssessFinding {
  const list = [...texts].sort();
  return finding(
    AssessCode.LOCATION_SHARED,
    'rewrite',
    `${list.slice(0, 5).join('; ')}${list.length > 5 ? ` (+${list.length - 5} more)` : ''}`,
    'give each table its own location (rewrite or move the data, or drop the duplicate HMS entry), then assess again; converting one would import or shadow the other’s files',
  );
}

/** LOCATION_SHARED findings by table id (`db.table`, lower-case), for tables that overlap another. */
export function sharedLocationFindings(inventory: readonly TableInventory[]): Map<string, AssessFinding[]> {
  const byKey = new Map<string, Owned[]>();
  const entries: { key: string; o: Owned }[] = [];
  for (const t of inventory) {
    if (isView(t)) continue;
    for (const o of owned(t)) {
      const key = locationKey(o.location);
      if (key === null) continue;
      entries.push({ key, o });
      const same = byKey.get(key);
      if (same === undefined) byKey.set(key, [o]);
      else same.push(o);
    }
  }
  const clashes = new Map<string, Set<string>>();
  const note = (id: string, text: string): void => {
    const s = clashes.get(id) ?? new Set<string>();
    s.add(text);
    clashes.set(id, s);
  };
  for (const { key, o } of entries) {
    for (const k of selfAndAncestors(key)) {
      for (const other of byKey.get(k) ?? []) {
        if (other.tableId === o.tableId) continue;
        const how = k === key ? 'is also' : 'lies inside';
        note(
          o.tableId,
          `${o.what} location ${o.location} ${how} the ${other.what} location of ${other.tableId}${k === key ? '' : ` (${other.location})`}`,
        );
        note(
          other.tableId,
          `${other.what} location ${other.location} ${k === key ? 'is also' : 'contains'} the ${o.what} location of ${o.tableId}${k === key ? '' : ` (${o.location})`}`,
        );
      }
    }
  }
  const out = new Map<string, AssessFinding[]>();
  for (const [id, texts] of clashes) out.set(id, [sharedFinding(texts)]);
  return out;
}
