// The AuditAnchor port over an ObjectStore (core/audit/anchor.ts): one immutable object per
// anchored event, `<location>/anchor-<seq>.json`, written create-only (If-None-Match: *). The store
// is given no metadata prefixes, so it can create objects but never overwrite or delete one.
import type { AnchorRecord, AuditAnchor } from '../../core/audit/anchor';
import { anchorJson, anchorName, anchorSeqOf, parseAnchor } from '../../core/audit/anchor';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { ObjectStore } from '../../core/storage/object-store';
import { asDirectory } from '../../core/storage/object-store';

/** Anchors are small: one read of this many bytes holds a whole one. */
const MAX_ANCHOR_BYTES = 4096;

export class ObjectStoreAuditAnchor implements AuditAnchor {
  readonly location: string;

  constructor(
    private readonly store: ObjectStore,
    location: string,
    private readonly onClose?: () => void,
  ) {
    this.location = asDirectory(location);
  }

  async write(a: AnchorRecord): Promise<void> {
    await this.store.put(`${this.location}${anchorName(a.seq)}`, new TextEncoder().encode(anchorJson(a)), { ifNoneMatch: '*' });
  }

  async newest(): Promise<(AnchorRecord & { readonly path: string }) | undefined> {
    let best: { seq: number; path: string } | undefined;
    try {
      for await (const e of this.store.list(this.location)) {
        if (e.kind !== 'file') continue;
        const seq = anchorSeqOf(e.path.slice(e.path.lastIndexOf('/') + 1));
        if (seq !== undefined && (best === undefined || seq > best.seq)) best = { seq, path: e.path };
      }
    } catch (e) {
      // A location never written to (no bucket prefix yet, no local directory) holds no anchors.
      if (e instanceof MigrationError && e.code === ErrorCode.STORAGE_NOT_FOUND && !/bucket/i.test(e.message)) return undefined;
      throw e;
    }
    if (best === undefined) return undefined;
    const { bytes } = await this.store.readTail(best.path, MAX_ANCHOR_BYTES);
    return { ...parseAnchor(new TextDecoder().decode(bytes), best.path, best.seq), path: best.path };
  }

  close(): void {
    this.onClose?.();
  }
}
