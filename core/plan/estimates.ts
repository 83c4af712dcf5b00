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
    /** Rewrite path: bytes of Hive data the Spark job reads, writes and checks per second (config rewrite.bytesPerSecond). */
    rewriteBytesPerSecond: z.number().positive().optional(),
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
export function estimateWave(
  tables: readonly { readonly files: number; readonly bytes: number; readonly class?: string }[],
  throughput: Throughput,
): WaveEstimate {
  let files = 0;
  let bytes = 0;
  let seconds = 0;
  for (const t of tables) {
    files += t.files;
    bytes += t.bytes;
    seconds += tableSeconds(t, throughput);
  }
  return { files, bytes, expectedSeconds: Math.ceil(seconds) };
}

/** Default rewrite rate when none is configured: measured by bench/rewrite on the 2-core stack (bench/RESULTS.md). */
export const DEFAULT_REWRITE_BYTES_PER_SECOND = 500_000;

/**
 * One table's share: metadata-only = its files and footer bytes at the measured rates; a rewrite
 * (class rewrite-required in a wave) = every byte read, written and checked by the Spark job.
 */
export function tableSeconds(
  t: { readonly files: number; readonly bytes: number; readonly class?: string },
  throughput: Throughput,
): number {
  if (t.class === 'rewrite-required')
    return t.bytes / (throughput.rewriteBytesPerSecond ?? DEFAULT_REWRITE_BYTES_PER_SECOND) + throughput.perTableOverheadSeconds;
  return t.files / throughput.filesPerSecond + t.bytes / throughput.bytesPerSecond + throughput.perTableOverheadSeconds;
}
