// A Parquet file's column chunks summed per Iceberg field (pure; no I/O): sizes, value and null
// counts, and min/max — straight from the stat bytes for the fast kinds (bounds.ts FastKind),
// else through typed values (statValue, compareValues). stats.ts turns the result into FileStats.
import { compareValues } from '../../../core/iceberg/manifest';
import type { PrimitiveType, PrimitiveValue } from '../../../core/iceberg/types';
import type { FooterContext } from '../../../core/storage/file-stats';
import { compareMinimalTwos, fitsPrecision, floatBound, isUtf8, isWithheld, minimalTwos, pickMinMax, statValue } from './bounds';
import type { FastKind, Withheld } from './bounds';
import { statsPlan } from './plan';
import type { StatsPlan } from './plan';
import { PhysicalType } from './thrift';
import type { ColumnChunk, FileMetaData, SchemaElement } from './thrift';

/** One field's metrics over the file's row groups. */
export class Acc {
  seen = false;
  size = 0;
  values = 0;
  nulls: number | undefined = 0;
  withheld: Withheld | 'missing-stats' | undefined = undefined;
  /** Typed values (the 'slow' path). */
  min: PrimitiveValue | undefined = undefined;
  max: PrimitiveValue | undefined = undefined;
  /** Raw stat bytes: strings, INT64 values, minimal decimal bytes. */
  minRaw: Uint8Array | undefined = undefined;
  maxRaw: Uint8Array | undefined = undefined;
  /** Numbers: INT32, booleans (0/1), floats (signed zeros applied). */
  minN = 0;
  maxN = 0;
  has = false;
}

const MISMATCH = 'type-mismatch' as const;

function i32At(b: Uint8Array): number {
  return (b[0] as number) | ((b[1] as number) << 8) | ((b[2] as number) << 16) | ((b[3] as number) << 24);
}

/** Signed 64-bit little-endian order, without a bigint. */
function compareI64(a: Uint8Array, b: Uint8Array): number {
  const ha = (a[4] as number) | ((a[5] as number) << 8) | ((a[6] as number) << 16) | ((a[7] as number) << 24);
  const hb = (b[4] as number) | ((b[5] as number) << 8) | ((b[6] as number) << 16) | ((b[7] as number) << 24);
  if (ha !== hb) return ha < hb ? -1 : 1;
  const la = i32At(a) >>> 0;
  const lb = i32At(b) >>> 0;
  return la === lb ? 0 : la < lb ? -1 : 1;
}

const f32 = new DataView(new ArrayBuffer(8));
/** A FLOAT/DOUBLE stat as statValue reads it (without a DataView per stat), or why it gives no bound. */
function floatStat(b: Uint8Array, double: boolean, side: 'lower' | 'upper'): number | Withheld {
  const n = double ? 8 : 4;
  if (b.length < n) return MISMATCH;
  for (let i = 0; i < n; i++) f32.setUint8(i, b[i] as number);
  return floatBound(double ? f32.getFloat64(0, true) : f32.getFloat32(0, true), side);
}

/** statValue + compareValues for the fast kinds, straight from the stat bytes. */
function accumulateFast(
  a: Acc,
  kind: Exclude<FastKind, 'slow'>,
  lo: Uint8Array,
  hi: Uint8Array,
  type: PrimitiveType,
): Withheld | undefined {
  switch (kind) {
    case 'i32':
    case 'bool': {
      const n = kind === 'i32' ? 4 : 1;
      if (lo.length < n || hi.length < n) return MISMATCH;
      const x = kind === 'i32' ? i32At(lo) : lo[0] !== 0 ? 1 : 0;
      const y = kind === 'i32' ? i32At(hi) : hi[0] !== 0 ? 1 : 0;
      if (!a.has || x < a.minN) a.minN = x;
      if (!a.has || y > a.maxN) a.maxN = y;
      break;
    }
    case 'f32':
    case 'f64': {
      const x = floatStat(lo, kind === 'f64', 'lower');
      if (typeof x === 'string') return x;
      const y = floatStat(hi, kind === 'f64', 'upper');
      if (typeof y === 'string') return y;
      if (!a.has || compareValues(type, x, a.minN) < 0) a.minN = x;
      if (!a.has || compareValues(type, y, a.maxN) > 0) a.maxN = y;
      break;
    }
    case 'i64':
      if (lo.length < 8 || hi.length < 8) return MISMATCH;
      if (!a.has || compareI64(lo, a.minRaw as Uint8Array) < 0) a.minRaw = lo;
      if (!a.has || compareI64(hi, a.maxRaw as Uint8Array) > 0) a.maxRaw = hi;
      break;
    case 'str':
      if (!isUtf8(lo) || !isUtf8(hi)) return MISMATCH;
      if (!a.has || Buffer.compare(lo, a.minRaw as Uint8Array) < 0) a.minRaw = lo;
      if (!a.has || Buffer.compare(hi, a.maxRaw as Uint8Array) > 0) a.maxRaw = hi;
      break;
    case 'dec': {
      const precision = (type as { precision: number }).precision;
      const x = minimalTwos(lo);
      if (!fitsPrecision(x, precision)) return MISMATCH;
      const y = minimalTwos(hi);
      if (!fitsPrecision(y, precision)) return MISMATCH;
      if (!a.has || compareMinimalTwos(x, a.minRaw as Uint8Array) < 0) a.minRaw = x;
      if (!a.has || compareMinimalTwos(y, a.maxRaw as Uint8Array) > 0) a.maxRaw = y;
      break;
    }
  }
  a.has = true;
  return undefined;
}

/** The typed-value path (statValue, compareValues) for one chunk's min/max. */
function accumulateTyped(
  a: Acc,
  type: PrimitiveType,
  element: SchemaElement,
  physical: number,
  mm: { min: Uint8Array; max: Uint8Array },
): Withheld | undefined {
  const lo = statValue(type, element, physical, mm.min, 'lower');
  const hi = statValue(type, element, physical, mm.max, 'upper');
  if (isWithheld(lo)) return lo.withheld;
  if (isWithheld(hi)) return hi.withheld;
  if (type.kind === 'string') {
    // Skips compareValues' re-encoding of both strings on every chunk.
    if (a.minRaw === undefined || Buffer.compare(mm.min, a.minRaw) < 0) [a.min, a.minRaw] = [lo, mm.min];
    if (a.maxRaw === undefined || Buffer.compare(mm.max, a.maxRaw) > 0) [a.max, a.maxRaw] = [hi, mm.max];
    return undefined;
  }
  if (a.min === undefined || compareValues(type, lo, a.min) < 0) a.min = lo;
  if (a.max === undefined || compareValues(type, hi, a.max) > 0) a.max = hi;
  return undefined;
}

/** A file's column chunks summed per field (accumulate), before they become maps or Avro bytes. */
export interface Accumulated {
  readonly plan: StatsPlan;
  readonly accs: readonly Acc[];
  /** Every column takes the typed-value path (typedOnly, shared field ids, or a malformed chunk). */
  readonly typed: boolean;
  readonly records: number;
  /** Row-group start offsets, ascending. */
  readonly splits: number[];
}

export function accumulate(path: string, md: FileMetaData, ctx: FooterContext, typedOnly: boolean): Accumulated {
  const plan = statsPlan(path, md, ctx);
  // Built by push, not slots.map(): map()'s result array differs in elements kind between the
  // interpreter and optimized code, which deoptimized this function and writeMetrics once each.
  const accs: Acc[] = [];
  for (let s = 0; s < plan.slots.length; s++) accs.push(new Acc());
  // A chunk whose physical type differs from its schema element's (a malformed file) is read only
  // as statValue reads it; so is every column when one field id has two leaves.
  let typed = typedOnly || plan.sharedIds;
  for (const rg of md.rowGroups) {
    for (let i = 0; i < rg.columns.length && !typed; i++) {
      const leaf = plan.leaves[i];
      if (leaf !== undefined && (rg.columns[i] as ColumnChunk).physicalType !== leaf.element.type) typed = true;
    }
  }
  let records = 0;
  const splits: number[] = [];
  for (const rg of md.rowGroups) {
    records += rg.numRows;
    const first = rg.columns[0];
    if (first !== undefined) {
      const dict = first.dictionaryPageOffset;
      splits.push(dict !== undefined && dict > 0 && dict < first.dataPageOffset ? dict : first.dataPageOffset);
    }
    for (let i = 0; i < rg.columns.length; i++) {
      const leaf = plan.leaves[i];
      if (leaf === undefined) continue;
      const col = rg.columns[i] as ColumnChunk;
      const a = accs[leaf.slot] as Acc;
      a.seen = true;
      a.size += col.totalCompressedSize;
      a.values += col.numValues;
      if (col.physicalType === PhysicalType.INT96) a.withheld = 'int96';
      const st = col.statistics;
      if (st === undefined) {
        a.nulls = undefined;
        a.withheld ??= 'missing-stats';
        continue;
      }
      a.nulls = a.nulls === undefined || st.nullCount === undefined ? undefined : a.nulls + st.nullCount;
      if (!leaf.structOnly || a.withheld !== undefined) continue;
      const hasValues = st.nullCount === undefined || col.numValues > st.nullCount;
      const mm = pickMinMax(leaf.element, col.physicalType, st, md.typeDefinedOrder?.[i], md.createdBy);
      if (mm === undefined) {
        if (hasValues) a.withheld = 'missing-stats';
        continue;
      }
      if (typeof mm === 'string') {
        a.withheld = mm;
        continue;
      }
      const w =
        typed || leaf.kind === 'slow'
          ? accumulateTyped(a, leaf.type, leaf.element, col.physicalType, mm)
          : accumulateFast(a, leaf.kind, mm.min, mm.max, leaf.type);
      if (w !== undefined) a.withheld = w;
    }
  }
  return { plan, accs, typed, records, splits: splits.sort((a, b) => a - b) };
}
