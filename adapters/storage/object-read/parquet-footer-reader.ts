// FooterReader for Parquet over any ObjectStore: where each footer's bytes are fetched — on a footer
// thread that reads a local file (local-tail.ts) or sends a signed GET itself (thread-transport.ts),
// else through the store's own ranged reads — and where they are decoded (adapters/formats/parquet,
// here or on the thread pool: footer-pool.ts implements FooterStatsDecoder).
import type { FileStats, FooterContext, FooterReader } from '../../../core/storage/file-stats';
import type { ObjectStore, SignedRead } from '../../../core/storage/object-store';
import { DEFAULT_TAIL_BYTES, decodeParquetFooterSync, joinFooter, readParquetFooterBytes } from '../../formats/parquet/footer';
import { parquetStatsChecked } from '../../formats/parquet/stats';

/** What a remote read (statsRemote) came to. */
export type RemoteStats =
  | { readonly kind: 'stats'; readonly stats: FileStats }
  /** The tail did not hold the whole footer: read [metaStart, tailStart) and join (formats/parquet/footer.ts joinFooter). */
  | { readonly kind: 'large'; readonly tail: Uint8Array; readonly metaStart: number; readonly metaLen: number }
  /** The thread's GET failed: read through the store instead (it retries and maps the error). */
  | { readonly kind: 'fallback'; readonly why: string };

/** Where the CPU half of a footer read runs: the calling thread, or a pool (footer-pool.ts). */
export interface FooterStatsDecoder {
  stats(path: string, bytes: Uint8Array, context: FooterContext): Promise<FileStats>;
  /** Optional: read the footer of a local file itself too (local-tail.ts). */
  statsLocal?(path: string, file: string, size: number, tailBytes: number, context: FooterContext): Promise<FileStats>;
  /** Optional: send a signed GET of the tail itself (ObjectStore.signedRead), then decode. */
  statsRemote?(path: string, read: SignedRead, size: number, tailStart: number, context: FooterContext): Promise<RemoteStats>;
}

/** FooterReader for Parquet over any ObjectStore. */
export class ParquetFooterReader implements FooterReader {
  constructor(
    private readonly store: ObjectStore,
    private readonly tailBytes = DEFAULT_TAIL_BYTES,
    private readonly decoder: FooterStatsDecoder | null = null,
  ) {}

  async readStats(path: string, size: number, context: FooterContext): Promise<FileStats> {
    // A local file and a decoder that can read it itself (a footer thread): the I/O moves there too.
    const file = this.decoder?.statsLocal !== undefined ? this.store.localFile?.(path) : undefined;
    if (file !== undefined && this.decoder?.statsLocal !== undefined)
      return this.decoder.statsLocal(path, file, size, this.tailBytes, context);
    // A store that can sign the GET and a decoder that can send it: the HTTP work moves there too.
    if (this.decoder?.statsRemote !== undefined && this.store.signedRead !== undefined && size >= 12) {
      const tailStart = Math.max(0, size - this.tailBytes);
      const read = await this.store.signedRead(path, tailStart, size);
      if (read !== undefined) {
        const r = await this.decoder.statsRemote(path, read, size, tailStart, context);
        if (r.kind === 'stats') return r.stats;
        if (r.kind === 'large')
          return this.decoder.stats(path, joinFooter(await this.store.readRange(path, r.metaStart, tailStart), r.tail, r.metaLen), context);
        // 'fallback': the thread's GET failed; the store's own read below retries and maps the error.
      }
    }
    const meta = await readParquetFooterBytes(this.store, path, size, this.tailBytes);
    if (this.decoder !== null) return this.decoder.stats(path, meta, context);
    return parquetStatsChecked(path, decodeParquetFooterSync(path, meta), context);
  }
}
