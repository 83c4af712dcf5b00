// Hive partition values (strings as HMS stores them, already unescaped; null = the default
// partition) → typed Iceberg partition values for an identity partition field. Pure; no I/O.
// Rules follow Iceberg's Conversions.fromPartitionString (used by its Hive migrate/add_files):
// integers and decimals parse exactly, dates are ISO `yyyy-MM-dd` → days from epoch, strings stay
// as they are. Where Iceberg would throw, we throw a coded error naming the column and value — a
// value that does not parse must stop the table, never become null or a truncated number.
// Additionally (Hive allows it, Iceberg's migrate does not): `timestamp` partition values in
// Hive's `yyyy-MM-dd HH:mm:ss[.f…]` form → microseconds, as a timestamp without zone (UTC wall clock).
import { ErrorCode, MigrationError } from '../errors';
import type { PrimitiveType, PrimitiveValue } from './types';

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function bad(column: string, value: string, type: PrimitiveType, why: string): never {
  const t = type.kind === 'decimal' ? `decimal(${type.precision},${type.scale})` : type.kind;
  throw new MigrationError(
    ErrorCode.ICEBERG_VALUE_INVALID,
    `partition column '${column}': value ${JSON.stringify(value)} is not a valid ${t} (${why})`,
    { column, value, type: t },
  );
}

const INTEGER = /^[+-]?\d+$/;

function parseInteger(column: string, v: string, type: PrimitiveType, min: bigint, max: bigint): bigint {
  const s = v.trim();
  if (!INTEGER.test(s)) bad(column, v, type, 'not an integer');
  const n = BigInt(s);
  if (n < min || n > max) bad(column, v, type, 'out of range');
  return n;
}

/** Days from 1970-01-01 of a proleptic Gregorian date (no Date objects: pure arithmetic). */
export function daysFromCivil(y: number, m: number, d: number): number {
  // Howard Hinnant's days_from_civil.
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const mp = (m + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(m) ? 30 : 31;
}

const DATE = /^(-?\d{4,})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(-?\d{4,})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;

function parseDateParts(column: string, v: string, type: PrimitiveType, y: string, mo: string, d: string): number {
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) bad(column, v, type, 'no such calendar date');
  return daysFromCivil(year, month, day);
}

/** Unscaled value of a decimal string at exactly `scale` (fewer fraction digits are padded; more is an error). */
function parseDecimal(column: string, v: string, type: Extract<PrimitiveType, { kind: 'decimal' }>): bigint {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(v.trim());
  if (m === null || ((m[2] ?? '') === '' && (m[3] ?? '') === '')) return bad(column, v, type, 'not a decimal number');
  const sign = m[1] === '-' ? -1n : 1n;
  const whole = m[2] ?? '';
  let frac = m[3] ?? '';
  if (frac.length > type.scale) {
    // Trailing zeros beyond the scale lose nothing; any other digit would be rounded away.
    if (/[1-9]/.test(frac.slice(type.scale))) bad(column, v, type, `more than ${type.scale} fraction digits`);
    frac = frac.slice(0, type.scale);
  }
  const unscaled = sign * BigInt(`${whole || '0'}${frac.padEnd(type.scale, '0')}`);
  const limit = 10n ** BigInt(type.precision);
  if (unscaled >= limit || unscaled <= -limit) bad(column, v, type, `needs more than ${type.precision} digits`);
  return unscaled;
}

/** The typed value of one Hive partition value; null stays null (`__HIVE_DEFAULT_PARTITION__`). */
export function partitionValueFromHive(column: string, type: PrimitiveType, value: string | null): PrimitiveValue | null {
  if (value === null) return null;
  switch (type.kind) {
    case 'string':
      return value;
    case 'int':
      return Number(parseInteger(column, value, type, BigInt(INT32_MIN), BigInt(INT32_MAX)));
    case 'long':
      return parseInteger(column, value, type, INT64_MIN, INT64_MAX);
    case 'boolean': {
      // Java Boolean.parseBoolean would read anything but "true" as false: refuse instead.
      const s = value.trim().toLowerCase();
      if (s === 'true') return true;
      if (s === 'false') return false;
      return bad(column, value, type, "expected 'true' or 'false'");
    }
    case 'float':
    case 'double': {
      const s = value.trim();
      if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s) && !/^[+-]?(Infinity|NaN)$/.test(s)) bad(column, value, type, 'not a number');
      const n = Number(s);
      return type.kind === 'float' ? Math.fround(n) : n;
    }
    case 'decimal':
      return parseDecimal(column, value, type);
    case 'date': {
      const m = DATE.exec(value.trim());
      if (m === null) return bad(column, value, type, 'expected yyyy-MM-dd');
      return parseDateParts(column, value, type, m[1] ?? '', m[2] ?? '', m[3] ?? '');
    }
    case 'timestamp': {
      const m = TIMESTAMP.exec(value.trim());
      if (m === null) return bad(column, value, type, 'expected yyyy-MM-dd HH:mm:ss[.fffffffff]');
      const days = parseDateParts(column, value, type, m[1] ?? '', m[2] ?? '', m[3] ?? '');
      const [h, mi, s] = [Number(m[4]), Number(m[5]), Number(m[6] ?? '0')];
      if (h > 23 || mi > 59 || s > 59) bad(column, value, type, 'no such time of day');
      const fraction = (m[7] ?? '').padEnd(9, '0');
      if (/[1-9]/.test(fraction.slice(6))) bad(column, value, type, 'sub-microsecond digits would be lost');
      const micros = BigInt(fraction.slice(0, 6));
      return (BigInt(days) * 86_400n + BigInt(h * 3600 + mi * 60 + s)) * 1_000_000n + micros;
    }
    default:
      return bad(column, value, type, `${type.kind} partition columns are not supported`);
  }
}

/** The partition tuple of one Hive partition, in spec (= Hive partition key) order. */
export function partitionTupleFromHive(
  keys: readonly { readonly name: string; readonly type: PrimitiveType }[],
  values: readonly (string | null)[],
): (PrimitiveValue | null)[] {
  if (keys.length !== values.length) {
    throw new MigrationError(ErrorCode.HMS_BAD_METADATA, `partition has ${values.length} values for ${keys.length} partition keys`, {
      keys: keys.map((k) => k.name),
      values,
    });
  }
  return keys.map((k, i) => partitionValueFromHive(k.name, k.type, values[i] ?? null));
}
