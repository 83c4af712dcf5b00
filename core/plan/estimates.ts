// Expected duration of a wave from measured throughput: a pure function of its parameters, so the
// same plan inputs give the same estimates. Pure; no I/O.
import { z } from 'zod';
import { ErrorCode } from '../errors';
import { issuesError } from './types';

/**
 * Throughput measured on this warehouse (e.g. from a trial wave): files listed and footers read
 * per second, bytes per second of footer/metadata reads, and a fixed cost per table (snapshot,
 * register, validate). All are aggregate rates across the worker pool.
 */
export const throughputSchema = z
  .object({
    /** Files listed and footers read per second, across the worker pool. */
    filesPerSecond: z.number().positive(),
    /** Bytes of footer and metadata reads per second, across the worker pool. */
    bytesPerSecond: z.number().positive(),
    /** Fixed seconds per table (snapshot, register, validate). */
    perTableOverheadSeconds: z.number().nonnegative(),
  })
  .strict();
export type Throughput = z.output<typeof throughputSchema>;

export interface WaveEstimate {
  readonly files: number;
  readonly bytes: number;
  /** Whole seconds, rounded up. */
  readonly expectedSeconds: number;
}

export function parseThroughput(input: unknown): Throughput {
  const r = throughputSchema.safeParse(input);
  if (r.success) return r.data;
  throw issuesError(
    'invalid throughput',
    r.error.issues.map((i) => ({ ...i, path: ['throughput', ...i.path] })),
    () => ErrorCode.PLAN_INVALID,
  );
}

/**
 * files / filesPerSecond + bytes / bytesPerSecond + tables × overhead, rounded up to a whole
 * second. The terms add (rather than max) because listing, footer reads and the per-table steps
 * of one table run one after another; the rates already fold in the pool's parallelism.
 */
export function estimateWave(tables: readonly { readonly files: number; readonly bytes: number }[], throughput: Throughput): WaveEstimate {
  let files = 0;
  let bytes = 0;
  for (const t of tables) {
    files += t.files;
    bytes += t.bytes;
  }
  const seconds =
    files / throughput.filesPerSecond + bytes / throughput.bytesPerSecond + tables.length * throughput.perTableOverheadSeconds;
  return { files, bytes, expectedSeconds: Math.ceil(seconds) };
}
