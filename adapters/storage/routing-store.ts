// One ObjectStore for every location a table can have: s3/s3a/s3n URIs go to the S3 store,
// file:// URIs and absolute paths to the local store. Both share one set of metadata prefixes.
import { ErrorCode, MigrationError } from '../../core/errors';
import { parseStorageUri } from '../../core/storage/object-store';
import type {
  ListEachOptions,
  ListEntry,
  ListOptions,
  ObjectInfo,
  ObjectStore,
  PutOptions,
  SignedRead,
} from '../../core/storage/object-store';
import { LocalObjectStore } from './local-store';
import { S3ObjectStore } from './s3-store';
import type { S3StoreOptions } from './s3-store';

export interface ObjectStoreOptions {
  readonly metadataPrefixes: readonly string[];
  /** S3 connection settings; without them s3 URIs are refused. */
  readonly s3?: Omit<S3StoreOptions, 'metadataPrefixes'>;
}

export class RoutingObjectStore implements ObjectStore {
  readonly local: LocalObjectStore;
  readonly s3: S3ObjectStore | undefined;

  constructor(opts: ObjectStoreOptions) {
    this.local = new LocalObjectStore({ metadataPrefixes: opts.metadataPrefixes });
    this.s3 = opts.s3 === undefined ? undefined : new S3ObjectStore({ ...opts.s3, metadataPrefixes: opts.metadataPrefixes });
  }

  private route(path: string): ObjectStore {
    if (parseStorageUri(path).kind === 'local') return this.local;
    if (this.s3 === undefined) throw new MigrationError(ErrorCode.STORAGE_URI_INVALID, `${path}: no S3 storage is configured`, { path });
    return this.s3;
  }

  list(location: string, options?: ListOptions): AsyncIterable<ListEntry> {
    return this.route(location).list(location, options);
  }
  async listEach(locations: readonly string[], options?: ListEachOptions): Promise<ListEntry[][] | undefined> {
    if (this.s3 === undefined || locations.some((l) => parseStorageUri(l).kind !== 's3')) return undefined;
    return this.s3.listEach(locations, options);
  }
  head(path: string): Promise<ObjectInfo> {
    return this.route(path).head(path);
  }
  readRange(path: string, start: number, end: number): Promise<Uint8Array> {
    return this.route(path).readRange(path, start, end);
  }
  readTail(path: string, n: number): Promise<{ bytes: Uint8Array; size: number }> {
    return this.route(path).readTail(path, n);
  }
  localFile(path: string): string | undefined {
    return parseStorageUri(path).kind === 'local' ? this.local.localFile(path) : undefined;
  }
  async signedRead(path: string, start: number, end: number): Promise<SignedRead | undefined> {
    return parseStorageUri(path).kind === 's3' ? this.route(path).signedRead?.(path, start, end) : undefined;
  }
  put(path: string, bytes: Uint8Array, options?: PutOptions): Promise<void> {
    return this.route(path).put(path, bytes, options);
  }
  delete(path: string): Promise<void> {
    return this.route(path).delete(path);
  }
  destroy(): void {
    this.s3?.destroy();
  }
}
