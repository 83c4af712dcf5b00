// The ObjectStore port (S3 and local filesystem adapters implement it) plus the pure rules every
// implementation shares: storage URI parsing and the "Never delete data" mutation guard
// (docs/architecture.md Decisions). Pure; no I/O.
import { ErrorCode, MigrationError } from '../errors';

/** A listed or HEAD-ed object. `path` keeps the scheme it was asked with (s3a:// stays s3a://). */
export interface ObjectInfo {
  readonly path: string;
  /** Exact size in bytes: what `file_size_in_bytes` must be (docs/design/iceberg-spec.md §9.7). */
  readonly size: number;
  /** Epoch milliseconds. */
  readonly lastModified: number;
  /** Opaque version tag (S3 ETag without quotes; local: `<mtimeMs>-<size>`); undefined when unknown. */
  readonly etag: string | undefined;
}

/** One listing row: an object, or (non-recursive listings only) an immediate sub-"directory". */
export type ListEntry = ({ readonly kind: 'file' } & ObjectInfo) | { readonly kind: 'directory'; readonly path: string };

export interface ListOptions {
  /** false (default): immediate children only, sub-directories reported as `directory` rows. */
  readonly recursive?: boolean;
}

export interface PutOptions {
  /** `'*'`: create only; an existing object → STORAGE_PRECONDITION_FAILED (S3 If-None-Match). */
  readonly ifNoneMatch?: '*';
}

/**
 * Object storage as the migration sees it. Reads go anywhere; `put` over an existing object and
 * `delete` are allowed only under the store's metadata prefixes (STORAGE_MUTATION_REFUSED).
 * Every failure is a MigrationError with a STORAGE_* code naming the path.
 */
export interface ObjectStore {
  /** Everything under the directory `location` (a trailing `/` is implied), page by page. */
  list(location: string, options?: ListOptions): AsyncIterable<ListEntry>;
  head(path: string): Promise<ObjectInfo>;
  /** Bytes [start, end) of `path`. */
  readRange(path: string, start: number, end: number): Promise<Uint8Array>;
  /** The last `n` bytes (fewer when the object is smaller) and the object size, in one request. */
  readTail(path: string, n: number): Promise<{ readonly bytes: Uint8Array; readonly size: number }>;
  put(path: string, bytes: Uint8Array, options?: PutOptions): Promise<void>;
  delete(path: string): Promise<void>;
  /**
   * Optional: the local filesystem path behind `path` when this store reads it from local disk
   * (so a worker thread can read it with plain syscalls), else undefined.
   */
  localFile?(path: string): string | undefined;
  /**
   * Optional: a ready-to-send HTTP GET of bytes [start, end) of `path` (URL and signed headers),
   * so a worker thread can fetch it on its own sockets; undefined when this store has none. The
   * caller falls back to readRange on any failure of that request (retries stay here).
   */
  signedRead?(path: string, start: number, end: number): Promise<SignedRead | undefined>;
  /**
   * Optional: for each of `locations`, the rows `list(location, options)` yields, from one listing
   * of the directory they share (core/storage/tree-listing.ts), so N partitions cost one request per
   * page of keys instead of one per partition. Undefined when that would not pay or cannot be done:
   * fewer than two locations, no shared directory, different buckets or schemes, or more than
   * `maxPages` pages under it (the caller then lists each location).
   */
  listEach?(locations: readonly string[], options?: ListEachOptions): Promise<ListEntry[][] | undefined>;
}

export interface ListEachOptions extends ListOptions {
  /** Give up (undefined) rather than read more pages than this (default: one less than the locations, at most 200). */
  readonly maxPages?: number;
}

/** An HTTP GET that needs nothing but sending (signedRead). */
export interface SignedRead {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

export const S3_SCHEMES = ['s3', 's3a', 's3n'] as const;
export type S3Scheme = (typeof S3_SCHEMES)[number];

/** A parsed storage URI. s3/s3a/s3n address the same bucket and key (docs/design/iceberg-spec.md §9.13). */
export type StorageLocation =
  | { readonly kind: 's3'; readonly scheme: S3Scheme; readonly bucket: string; readonly key: string }
  | { readonly kind: 'local'; readonly scheme: 'file' | ''; readonly path: string };

function invalidUri(uri: string, why: string): never {
  throw new MigrationError(ErrorCode.STORAGE_URI_INVALID, `storage URI ${JSON.stringify(uri)}: ${why}`, { path: uri });
}

/** Parses `s3://bucket/key`, `s3a://…`, `s3n://…`, `file:///abs/path`, `file:/abs/path` or `/abs/path`. */
export function parseStorageUri(uri: string): StorageLocation {
  // The common local form, asked for once per data file (footer reads): the general path below
  // gives exactly this for `file:///…` without an escape.
  if (uri.startsWith('file:///') && !uri.includes('%')) return { kind: 'local', scheme: 'file', path: uri.slice(7) };
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/.exec(uri);
  if (m === null) {
    if (uri.startsWith('/')) return { kind: 'local', scheme: '', path: uri };
    return invalidUri(uri, 'expected s3://, s3a://, s3n://, file:// or an absolute local path');
  }
  const scheme = (m[1] ?? '').toLowerCase();
  const rest = m[2] ?? '';
  if ((S3_SCHEMES as readonly string[]).includes(scheme)) {
    const b = /^\/\/([^/]+)\/?(.*)$/.exec(rest);
    if (b === null || (b[1] ?? '') === '') return invalidUri(uri, 'no bucket');
    return { kind: 's3', scheme: scheme as S3Scheme, bucket: b[1] ?? '', key: b[2] ?? '' };
  }
  if (scheme === 'file') {
    // file:///abs, file://localhost/abs, file:/abs (Hadoop's form).
    const p = rest.startsWith('//') ? rest.replace(/^\/\/(localhost)?/, '') : rest;
    if (!p.startsWith('/')) return invalidUri(uri, 'file URIs need an absolute path');
    return { kind: 'local', scheme: 'file', path: decodeURIComponent(p) };
  }
  return invalidUri(uri, `scheme ${scheme}: is not supported (s3, s3a, s3n, file)`);
}

/** `location` with exactly one trailing `/` (a directory to list or a prefix to compare). */
export function asDirectory(location: string): string {
  return location.endsWith('/') ? location : `${location}/`;
}

/** A scheme-independent identity for comparing paths: `s3:<bucket>/<key>` or `local:<path>`. */
function identity(loc: StorageLocation): string {
  return loc.kind === 's3' ? `s3:${loc.bucket}/${loc.key}` : `local:${loc.path}`;
}

function hasDotSegments(p: string): boolean {
  return p.split('/').some((s) => s === '.' || s === '..');
}

/**
 * The "Never delete data" rule: deletes and overwrites only under migration-owned metadata
 * prefixes. Prefixes are compared at path boundaries and across s3/s3a/s3n; paths with `.`/`..`
 * segments are refused outright (they could escape a prefix on the local filesystem).
 */
export class MutationGuard {
  private readonly prefixes: readonly string[];

  constructor(metadataPrefixes: readonly string[]) {
    this.prefixes = metadataPrefixes.map((p) => {
      if (hasDotSegments(p)) invalidUri(p, 'metadata prefixes may not contain . or .. segments');
      return asDirectory(identity(parseStorageUri(p)));
    });
  }

  allows(path: string): boolean {
    const loc = parseStorageUri(path);
    if (hasDotSegments(loc.kind === 's3' ? loc.key : loc.path)) return false;
    const id = identity(loc);
    return this.prefixes.some((p) => id.startsWith(p) && id.length > p.length);
  }

  /** Throws STORAGE_MUTATION_REFUSED unless `path` is under a metadata prefix. */
  check(operation: 'delete' | 'overwrite', path: string): void {
    if (this.allows(path)) return;
    throw new MigrationError(
      ErrorCode.STORAGE_MUTATION_REFUSED,
      `refusing to ${operation} ${path}: outside the migration's metadata prefixes (${this.prefixes.length === 0 ? 'none configured' : this.prefixes.join(', ')}); data is never deleted or overwritten`,
      { path, operation },
    );
  }
}
