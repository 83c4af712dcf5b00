// Single-value binary serialization (spec Appendix D "Single-value serialization") and the
// truncate(16) bound rules (TableProperties.DEFAULT_WRITE_METRICS_MODE; Java UnicodeUtil/BinaryUtil
// truncateMin/truncateMax). Pure; Uint8Array only (no Buffer, no Node built-ins).
//
// Values: boolean → boolean; int, date (days) → number; long, time, timestamp, timestamptz (µs) →
// bigint (a safe-integer number is accepted too); float, double → number; string → string;
// binary, fixed → Uint8Array; decimal → bigint unscaled value; uuid → canonical string or 16 bytes.
import { ErrorCode, MigrationError } from '../errors';
import { DEFAULT_TRUNCATE_LENGTH, UUID_BYTES } from './spec-constants';
import type { PrimitiveType, PrimitiveValue } from './types';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const MICROS_PER_DAY = 86_400_000_000n;

function invalid(type: PrimitiveType, value: unknown, why: string): never {
  throw new MigrationError(ErrorCode.ICEBERG_VALUE_INVALID, `cannot serialize ${String(value)} as ${typeName(type)}: ${why}`, {
    type: typeName(type),
  });
}

export function typeName(t: PrimitiveType): string {
  return t.kind === 'decimal' ? `decimal(${t.precision},${t.scale})` : t.kind === 'fixed' ? `fixed[${t.length}]` : t.kind;
}

function toBigInt(type: PrimitiveType, v: PrimitiveValue): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  return invalid(type, v, 'expected an integer (bigint)');
}

function le(bytes: number, write: (view: DataView) => void): Uint8Array {
  const out = new Uint8Array(bytes);
  write(new DataView(out.buffer));
  return out;
}

/** Minimal big-endian two's complement (Java BigInteger.toByteArray): 0 → [0x00]. */
export function bigIntToMinimalBytes(v: bigint): Uint8Array {
  const out: number[] = [];
  let x = v;
  for (;;) {
    const byte = Number(x & 0xffn);
    out.unshift(byte);
    x >>= 8n; // arithmetic shift: stays -1 for negatives
    const signBit = (byte & 0x80) !== 0;
    if ((x === 0n && !signBit) || (x === -1n && signBit)) break;
  }
  return Uint8Array.from(out);
}

/** Big-endian two's complement bytes → bigint. */
export function bigIntFromBytes(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  let x = 0n;
  for (const b of bytes) x = (x << 8n) | BigInt(b);
  return (bytes[0] ?? 0) & 0x80 ? x - (1n << BigInt(bytes.length * 8)) : x;
}

/** Bytes a decimal of `precision` needs as fixed (TypeUtil.decimalRequiredBytes). */
export function decimalRequiredBytes(precision: number): number {
  let bytes = 1;
  while (2n ** BigInt(8 * bytes - 1) - 1n < 10n ** BigInt(precision)) bytes++;
  return bytes;
}

export function uuidToBytes(v: string | Uint8Array): Uint8Array {
  if (v instanceof Uint8Array) return v.length === UUID_BYTES ? v : invalid({ kind: 'uuid' }, v, 'expected 16 bytes');
  const hex = v.replace(/-/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex) || !/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(v)) {
    return invalid({ kind: 'uuid' }, v, 'expected a canonical UUID string');
  }
  const out = new Uint8Array(UUID_BYTES);
  for (let i = 0; i < UUID_BYTES; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function uuidFromBytes(b: Uint8Array): string {
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** spec Appendix D: the binary single-value form of `value` as `type`. */
export function toBytes(type: PrimitiveType, value: PrimitiveValue): Uint8Array {
  switch (type.kind) {
    case 'boolean':
      return typeof value === 'boolean' ? Uint8Array.of(value ? 1 : 0) : invalid(type, value, 'expected a boolean');
    case 'int':
    case 'date':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX)
        return invalid(type, value, 'expected a 32-bit integer');
      return le(4, (d) => d.setInt32(0, value, true));
    case 'long':
    case 'time':
    case 'timestamp':
    case 'timestamptz': {
      const v = toBigInt(type, value);
      if (v < INT64_MIN || v > INT64_MAX) return invalid(type, value, 'outside the 64-bit range');
      if (type.kind === 'time' && (v < 0n || v >= MICROS_PER_DAY)) return invalid(type, value, 'time of day outside 0..86399999999 µs');
      return le(8, (d) => d.setBigInt64(0, v, true));
    }
    case 'float':
      return typeof value === 'number' ? le(4, (d) => d.setFloat32(0, value, true)) : invalid(type, value, 'expected a number');
    case 'double':
      return typeof value === 'number' ? le(8, (d) => d.setFloat64(0, value, true)) : invalid(type, value, 'expected a number');
    case 'string':
      return typeof value === 'string' ? encoder.encode(value) : invalid(type, value, 'expected a string');
    case 'binary':
      return value instanceof Uint8Array ? value.slice() : invalid(type, value, 'expected bytes');
    case 'fixed':
      return value instanceof Uint8Array && value.length === type.length
        ? value.slice()
        : invalid(type, value, `expected ${type.length} bytes`);
    case 'uuid':
      return typeof value === 'string' || value instanceof Uint8Array ? uuidToBytes(value) : invalid(type, value, 'expected a UUID');
    case 'decimal': {
      const v = toBigInt(type, value);
      const limit = 10n ** BigInt(type.precision);
      if (v >= limit || v <= -limit) return invalid(type, value, `unscaled value needs more than ${type.precision} digits`);
      return bigIntToMinimalBytes(v);
    }
  }
}

/** The inverse of toBytes (for reading bounds back and for tests). */
export function fromBytes(type: PrimitiveType, b: Uint8Array): PrimitiveValue {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const need = (n: number): void => {
    if (b.length !== n) invalid(type, `${b.length} bytes`, `expected ${n} bytes`);
  };
  switch (type.kind) {
    case 'boolean':
      need(1);
      return b[0] !== 0;
    case 'int':
    case 'date':
      need(4);
      return view.getInt32(0, true);
    case 'long':
    case 'time':
    case 'timestamp':
    case 'timestamptz':
      need(8);
      return view.getBigInt64(0, true);
    case 'float':
      need(4);
      return view.getFloat32(0, true);
    case 'double':
      need(8);
      return view.getFloat64(0, true);
    case 'string':
      return decoder.decode(b);
    case 'binary':
    case 'fixed':
      return b.slice();
    case 'uuid':
      need(UUID_BYTES);
      return uuidFromBytes(b);
    case 'decimal':
      return bigIntFromBytes(b);
  }
}

/** Unsigned lexicographic byte order (how Iceberg compares binary and UTF-8 string bounds). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** The first `length` code points (never splits a surrogate pair). */
function codePoints(s: string): number[] {
  return Array.from(s, (c) => c.codePointAt(0) ?? 0);
}

/** Lower bound of a string: its first `length` code points (UnicodeUtil.truncateStringMin). */
export function truncateStringLower(s: string, length = DEFAULT_TRUNCATE_LENGTH): string {
  // UTF-16 length ≥ code points: a short string needs no code-point walk.
  if (s.length <= length) return s;
  const cps = codePoints(s);
  return cps.length <= length ? s : String.fromCodePoint(...cps.slice(0, length));
}

/**
 * Upper bound of a string truncated to `length` code points: the prefix with its last code point
 * incremented (surrogates skipped), dropping trailing U+10FFFF (UnicodeUtil.truncateStringMax).
 * null when no upper bound of that length exists.
 */
export function truncateStringUpper(s: string, length = DEFAULT_TRUNCATE_LENGTH): string | null {
  if (s.length <= length) return s;
  const cps = codePoints(s);
  if (cps.length <= length) return s;
  const prefix = cps.slice(0, length);
  for (let i = prefix.length - 1; i >= 0; i--) {
    let next = (prefix[i] ?? 0) + 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
    if (next <= 0x10ffff) return String.fromCodePoint(...prefix.slice(0, i), next);
  }
  return null;
}

export function truncateBinaryLower(b: Uint8Array, length = DEFAULT_TRUNCATE_LENGTH): Uint8Array {
  return b.length <= length ? b : b.slice(0, length);
}

/** Upper bound of bytes truncated to `length`: increment the last byte below 0xFF (BinaryUtil.truncateBinaryMax). */
export function truncateBinaryUpper(b: Uint8Array, length = DEFAULT_TRUNCATE_LENGTH): Uint8Array | null {
  if (b.length <= length) return b;
  for (let i = length - 1; i >= 0; i--) {
    const byte = b[i] ?? 0xff;
    if (byte < 0xff) {
      const out = b.slice(0, i + 1);
      out[i] = byte + 1;
      return out;
    }
  }
  return null;
}

/**
 * A column bound ready for lower_bounds/upper_bounds: serialized, string/binary truncated (upper
 * rounded up). null = write no bound (NaN, or no truncated upper bound exists). `truncateLength`
 * null keeps full values (metrics mode `full`).
 */
export function serializeBound(
  type: PrimitiveType,
  value: PrimitiveValue,
  side: 'lower' | 'upper',
  truncateLength: number | null = DEFAULT_TRUNCATE_LENGTH,
): Uint8Array | null {
  if ((type.kind === 'float' || type.kind === 'double') && typeof value === 'number' && Number.isNaN(value)) return null;
  if (truncateLength === null) return toBytes(type, value);
  if (type.kind === 'string' && typeof value === 'string') {
    const t = side === 'lower' ? truncateStringLower(value, truncateLength) : truncateStringUpper(value, truncateLength);
    return t === null ? null : toBytes(type, t);
  }
  if (type.kind === 'binary' && value instanceof Uint8Array) {
    return side === 'lower'
      ? truncateBinaryLower(value, truncateLength).slice()
      : (truncateBinaryUpper(value, truncateLength)?.slice() ?? null);
  }
  return toBytes(type, value);
}
