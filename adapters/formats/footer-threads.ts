// A small pool of worker threads for the CPU half of Parquet footer reads (footer-thread.ts). The
// main thread does the ranged GET and hands the FileMetaData bytes over; a thread decodes them and
// maps the column chunks to Iceberg metrics. Round-robin over the threads; each table's
// FooterContext (schema, name mapping) crosses once per thread. Threads are unref'd: an idle pool
// never keeps a process alive. Memory: one footer per request in flight (bounded by the caller's
// footer concurrency).
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { FileStats, FooterContext } from '../../core/storage/file-stats';
import { decodeFileStats } from './file-stats-codec';
import type { StatsRequest } from './footer-thread';

interface Pending {
  resolve(s: FileStats): void;
  reject(e: Error): void;
}

interface Slot {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
  readonly sent: Set<number>;
  inFlight: number;
}

/** Table contexts a thread keeps (each: a schema and its name mapping). */
const MAX_CONTEXTS = 64;

type Reply = { id: number; packed: Uint8Array } | { id: number; error: { code: string | null; message: string; context: Record<string, unknown> } };

export class FooterThreads {
  private readonly slots: Slot[] = [];
  private nextId = 0;
  private nextCtx = 0;
  /** One id per schema object (every file of a table shares it). */
  private readonly ctxIds = new WeakMap<object, number>();

  constructor(readonly size: number) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(path.join(__dirname, 'footer-thread-entry.cjs'));
    worker.unref();
    const slot: Slot = { worker, pending: new Map(), sent: new Set(), inFlight: 0 };
    worker.on('message', (r: Reply) => {
      const p = slot.pending.get(r.id);
      if (p === undefined) return;
      slot.pending.delete(r.id);
      if (--slot.inFlight === 0) worker.unref();
      if ('packed' in r) p.resolve(decodeFileStats(r.packed));
      else p.reject(r.error.code !== null ? new MigrationError(r.error.code as ErrorCode, r.error.message, r.error.context) : new Error(r.error.message));
    });
    worker.on('error', (e) => {
      // A thread that dies fails its requests (the activity retries) and is replaced.
      for (const p of slot.pending.values()) p.reject(new MigrationError(ErrorCode.INTERNAL, `footer thread failed: ${e.message}`, {}, { cause: e }));
      slot.pending.clear();
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots[i] = this.spawn();
    });
    return slot;
  }

  /** FileStats of one Parquet footer (the FileMetaData bytes, without length and magic). */
  stats(filePath: string, bytes: Uint8Array, ctx: FooterContext): Promise<FileStats> {
    // Its own buffer, transferred: a view would clone the whole 64 KiB tail buffer behind it.
    const own = bytes.slice();
    return this.send({ path: filePath, bytes: own }, ctx, [own.buffer as ArrayBuffer]);
  }

  /** FileStats of a local Parquet file: the thread reads the footer itself (blocking preads there). */
  statsLocal(filePath: string, file: string, size: number, tailBytes: number, ctx: FooterContext): Promise<FileStats> {
    return this.send({ path: filePath, local: { file, size, tailBytes } }, ctx, []);
  }

  private send(req: Pick<StatsRequest, 'path' | 'bytes' | 'local'>, ctx: FooterContext, transfer: ArrayBuffer[]): Promise<FileStats> {
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
    return new Promise<FileStats>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      if (slot.inFlight++ === 0) slot.worker.ref();
      slot.worker.postMessage(msg, transfer);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}

let shared: FooterThreads | null | undefined;

/**
 * The process-wide pool, or null when threads are off. `HIM_FOOTER_THREADS`: number of threads
 * (0 = off, decode on the calling thread); default: one per CPU beyond the first, at most 4.
 */
export function sharedFooterThreads(env: NodeJS.ProcessEnv = process.env): FooterThreads | null {
  if (shared !== undefined) return shared;
  const cpus = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  const n = env.HIM_FOOTER_THREADS !== undefined && env.HIM_FOOTER_THREADS !== '' ? Number(env.HIM_FOOTER_THREADS) : Math.min(4, Math.max(0, cpus - 1));
  shared = Number.isInteger(n) && n > 0 ? new FooterThreads(n) : null;
  return shared;
}
