// A small pool of worker threads for Parquet footer reads (footer-worker.ts): a thread decodes the
// FileMetaData and maps the column chunks to Iceberg metrics, reading the footer itself when it can
// (a local file, or a GET the main thread signed), else from bytes the main thread read. The least
// busy thread takes each request; each table's
// FooterContext (schema, name mapping) crosses once per thread. Threads are unref'd: an idle pool
// never keeps a process alive. Memory: one footer per request in flight (bounded by the caller's
// footer concurrency).
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { ErrorCode, MigrationError } from '../../../core/errors';
import type { FileStats, FooterContext } from '../../../core/storage/file-stats';
import type { SignedRead } from '../../../core/storage/object-store';
import { decodeFileStats } from '../../formats/file-stats-codec';
import type { RemoteStats } from './parquet-footer-reader';
import { footerThreadStart, startFooterThread } from './thread-start';
import type { ThreadStart } from './thread-start';
import type { StatsReply, StatsRequest } from './footer-worker';

interface Pending {
  readonly ctxId: number;
  resolve(s: FileStats | RemoteStats): void;
  reject(e: Error): void;
}

interface Slot {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
  readonly sent: Set<number>;
  /**
   * Per context: the column paths this thread last sent in order (a `sameColumns` reply reuses
   * them). Bounded by recency: a thread keeps MAX_CONTEXTS contexts, so one that can still answer
   * `sameColumns` is among the last 2 × MAX_CONTEXTS set here.
   */
  readonly columns: Map<number, FileStats['fileColumns']>;
  /** Requests of this turn, posted together (setImmediate) with their transfers. */
  queue: StatsRequest[];
  transfer: ArrayBuffer[];
  inFlight: number;
  /** Resolves when the thread has loaded its code and listens. */
  readonly loaded: Promise<void>;
}

/** Requests per message at most. */
const MAX_BATCH = 16;

/** Table contexts a thread keeps (each: a schema and its name mapping). */
const MAX_CONTEXTS = 64;

export class FooterThreads {
  private readonly slots: Slot[] = [];
  private nextId = 0;
  private nextCtx = 0;
  /** One id per schema object (every file of a table shares it). */
  private readonly ctxIds = new WeakMap<object, number>();

  /** `start`: the file each thread runs (thread-start.ts; a bench passes its own build of the body). */
  constructor(
    readonly size: number,
    private readonly start: ThreadStart = footerThreadStart(),
  ) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = startFooterThread(this.start);
    worker.unref();
    let loaded!: () => void;
    const slot: Slot = {
      worker,
      pending: new Map(),
      sent: new Set(),
      columns: new Map(),
      queue: [],
      transfer: [],
      inFlight: 0,
      loaded: new Promise<void>((r) => (loaded = r)),
    };
    worker.on('message', (m: { replies: readonly StatsReply[]; packed: Uint8Array } | { ready: true }) => {
      if ('ready' in m) return loaded();
      for (const r of m.replies) this.settle(slot, r, m.packed);
    });
    worker.on('error', (e) => {
      loaded(); // ready() never waits on a thread that died (its replacement is waited for by nobody)
      // A thread that dies fails its requests (the activity retries) and is replaced.
      for (const p of slot.pending.values())
        p.reject(new MigrationError(ErrorCode.INTERNAL, `footer thread failed: ${e.message}`, {}, { cause: e }));
      slot.pending.clear();
      slot.queue = [];
      slot.transfer = [];
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots[i] = this.spawn();
    });
    return slot;
  }

  /**
   * Resolves once every thread has loaded its code (threads start on construction; a caller with
   * other I/O to do first — HMS, the catalog — lets them boot meanwhile, and can wait here).
   */
  async ready(): Promise<void> {
    await Promise.all(
      this.slots.map(async (s) => {
        // Threads are unref'd; held while waited for, or an otherwise idle process would exit here.
        s.worker.ref();
        try {
          await s.loaded;
        } finally {
          if (s.inFlight === 0) s.worker.unref();
        }
      }),
    );
  }

  private settle(slot: Slot, r: StatsReply, packed: Uint8Array): void {
    const p = slot.pending.get(r.id);
    if (p === undefined) return;
    slot.pending.delete(r.id);
    if (--slot.inFlight === 0) slot.worker.unref();
    if ('error' in r) {
      p.reject(
        r.error.code !== null
          ? new MigrationError(r.error.code as ErrorCode, r.error.message, r.error.context)
          : new Error(r.error.message),
      );
      return;
    }
    if ('fallback' in r) {
      p.resolve({ kind: 'fallback', why: r.fallback });
      return;
    }
    const bytes = packed.subarray(r.at, r.at + r.len);
    if ('large' in r) {
      p.resolve({ kind: 'large', tail: bytes, metaStart: r.large.metaStart, metaLen: r.large.metaLen });
      return;
    }
    try {
      const stats = r.remote === true ? decodeFileStats(bytes) : this.unpack(slot, p.ctxId, bytes, r.sameColumns === true);
      p.resolve(r.remote === true ? { kind: 'stats', stats } : stats);
    } catch (e) {
      p.reject(e as Error);
    }
  }

  /** An in-order reply's stats, its column paths reattached or kept (remote replies do neither). */
  private unpack(slot: Slot, ctxId: number, bytes: Uint8Array, sameColumns: boolean): FileStats {
    const stats = decodeFileStats(bytes);
    if (sameColumns) {
      const fileColumns = slot.columns.get(ctxId);
      if (fileColumns === undefined)
        throw new MigrationError(ErrorCode.INTERNAL, `footer thread: no column paths kept for context ${ctxId}`);
      // decodeFileStats' object is this reply's own: set the paths on it rather than copy it.
      (stats as { fileColumns?: FileStats['fileColumns'] }).fileColumns = fileColumns;
      return stats;
    }
    if (stats.fileColumns !== undefined) {
      slot.columns.delete(ctxId);
      slot.columns.set(ctxId, stats.fileColumns);
      for (const old of slot.columns.keys()) {
        if (slot.columns.size <= 2 * MAX_CONTEXTS) break;
        slot.columns.delete(old);
      }
    }
    return stats;
  }

  /** FileStats of one Parquet footer (the FileMetaData bytes, without length and magic). */
  stats(filePath: string, bytes: Uint8Array, ctx: FooterContext): Promise<FileStats> {
    // Its own buffer, transferred: a view would clone the whole 64 KiB tail buffer behind it.
    const own = bytes.slice();
    return this.send({ path: filePath, bytes: own }, ctx, [own.buffer as ArrayBuffer]) as Promise<FileStats>;
  }

  /** FileStats of a local Parquet file: the thread reads the footer itself (blocking preads there). */
  statsLocal(filePath: string, file: string, size: number, tailBytes: number, ctx: FooterContext): Promise<FileStats> {
    return this.send({ path: filePath, local: { file, size, tailBytes } }, ctx, []) as Promise<FileStats>;
  }

  /** The thread sends the signed GET of the tail [tailStart, size) itself, then decodes. */
  statsRemote(filePath: string, read: SignedRead, size: number, tailStart: number, ctx: FooterContext): Promise<RemoteStats> {
    return this.send({ path: filePath, remote: { read, size, tailStart } }, ctx, []) as Promise<RemoteStats>;
  }

  private send(
    req: Pick<StatsRequest, 'path' | 'bytes' | 'local' | 'remote'>,
    ctx: FooterContext,
    transfer: ArrayBuffer[],
  ): Promise<FileStats | RemoteStats> {
    let ctxId = this.ctxIds.get(ctx.schema);
    if (ctxId === undefined) {
      ctxId = this.nextCtx++;
      this.ctxIds.set(ctx.schema, ctxId);
    }
    // Least busy thread (ties: the first).
    let slot = this.slots[0] as Slot;
    for (const s of this.slots) if (s.inFlight < slot.inFlight) slot = s;
    const id = this.nextId++;
    const firstForThread = !slot.sent.has(ctxId);
    const drop: number[] = [];
    if (firstForThread) {
      slot.sent.add(ctxId);
      // A long-running worker converts thousands of tables: the thread keeps the latest contexts
      // only (Set order = insertion order; a dropped one is sent again when next used).
      for (const old of slot.sent) {
        if (slot.sent.size <= MAX_CONTEXTS) break;
        slot.sent.delete(old);
        drop.push(old);
      }
    }
    const msg: StatsRequest = { id, ctxId, ...req, ...(firstForThread ? { ctx } : {}), ...(drop.length > 0 ? { drop } : {}) };
    return new Promise<FileStats | RemoteStats>((resolve, reject) => {
      slot.pending.set(id, { ctxId: ctxId as number, resolve, reject });
      if (slot.inFlight++ === 0) slot.worker.ref();
      if (slot.queue.length === 0) setImmediate(() => this.flush(slot));
      slot.queue.push(msg);
      slot.transfer.push(...transfer);
      // Small batches keep several in flight: the thread starts on one while the next fills.
      if (slot.queue.length >= MAX_BATCH) this.flush(slot);
    });
  }

  private flush(slot: Slot): void {
    if (slot.queue.length === 0) return;
    const [batch, transfer] = [slot.queue, slot.transfer];
    slot.queue = [];
    slot.transfer = [];
    slot.worker.postMessage(batch, transfer);
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}

let shared: FooterThreads | null | undefined;
let everyCpu = false;

/**
 * For processes that run no workflow tasks (`migrate table`, `migrate worker --role activities`):
 * the default becomes one thread per CPU, since no event loop work waits behind the threads. Call
 * before the first conversion; HIM_FOOTER_THREADS still wins.
 */
export function footerThreadsOnEveryCpu(): void {
  everyCpu = true;
}

/**
 * The process-wide pool, or null when threads are off. `HIM_FOOTER_THREADS`: number of threads
 * (0 = off, decode on the calling thread); default: one per CPU beyond the first (one per CPU after
 * footerThreadsOnEveryCpu), at most 4.
 */
export function sharedFooterThreads(env: NodeJS.ProcessEnv = process.env): FooterThreads | null {
  if (shared !== undefined) return shared;
  const cpus = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  const n =
    env.HIM_FOOTER_THREADS !== undefined && env.HIM_FOOTER_THREADS !== ''
      ? Number(env.HIM_FOOTER_THREADS)
      : Math.min(4, Math.max(0, everyCpu ? cpus : cpus - 1));
  shared = Number.isInteger(n) && n > 0 ? new FooterThreads(n) : null;
  return shared;
}
