// The AuditAnchor port over an ObjectStore (core/audit/anchor.ts): one immutable object per
// anchored event, `<location>/anchor-<seq>.json`, written create-only (If-None-Match: *) and, with
// the chain key, signed. The store is given no metadata prefixes, so it can create objects but never
// overwrite or delete one. `all()` reads every anchor back for `audit verify`.
import type { AnchorRecord, AuditAnchor, StoredAnchor } from '../../core/audit/anchor';
import { anchorJson, anchorName, anchorSeqOf, parseAnchor, signAnchor } from '../../core/audit/anchor';
import type { ChainKey } from '../../core/audit/keyed';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { ObjectStore } from '../../core/storage/object-store';
import { asDirectory } from '../../core/storage/object-store';

/** Anchors are small: one read of this many bytes holds a whole one. */
const MAX_ANCHOR_BYTES = 4096;
/** Anchor reads in flight during `all()`. */
const READ_CONCURRENCY = 16;

export class ObjectStoreAuditAnchor implements AuditAnchor {
  readonly location: string;
  private opened: ObjectStore | undefined;

  /**
   * `source` may be a function that opens the store: called on the first write or read, so a command
   * that opens the state store and never appends or verifies (`migrate plans`, `status`) never loads
   * the S3 client; `onClose` runs only when it was opened.
   */
  constructor(
    private readonly source: ObjectStore | (() => ObjectStore),
    location: string,
    private readonly onClose?: () => void,
    private readonly key?: ChainKey,
  ) {
    this.location = asDirectory(location);
    if (typeof source !== 'function') this.opened = source;
  }

  private get store(): ObjectStore {
    this.opened ??= (this.source as () => ObjectStore)();
    return this.opened;
  }

  async write(a: AnchorRecord): Promise<void> {
    const signed = signAnchor(a, this.key);
    await this.store.put(`${this.location}${anchorName(a.seq)}`, new TextEncoder().encode(anchorJson(signed)), { ifNoneMatch: '*' });
  }

  /** Every anchor object's seq and path, in seq order. */
  private async names(): Promise<{ seq: number; path: string }[]> {
    const out: { seq: number; path: string }[] = [];
    try {
      for await (const e of this.store.list(this.location)) {
        if (e.kind !== 'file') continue;
        const seq = anchorSeqOf(e.path.slice(e.path.lastIndexOf('/') + 1));
        if (seq !== undefined) out.push({ seq, path: e.path });
      }
    } catch (e) {
      // A location never written to (no bucket prefix yet, no local directory) holds no anchors.
      if (e instanceof MigrationError && e.code === ErrorCode.STORAGE_NOT_FOUND && !/bucket/i.test(e.message)) return [];
      throw e;
    }
    return out.sort((x, y) => x.seq - y.seq);
  }

  private async read(n: { seq: number; path: string }): Promise<StoredAnchor> {
    const { bytes } = await this.store.readTail(n.path, MAX_ANCHOR_BYTES);
    return { ...parseAnchor(new TextDecoder().decode(bytes), n.path, n.seq), path: n.path };
  }

  async newest(): Promise<StoredAnchor | undefined> {
    const names = await this.names();
    const best = names[names.length - 1];
    return best === undefined ? undefined : this.read(best);
  }

  async all(): Promise<StoredAnchor[]> {
    const names = await this.names();
    const out = new Array<StoredAnchor>(names.length);
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < names.length) {
        const i = next++;
        out[i] = await this.read(names[i] as { seq: number; path: string });
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, names.length) }, lane));
    return out;
  }

  close(): void {
    if (this.opened !== undefined) this.onClose?.();
  }
}
