// Which Parquet column-chunk min/max statistics are safe to turn into Iceberg bounds, and the
// conversion of their bytes into typed values of the column's Iceberg type.
//
// The trust rule (documented in bench/footers/RESULTS.md too), per column chunk:
//  1. INT96 → never (Iceberg's ParquetMetrics gives INT96 no bounds; the order is not numeric).
//  2. Unsigned integers (UINT_*, INTEGER(isSigned=false)) → never: Iceberg orders ints signed.
//  3. `min_value`/`max_value` (parquet-format ≥ 2.4, PARQUET-1025) are used when the column's
//     order is TypeDefinedOrder (or the file lists no column_orders: parquet-mr's default), else
//     only when min_value == max_value.
//  4. Deprecated `min`/`max` (no min_value/max_value): for BOOLEAN/INT32/INT64/FLOAT/DOUBLE they
//     were always compared signed → used. For BYTE_ARRAY/FIXED_LEN_BYTE_ARRAY they were compared
//     as signed bytes (wrong for UTF-8 and binary, and for two's-complement decimals), so they are
//     used only when min == max, and never when written by parquet-mr < 1.10.0 (PARQUET-251:
//     < 1.8.0 reused buffers and wrote garbage; PARQUET-1025: < 1.10.0 signed byte order) or by
//     an unknown writer (no created_by) — stricter than parquet-mr's CorruptStatistics.
//  5. Float/double: a NaN min or max → no bounds; min 0.0 reads as -0.0 and max -0.0 as +0.0
//     (parquet-format's reader guidance for signed zeros).
import { bigIntFromBytes } from '../../../core/iceberg/bounds';
import type { PrimitiveType, PrimitiveValue } from '../../../core/iceberg/types';
import { ConvertedType, PhysicalType } from './thrift';
import type { RawStatistics, SchemaElement } from './thrift';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export type Withheld = 'int96' | 'unsigned' | 'untrusted-writer' | 'undefined-order' | 'nan' | 'type-mismatch';
/** A stat that yields no bound (an object, so it never collides with a string value). */
export interface WithheldBound {
  readonly withheld: Withheld;
}
const MISMATCH: WithheldBound = { withheld: 'type-mismatch' };
const NAN: WithheldBound = { withheld: 'nan' };

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** parquet-mr `version X.Y.Z` from created_by, or undefined for other writers. */
function parquetMrVersion(createdBy: string): [number, number, number] | 'unparsable' | undefined {
  if (!/^parquet-mr\b/.test(createdBy)) return undefined;
  const m = /^parquet-mr(?: compatibility)? version (\d+)\.(\d+)\.(\d+)/.exec(createdBy);
  return m === null ? 'unparsable' : [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** Rule 4's writer check for binary deprecated stats. */
export function trustsBinaryDeprecatedStats(createdBy: string | undefined): boolean {
  if (createdBy === undefined || createdBy.trim() === '') return false;
  const v = parquetMrVersion(createdBy);
  if (v === undefined) return true;
  if (v === 'unparsable') return false;
  const [major, minor] = v;
  return major > 1 || (major === 1 && minor >= 10);
}

export function isUnsigned(e: SchemaElement): boolean {
  const c = e.convertedType;
  if (c !== undefined && c >= ConvertedType.UINT_8 && c <= ConvertedType.UINT_64) return true;
  return e.logicalType?.kind === 'INTEGER' && !e.logicalType.isSigned;
}

/** Rules 1–4: the min/max bytes to use, or why there are none. */
export function pickMinMax(
  e: SchemaElement,
  physical: number,
  stats: RawStatistics,
  typeDefinedOrder: boolean | undefined,
  createdBy: string | undefined,
): { min: Uint8Array; max: Uint8Array } | Withheld | undefined {
  if (physical === PhysicalType.INT96) return 'int96';
  if (isUnsigned(e)) return 'unsigned';
  if (stats.minValue !== undefined && stats.maxValue !== undefined) {
    if (typeDefinedOrder === false && !equalBytes(stats.minValue, stats.maxValue)) return 'undefined-order';
    return { min: stats.minValue, max: stats.maxValue };
  }
  if (stats.min === undefined || stats.max === undefined) return undefined;
  if (physical === PhysicalType.BYTE_ARRAY || physical === PhysicalType.FIXED_LEN_BYTE_ARRAY) {
    if (!trustsBinaryDeprecatedStats(createdBy) || !equalBytes(stats.min, stats.max)) return 'untrusted-writer';
  }
  return { min: stats.min, max: stats.max };
}

function decimalScale(e: SchemaElement): number | undefined {
  if (e.logicalType?.kind === 'DECIMAL') return e.logicalType.scale;
  return e.convertedType === ConvertedType.DECIMAL ? (e.scale ?? 0) : undefined;
}

/** Microseconds per unit of an INT64 timestamp column, or undefined when it is not a timestamp. */
function timestampUnit(e: SchemaElement): 'MILLIS' | 'MICROS' | 'NANOS' | undefined {
  if (e.logicalType?.kind === 'TIMESTAMP') return e.logicalType.unit;
  if (e.convertedType === ConvertedType.TIMESTAMP_MILLIS) return 'MILLIS';
  if (e.convertedType === ConvertedType.TIMESTAMP_MICROS) return 'MICROS';
  return undefined;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}

function i32(view: DataView): number | undefined {
  return view.byteLength >= 4 ? view.getInt32(0, true) : undefined;
}
function i64(view: DataView): bigint | undefined {
  return view.byteLength >= 8 ? view.getBigInt64(0, true) : undefined;
}
function orMismatch<T>(v: T | undefined): T | WithheldBound {
  return v === undefined ? MISMATCH : v;
}

/**
 * The typed value of a stat for the Iceberg `type` (ParquetConversions.fromParquetPrimitive),
 * rounding outward where units shrink (nanos → micros). 'type-mismatch' when the file's column
 * cannot be read as that type safely.
 */
export function statValue(
  type: PrimitiveType,
  e: SchemaElement,
  physical: number,
  b: Uint8Array,
  side: 'lower' | 'upper',
): PrimitiveValue | WithheldBound {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  switch (type.kind) {
    case 'boolean':
      return physical === PhysicalType.BOOLEAN && b.length >= 1 ? b[0] !== 0 : MISMATCH;
    case 'int':
      return physical === PhysicalType.INT32 && decimalScale(e) === undefined ? orMismatch(i32(view)) : MISMATCH;
    case 'date':
      return physical === PhysicalType.INT32 && (e.convertedType === ConvertedType.DATE || e.logicalType?.kind === 'DATE')
        ? orMismatch(i32(view))
        : MISMATCH;
    case 'long':
      if (decimalScale(e) !== undefined || timestampUnit(e) !== undefined) return MISMATCH;
      if (physical === PhysicalType.INT32) return orMismatch(i32(view) === undefined ? undefined : BigInt(i32(view) ?? 0));
      return physical === PhysicalType.INT64 ? orMismatch(i64(view)) : MISMATCH;
    case 'float':
    case 'double': {
      const v =
        physical === PhysicalType.FLOAT && b.length >= 4
          ? view.getFloat32(0, true)
          : physical === PhysicalType.DOUBLE && type.kind === 'double' && b.length >= 8
            ? view.getFloat64(0, true)
            : undefined;
      if (v === undefined) return MISMATCH;
      const f = floatBound(v, side);
      return f === 'nan' ? NAN : f;
    }
    case 'timestamp':
    case 'timestamptz': {
      const unit = timestampUnit(e);
      const v = physical === PhysicalType.INT64 ? i64(view) : undefined;
      if (unit === undefined || v === undefined) return MISMATCH;
      if (unit === 'MILLIS') return v * 1000n;
      if (unit === 'MICROS') return v;
      return side === 'lower' ? floorDiv(v, 1000n) : -floorDiv(-v, 1000n);
    }
    case 'time':
      if (
        physical === PhysicalType.INT64 &&
        (e.convertedType === ConvertedType.TIME_MICROS || (e.logicalType?.kind === 'TIME' && e.logicalType.unit === 'MICROS'))
      )
        return orMismatch(i64(view));
      if (
        physical === PhysicalType.INT32 &&
        (e.convertedType === ConvertedType.TIME_MILLIS || (e.logicalType?.kind === 'TIME' && e.logicalType.unit === 'MILLIS'))
      )
        return orMismatch(i32(view) === undefined ? undefined : BigInt(i32(view) ?? 0) * 1000n);
      return MISMATCH;
    case 'string':
      if (physical !== PhysicalType.BYTE_ARRAY || decimalScale(e) !== undefined) return MISMATCH;
      try {
        return strictUtf8.decode(b);
      } catch {
        return MISMATCH;
      }
    case 'binary':
      return physical === PhysicalType.BYTE_ARRAY || physical === PhysicalType.FIXED_LEN_BYTE_ARRAY ? b.slice() : MISMATCH;
    case 'fixed':
      return physical === PhysicalType.FIXED_LEN_BYTE_ARRAY && b.length === type.length ? b.slice() : MISMATCH;
    case 'uuid':
      return physical === PhysicalType.FIXED_LEN_BYTE_ARRAY && b.length === 16 ? b.slice() : MISMATCH;
    case 'decimal': {
      if (decimalScale(e) !== type.scale) return MISMATCH;
      let v: bigint | undefined;
      if (physical === PhysicalType.INT32) v = i32(view) === undefined ? undefined : BigInt(i32(view) ?? 0);
      else if (physical === PhysicalType.INT64) v = i64(view);
      else if (physical === PhysicalType.BYTE_ARRAY || physical === PhysicalType.FIXED_LEN_BYTE_ARRAY) v = bigIntFromBytes(b);
      if (v === undefined) return MISMATCH;
      const limit = 10n ** BigInt(type.precision);
      return v < limit && v > -limit ? v : MISMATCH;
    }
  }
}

/** Rule 5 for one float/double stat: NaN gives no bound; a zero min reads as -0.0, a zero max as +0.0. */
export function floatBound(v: number, side: 'lower' | 'upper'): number | 'nan' {
  if (Number.isNaN(v)) return 'nan';
  return v === 0 ? (side === 'lower' ? -0 : 0) : v;
}

export function isWithheld(v: PrimitiveValue | WithheldBound): v is WithheldBound {
  return typeof v === 'object' && !(v instanceof Uint8Array);
}

/**
 * How stats.ts and accumulate.ts turn a column's stats into bounds without typed values: the Iceberg bound is the
 * stat's own bytes or a cheap function of them (same results as statValue + serializeBound, checked
 * against that path in test/unit/formats/parquet-fast-bounds.test.ts). 'slow': statValue and serializeBound.
 *  i32: int/date from INT32 (4-byte LE) · i64: long, timestamp(tz) µs from INT64 (8-byte LE)
 *  f32/f64: float from FLOAT, double from DOUBLE · bool · str: string from BYTE_ARRAY
 *  dec: decimal from FIXED_LEN_BYTE_ARRAY/BYTE_ARRAY (big-endian two's complement → minimal bytes)
 */
export type FastKind = 'i32' | 'i64' | 'f32' | 'f64' | 'bool' | 'str' | 'dec' | 'slow';

export function fastKind(type: PrimitiveType, e: SchemaElement): FastKind {
  const p = e.type;
  const dec = decimalScale(e);
  switch (type.kind) {
    case 'int':
      return p === PhysicalType.INT32 && dec === undefined ? 'i32' : 'slow';
    case 'date':
      return p === PhysicalType.INT32 && (e.convertedType === ConvertedType.DATE || e.logicalType?.kind === 'DATE') ? 'i32' : 'slow';
    case 'long':
      return p === PhysicalType.INT64 && dec === undefined && timestampUnit(e) === undefined ? 'i64' : 'slow';
    case 'timestamp':
    case 'timestamptz':
      return p === PhysicalType.INT64 && timestampUnit(e) === 'MICROS' ? 'i64' : 'slow';
    case 'float':
      return p === PhysicalType.FLOAT ? 'f32' : 'slow';
    case 'double':
      return p === PhysicalType.DOUBLE ? 'f64' : 'slow';
    case 'boolean':
      return p === PhysicalType.BOOLEAN ? 'bool' : 'slow';
    case 'string':
      return p === PhysicalType.BYTE_ARRAY && dec === undefined ? 'str' : 'slow';
    case 'decimal':
      return (p === PhysicalType.FIXED_LEN_BYTE_ARRAY || p === PhysicalType.BYTE_ARRAY) && dec === type.scale ? 'dec' : 'slow';
    default:
      return 'slow';
  }
}

/** True when every byte is ASCII (then the bytes are valid UTF-8 with one code point per byte). */
export function isAscii(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) if ((b[i] as number) >= 0x80) return false;
  return true;
}

/** Whether `b` is valid UTF-8 (statValue's strict decode). */
export function isUtf8(b: Uint8Array): boolean {
  if (isAscii(b)) return true;
  try {
    strictUtf8.decode(b);
    return true;
  } catch {
    return false;
  }
}

/** Valid UTF-8 bytes as text, decoded exactly as statValue decodes them. */
export function utf8Text(b: Uint8Array): string {
  return strictUtf8.decode(b);
}

/** Big-endian two's complement → the shortest such bytes of the same value (bigIntToMinimalBytes). */
export function minimalTwos(b: Uint8Array): Uint8Array {
  if (b.length === 0) return ZERO;
  let i = 0;
  while (i < b.length - 1) {
    const x = b[i] as number;
    const next = (b[i + 1] as number) & 0x80;
    if ((x === 0 && next === 0) || (x === 0xff && next !== 0)) i++;
    else break;
  }
  return b.subarray(i);
}
const ZERO = Uint8Array.of(0);

/** Orders minimal two's complement bytes by value (no bigint): sign, then length, then bytes. */
export function compareMinimalTwos(a: Uint8Array, b: Uint8Array): number {
  const na = ((a[0] as number) & 0x80) !== 0;
  const nb = ((b[0] as number) & 0x80) !== 0;
  if (na !== nb) return na ? -1 : 1;
  if (a.length !== b.length) return a.length < b.length !== na ? -1 : 1;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return (a[i] as number) < (b[i] as number) ? -1 : 1;
  return 0;
}

/** |minimal two's complement value| < 10^precision (statValue's decimal check). */
export function fitsPrecision(m: Uint8Array, precision: number): boolean {
  if (m.length <= 6) {
    let x = 0;
    for (let i = 0; i < m.length; i++) x = x * 256 + (m[i] as number);
    if (((m[0] as number) & 0x80) !== 0) x -= 2 ** (8 * m.length);
    return precision >= 16 || Math.abs(x) < 10 ** precision;
  }
  const v = bigIntFromBytes(m);
  const limit = 10n ** BigInt(precision);
  return v < limit && v > -limit;
}
