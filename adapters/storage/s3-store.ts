// ObjectStore over S3 and S3-compatible servers: ListObjectsV2 pages, ranged GETs and PutObject with
// If-None-Match through the object-read signer (object-read/s3-ranged-get.ts, s3-lean.ts),
// HeadObject and DeleteObject through the SDK (@aws-sdk/client-s3) — all behind the MutationGuard.
// Credentials come from the standard AWS environment/profile chain (the SDK client's), never config.
//
// Conditional create: PutObject with `If-None-Match: *` is honoured by AWS S3 (since 2024-08) and by
// versitygw (checked against the local stack's versitygw: a second create → 412 PreconditionFailed,
// the first object's content kept). Servers that ignore the header would silently overwrite, so
// `conditionalPut: 'head-then-put'` falls back to HEAD → 404 → PUT (racy; for such servers only).
import * as http from 'node:http';
import * as https from 'node:https';
import { DeleteObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ErrorCode, MigrationError } from '../../core/errors';
import { MutationGuard, asDirectory, parseStorageUri } from '../../core/storage/object-store';
import type {
  ListEachOptions,
  ListEntry,
  ListOptions,
  ObjectInfo,
  ObjectStore,
  PutOptions,
  S3Scheme,
  SignedRead,
} from '../../core/storage/object-store';
import type { RawObject } from '../../core/storage/tree-listing';
import { rowsByPrefix, sharedDirectory } from '../../core/storage/tree-listing';
import { fromS3Error } from './errors';
import { S3RangedGet } from './object-read/s3-ranged-get';
import { resolveS3Region } from './s3-region';

export interface S3StoreOptions {
  /** Prefixes (any s3 scheme) where delete/overwrite are allowed: the migration's metadata prefixes. */
  readonly metadataPrefixes: readonly string[];
  readonly endpoint?: string;
  readonly region?: string;
  readonly forcePathStyle?: boolean;
  /** Concurrent sockets per host (default 64): footer reads run at bounded concurrency above this. */
  readonly maxSockets?: number;
  /** Attempts per request, retries included (default 3; retries only transient errors): the SDK's and the lean requests'. */
  readonly maxAttempts?: number;
  readonly requestTimeoutMs?: number;
  /** `if-none-match` (default): the server enforces create-only. See the module comment. */
  readonly conditionalPut?: 'if-none-match' | 'head-then-put';
  /** ListObjectsV2 MaxKeys (default: the server's, 1000 on AWS). */
  readonly listPageSize?: number;
  /** An existing client; the store then does not destroy it. */
  readonly client?: S3Client;
  /**
   * A shared lean GET path (its keep-alive sockets are pooled across stores; the store does not
   * destroy it). Without it each store opens its own pool, which a per-table store must destroy.
   */
  readonly rangedGet?: S3RangedGet;
}

interface S3Path {
  readonly scheme: S3Scheme;
  readonly bucket: string;
  readonly key: string;
}

function s3Path(path: string): S3Path {
  const loc = parseStorageUri(path);
  if (loc.kind !== 's3') throw new MigrationError(ErrorCode.STORAGE_URI_INVALID, `S3 store cannot address ${path}`, { path });
  return loc;
}

export class S3ObjectStore implements ObjectStore {
  readonly client: S3Client;
  private readonly guard: MutationGuard;
  private readonly endpoint: string;
  private readonly ownsClient: boolean;
  /**
   * Ranged GETs, ListObjectsV2 and PutObject: the SDK's per-request CPU cost (~1.5 ms) caps footer
   * reads and syncs on small machines (object-read/s3-ranged-get.ts).
   */
  private readonly lean: S3RangedGet;
  private readonly ownsLean: boolean;
  /** HTTP GET attempts sent (both paths), for tests and benchmarks. */
  readonly stats = { gets: 0, lists: 0 };

  constructor(private readonly opts: S3StoreOptions) {
    this.guard = new MutationGuard(opts.metadataPrefixes);
    this.endpoint = opts.endpoint ?? 'AWS';
    this.ownsClient = opts.client === undefined;
    const region = resolveS3Region(opts.region).region;
    const pathStyle = opts.forcePathStyle ?? opts.endpoint !== undefined;
    const maxSockets = opts.maxSockets ?? 64;
    this.client =
      opts.client ??
      new S3Client({
        endpoint: opts.endpoint,
        region,
        forcePathStyle: pathStyle,
        maxAttempts: opts.maxAttempts ?? 3,
        // Footer reads are ranged GETs: skip the SDK's default flexible-checksum work (it asks for
        // and verifies checksums in JS on every GET, which dominated CPU in bench/footers).
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        requestHandler: {
          httpAgent: new http.Agent({ keepAlive: true, maxSockets }),
          httpsAgent: new https.Agent({ keepAlive: true, maxSockets }),
          requestTimeout: opts.requestTimeoutMs ?? 60_000,
          connectionTimeout: 10_000,
        },
      });
    // No endpoint: AWS itself (s3-addressing.ts), the same construction as a custom endpoint.
    this.ownsLean = opts.rangedGet === undefined;
    this.lean =
      opts.rangedGet ?? new S3RangedGet(this.client, region, opts.endpoint, pathStyle, maxSockets, opts.requestTimeoutMs ?? 60_000);
  }

  destroy(): void {
    if (this.ownsLean) this.lean.destroy();
    if (this.ownsClient) this.client.destroy();
  }

  async *list(location: string, options: ListOptions = {}): AsyncIterable<ListEntry> {
    const { scheme, bucket, key } = s3Path(location);
    const prefix = key === '' ? '' : asDirectory(key);
    const recursive = options.recursive ?? false;
    const base = `${scheme}://${bucket}/`;
    let token: string | undefined;
    do {
      const page = await this.listPage(location, bucket, prefix, recursive ? undefined : '/', token);
      for (const p of page.commonPrefixes) yield { kind: 'directory', path: base + p.replace(/\/$/, '') };
      for (const o of page.contents) {
        // Skip the directory's own marker object and (recursive) nested directory markers.
        if (o.key === prefix || o.key.endsWith('/')) continue;
        yield { kind: 'file', path: base + o.key, size: o.size, lastModified: o.lastModified, etag: o.etag };
      }
      token = page.nextToken;
    } while (token !== undefined);
  }

  async listEach(locations: readonly string[], options: ListEachOptions = {}): Promise<ListEntry[][] | undefined> {
    if (locations.length < 2) return undefined;
    const paths = locations.map(s3Path);
    const { scheme, bucket } = paths[0] as S3Path;
    if (paths.some((p) => p.scheme !== scheme || p.bucket !== bucket || p.key === '')) return undefined;
    const prefixes = paths.map((p) => asDirectory(p.key));
    const root = sharedDirectory(prefixes);
    if (root === undefined) return undefined;
    const maxPages = options.maxPages ?? Math.min(locations.length - 1, 200);
    const objects: RawObject[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      if (pages++ >= maxPages) return undefined;
      const page = await this.listPage(locations[0] as string, bucket, root, undefined, token);
      for (const o of page.contents) objects.push(o);
      token = page.nextToken;
    } while (token !== undefined);
    return rowsByPrefix(objects, root, prefixes, options.recursive ?? false, `${scheme}://${bucket}/`);
  }

  /** One ListObjectsV2 page: the lean signed request, retried here like a GET. */
  private async listPage(location: string, bucket: string, prefix: string, delimiter: string | undefined, token: string | undefined) {
    const lean = this.lean;
    this.stats.lists++;
    return this.leanRetry('list', location, () => lean.requests.listPage(bucket, prefix, delimiter, token, this.opts.listPageSize));
  }

  /**
   * A lean request with the SDK's retry policy: transient failures (throttling, 5xx, network) again
   * after 100, 200, … ms, up to maxAttempts; the last error translated (errors.ts).
   */
  private async leanRetry<T>(op: 'list' | 'put', path: string, send: () => Promise<T>): Promise<T> {
    const attempts = Math.max(1, this.opts.maxAttempts ?? 3);
    for (let attempt = 1; ; attempt++) {
      try {
        return await send();
      } catch (e) {
        const err = fromS3Error(e, op, path, this.endpoint);
        if (!err.retryable || attempt >= attempts) throw err;
        await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
      }
    }
  }

  async head(path: string): Promise<ObjectInfo> {
    const { bucket, key } = s3Path(path);
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return { path, size: out.ContentLength ?? 0, lastModified: out.LastModified?.getTime() ?? 0, etag: out.ETag?.replace(/"/g, '') };
    } catch (e) {
      throw fromS3Error(e, 'head', path, this.endpoint);
    }
  }

  async readRange(path: string, start: number, end: number): Promise<Uint8Array> {
    if (end <= start) return new Uint8Array(0);
    return (await this.get(path, `bytes=${start}-${end - 1}`)).bytes;
  }

  async signedRead(path: string, start: number, end: number): Promise<SignedRead | undefined> {
    if (end <= start) return undefined;
    const { bucket, key } = s3Path(path);
    this.stats.gets++;
    return this.lean.signedUrl(bucket, key, `bytes=${start}-${end - 1}`);
  }

  async readTail(path: string, n: number): Promise<{ bytes: Uint8Array; size: number }> {
    try {
      const { bytes, total } = await this.get(path, `bytes=-${n}`);
      return { bytes, size: total ?? bytes.length };
    } catch (e) {
      // An empty object has no satisfiable suffix range (416): its tail is empty.
      if (e instanceof MigrationError && e.context.status === 416) return { bytes: new Uint8Array(0), size: (await this.head(path)).size };
      throw e;
    }
  }

  private async get(path: string, range: string): Promise<{ bytes: Uint8Array; total: number | undefined }> {
    const { bucket, key } = s3Path(path);
    const attempts = Math.max(1, this.opts.maxAttempts ?? 3);
    for (let attempt = 1; ; attempt++) {
      try {
        this.stats.gets++;
        return await this.lean.get(bucket, key, range);
      } catch (e) {
        const err = fromS3Error(e, 'read', path, this.endpoint);
        // Transient failures again, with backoff (the SDK's retry policy: leanRetry).
        if (!err.retryable || attempt >= attempts) throw err;
        await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
      }
    }
  }

  async put(path: string, bytes: Uint8Array, options: PutOptions = {}): Promise<void> {
    const { bucket, key } = s3Path(path);
    // Outside the metadata prefixes only a create is allowed: force create-only, and report a
    // would-be overwrite as refused rather than as a lost race.
    const allowed = this.guard.allows(path);
    const createOnly = options.ifNoneMatch === '*' || !allowed;
    try {
      if (createOnly && this.opts.conditionalPut === 'head-then-put' && (await this.exists(path))) {
        throw new MigrationError(
          ErrorCode.STORAGE_PRECONDITION_FAILED,
          `S3 ${this.endpoint}: put ${path}: precondition failed, the object already exists`,
          { path, op: 'put' },
        );
      }
      const ifNoneMatch = createOnly && this.opts.conditionalPut !== 'head-then-put' ? '*' : undefined;
      const lean = this.lean;
      await this.leanRetry('put', path, () => lean.requests.put(bucket, key, bytes, ifNoneMatch));
    } catch (e) {
      const err = fromS3Error(e, 'put', path, this.endpoint);
      if (err.code === ErrorCode.STORAGE_PRECONDITION_FAILED && options.ifNoneMatch === undefined) this.guard.check('overwrite', path);
      throw err;
    }
  }

  private async exists(path: string): Promise<boolean> {
    try {
      await this.head(path);
      return true;
    } catch (e) {
      if (e instanceof MigrationError && e.code === ErrorCode.STORAGE_NOT_FOUND) return false;
      throw e;
    }
  }

  async delete(path: string): Promise<void> {
    this.guard.check('delete', path);
    const { bucket, key } = s3Path(path);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    } catch (e) {
      throw fromS3Error(e, 'delete', path, this.endpoint);
    }
  }
}
