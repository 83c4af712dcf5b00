// Body of a footer worker thread (footer-threads.ts): Parquet FileMetaData bytes in, FileStats out.
// The CPU half of a footer read — Thrift decode and the column-to-metrics mapping — runs here so
// the main thread keeps only the I/O, manifest writing and (in a Temporal worker) workflow tasks.
import { parentPort } from 'node:worker_threads';
import { MigrationError } from '../../core/errors';
import type { FooterContext } from '../../core/storage/file-stats';
import { encodeFileStats } from './file-stats-codec';
import { decodeParquetFooterSync, parquetStatsChecked, readParquetFooterBytesLocalSync } from './parquet';

export interface StatsRequest {
  readonly id: number;
  readonly ctxId: number;
  /** Sent once per table (context id) and cached by the thread. */
  readonly ctx?: FooterContext;
  /** Context ids the main thread no longer uses. */
  readonly drop?: readonly number[];
  readonly path: string;
  /** The FileMetaData bytes, or (no bytes) the local file to read them from. */
  readonly bytes?: Uint8Array;
  readonly local?: { readonly file: string; readonly size: number; readonly tailBytes: number };
}

const contexts = new Map<number, FooterContext>();

parentPort?.on('message', (m: StatsRequest) => {
  for (const d of m.drop ?? []) contexts.delete(d);
  if (m.ctx !== undefined) contexts.set(m.ctxId, m.ctx);
  try {
    const ctx = contexts.get(m.ctxId);
    if (ctx === undefined) throw new Error(`footer thread: unknown context ${m.ctxId}`);
    const bytes = m.bytes ?? (m.local === undefined ? undefined : readParquetFooterBytesLocalSync(m.path, m.local.file, m.local.size, m.local.tailBytes));
    if (bytes === undefined) throw new Error('footer thread: a request without bytes or a local file');
    // One transferred buffer (file-stats-codec.ts), not a structured clone of Maps of Uint8Arrays.
    const packed = encodeFileStats(parquetStatsChecked(m.path, decodeParquetFooterSync(m.path, bytes), ctx));
    parentPort?.postMessage({ id: m.id, packed }, [packed.buffer as ArrayBuffer]);
  } catch (e) {
    const err = e instanceof MigrationError ? { code: e.code, message: e.message, context: e.context } : { code: null, message: (e as Error).message ?? String(e), context: {} };
    parentPort?.postMessage({ id: m.id, error: err });
  }
});
