import { daysFromCivil, partitionTupleFromHive, partitionValueFromHive } from '../../../core/iceberg/partition-values';
import type { PrimitiveType } from '../../../core/iceberg/types';

const v = (type: PrimitiveType, s: string | null) => partitionValueFromHive('p', type, s);
const code = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
};

describe('Hive partition value → typed Iceberg value', () => {
  it('null (the default partition) stays null for every type', () => {
    for (const t of [{ kind: 'int' }, { kind: 'string' }, { kind: 'date' }, { kind: 'decimal', precision: 5, scale: 2 }] as PrimitiveType[])
      expect(v(t, null)).toBeNull();
  });
  it('strings are kept byte for byte (escaped characters were already unescaped by HMS)', () => {
    for (const s of ['a/b', 'x=y', '100%', 'with space', 'ünï€', '', ' lead']) expect(v({ kind: 'string' }, s)).toBe(s);
  });
  it('int and long parse exactly, with range checks', () => {
    expect(v({ kind: 'int' }, '2024')).toBe(2024);
    expect(v({ kind: 'int' }, '-2147483648')).toBe(-2147483648);
    expect(code(() => v({ kind: 'int' }, '2147483648'))).toBe('ICEBERG_VALUE_INVALID');
    expect(v({ kind: 'long' }, '9223372036854775807')).toBe(9223372036854775807n);
    expect(code(() => v({ kind: 'long' }, '9223372036854775808'))).toBe('ICEBERG_VALUE_INVALID');
    expect(code(() => v({ kind: 'int' }, '12a'))).toBe('ICEBERG_VALUE_INVALID');
    expect(code(() => v({ kind: 'int' }, '1.5'))).toBe('ICEBERG_VALUE_INVALID');
  });
  it('dates → days from epoch; impossible dates are refused', () => {
    expect(v({ kind: 'date' }, '1970-01-01')).toBe(0);
    expect(v({ kind: 'date' }, '2024-02-29')).toBe(19782);
    expect(v({ kind: 'date' }, '1969-12-31')).toBe(-1);
    expect(daysFromCivil(2000, 3, 1)).toBe(11017);
    expect(code(() => v({ kind: 'date' }, '2023-02-29'))).toBe('ICEBERG_VALUE_INVALID');
    expect(code(() => v({ kind: 'date' }, '2024/01/01'))).toBe('ICEBERG_VALUE_INVALID');
  });
  it('decimals → unscaled at the type scale; more digits than the scale are refused unless zeros', () => {
    const d = { kind: 'decimal', precision: 10, scale: 2 } as const;
    expect(v(d, '12.3')).toBe(1230n);
    expect(v(d, '-0.05')).toBe(-5n);
    expect(v(d, '7')).toBe(700n);
    expect(v(d, '1.500')).toBe(150n);
    expect(code(() => v(d, '1.234'))).toBe('ICEBERG_VALUE_INVALID');
    expect(code(() => v(d, '123456789.00'))).toBe('ICEBERG_VALUE_INVALID');
  });
  it('timestamps in Hive form → microseconds (no zone)', () => {
    expect(v({ kind: 'timestamp' }, '1970-01-01 00:00:01')).toBe(1_000_000n);
    expect(v({ kind: 'timestamp' }, '2024-01-31 12:00:00.000001')).toBe(1706702400000001n);
    expect(code(() => v({ kind: 'timestamp' }, '2024-01-31 12:00:00.0000001'))).toBe('ICEBERG_VALUE_INVALID');
  });
  it('booleans only as true/false (Java would silently read anything else as false)', () => {
    expect(v({ kind: 'boolean' }, 'TRUE')).toBe(true);
    expect(v({ kind: 'boolean' }, 'false')).toBe(false);
    expect(code(() => v({ kind: 'boolean' }, 'yes'))).toBe('ICEBERG_VALUE_INVALID');
  });
  it('the error names the column and the value', () => {
    try {
      partitionValueFromHive('year', { kind: 'int' }, 'abc');
      throw new Error('no error');
    } catch (e) {
      expect((e as Error).message).toContain("'year'");
      expect((e as Error).message).toContain('"abc"');
    }
  });
  it('a tuple needs one value per key', () => {
    expect(
      partitionTupleFromHive(
        [
          { name: 'y', type: { kind: 'int' } },
          { name: 'r', type: { kind: 'string' } },
        ],
        ['2024', null],
      ),
    ).toEqual([2024, null]);
    expect(code(() => partitionTupleFromHive([{ name: 'y', type: { kind: 'int' } }], ['1', '2']))).toBe('HMS_BAD_METADATA');
  });
});
