// Listing the data files of a table for conversion: every partition location (which may lie
// outside the table location), at bounded concurrency across locations. As Iceberg's
// TableMigrationUtil.listPartition: immediate files only by default, names starting with `_` or
// `.` skipped (Hive's hidden-file filter: _SUCCESS, .crc, _temporary, .hive-staging…). What a
// metadata-only migration would silently lose or misread is reported as coded findings
// (docs/design/iceberg-spec.md §9.6): sub-directories (not imported unless `recursive`), zero-byte files (excluded:
// no footer to read; Hive reads them as empty) and locations with no files at all (the findings'
// codes: core/storage/listing.ts).
import type { ListEntry, ObjectInfo, ObjectStore } from '../../core/storage/object-store';
import type { ListingFinding } from '../../core/storage/listing';
import { ListingFindingCode } from '../../core/storage/listing';
import { mapOrdered } from '../../core/ordered-pool';

export interface LocationListing {
  /** Index of the location in the input. */
  readonly index: number;
  readonly location: string;
  /** Data files, sorted by path. */
  readonly files: readonly ObjectInfo[];
  readonly findings: readonly ListingFinding[];
  /** True when the listing stopped at `limit` data files: more may follow. */
  readonly truncated?: boolean;
}

export interface ListPartitionOptions {
  /** Locations listed at once (default 16). */
  readonly concurrency?: number;
  /** Import files in sub-directories too (hidden directories stay skipped). Default false. */
  readonly recursive?: boolean;
  /** Stop after this many data files (a bounded look, e.g. the assessment's sample). Default: all. */
  readonly limit?: number;
}

/** Hive's hidden-file rule (FileUtils.HIDDEN_FILES_PATH_FILTER): `_…` and `.…` names. */
export function isHiddenName(name: string): boolean {
  return name.startsWith('_') || name.startsWith('.');
}

function relativeSegments(location: string, path: string): string[] {
  const base = location.endsWith('/') ? location : `${location}/`;
  return (path.startsWith(base) ? path.slice(base.length) : (path.split('/').pop() ?? path)).split('/');
}

/**
 * Lists one partition location: from `rows` when given (the rows `store.list` would yield, e.g. one
 * entry of `ObjectStore.listEach`), else from the store.
 */
export async function listPartition(
  store: ObjectStore,
  location: string,
  index = 0,
  options: ListPartitionOptions = {},
  rows?: readonly ListEntry[],
): Promise<LocationListing> {
  const files: ObjectInfo[] = [];
  const findings: ListingFinding[] = [];
  const limit = options.limit ?? Infinity;
  let truncated = false;
  /** One row into files or findings; false once the limit is reached. */
  const take = (e: ListEntry): boolean => {
    if (files.length >= limit) {
      truncated = true;
      return false;
    }
    const segments = relativeSegments(location, e.path);
    if (segments.some(isHiddenName)) return true;
    if (e.kind === 'directory') {
      findings.push({
        code: ListingFindingCode.LISTING_SUBDIRECTORY,
        location,
        path: e.path,
        message: `sub-directory ${e.path} is not imported (non-recursive listing, as Iceberg's migrate)`,
      });
    } else if (e.size === 0) {
      findings.push({
        code: ListingFindingCode.LISTING_EMPTY_FILE,
        location,
        path: e.path,
        message: `zero-byte file ${e.path} is excluded (no footer; holds no rows)`,
      });
    } else {
      files.push({ path: e.path, size: e.size, lastModified: e.lastModified, etag: e.etag });
    }
    return true;
  };
  if (rows !== undefined) {
    for (const e of rows) if (!take(e)) break;
  } else {
    for await (const e of store.list(location, { recursive: options.recursive ?? false })) if (!take(e)) break;
  }
  if (files.length === 0)
    findings.push({
      code: ListingFindingCode.LISTING_EMPTY_LOCATION,
      location,
      path: location,
      message: `no data files under ${location}`,
    });
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { index, location, files, findings, ...(truncated ? { truncated } : {}) };
}

/**
 * Lists every location with at most `concurrency` listings in flight, yielding each location's
 * result as it completes (so callers can start reading footers before the listing ends).
 */
export async function* listPartitions(
  store: ObjectStore,
  locations: readonly string[],
  options: ListPartitionOptions = {},
): AsyncIterable<LocationListing> {
  const limit = Math.max(1, options.concurrency ?? 16);
  const inFlight = new Map<number, Promise<{ i: number; r: LocationListing }>>();
  let next = 0;
  const start = (): void => {
    const i = next++;
    const loc = locations[i];
    if (loc === undefined) return;
    const p = listPartition(store, loc, i, options).then((r) => ({ i, r }));
    // A failure surfaces through the race below; don't let the others' rejections go unhandled.
    p.catch(() => undefined);
    inFlight.set(i, p);
  };
  while (next < locations.length && inFlight.size < limit) start();
  while (inFlight.size > 0) {
    const { i, r } = await Promise.race(inFlight.values());
    inFlight.delete(i);
    if (next < locations.length) start();
    yield r;
  }
}

/**
 * Every location's listing, in input order: all from one shared listing when the store offers it
 * and it pays (`ObjectStore.listEach`: more than two locations under one directory), else each
 * location listed on its own, at most `concurrency` at once.
 */
export async function* listEachLocation(
  store: ObjectStore,
  locations: readonly { readonly index: number; readonly location: string }[],
  options: Omit<ListPartitionOptions, 'limit'> = {},
): AsyncGenerator<LocationListing> {
  const recursive = options.recursive ?? false;
  const shared =
    locations.length > 2 && store.listEach !== undefined
      ? await store.listEach(
          locations.map((l) => l.location),
          { recursive },
        )
      : undefined;
  if (shared !== undefined) {
    for (const [i, l] of locations.entries()) yield await listPartition(store, l.location, l.index, { recursive }, shared[i]);
    return;
  }
  yield* mapOrdered(locations, options.concurrency ?? 16, (l) => listPartition(store, l.location, l.index, { recursive }));
}
