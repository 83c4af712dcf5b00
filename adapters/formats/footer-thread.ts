// Body of a footer worker thread (footer-threads.ts): Parquet FileMetaData bytes in, FileStats out.
// The CPU half of a footer read — Thrift decode and the column-to-metrics mapping — runs here so
// the main thread keeps only the I/O, manifest writing and (in a Temporal worker) workflow tasks.
import { parentPort } from 'node:worker_threads';
import { MigrationError } from '../../core/errors';
import type { FooterContext } from '../../core/storage/file-stats';
import { decodeParquetFooterSync, parquetStatsChecked } from './parquet';

export interface StatsRequest {
  readonly id: number;
  readonly ctxId: number;
  /** Sent once per table (context id) and cached by the thread. */
  readonly ctx?: FooterContext;
  /** Context ids the main thread no longer uses. */
  readonly drop?: readonly number[];
  readonly path: string;
  readonly bytes: Uint8Array;
}

const contexts = new Map<number, FooterContext>();

parentPort?.on('message', (m: StatsRequest) => {
  for (const d of m.drop ?? []) contexts.delete(d);
  if (m.ctx !== undefined) contexts.set(m.ctxId, m.ctx);
  try {
    const ctx = contexts.get(m.ctxId);
    if (ctx === undefined) throw new Error(`footer thread: unknown context ${m.ctxId}`);
    parentPort?.postMessage({ id: m.id, stats: parquetStatsChecked(m.path, decodeParquetFooterSync(m.path, m.bytes), ctx) });
  } catch (e) {
    const err = e instanceof MigrationError ? { code: e.code, message: e.message, context: e.context } : { code: null, message: (e as Error).message ?? String(e), context: {} };
    parentPort?.postMessage({ id: m.id, error: err });
  }
});
