// Body of a footer worker thread (footer-threads.ts): Parquet FileMetaData bytes in, FileStats out.
// The CPU half of a footer read — Thrift decode and the column-to-metrics mapping — runs here so
// the main thread keeps only the I/O, manifest writing and (in a Temporal worker) workflow tasks.
import { parentPort } from 'node:worker_threads';
import { MigrationError } from '../../core/errors';
import type { FooterContext } from '../../core/storage/file-stats';
import { encodeFileStats } from './file-stats-codec';
import { DEFAULT_TAIL_BYTES, decodeParquetFooterSync, parquetStatsChecked, readParquetFooterBytesLocalSync } from './parquet';

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
/** Tail reads of local files land here; each footer is decoded before the next read. */
const scratch = new Uint8Array(DEFAULT_TAIL_BYTES);
/** The column paths last sent per context: the same ones again are not re-sent (most files of a table agree). */
const lastColumns = new Map<number, readonly (readonly string[])[]>();

function samePaths(a: readonly (readonly string[])[] | undefined, b: readonly (readonly string[])[]): boolean {
  if (a === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as readonly string[];
    const y = b[i] as readonly string[];
    if (x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
  }
  return true;
}

/** One answer of a batch: its stats are bytes [at, at + len) of the batch's packed buffer. */
export type StatsReply = { id: number; at: number; len: number; sameColumns?: true } | { id: number; error: { code: string | null; message: string; context: Record<string, unknown> } };

function answer(m: StatsRequest): { packed: Uint8Array; same: boolean } | StatsReply {
  for (const d of m.drop ?? []) {
    contexts.delete(d);
    lastColumns.delete(d);
  }
  if (m.ctx !== undefined) {
    contexts.set(m.ctxId, m.ctx);
    lastColumns.delete(m.ctxId);
  }
  try {
    const ctx = contexts.get(m.ctxId);
    if (ctx === undefined) throw new Error(`footer thread: unknown context ${m.ctxId}`);
    const bytes = m.bytes ?? (m.local === undefined ? undefined : readParquetFooterBytesLocalSync(m.path, m.local.file, m.local.size, m.local.tailBytes, scratch));
    if (bytes === undefined) throw new Error('footer thread: a request without bytes or a local file');
    const stats = parquetStatsChecked(m.path, decodeParquetFooterSync(m.path, bytes), ctx);
    // `sameColumns`: the file's column paths equal the last ones sent for this context; the main
    // thread attaches the array it kept (footer-threads.ts), so FileStats stay complete.
    const same = stats.fileColumns !== undefined && samePaths(lastColumns.get(m.ctxId), stats.fileColumns);
    if (stats.fileColumns !== undefined && !same) lastColumns.set(m.ctxId, stats.fileColumns);
    const { fileColumns: _sent, ...rest } = stats;
    return { packed: encodeFileStats(same ? rest : stats), same };
  } catch (e) {
    const error = e instanceof MigrationError ? { code: e.code, message: e.message, context: e.context } : { code: null, message: (e as Error).message ?? String(e), context: {} };
    return { id: m.id, error };
  }
}

// A batch in, one message out: the stats of every file (file-stats-codec.ts) side by side in one
// transferred buffer. postMessage and a transfer cost about as much as decoding a small footer, so
// they are paid per batch (the main thread batches whatever it asks within one turn).
parentPort?.on('message', (batch: readonly StatsRequest[]) => {
  const replies: StatsReply[] = [];
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const m of batch) {
    const r = answer(m);
    if ('id' in r) {
      replies.push(r);
      continue;
    }
    replies.push({ id: m.id, at, len: r.packed.length, ...(r.same ? { sameColumns: true as const } : {}) });
    parts.push(r.packed);
    at += r.packed.length;
  }
  const packed = new Uint8Array(at);
  at = 0;
  for (const p of parts) {
    packed.set(p, at);
    at += p.length;
  }
  parentPort?.postMessage({ replies, packed }, [packed.buffer as ArrayBuffer]);
});
