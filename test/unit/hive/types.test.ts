// Hive type parser: the grammar, canonical formatting, coded errors naming the column, and
// property tests (format ∘ parse is the identity on canonical strings; garbage only ever raises
// MigrationError(HIVE_TYPE_INVALID)).
import fc from 'fast-check';
import { MigrationError } from '../../../core/errors';
import { formatHiveType, parseHiveType, PRIMITIVE_NAMES } from '../../../core/hive/types';
import type { HiveType } from '../../../core/hive/types';
import { errorOf } from '../../helpers/errors';

describe('parseHiveType', () => {
  it.each([
    ['int', 'int'],
    ['INTEGER', 'int'],
    ['  BigInt ', 'bigint'],
    ['double precision', 'double'],
    ['DOUBLE   PRECISION', 'double'],
    ['decimal', 'decimal(10,0)'],
    ['decimal(7)', 'decimal(7,0)'],
    ['DECIMAL( 38 , 18 )', 'decimal(38,18)'],
    ['char(1)', 'char(1)'],
    ['varchar(65535)', 'varchar(65535)'],
    ['timestamp', 'timestamp'],
    ['timestamp with local time zone', 'timestamp with local time zone'],
    ['TIMESTAMP  WITH LOCAL TIME ZONE', 'timestamp with local time zone'],
    ['interval_year_month', 'interval_year_month'],
    ['interval_day_time', 'interval_day_time'],
    ['void', 'void'],
    ['array< map < string , array<int> > >', 'array<map<string,array<int>>>'],
    ['uniontype<int,double,array<string>>', 'uniontype<int,double,array<string>>'],
    ['struct<a:int,B:string>', 'struct<a:int,B:string>'],
    ['struct< a : int , b : struct<c:decimal(5,2)> >', 'struct<a:int,b:struct<c:decimal(5,2)>>'],
    ['struct<`odd name`:int,`x:y`:string,`back``tick`:date>', 'struct<`odd name`:int,`x:y`:string,`back``tick`:date>'],
    ['struct<a:int COMMENT \'the a, <b>\',b:string comment "dq">', "struct<a:int comment 'the a, <b>',b:string comment 'dq'>"],
    ["struct<a:int COMMENT 'say \\'hi\\''>", "struct<a:int comment 'say \\'hi\\''>"],
    ['struct<$col.1:int>', 'struct<$col.1:int>'],
  ])('%s → %s', (input, canonical) => {
    expect(formatHiveType(parseHiveType(input))).toBe(canonical);
  });

  it('builds the AST', () => {
    expect(parseHiveType("map<string,struct<x:decimal(12,2) COMMENT 'money'>>")).toEqual({
      kind: 'map',
      key: { kind: 'primitive', name: 'string' },
      value: { kind: 'struct', fields: [{ name: 'x', type: { kind: 'decimal', precision: 12, scale: 2 }, comment: 'money' }] },
    });
    expect(parseHiveType('double precision')).toEqual({ kind: 'primitive', name: 'double' });
  });

  it.each([
    ['', 'expected a type name', 0],
    ['strin', "unknown type 'strin'", 0],
    ['array<int', "expected '>'", 9],
    ['map<int>', "expected ','", 7],
    ['struct<>', 'at least one field', 7],
    ['struct<a int>', "expected ':'", 9],
    ['char', 'needs a length', 0],
    ['varchar(0)', 'outside 1..65535', 0],
    ['char(256)', 'outside 1..255', 0],
    ['decimal(39)', 'precision 39', 0],
    ['decimal(5,6)', 'scale 6 is greater than precision 5', 0],
    ['int int', "unexpected 'i' after the type", 4],
    ['struct<`a:int>', 'unterminated', 7],
    ["struct<a:int comment 'x>", 'unterminated comment', 21],
    ['decimal(99999999999)', 'out of range', 8],
  ])('rejects %j (%s)', (input, message, position) => {
    const e = errorOf(() => parseHiveType(input, 'col_x'));
    expect(e.code).toBe('HIVE_TYPE_INVALID');
    expect(e.retryable).toBe(false);
    expect(e.message).toContain("column 'col_x'");
    expect(e.message).toContain(message);
    expect(e.context).toEqual({ column: 'col_x', type: input, position });
  });

  it('bounds nesting depth with a coded error', () => {
    const deep = 'array<'.repeat(5000) + 'int' + '>'.repeat(5000);
    expect(errorOf(() => parseHiveType(deep, 'deep')).code).toBe('HIVE_TYPE_INVALID');
  });
});

// Arbitrary canonical ASTs: field names include odd characters (they are back-quoted on output).
const fieldName = fc.oneof(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/), fc.string({ minLength: 1, maxLength: 8 }));
const leaf: fc.Arbitrary<HiveType> = fc.oneof(
  fc.constantFrom(...PRIMITIVE_NAMES).map((name): HiveType => ({ kind: 'primitive', name })),
  fc
    .integer({ min: 1, max: 38 })
    .chain((p) => fc.integer({ min: 0, max: p }).map((s): HiveType => ({ kind: 'decimal', precision: p, scale: s }))),
  fc.integer({ min: 1, max: 255 }).map((length): HiveType => ({ kind: 'char', length })),
  fc.integer({ min: 1, max: 65535 }).map((length): HiveType => ({ kind: 'varchar', length })),
);
const hiveType: fc.Arbitrary<HiveType> = fc.letrec<{ t: HiveType }>((tie) => ({
  t: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    tie('t').map((element): HiveType => ({ kind: 'array', element })),
    fc.tuple(tie('t'), tie('t')).map(([key, value]): HiveType => ({ kind: 'map', key, value })),
    fc
      .array(fc.record({ name: fieldName, type: tie('t'), comment: fc.option(fc.string({ maxLength: 10 }), { nil: null }) }), {
        minLength: 1,
        maxLength: 4,
      })
      .map((fields): HiveType => ({ kind: 'struct', fields })),
    fc.array(tie('t'), { minLength: 1, maxLength: 3 }).map((members): HiveType => ({ kind: 'union', members })),
  ),
})).t;

describe('properties', () => {
  it('format ∘ parse is the identity on canonical strings, and parse ∘ format on ASTs', () => {
    fc.assert(
      fc.property(hiveType, (t) => {
        const s = formatHiveType(t);
        expect(parseHiveType(s)).toEqual(t);
        expect(formatHiveType(parseHiveType(s))).toBe(s);
      }),
      { numRuns: 500 },
    );
  });

  it('is case-insensitive and whitespace tolerant', () => {
    fc.assert(
      fc.property(hiveType, (t) => {
        const s = formatHiveType(t);
        // Upper-case keywords only (not names/comments): easiest on ASTs without structs.
        const noStruct = !s.includes('struct<');
        const spaced = s.replace(/([<>,()])/g, ' $1 ');
        if (noStruct) {
          expect(parseHiveType(s.toUpperCase())).toEqual(t);
          expect(parseHiveType(spaced)).toEqual(t);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('random input never throws anything but MigrationError(HIVE_TYPE_INVALID)', () => {
    const alphabet = fc.constantFrom(
      ..."<>(),:`' abcdefgimnprstuy0123456789_\\".split(''),
      'struct<',
      'array<',
      'map<',
      'decimal(',
      'comment ',
      'uniontype<',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(alphabet, { maxLength: 30 }).map((a) => a.join('')),
        ),
        (s) => {
          try {
            parseHiveType(s, 'c');
          } catch (e) {
            expect(e).toBeInstanceOf(MigrationError);
            expect((e as MigrationError).code).toBe('HIVE_TYPE_INVALID');
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
