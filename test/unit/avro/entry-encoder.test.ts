// The hand-written manifest_entry encoder must give exactly avsc's bytes for the same schema: avsc
// over manifestEntrySchema is the oracle here (the record object built in this test, as Iceberg's
// V2Metadata lays it out), on generated data files covering every optional field, empty and absent
// maps, longs past 2^53, negative values, multi-byte UTF-8 paths and every partition type.
import { avroType } from '../../../adapters/avro/container';
import { AvroBytes, encodeAddedEntry, encodeMetrics } from '../../../adapters/avro/entry-encoder';
import { manifestEntrySchema, partitionRecord } from '../../../adapters/avro/schemas';
import type { DataFile } from '../../../core/iceberg/manifest';
import { identitySpec } from '../../../core/iceberg/partition-spec';
import type { NestedField, PrimitiveType, Schema } from '../../../core/iceberg/types';
import { prim } from '../../../core/iceberg/types';
import { rng } from '../../helpers/rng';

const col = (id: number, name: string, type: PrimitiveType): NestedField => ({ id, name, required: false, type });
const schema: Schema = {
  schemaId: 0,
  fields: [
    col(1, 'a', prim.long),
    col(2, 'b', prim.string),
    col(3, 'p_str', prim.string),
    col(4, 'p_int', prim.int),
    col(5, 'p_long', prim.long),
    col(6, 'p_dbl', prim.double),
    col(7, 'p_bool', prim.boolean),
    col(8, 'p_date', prim.date),
  ],
};
const spec = identitySpec(schema, ['p_str', 'p_int', 'p_long', 'p_dbl', 'p_bool', 'p_date']);
const entryType = avroType(manifestEntrySchema(schema, spec));
const partType = avroType(partitionRecord(schema, spec));

const LONGS = [
  0,
  1,
  -1,
  63,
  64,
  -64,
  -65,
  127,
  128,
  8191,
  8192,
  2 ** 30 - 1,
  2 ** 30,
  -(2 ** 30),
  -(2 ** 30) - 1,
  2 ** 31,
  2 ** 32 + 5,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
];

function generated(seed: number): { file: DataFile; partition: Record<string, unknown> } {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const maybe = <T>(f: () => T): T | undefined => (r() < 0.2 ? undefined : f());
  const longMap = (): Map<number, number> =>
    new Map(
      Array.from({ length: Math.floor(r() * 6) }, () => [Math.floor(r() * 5000) - 10, pick(LONGS)] as const).map(
        ([k, v]) => [Math.abs(k), Math.abs(v)] as const,
      ),
    );
  const bytesMap = (): Map<number, Uint8Array> =>
    new Map(
      Array.from(
        { length: Math.floor(r() * 6) },
        () => [Math.floor(r() * 300), Uint8Array.from({ length: Math.floor(r() * 20) }, () => Math.floor(r() * 256))] as const,
      ),
    );
  const file: DataFile = {
    filePath: `s3://bucket/tbl/p_str=${pick(['a', 'ñandú', '日本', '😀', ''])}/part-${seed}.parquet`,
    fileFormat: pick(['PARQUET', 'ORC', 'AVRO'] as const),
    partition: [],
    recordCount: Math.abs(pick(LONGS)),
    fileSizeInBytes: Math.abs(pick(LONGS)),
    ...(maybe(() => 1) === undefined ? {} : { columnSizes: longMap() }),
    ...(maybe(() => 1) === undefined ? {} : { valueCounts: longMap() }),
    ...(maybe(() => 1) === undefined ? {} : { nullValueCounts: longMap() }),
    ...(maybe(() => 1) === undefined ? {} : { nanValueCounts: longMap() }),
    ...(maybe(() => 1) === undefined ? {} : { lowerBounds: bytesMap() }),
    ...(maybe(() => 1) === undefined ? {} : { upperBounds: bytesMap() }),
    ...(r() < 0.3 ? { keyMetadata: Uint8Array.of(1, 2, 3) } : {}),
    ...(maybe(() => 1) === undefined ? {} : { splitOffsets: Array.from({ length: Math.floor(r() * 4) }, () => Math.abs(pick(LONGS))) }),
    ...(r() < 0.3 ? { sortOrderId: Math.floor(r() * 100) } : {}),
  };
  const partition = {
    p_str: r() < 0.2 ? null : pick(['x', 'ñ', '', '__a b__']),
    p_int: r() < 0.2 ? null : pick([0, -1, 2147483647, -2147483648, 12]),
    p_long: r() < 0.2 ? null : pick([0n, -1n, 9_007_199_254_740_993n, -(2n ** 63n), 2n ** 63n - 1n]),
    p_dbl: r() < 0.2 ? null : pick([0, -0.5, 1e300, Number.NaN]),
    p_bool: r() < 0.2 ? null : pick([true, false]),
    p_date: r() < 0.2 ? null : pick([0, -719162, 2932896]),
  };
  return { file, partition };
}

/** The record avsc encodes: maps as ascending arrays of {key, value}, absent = null. */
function oracleRecord(f: DataFile, partition: Record<string, unknown>): unknown {
  const kv = <V>(m: ReadonlyMap<number, V> | undefined, conv: (v: V) => unknown): unknown =>
    m === undefined ? null : [...m].sort((a, b) => a[0] - b[0]).map(([key, value]) => ({ key, value: conv(value) }));
  const b = (x: Uint8Array): Buffer => Buffer.from(x);
  const n = (x: number): number => x;
  return {
    status: 1,
    snapshot_id: null,
    sequence_number: null,
    file_sequence_number: null,
    data_file: {
      content: 0,
      file_path: f.filePath,
      file_format: f.fileFormat,
      partition,
      record_count: f.recordCount,
      file_size_in_bytes: f.fileSizeInBytes,
      column_sizes: kv(f.columnSizes, n),
      value_counts: kv(f.valueCounts, n),
      null_value_counts: kv(f.nullValueCounts, n),
      nan_value_counts: kv(f.nanValueCounts, n),
      lower_bounds: kv(f.lowerBounds, b),
      upper_bounds: kv(f.upperBounds, b),
      key_metadata: f.keyMetadata === undefined ? null : b(f.keyMetadata),
      split_offsets: f.splitOffsets === undefined ? null : [...f.splitOffsets],
      equality_ids: null,
      sort_order_id: f.sortOrderId ?? null,
      referenced_data_file: null,
    },
  };
}

test('2,000 generated manifest entries encode to exactly the bytes avsc gives', () => {
  const out = new AvroBytes();
  let nonEmptyMaps = 0;
  for (let seed = 1; seed <= 2000; seed++) {
    const { file, partition } = generated(seed);
    out.reset();
    encodeAddedEntry(out, file, partType.toBuffer(partition));
    const expected = entryType.toBuffer(oracleRecord(file, partition));
    expect(Buffer.from(out.view()).toString('hex')).toBe(expected.toString('hex'));
    // And it decodes back through avsc to the same record.
    expect(entryType.fromBuffer(Buffer.from(out.view()))).toEqual(entryType.fromBuffer(expected));
    if ((file.lowerBounds?.size ?? 0) > 0) nonEmptyMaps++;
    // The same entry from metrics a footer thread encoded (encodeMetrics): the same bytes.
    const metrics = new AvroBytes();
    encodeMetrics(metrics, file);
    const { columnSizes: _s, valueCounts: _v, nullValueCounts: _n, nanValueCounts: _nan, lowerBounds: _l, upperBounds: _u, ...rest } = file;
    const pre = new AvroBytes();
    encodeAddedEntry(pre, { ...rest, encodedMetrics: Uint8Array.from(metrics.view()) }, partType.toBuffer(partition));
    expect(Buffer.from(pre.view()).toString('hex')).toBe(expected.toString('hex'));
  }
  expect(nonEmptyMaps).toBeGreaterThan(500);
});

test('encoded metrics together with metric maps are refused (one source of truth per entry)', () => {
  const { file } = generated(11);
  expect(() =>
    encodeAddedEntry(
      new AvroBytes(),
      { ...file, valueCounts: new Map([[1, 1]]), encodedMetrics: Uint8Array.of(0, 0, 0, 0, 0, 0) },
      Buffer.alloc(0),
    ),
  ).toThrow(expect.objectContaining({ code: 'ICEBERG_MANIFEST_WRITE_FAILED' }) as Error);
});

test('longs at the varint boundaries and past 2^53 (bigint) match avsc', () => {
  const longType = avroType('long');
  const values: (number | bigint)[] = [
    ...LONGS,
    ...LONGS.map((x) => -x),
    2n ** 63n - 1n,
    -(2n ** 63n),
    9_007_199_254_740_993n,
    -9_007_199_254_740_993n,
  ];
  for (const v of values) {
    const out = new AvroBytes();
    out.long(v);
    expect(Buffer.from(out.view()).toString('hex')).toBe(longType.toBuffer(v).toString('hex'));
  }
});

test('a value avsc would refuse is refused with a coded error, not written', () => {
  const out = new AvroBytes();
  const { file } = generated(7);
  expect(() => encodeAddedEntry(out, { ...file, recordCount: 1.5 }, Buffer.alloc(0))).toThrow(
    expect.objectContaining({ code: 'ICEBERG_MANIFEST_WRITE_FAILED' }) as Error,
  );
  expect(() => encodeAddedEntry(out, { ...file, fileSizeInBytes: Number.NaN }, Buffer.alloc(0))).toThrow(/not a safe integer/);
  expect(() => new AvroBytes().long(2n ** 63n)).toThrow(RangeError);
  // avsc itself refuses the same record (the oracle agrees that it is invalid).
  expect(() => entryType.toBuffer(oracleRecord({ ...file, recordCount: 1.5 }, generated(7).partition))).toThrow();
});
