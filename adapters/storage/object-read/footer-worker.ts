// Body of a footer worker thread (footer-pool.ts): Parquet FileMetaData bytes in, FileStats out.
// The CPU half of a footer read — Thrift decode and the column-to-metrics mapping, both in
// adapters/formats/parquet/ — runs here so the main thread keeps only the listing, manifest writing
// and (in a Temporal worker) workflow tasks. The thread also fetches the bytes itself where it can:
// blocking preads of a local file (local-tail.ts), or the GET of a tail the main thread signed
// (thread-transport.ts).
import { parentPort } from 'node:worker_threads';
import { MigrationError } from '../../../core/errors';
import type { FileStats, FooterContext } from '../../../core/storage/file-stats';
import type { SignedRead } from '../../../core/storage/object-store';
import { AvroBytes } from '../../avro/entry-encoder';
import { encodeFileStats } from '../../formats/file-stats-codec';
import { DEFAULT_TAIL_BYTES, decodeParquetFooterSync, footerFromTail } from '../../formats/parquet/footer';
import { parquetStatsEncodedChecked } from '../../formats/parquet/stats';
import { readParquetFooterBytesLocalSync } from './local-tail';
import { type BodyAllocator, threadGet } from './thread-transport';

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
  /** Or a signed GET of the tail [tailStart, size) to send from here. */
  readonly remote?: { readonly read: SignedRead; readonly size: number; readonly tailStart: number };
}

const contexts = new Map<number, FooterContext>();
/** Tail reads of local files land here; each footer is decoded before the next read. */
const scratch = new Uint8Array(DEFAULT_TAIL_BYTES);
/** The column paths last sent per context: the same ones again are not re-sent (most files of a table agree). */
const lastColumns = new Map<number, readonly (readonly string[])[]>();

function samePaths(a: readonly (readonly string[])[] | undefined, b: readonly (readonly string[])[]): boolean {
  if (a === b) return true; // one file layout: parquet/plan.ts hands out the same array
  if (a === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as readonly string[];
    const y = b[i] as readonly string[];
    if (x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
  }
  return true;
}

/**
 * One answer; bytes [at, at + len) of the message's packed buffer hold its stats (or, `large`, the
 * tail read). `fallback`: the thread's GET failed; the main thread reads through the store, which
 * retries and maps the error. `remote` answers may come out of request order and never use the
 * column-path shortcut (`sameColumns`), which relies on order.
 */
export type StatsReply =
  | { id: number; at: number; len: number; sameColumns?: true; remote?: true }
  | { id: number; at: number; len: number; large: { metaStart: number; metaLen: number } }
  | { id: number; fallback: string }
  | { id: number; error: { code: string | null; message: string; context: Record<string, unknown> } };

type Answer = { reply: StatsReply; part?: Uint8Array };

/** Drops and (re)sets contexts in request order; the request's own context, captured now. */
function contextOf(m: StatsRequest): FooterContext | undefined {
  for (const d of m.drop ?? []) {
    contexts.delete(d);
    lastColumns.delete(d);
  }
  if (m.ctx !== undefined) {
    contexts.set(m.ctxId, m.ctx);
    lastColumns.delete(m.ctxId);
  }
  return contexts.get(m.ctxId);
}

function failed(id: number, e: unknown): Answer {
  const error =
    e instanceof MigrationError
      ? { code: e.code, message: e.message, context: e.context }
      : { code: null, message: (e as Error).message ?? String(e), context: {} };
  return { reply: { id, error } };
}

/**
 * The file's metric maps as the manifest entry's Avro bytes, written here once (parquet/stats.ts
 * parquetStatsEncoded): the main thread copies them into the manifest instead of rebuilding five
 * maps and encoding them. Reset per file; a reply's bytes are copied out (encodeFileStats) first.
 */
const metrics = new AvroBytes();

function statsOf(m: StatsRequest, ctx: FooterContext | undefined, bytes: Uint8Array, inOrder: boolean): Answer {
  if (ctx === undefined) throw new Error(`footer thread: unknown context ${m.ctxId}`);
  metrics.reset();
  const stats = parquetStatsEncodedChecked(m.path, decodeParquetFooterSync(m.path, bytes), ctx, metrics);
  if (!inOrder) return { reply: { id: m.id, at: 0, len: 0, remote: true }, part: encodeFileStats(stats) };
  // `sameColumns`: the file's column paths equal the last ones sent for this context; the main
  // thread attaches the array it kept (footer-pool.ts), so FileStats stay complete.
  // A file with embedded ids always carries them (not kept per context: rare in Hive tables).
  const same =
    stats.fileColumns !== undefined && stats.fileFieldIds === undefined && samePaths(lastColumns.get(m.ctxId), stats.fileColumns);
  if (stats.fileColumns !== undefined && !same) lastColumns.set(m.ctxId, stats.fileColumns);
  const sent: FileStats = same
    ? {
        recordCount: stats.recordCount,
        splitOffsets: stats.splitOffsets,
        boundsWithheld: stats.boundsWithheld,
        encodedMetrics: stats.encodedMetrics,
      }
    : stats;
  return { reply: { id: m.id, at: 0, len: 0, ...(same ? { sameColumns: true as const } : {}) }, part: encodeFileStats(sent) };
}

function answerNow(m: StatsRequest, ctx: FooterContext | undefined): Answer {
  try {
    const bytes =
      m.bytes ??
      (m.local === undefined ? undefined : readParquetFooterBytesLocalSync(m.path, m.local.file, m.local.size, m.local.tailBytes, scratch));
    if (bytes === undefined) throw new Error('footer thread: a request without bytes or a local file');
    return statsOf(m, ctx, bytes, true);
  } catch (e) {
    return failed(m.id, e);
  }
}

/**
 * Response buffers of tail GETs, reused: a tail is decoded (and its stats copied out) before its
 * answer is queued, so the buffer is free again then — unless the tail itself is the answer (a
 * footer larger than the tail). Bounded by the requests in flight, at most MAX_BODIES kept.
 */
const bodies: ArrayBuffer[] = [];
const MAX_BODIES = 128;
/** Buffers takeBody made: only those go back (an https answer's body is node's, maybe shared). */
const pooled = new WeakSet<ArrayBufferLike>();
const takeBody: BodyAllocator = (n) => {
  if (n > DEFAULT_TAIL_BYTES) return new Uint8Array(n);
  let b = bodies.pop();
  if (b === undefined) pooled.add((b = new ArrayBuffer(DEFAULT_TAIL_BYTES)));
  return new Uint8Array(b, 0, n);
};
function giveBack(b: Uint8Array): void {
  if (pooled.has(b.buffer) && bodies.length < MAX_BODIES) bodies.push(b.buffer as ArrayBuffer);
}

async function answerRemote(
  m: StatsRequest & { remote: NonNullable<StatsRequest['remote']> },
  ctx: FooterContext | undefined,
): Promise<Answer> {
  let tail: Uint8Array;
  try {
    tail = await threadGet(m.remote.read, takeBody);
  } catch (e) {
    return { reply: { id: m.id, fallback: (e as Error).message ?? String(e) } };
  }
  let answer: Answer;
  try {
    const got = footerFromTail(m.path, m.remote.size, m.remote.tailStart, tail);
    if (!(got instanceof Uint8Array)) return { reply: { id: m.id, at: 0, len: 0, large: got }, part: tail };
    answer = statsOf(m, ctx, got, false);
  } catch (e) {
    answer = failed(m.id, e);
  }
  giveBack(tail);
  return answer;
}

/** Answers posted together: the stats side by side in one transferred buffer. */
function post(answers: readonly Answer[]): void {
  if (answers.length === 0) return;
  const size = answers.reduce((n, a) => n + (a.part?.length ?? 0), 0);
  const packed = new Uint8Array(size);
  let at = 0;
  const replies = answers.map(({ reply, part }) => {
    if (part === undefined) return reply;
    packed.set(part, at);
    const placed = { ...reply, at, len: part.length };
    at += part.length;
    return placed;
  });
  parentPort?.postMessage({ replies, packed }, [packed.buffer as ArrayBuffer]);
}

/** Remote answers finished within one turn go out together. */
let remoteDone: Answer[] = [];
function finishRemote(a: Answer): void {
  if (remoteDone.length === 0) {
    setImmediate(() => {
      const done = remoteDone;
      remoteDone = [];
      post(done);
    });
  }
  remoteDone.push(a);
}

// Loaded and listening: FooterThreads.ready() waits for this.
parentPort?.postMessage({ ready: true });

// A batch in, one message out for everything answerable now (postMessage and a transfer cost about
// as much as decoding a small footer, so they are paid per batch); remote reads answer as they land.
parentPort?.on('message', (batch: readonly StatsRequest[]) => {
  const now: Answer[] = [];
  for (const m of batch) {
    const ctx = contextOf(m);
    if (m.remote !== undefined) void answerRemote({ ...m, remote: m.remote }, ctx).then(finishRemote);
    else now.push(answerNow(m, ctx));
  }
  post(now);
});
