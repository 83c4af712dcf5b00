// adapters/formats/parquet turns the stats of common column kinds into bounds straight from the stat bytes
// (parquet/bounds.ts FastKind); the typed-value path (statValue, compareValues, serializeBound) is
// the oracle. Generated FileMetaData with 1–3 row groups and adversarial stat bytes — short and
// empty stats, NaN, signed zeros, INT32/INT64 edges, ASCII past the truncation length, 0x7f,
// multi-byte and invalid UTF-8, decimals with redundant sign bytes and values past their precision,
// missing and deprecated stats — must give byte-identical FileStats both ways.
import { isDeepStrictEqual } from 'node:util';
import { AvroBytes, encodeMetrics } from '../../../adapters/avro/entry-encoder';
import { parquetStats, parquetStatsEncoded } from '../../../adapters/formats/parquet';
import { ConvertedType, PhysicalType } from '../../../adapters/formats/parquet/thrift';
import type { ColumnChunk, FileMetaData, LogicalType, RawStatistics, SchemaElement } from '../../../adapters/formats/parquet/thrift';
import { buildNameMapping } from '../../../core/iceberg/name-mapping';
import { decimalType, prim } from '../../../core/iceberg/types';
import type { NestedField, PrimitiveType, Schema } from '../../../core/iceberg/types';
import type { FileStats } from '../../../core/storage/file-stats';
import { rng } from '../../helpers/rng';

interface Col {
  readonly name: string;
  readonly type: PrimitiveType;
  readonly physical: number;
  readonly converted?: number;
  readonly logical?: LogicalType;
  readonly scale?: number;
  readonly precision?: number;
  readonly typeLength?: number;
  /** Stat values to draw from. */
  readonly gen: (r: () => number) => Uint8Array;
}

const le = (n: number, write: (d: DataView) => void): Uint8Array => {
  const b = new Uint8Array(n);
  write(new DataView(b.buffer));
  return b;
};
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const bytes = (r: () => number, n: number, max = 256): Uint8Array => Uint8Array.from({ length: n }, () => Math.floor(r() * max));

const i32s = [0, 1, -1, 2147483647, -2147483648, 42, -42, 65536];
const gen32 = (r: () => number): Uint8Array =>
  r() < 0.05 ? bytes(r, Math.floor(r() * 4)) : le(4, (d) => d.setInt32(0, r() < 0.5 ? pick(r, i32s) : Math.floor(r() * 2 ** 32) | 0, true));
const gen64 = (r: () => number): Uint8Array =>
  r() < 0.05
    ? bytes(r, Math.floor(r() * 8))
    : r() < 0.3
      ? le(8, (d) => d.setBigInt64(0, pick(r, [0n, -1n, 1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 32n, -(2n ** 32n)]), true))
      : bytes(r, 8);
const genFloat =
  (double: boolean) =>
  (r: () => number): Uint8Array => {
    const n = double ? 8 : 4;
    if (r() < 0.05) return bytes(r, Math.floor(r() * n));
    const v = pick(r, [0, -0, NaN, 1.5, -1.5, Infinity, -Infinity, r() * 1e6 - 5e5, 3.4e38, 1e-40]);
    return r() < 0.1 ? bytes(r, n) : le(n, (d) => (double ? d.setFloat64(0, v, true) : d.setFloat32(0, v, true)));
  };
const ascii = (r: () => number, n: number): string =>
  Array.from({ length: n }, () => String.fromCharCode(pick(r, [0x41, 0x61, 0x7a, 0x7e, 0x7f, 0x20, 0x30]))).join('');
const genString = (r: () => number): Uint8Array => {
  const k = r();
  if (k < 0.4) return Buffer.from(ascii(r, Math.floor(r() * 24)));
  if (k < 0.6) return Buffer.from(ascii(r, Math.floor(r() * 18)) + pick(r, ['ü', '€', '😀', '\uffff', '']) + ascii(r, Math.floor(r() * 4)));
  if (k < 0.7) return Uint8Array.from([0xef, 0xbb, 0xbf, ...Buffer.from(ascii(r, 3))]); // a BOM
  if (k < 0.8) return bytes(r, Math.floor(r() * 20)); // often invalid UTF-8
  return Buffer.from(ascii(r, 16));
};
const genDecimal =
  (len: number) =>
  (r: () => number): Uint8Array => {
    const k = r();
    if (k < 0.1) return new Uint8Array(0);
    if (k < 0.3) return Uint8Array.from([pick(r, [0, 0xff]), pick(r, [0, 0xff]), ...bytes(r, Math.max(0, len - 2))]); // redundant sign bytes
    return bytes(r, r() < 0.1 ? Math.floor(r() * 12) : len);
  };
const genBool = (r: () => number): Uint8Array => (r() < 0.05 ? new Uint8Array(0) : Uint8Array.of(pick(r, [0, 1, 2])));

const COLS: readonly Col[] = [
  { name: 'i', type: prim.int, physical: PhysicalType.INT32, gen: gen32 },
  { name: 'd', type: prim.date, physical: PhysicalType.INT32, converted: ConvertedType.DATE, gen: gen32 },
  { name: 'l', type: prim.long, physical: PhysicalType.INT64, gen: gen64 },
  {
    name: 'ts',
    type: prim.timestamp,
    physical: PhysicalType.INT64,
    logical: { kind: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MICROS' },
    gen: gen64,
  },
  { name: 'tstz', type: prim.timestamptz, physical: PhysicalType.INT64, converted: ConvertedType.TIMESTAMP_MICROS, gen: gen64 },
  { name: 'f', type: prim.float, physical: PhysicalType.FLOAT, gen: genFloat(false) },
  { name: 'g', type: prim.double, physical: PhysicalType.DOUBLE, gen: genFloat(true) },
  { name: 'b', type: prim.boolean, physical: PhysicalType.BOOLEAN, gen: genBool },
  { name: 's', type: prim.string, physical: PhysicalType.BYTE_ARRAY, converted: ConvertedType.UTF8, gen: genString },
  {
    name: 'dec6',
    type: decimalType(12, 2),
    physical: PhysicalType.FIXED_LEN_BYTE_ARRAY,
    typeLength: 6,
    logical: { kind: 'DECIMAL', scale: 2, precision: 12 },
    gen: genDecimal(6),
  },
  {
    name: 'dec3',
    type: decimalType(5, 0),
    physical: PhysicalType.FIXED_LEN_BYTE_ARRAY,
    typeLength: 3,
    converted: ConvertedType.DECIMAL,
    scale: 0,
    precision: 5,
    gen: genDecimal(3),
  },
  {
    name: 'dec16',
    type: decimalType(38, 6),
    physical: PhysicalType.FIXED_LEN_BYTE_ARRAY,
    typeLength: 16,
    logical: { kind: 'DECIMAL', scale: 6, precision: 38 },
    gen: genDecimal(16),
  },
  {
    name: 'decb',
    type: decimalType(20, 3),
    physical: PhysicalType.BYTE_ARRAY,
    logical: { kind: 'DECIMAL', scale: 3, precision: 20 },
    gen: genDecimal(9),
  },
];

const schema: Schema = {
  schemaId: 0,
  fields: COLS.map((c, i): NestedField => ({ id: i + 1, name: c.name, required: false, type: c.type })),
};
const ctx = { schema, nameMapping: buildNameMapping(schema) };
const element = (c: Partial<Col> & { name: string }): SchemaElement => ({
  type: c.physical,
  typeLength: c.typeLength,
  repetition: 1,
  name: c.name,
  numChildren: undefined,
  convertedType: c.converted,
  scale: c.scale,
  precision: c.precision,
  fieldId: undefined,
  logicalType: c.logical,
});
/** One schema array for every file, as the compact decoder's cache hands out (plans are cached on it). */
const SCHEMA: readonly SchemaElement[] = [
  { ...element({ name: 'root' }), type: undefined, numChildren: COLS.length },
  ...COLS.map((c) => element(c)),
];

function stats(r: () => number, c: Col): RawStatistics | undefined {
  const k = r();
  if (k < 0.05) return undefined;
  const a = c.gen(r);
  const b = r() < 0.15 ? a : c.gen(r);
  const nullCount = r() < 0.1 ? undefined : Math.floor(r() * 3);
  // Mostly min_value/max_value; sometimes only the deprecated min/max; sometimes one side missing.
  if (k < 0.15) return { min: a, max: b, nullCount, minValue: undefined, maxValue: undefined };
  if (k < 0.18) return { min: undefined, max: undefined, nullCount, minValue: a, maxValue: undefined };
  return { min: undefined, max: undefined, nullCount, minValue: a, maxValue: b };
}

function file(r: () => number): FileMetaData {
  const groups = 1 + Math.floor(r() * 3);
  return {
    schema: SCHEMA,
    numRows: 0,
    createdBy: pick(r, ['parquet-cpp-arrow version 16.0.0', 'parquet-mr version 1.8.1', undefined]),
    typeDefinedOrder: r() < 0.8 ? undefined : COLS.map(() => r() < 0.8),
    rowGroups: Array.from({ length: groups }, (_, g) => ({
      numRows: 10 + g,
      columns: COLS.map(
        (c, i): ColumnChunk => ({
          // Now and then a chunk's physical type disagrees with its schema element (a malformed file).
          physicalType: r() < 0.01 ? PhysicalType.INT96 : r() < 0.01 ? PhysicalType.INT64 : c.physical,
          numValues: 1 + Math.floor(r() * 4),
          totalCompressedSize: 100 + i,
          dataPageOffset: 4 + g * 1000 + i * 10,
          dictionaryPageOffset: undefined,
          statistics: stats(r, c),
        }),
      ),
    })),
  };
}

const hex = (m: ReadonlyMap<number, Uint8Array> | undefined): [number, string][] =>
  [...(m ?? new Map<number, Uint8Array>())].map(([k, v]) => [k, Buffer.from(v).toString('hex')]);
const comparable = (s: FileStats): unknown => ({
  ...s,
  lowerBounds: hex(s.lowerBounds),
  upperBounds: hex(s.upperBounds),
  columnSizes: [...(s.columnSizes ?? [])],
  valueCounts: [...(s.valueCounts ?? [])],
  nullValueCounts: [...(s.nullValueCounts ?? [])],
  boundsWithheld: [...(s.boundsWithheld ?? [])],
});

/**
 * expect(a).toEqual(b), with jest's matcher (its diff) only when node's strict deep equality finds a
 * difference: strict equality holding implies toEqual holds, and the loops below compare ~17,000
 * pairs, where the matcher itself was most of the suite's time.
 */
const same = (a: unknown, b: unknown): void => {
  if (!isDeepStrictEqual(a, b)) expect(a).toEqual(b);
};

test('fast bound kinds equal the typed-value path on 6,000 generated footers', () => {
  const r = rng(2026);
  let bounds = 0;
  let withheld = 0;
  for (let n = 0; n < 6_000; n++) {
    const md = file(r);
    const fast = parquetStats('gen.parquet', md, ctx);
    const typed = parquetStats('gen.parquet', md, ctx, true);
    same(comparable(fast), comparable(typed));
    bounds += fast.lowerBounds?.size ?? 0;
    withheld += fast.boundsWithheld?.size ?? 0;
  }
  // The generator must reach both outcomes often, or the comparison proves little.
  expect(bounds).toBeGreaterThan(15_000);
  expect(withheld).toBeGreaterThan(15_000);
});

test('truncation lengths other than 16, and none', () => {
  const r = rng(7);
  for (const truncateLength of [null, 1, 4, 30]) {
    for (let n = 0; n < 600; n++) {
      const md = file(r);
      const c = { ...ctx, truncateLength };
      same(comparable(parquetStats('gen.parquet', md, c)), comparable(parquetStats('gen.parquet', md, c, true)));
    }
  }
});

test('known values: signed zeros, INT64 order across row groups, minimal decimal bytes, ASCII truncation', () => {
  const one = (c: Col, groups: [Uint8Array, Uint8Array][]): FileStats =>
    parquetStats(
      'k.parquet',
      {
        schema: SCHEMA,
        numRows: 0,
        createdBy: 'parquet-cpp-arrow version 16.0.0',
        typeDefinedOrder: undefined,
        rowGroups: groups.map(([lo, hi]) => ({
          numRows: 1,
          columns: COLS.map(
            (x): ColumnChunk => ({
              physicalType: x.physical,
              numValues: 1,
              totalCompressedSize: 1,
              dataPageOffset: 4,
              dictionaryPageOffset: undefined,
              statistics: x === c ? { min: undefined, max: undefined, nullCount: 0, minValue: lo, maxValue: hi } : undefined,
            }),
          ),
        })),
      },
      ctx,
    );
  const col = (name: string): [Col, number] => [COLS.find((c) => c.name === name) as Col, COLS.findIndex((c) => c.name === name) + 1];
  const h = (b: Uint8Array | undefined): string => Buffer.from(b ?? []).toString('hex');
  const [g, gid] = col('g');
  const z = le(8, (d) => d.setFloat64(0, 0, true));
  const sg = one(g, [[z, z]]);
  expect(h(sg.lowerBounds?.get(gid))).toBe('0000000000000080'); // -0.0
  expect(h(sg.upperBounds?.get(gid))).toBe('0000000000000000');
  const [l, lid] = col('l');
  const i64 = (v: bigint): Uint8Array => le(8, (d) => d.setBigInt64(0, v, true));
  const sl = one(l, [
    [i64(-1n), i64(5n)],
    [i64(-(2n ** 40n)), i64(2n ** 33n)],
    [i64(7n), i64(-3n)],
  ]);
  expect(h(sl.lowerBounds?.get(lid))).toBe(h(i64(-(2n ** 40n))));
  expect(h(sl.upperBounds?.get(lid))).toBe(h(i64(2n ** 33n)));
  const [d6, did] = col('dec6');
  const sd = one(d6, [[Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x85]), Uint8Array.from([0, 0, 0, 0, 0x01, 0x00])]]);
  expect(h(sd.lowerBounds?.get(did))).toBe('85'); // -123
  expect(h(sd.upperBounds?.get(did))).toBe('0100'); // 256
  const [s, sid] = col('s');
  const ss = one(s, [[Buffer.from('abcdefghijklmnopqrstuvwxyz'), Buffer.from('abcdefghijklmnoz~~~~')]]);
  expect(Buffer.from(ss.lowerBounds?.get(sid) ?? []).toString()).toBe('abcdefghijklmnop');
  expect(Buffer.from(ss.upperBounds?.get(sid) ?? []).toString()).toBe('abcdefghijklmno{'); // 16 code points, the last one rounded up ('z' → '{')
});

test('parquetStatsEncoded writes exactly encodeMetrics(parquetStats(...)), fast and typed, every truncation', () => {
  // The footer threads' path (no Maps, bounds written straight into the Avro bytes) against the maps
  // path encoded afterwards: byte-identical metrics and the same remaining FileStats fields.
  const r = rng(99);
  const out = new AvroBytes();
  const expected = new AvroBytes();
  let compared = 0;
  for (const truncateLength of [undefined, null, 1, 4, 30]) {
    const c = truncateLength === undefined ? ctx : { ...ctx, truncateLength };
    for (let n = 0; n < (truncateLength === undefined ? 3_000 : 300); n++) {
      const md = file(r);
      for (const typedOnly of [false, true]) {
        const maps = parquetStats('gen.parquet', md, c, typedOnly);
        expected.reset();
        encodeMetrics(expected, maps);
        out.reset();
        out.long(7); // something before: the metrics are the bytes written by this call only
        const enc = parquetStatsEncoded('gen.parquet', md, c, out, typedOnly);
        same(
          [Buffer.from(enc.encodedMetrics).toString('hex'), enc.recordCount, enc.splitOffsets, [...(enc.boundsWithheld ?? [])]],
          [Buffer.from(expected.view()).toString('hex'), maps.recordCount, maps.splitOffsets, [...(maps.boundsWithheld ?? [])]],
        );
        // The very same column list (toBe: one object), as before.
        if (enc.fileColumns !== maps.fileColumns) expect(enc.fileColumns).toBe(maps.fileColumns);
        compared++;
      }
    }
  }
  expect(compared).toBe(2 * (3_000 + 4 * 300));
});
