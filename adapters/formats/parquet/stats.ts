// Parquet footer → per-file stats for an Iceberg data_file, as Iceberg's ParquetUtil.footerMetrics
// (pure; no I/O): columns mapped to field ids (plan.ts), counts summed over row groups and bounds
// only where safe (accumulate.ts, bounds.ts), split offsets = row-group starts; as FileStats maps,
// or with the five metric maps written straight as the manifest entry's Avro bytes (what a footer
// thread sends).
import { serializeBound } from '../../../core/iceberg/bounds';
import type { PrimitiveType, PrimitiveValue } from '../../../core/iceberg/types';
import type { FileStats, FooterContext } from '../../../core/storage/file-stats';
import { MigrationError } from '../../../core/errors';
import { AvroBytes, metricsMap } from '../../avro/entry-encoder';
import { accumulate } from './accumulate';
import type { Acc } from './accumulate';
import { isAscii, utf8Text } from './bounds';
import type { FastKind } from './bounds';
import { corruptParquet } from './footer';
import type { StatsPlan } from './plan';
import type { FileMetaData } from './thrift';

/**
 * FileStats from decoded metadata (pure; exported for tests and the bench). `typedOnly` sends every
 * column through statValue/serializeBound (the reference the fast kinds are tested against).
 */
export function parquetStats(path: string, md: FileMetaData, ctx: FooterContext, typedOnly = false): FileStats {
  const { plan, accs, typed, records, splits } = accumulate(path, md, ctx, typedOnly);
  const stats = { ...assemble(plan, accs, ctx, typed), recordCount: records, splitOffsets: splits, fileColumns: plan.leafPaths };
  return plan.leafIds === undefined ? stats : { ...stats, fileFieldIds: plan.leafIds };
}

/**
 * parquetStats with the five metric maps written straight into `out` as the manifest entry's Avro
 * bytes (what encodeMetrics would write for parquetStats' maps, byte for byte), without the Maps
 * and a Uint8Array per bound in between: what a footer thread sends
 * (adapters/storage/object-read/footer-worker.ts). The result's `encodedMetrics` is a view of `out`,
 * valid until `out` is next reset.
 */
export function parquetStatsEncoded(
  path: string,
  md: FileMetaData,
  ctx: FooterContext,
  out: AvroBytes,
  typedOnly = false,
): FileStats & { readonly encodedMetrics: Uint8Array } {
  const { plan, accs, typed, records, splits } = accumulate(path, md, ctx, typedOnly);
  const start = out.length;
  const boundsWithheld = writeMetrics(plan, accs, ctx, typed, out);
  return {
    recordCount: records,
    splitOffsets: splits,
    fileColumns: plan.leafPaths,
    ...(plan.leafIds === undefined ? {} : { fileFieldIds: plan.leafIds }),
    boundsWithheld,
    encodedMetrics: out.view().subarray(start),
  };
}

const scratch64 = new Float64Array(1);
const scratch32 = new Float32Array(1);
const scratchBytes64 = new Uint8Array(scratch64.buffer);
const scratchBytes32 = new Uint8Array(scratch32.buffer);
const littleEndian = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

const i32Bytes = new Uint8Array(4);
const boolByte = new Uint8Array(1);

/**
 * The Iceberg bound of a fast-kind accumulator side, or null when none (a truncated string can
 * have none): a view of scratch bytes or of the stat bytes, valid until the next call — copy it to
 * keep it (fastBound), or write it out (writeFastBound).
 */
function fastBoundView(
  kind: Exclude<FastKind, 'slow'>,
  type: PrimitiveType,
  a: Acc,
  side: 'lower' | 'upper',
  trunc: number | null,
): Uint8Array | null {
  const n = side === 'lower' ? a.minN : a.maxN;
  const raw = side === 'lower' ? a.minRaw : a.maxRaw;
  switch (kind) {
    case 'i32':
      i32Bytes[0] = n & 0xff;
      i32Bytes[1] = (n >>> 8) & 0xff;
      i32Bytes[2] = (n >>> 16) & 0xff;
      i32Bytes[3] = (n >>> 24) & 0xff;
      return i32Bytes;
    case 'bool':
      boolByte[0] = n;
      return boolByte;
    case 'f32':
    case 'f64': {
      // Typed arrays in platform order; Iceberg's bounds are little-endian.
      const b = kind === 'f32' ? scratchBytes32 : scratchBytes64;
      if (kind === 'f32') scratch32[0] = n;
      else scratch64[0] = n;
      return littleEndian ? b : b.slice().reverse();
    }
    case 'i64': {
      const b = raw as Uint8Array;
      return b.length === 8 ? b : b.subarray(0, 8);
    }
    case 'dec':
      return raw as Uint8Array;
    case 'str': {
      const b = raw as Uint8Array;
      // ASCII within the truncation length is its own bound; anything else is truncated as text.
      if ((trunc === null || b.length <= trunc) && isAscii(b)) return b;
      return serializeBound(type, utf8Text(b), side, trunc);
    }
  }
}

/** fastBoundView, copied. */
function fastBound(
  kind: Exclude<FastKind, 'slow'>,
  type: PrimitiveType,
  a: Acc,
  side: 'lower' | 'upper',
  trunc: number | null,
): Uint8Array | null {
  const v = fastBoundView(kind, type, a, side, trunc);
  return v === null ? null : Uint8Array.prototype.slice.call(v);
}

/** Bound entries of one side, gathered here until their count (the map's header) is known. */
const lowerEntries = new AvroBytes();
const upperEntries = new AvroBytes();

/** One side's fast-kind bound as an Avro map entry (key, bytes) in `out`; false when there is none. */
function writeFastBound(
  out: AvroBytes,
  id: number,
  kind: Exclude<FastKind, 'slow'>,
  type: PrimitiveType,
  a: Acc,
  side: 'lower' | 'upper',
  trunc: number | null,
): boolean {
  const v = fastBoundView(kind, type, a, side, trunc);
  if (v === null) return false;
  out.long(id);
  out.bytes(v);
  return true;
}

/** A typed-path bound as an Avro map entry; false when there is none. */
function writeTypedBound(
  out: AvroBytes,
  id: number,
  type: PrimitiveType,
  v: PrimitiveValue | undefined,
  side: 'lower' | 'upper',
  trunc: number | null,
): boolean {
  if (v === undefined) return false;
  const b = serializeBound(type, v, side, trunc);
  if (b === null) return false;
  out.long(id);
  out.bytes(b);
  return true;
}

/**
 * assemble + encodeMetrics in one pass: the maps' entries in the same (ascending id) order, the
 * same skips, written as Avro (entry-encoder.ts metricsMap). Returns the withheld bounds.
 */
function writeMetrics(plan: StatsPlan, accs: readonly Acc[], ctx: FooterContext, typed: boolean, out: AvroBytes): Map<number, string> {
  const boundsWithheld = new Map<number, string>();
  const trunc = ctx.truncateLength === undefined ? 16 : ctx.truncateLength;
  let seen = 0;
  let nulls = 0;
  for (const a of accs) {
    if (!a.seen) continue;
    seen++;
    if (a.nulls !== undefined) nulls++;
  }
  for (const which of [0, 1, 2] as const) {
    metricsMap.open(out, which === 2 ? nulls : seen);
    for (let s = 0; s < accs.length; s++) {
      const a = accs[s] as Acc;
      if (!a.seen) continue;
      const v = which === 0 ? a.size : which === 1 ? a.values : a.nulls;
      if (v === undefined) continue;
      out.long((plan.slots[s] as StatsPlan['slots'][number]).id);
      out.long(v);
    }
    metricsMap.close(out);
  }
  metricsMap.absent(out); // nan_value_counts: Parquet footers carry none
  lowerEntries.reset();
  upperEntries.reset();
  let lows = 0;
  let highs = 0;
  for (let s = 0; s < accs.length; s++) {
    const a = accs[s] as Acc;
    if (!a.seen) continue;
    const { id, type, kind } = plan.slots[s] as StatsPlan['slots'][number];
    if (a.withheld !== undefined) {
      boundsWithheld.set(id, a.withheld);
      continue;
    }
    if (!typed && kind !== 'slow') {
      if (!a.has) continue;
      if (writeFastBound(lowerEntries, id, kind, type, a, 'lower', trunc)) lows++;
      if (writeFastBound(upperEntries, id, kind, type, a, 'upper', trunc)) highs++;
      continue;
    }
    if (writeTypedBound(lowerEntries, id, type, a.min, 'lower', trunc)) lows++;
    if (writeTypedBound(upperEntries, id, type, a.max, 'upper', trunc)) highs++;
  }
  metricsMap.open(out, lows);
  out.raw(lowerEntries.view());
  metricsMap.close(out);
  metricsMap.open(out, highs);
  out.raw(upperEntries.view());
  metricsMap.close(out);
  return boundsWithheld;
}

function assemble(plan: StatsPlan, accs: readonly Acc[], ctx: FooterContext, typed: boolean): Omit<FileStats, 'recordCount'> {
  const columnSizes = new Map<number, number>();
  const valueCounts = new Map<number, number>();
  const nullValueCounts = new Map<number, number>();
  const lowerBounds = new Map<number, Uint8Array>();
  const upperBounds = new Map<number, Uint8Array>();
  const boundsWithheld = new Map<number, string>();
  const trunc = ctx.truncateLength === undefined ? 16 : ctx.truncateLength;
  for (let s = 0; s < accs.length; s++) {
    const a = accs[s] as Acc;
    if (!a.seen) continue;
    const { id, type, kind } = plan.slots[s] as StatsPlan['slots'][number];
    columnSizes.set(id, a.size);
    valueCounts.set(id, a.values);
    if (a.nulls !== undefined) nullValueCounts.set(id, a.nulls);
    if (a.withheld !== undefined) {
      boundsWithheld.set(id, a.withheld);
      continue;
    }
    if (!typed && kind !== 'slow') {
      if (!a.has) continue;
      const lo = fastBound(kind, type, a, 'lower', trunc);
      const hi = fastBound(kind, type, a, 'upper', trunc);
      if (lo !== null) lowerBounds.set(id, lo);
      if (hi !== null) upperBounds.set(id, hi);
      continue;
    }
    if (a.min !== undefined) {
      const lo = serializeBound(type, a.min, 'lower', trunc);
      if (lo !== null) lowerBounds.set(id, lo);
    }
    if (a.max !== undefined) {
      const hi = serializeBound(type, a.max, 'upper', trunc);
      if (hi !== null) upperBounds.set(id, hi);
    }
  }
  return { columnSizes, valueCounts, nullValueCounts, lowerBounds, upperBounds, boundsWithheld };
}

/** `stats()` with a non-coded failure reported as a corrupt footer naming the file. */
function checked<T>(path: string, stats: () => T): T {
  try {
    return stats();
  } catch (e) {
    if (e instanceof MigrationError) throw e;
    throw corruptParquet(path, `inconsistent footer: ${(e as Error).message}`, e);
  }
}

/** parquetStats, a non-coded failure reported as a corrupt footer naming the file. */
export function parquetStatsChecked(path: string, md: FileMetaData, context: FooterContext): FileStats {
  return checked(path, () => parquetStats(path, md, context));
}

/** parquetStatsEncoded, a non-coded failure reported as a corrupt footer naming the file. */
export function parquetStatsEncodedChecked(
  path: string,
  md: FileMetaData,
  context: FooterContext,
  out: AvroBytes,
): FileStats & { readonly encodedMetrics: Uint8Array } {
  return checked(path, () => parquetStatsEncoded(path, md, context, out));
}
