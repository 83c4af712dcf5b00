import fc from 'fast-check';
import {
  bigIntFromBytes,
  bigIntToMinimalBytes,
  compareBytes,
  decimalRequiredBytes,
  fromBytes,
  serializeBound,
  toBytes,
  truncateBinaryUpper,
  truncateStringLower,
  truncateStringUpper,
} from '../../../core/iceberg/bounds';
import { ErrorCode } from '../../../core/errors';
import type { PrimitiveType } from '../../../core/iceberg/types';
import { prim } from '../../../core/iceberg/types';

const hex = (b: Uint8Array | null): string | null => (b === null ? null : Buffer.from(b).toString('hex'));
const dec = (precision: number, scale: number): PrimitiveType => ({ kind: 'decimal', precision, scale });

describe('single-value serialization (spec Appendix D)', () => {
  test.each<[string, PrimitiveType, unknown, string]>([
    ['boolean false', prim.boolean, false, '00'],
    ['boolean true', prim.boolean, true, '01'],
    ['int 1 (LE)', prim.int, 1, '01000000'],
    ['int -1', prim.int, -1, 'ffffffff'],
    ['int min', prim.int, -2147483648, '00000080'],
    ['date 2017-11-16 = 17486', prim.date, 17486, '4e440000'],
    ['long 1', prim.long, 1n, '0100000000000000'],
    ['long -2', prim.long, -2n, 'feffffffffffffff'],
    ['long max', prim.long, 9223372036854775807n, 'ffffffffffffff7f'],
    ['long from safe number', prim.long, 34, '2200000000000000'],
    ['time 22:31:08 µs', prim.time, 81068000000n, '008307e012000000'],
    ['timestamp µs', prim.timestamp, 1510871468000000n, '00c3262d215e0500'],
    ['timestamptz negative', prim.timestamptz, -1n, 'ffffffffffffffff'],
    ['float 1.0', prim.float, 1, '0000803f'],
    ['float -0.0', prim.float, -0, '00000080'],
    ['double 1.0', prim.double, 1, '000000000000f03f'],
    ['double NaN is still a value', prim.double, Number.NaN, '000000000000f87f'],
    ['string iceberg', prim.string, 'iceberg', '69636562657267'],
    ['string unicode', prim.string, 'ñ😀', 'c3b1f09f9880'],
    ['binary raw', prim.binary, Uint8Array.of(0, 255), '00ff'],
    ['fixed raw', { kind: 'fixed', length: 2 }, Uint8Array.of(1, 2), '0102'],
    ['uuid big-endian', prim.uuid, 'f79c3e09-677c-4bbd-a479-3f349cb785e7', 'f79c3e09677c4bbda4793f349cb785e7'],
    ['decimal 14.20 → 1420', dec(9, 2), 1420n, '058c'],
    ['decimal 0', dec(9, 2), 0n, '00'],
    ['decimal 127', dec(9, 0), 127n, '7f'],
    ['decimal 128 needs a sign byte', dec(9, 0), 128n, '0080'],
    ['decimal -1', dec(9, 2), -1n, 'ff'],
    ['decimal -128', dec(9, 0), -128n, '80'],
    ['decimal -129', dec(9, 0), -129n, 'ff7f'],
    ['decimal -12345.67', dec(9, 2), -1234567n, 'ed2979'],
    ['decimal(38) max', dec(38, 0), 10n ** 38n - 1n, '4b3b4ca85a86c47a098a223fffffffff'],
  ])('%s', (_name, type, value, expected) => {
    const b = toBytes(type, value as never);
    expect(hex(b)).toBe(expected);
    const back = fromBytes(type, b);
    if (typeof value === 'number' && Number.isNaN(value)) expect(back).toBeNaN();
    else if (type.kind === 'long' && typeof value === 'number') expect(back).toBe(BigInt(value));
    else expect(back).toEqual(value);
  });

  test.each<[string, PrimitiveType, unknown]>([
    ['int overflow', prim.int, 2 ** 31],
    ['int fraction', prim.int, 1.5],
    ['long overflow', prim.long, 2n ** 63n],
    ['unsafe number as long', prim.long, 2 ** 60],
    ['time past midnight', prim.time, 86_400_000_000n],
    ['decimal beyond precision', dec(3, 0), 1000n],
    ['decimal negative beyond precision', dec(3, 0), -1000n],
    ['bad uuid', prim.uuid, 'not-a-uuid'],
    ['fixed wrong length', { kind: 'fixed', length: 3 }, Uint8Array.of(1)],
    ['string given a number', prim.string, 5],
  ])('refuses %s with ICEBERG_VALUE_INVALID', (_n, type, value) => {
    expect(() => toBytes(type, value as never)).toThrow(expect.objectContaining({ code: ErrorCode.ICEBERG_VALUE_INVALID }));
  });

  test('decimalRequiredBytes matches TypeUtil.decimalRequiredBytes', () => {
    expect([1, 2, 3, 9, 10, 18, 19, 38].map(decimalRequiredBytes)).toEqual([1, 1, 2, 4, 5, 8, 9, 16]);
  });

  test("property: decimal minimal two's complement round-trips and is minimal", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 38n) + 1n, max: 10n ** 38n - 1n }), (v) => {
        const b = bigIntToMinimalBytes(v);
        expect(bigIntFromBytes(b)).toBe(v);
        expect(fromBytes(dec(38, 4), toBytes(dec(38, 4), v))).toBe(v);
        if (b.length > 1) {
          // a shorter encoding would lose the value: the top byte is not pure sign extension
          const redundant = (b[0] === 0x00 && ((b[1] ?? 0) & 0x80) === 0) || (b[0] === 0xff && ((b[1] ?? 0) & 0x80) !== 0);
          expect(redundant).toBe(false);
        }
      }),
    );
  });
});

describe('truncate(16) bounds', () => {
  test('short values are untouched', () => {
    expect(truncateStringUpper('abc')).toBe('abc');
    expect(hex(serializeBound(prim.string, 'abc', 'upper'))).toBe('616263');
  });
  test('string: 16 code points, never a split surrogate pair; upper rounds the last code point up', () => {
    const s = `${'a'.repeat(15)}😀😀tail`;
    expect(truncateStringLower(s)).toBe(`${'a'.repeat(15)}😀`);
    expect(truncateStringUpper(s)).toBe(`${'a'.repeat(15)}😁`);
    expect(truncateStringUpper(`${'a'.repeat(15)}\u{10FFFF}zz`)).toBe(`${'a'.repeat(14)}b`);
    expect(truncateStringUpper(`${'x'.repeat(15)}\uD7FFzz`)).toBe(`${'x'.repeat(15)}\uE000`); // skips surrogates
    expect(truncateStringUpper('\u{10FFFF}'.repeat(17))).toBeNull();
    expect(serializeBound(prim.string, '\u{10FFFF}'.repeat(17), 'upper')).toBeNull();
  });
  test('binary: 16 bytes; upper increments the last byte below 0xFF', () => {
    const b = Uint8Array.from({ length: 20 }, (_, i) => (i === 15 ? 0xff : i));
    expect(hex(truncateBinaryUpper(b))).toBe('000102030405060708090a0b0c0d0f');
    expect(truncateBinaryUpper(new Uint8Array(17).fill(0xff))).toBeNull();
  });
  test('NaN is never a bound; -0.0 is', () => {
    expect(serializeBound(prim.double, Number.NaN, 'lower')).toBeNull();
    expect(hex(serializeBound(prim.float, -0, 'lower'))).toBe('00000080');
  });
  test('property: truncated lower ≤ value ≤ truncated upper (unsigned bytes), strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.integer({ min: 1, max: 20 }), (s, n) => {
        const v = toBytes(prim.string, s);
        const lo = serializeBound(prim.string, s, 'lower', n);
        const hi = serializeBound(prim.string, s, 'upper', n);
        expect(lo).not.toBeNull();
        expect(compareBytes(lo as Uint8Array, v)).toBeLessThanOrEqual(0);
        if (hi !== null) expect(compareBytes(v, hi)).toBeLessThanOrEqual(0);
        expect(new TextDecoder('utf-8', { fatal: true }).decode(lo as Uint8Array)).toBeDefined(); // valid UTF-8
        if (hi !== null) expect(Array.from(new TextDecoder('utf-8', { fatal: true }).decode(hi)).length).toBeLessThanOrEqual(n);
      }),
    );
  });
  test('property: truncated lower ≤ value ≤ truncated upper (unsigned bytes), binary', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.integer({ min: 1, max: 20 }), (b, n) => {
        const lo = serializeBound(prim.binary, b, 'lower', n);
        const hi = serializeBound(prim.binary, b, 'upper', n);
        expect(compareBytes(lo as Uint8Array, b)).toBeLessThanOrEqual(0);
        if (hi !== null) {
          expect(compareBytes(b, hi)).toBeLessThanOrEqual(0);
          expect(hi.length).toBeLessThanOrEqual(n);
        } else expect(b.slice(0, n).every((x) => x === 0xff)).toBe(true);
      }),
    );
  });
});
