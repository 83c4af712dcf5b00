// Independent proof of the manifest and manifest-list writers: PyIceberg (verifier venv) reads what
// we wrote and must decode the field ids, partition values, counts, inherited ids and bounds.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as avro from 'avsc';
import { writeManifestList } from '../../../adapters/avro/manifest-list-writer';
import { writeManifests } from '../../../adapters/avro/manifest-writer';
import { serializeBound } from '../../../core/iceberg/bounds';
import type { DataFile } from '../../../core/iceberg/manifest';
import { addedManifestEntry } from '../../../core/iceberg/manifest';
import { identitySpec } from '../../../core/iceberg/partition-spec';
import type { NestedField, PrimitiveType, Schema } from '../../../core/iceberg/types';
import { prim } from '../../../core/iceberg/types';
import { testStack } from '../../helpers/stack-env';
import { localOutput } from './local-output';

const PY = join(__dirname, 'pyiceberg_probe.py');
const python = (): string => testStack().HIM_VERIFIER_PYTHON ?? 'python3';
const probe = (...args: string[]): unknown =>
  JSON.parse(execFileSync(python(), [PY, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 })) as unknown;

const col = (id: number, name: string, type: PrimitiveType): NestedField => ({ id, name, required: false, type });
// Data columns of every primitive type, then partition columns (identity) of the Hive-possible types.
const schema: Schema = {
  schemaId: 0,
  fields: [
    col(1, 'b', prim.boolean),
    col(2, 'i', prim.int),
    col(3, 'l', prim.long),
    col(4, 'f', prim.float),
    col(5, 'd', prim.double),
    col(6, 'dec', { kind: 'decimal', precision: 9, scale: 2 }),
    col(7, 'dt', prim.date),
    col(8, 't', prim.time),
    col(9, 'ts', prim.timestamp),
    col(10, 'tz', prim.timestamptz),
    col(11, 's', prim.string),
    col(12, 'u', prim.uuid),
    col(13, 'bin', prim.binary),
    col(14, 'fx', { kind: 'fixed', length: 3 }),
    col(15, 'p_str', prim.string),
    col(16, 'p_long', prim.long),
    col(17, 'p_date', prim.date),
    col(18, 'p_dec', { kind: 'decimal', precision: 9, scale: 2 }),
    col(19, 'p_bool', prim.boolean),
    col(20, 'p_ts', prim.timestamp),
    col(21, 'p_dbl', prim.double),
    col(22, 'p_dec2', { kind: 'decimal', precision: 9, scale: 2 }),
  ],
};
const spec = identitySpec(schema, ['p_str', 'p_long', 'p_date', 'p_dec', 'p_bool', 'p_ts', 'p_dbl', 'p_dec2']);
const BIG = 9_007_199_254_740_993n; // 2^53 + 1: must survive as a long
const SNAPSHOT = 8_765_432_109_876_543_210n & ((1n << 63n) - 1n);

const longString = 'ñandú-über-straße-日本語テキスト-😀😀😀-end';
const bounds: [number, PrimitiveType, unknown, unknown][] = [
  [1, prim.boolean, false, true],
  [2, prim.int, -2147483648, 2147483647],
  [3, prim.long, -BIG, BIG],
  [4, prim.float, -1.5, 3.25],
  [5, prim.double, -0, 1e300],
  [6, { kind: 'decimal', precision: 9, scale: 2 }, -12345n, 9999999n],
  [7, prim.date, -719162, 2932896],
  [8, prim.time, 0n, 86_399_999_999n],
  [9, prim.timestamp, -62135596800000000n, 253402300799999999n],
  [10, prim.timestamptz, 1700000000123456n, 1700000000123457n],
  [11, prim.string, 'Ab', longString],
  [12, prim.uuid, '00000000-0000-0000-0000-000000000001', 'f81d4fae-7dec-11d0-a765-00a0c91e6bf6'],
  [13, prim.binary, Uint8Array.of(0, 1), Uint8Array.from({ length: 20 }, (_, i) => 200 + i)],
  [14, { kind: 'fixed', length: 3 }, Uint8Array.of(1, 2, 3), Uint8Array.of(255, 255, 255)],
];

function dataFile(n: number, partition: DataFile['partition']): DataFile {
  const lower = new Map<number, Uint8Array>();
  const upper = new Map<number, Uint8Array>();
  for (const [id, type, lo, hi] of bounds) {
    const l = serializeBound(type, lo as never, 'lower');
    const u = serializeBound(type, hi as never, 'upper');
    if (l !== null) lower.set(id, l);
    if (u !== null) upper.set(id, u);
  }
  return {
    filePath: `s3a://bucket/warehouse/t/part=${n}/file-${n}.parquet`,
    fileFormat: 'PARQUET',
    partition,
    recordCount: 1000 + n,
    fileSizeInBytes: 4096 + n,
    columnSizes: new Map([
      [1, 10 + n],
      [11, 20 + n],
    ]),
    valueCounts: new Map([[1, 1000 + n]]),
    nullValueCounts: new Map([[1, n]]),
    lowerBounds: lower,
    upperBounds: upper,
    splitOffsets: [4, 1024],
  };
}

const files: DataFile[] = [
  dataFile(0, ['a', BIG, 19723, 12345n, true, 1700000000000000n, 1.5, -1n]),
  dataFile(1, ['zeta', -BIG, -1, -99999n, false, -1n, -0, 0n]),
  dataFile(2, [null, null, null, null, null, null, Number.NaN, null]),
  dataFile(3, ['日本', 0n, 0, 0n, true, 0n, 2.5, 9999999n]),
  dataFile(4, ['a', 1n, 1, 1n, false, 1n, 0, -9999999n]),
];

async function* stream(): AsyncGenerator<DataFile> {
  for (const f of files) yield f;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'him-avro-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function writeAll(base: string): Promise<{ listPath: string; manifests: string[] }> {
  const result = await writeManifests(stream(), {
    schema,
    spec,
    maxEntriesPerManifest: 2,
    open: async (i) => {
      const path = join(base, `m${i}.avro`);
      return { path, file: await localOutput(path) };
    },
  });
  expect(result).toMatchObject({ dataFiles: 5, records: 5010, filesSize: 5 * 4096 + 10, changedPartitions: 5 });
  const listPath = join(base, `snap-${SNAPSHOT}-1-list.avro`);
  await writeManifestList({
    path: listPath,
    file: await localOutput(listPath),
    snapshotId: SNAPSHOT,
    parentSnapshotId: null,
    sequenceNumber: 1,
    manifests: result.manifests.map((m) => addedManifestEntry(m, SNAPSHOT, 1)),
  });
  return { listPath, manifests: result.manifests.map((m) => m.path) };
}

/** Every field of a written Avro schema carries field-id; arrays carry element-id (docs/design/iceberg-spec.md §9). */
function assertIds(schema: unknown, path: string, missing: string[]): void {
  if (Array.isArray(schema)) return schema.forEach((s) => assertIds(s, path, missing));
  if (typeof schema !== 'object' || schema === null) return;
  const s = schema as Record<string, unknown>;
  if (s.type === 'record') {
    for (const f of s.fields as Record<string, unknown>[]) {
      if (typeof f['field-id'] !== 'number') missing.push(`${path}.${String(f.name)}`);
      assertIds(f.type, `${path}.${String(f.name)}`, missing);
    }
  } else if (s.type === 'array') {
    if (s.logicalType !== 'map' && typeof s['element-id'] !== 'number') missing.push(`${path}[]`);
    assertIds(s.items, `${path}[]`, missing);
  }
}

function headerSchema(path: string): unknown {
  const decoder = avro.createFileDecoder(path);
  return new Promise((resolve, reject) => {
    decoder.on('metadata', (_type: unknown, _codec: unknown, header: { meta: Record<string, Buffer> }) => {
      resolve(JSON.parse(header.meta['avro.schema']?.toString('utf8') ?? 'null'));
      decoder.destroy();
    });
    decoder.on('error', reject);
  });
}

test('PyIceberg reads our manifests and manifest list: ids, partitions, counts, inheritance, bounds', async () => {
  const { listPath, manifests } = await writeAll(dir);
  for (const p of [listPath, ...manifests]) {
    const missing: string[] = [];
    assertIds(await headerSchema(p), '', missing);
    expect(missing).toEqual([]);
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- PyIceberg's JSON dump, checked field by field below
  const out = probe('manifests', listPath) as any;
  expect(out.header).toMatchObject({
    'snapshot-id': SNAPSHOT.toString(),
    'parent-snapshot-id': 'null',
    'sequence-number': '1',
    'format-version': '2',
    'avro.codec': 'deflate',
  });
  expect(out.manifests).toHaveLength(3);
  expect(out.manifests.map((m: { added_files_count: number }) => m.added_files_count)).toEqual([2, 2, 1]);
  const m0 = out.manifests[0];
  expect(m0).toMatchObject({
    partition_spec_id: 0,
    content: 0,
    sequence_number: 1,
    min_sequence_number: 1,
    added_snapshot_id: SNAPSHOT.toString(),
    added_rows_count: 2001,
    existing_files_count: 0,
    deleted_files_count: 0,
  });
  expect(m0.manifest_length).toBe(readFileSync(manifests[0] ?? '').length);
  expect(m0.header).toMatchObject({ 'format-version': '2', content: 'data', 'partition-spec-id': '0', 'schema-id': '0' });
  expect(JSON.parse(m0.header['partition-spec'])[0]).toEqual({ name: 'p_str', transform: 'identity', 'source-id': 15, 'field-id': 1000 });
  // partition summaries: manifest 0 holds files 0 and 1
  expect(m0.partitions[0]).toEqual({
    contains_null: false,
    contains_nan: false,
    lower_bound: { hex: Buffer.from('a').toString('hex') },
    upper_bound: { hex: Buffer.from('zeta').toString('hex') },
  });
  expect(out.manifests[1].partitions[6]).toMatchObject({ contains_null: false, contains_nan: true }); // NaN in p_dbl of file 2
  expect(out.manifests[1].partitions[0]).toMatchObject({ contains_null: true });

  const entries = out.manifests.flatMap((m: { entries: unknown[] }) => m.entries);
  expect(entries).toHaveLength(5);
  const e0 = entries[0];
  expect(e0).toMatchObject({
    status: 1,
    snapshot_id: SNAPSHOT.toString(),
    sequence_number: 1,
    file_sequence_number: 1,
    content: 0,
    file_path: files[0]?.filePath,
    file_format: 'PARQUET',
    record_count: 1000,
    file_size_in_bytes: 4096,
    split_offsets: [4, 1024],
  });
  expect(e0.partition).toEqual(['a', BIG.toString(), 19723, '123.45', true, 1700000000000000, '1.5', '-0.01']);
  expect(entries[1].partition).toEqual(['zeta', (-BIG).toString(), -1, '-999.99', false, -1, '-0.0', '0.00']);
  expect(entries[2].partition).toEqual([null, null, null, null, null, null, 'nan', null]);
  expect(e0.column_sizes).toEqual({ 1: 10, 11: 20 });
  expect(e0.null_value_counts).toEqual({ 1: 0 });
  // Bounds decoded by pyiceberg.conversions.from_bytes equal the originals (strings/binary truncated).
  expect(e0.lower_bounds).toEqual({
    1: false,
    2: -2147483648,
    3: (-BIG).toString(),
    4: '-1.5',
    5: '-0.0',
    6: '-123.45',
    7: -719162,
    8: 0,
    9: '-62135596800000000',
    10: 1700000000123456,
    11: 'Ab',
    12: { hex: '00000000000000000000000000000001' }, // pyiceberg from_bytes gives uuid bounds as the 16 big-endian bytes
    13: { hex: '0001' },
    14: { hex: '010203' },
  });
  expect(e0.upper_bounds).toMatchObject({
    1: true,
    2: 2147483647,
    3: BIG.toString(),
    4: '3.25',
    5: '1e+300',
    6: '99999.99',
    7: 2932896,
    8: 86399999999,
    9: '253402300799999999',
    10: 1700000000123457,
    12: { hex: 'f81d4fae7dec11d0a76500a0c91e6bf6' },
    14: { hex: 'ffffff' },
  });
  // truncate(16): 16 code points, last one rounded up; binary: 16 bytes, last byte + 1
  expect(e0.upper_bounds[11]).toBe(
    `${Array.from(longString).slice(0, 15).join('')}${String.fromCodePoint((Array.from(longString)[15] ?? 'a').codePointAt(0)! + 1)}`,
  );
  expect(e0.upper_bounds[13]).toEqual({
    hex: Buffer.from(Uint8Array.from({ length: 16 }, (_, i) => (i === 15 ? 216 : 200 + i))).toString('hex'),
  });
});

test('rewriting the same inputs gives byte-identical files', async () => {
  const a = await writeAll(join(dir));
  const first = [a.listPath, ...a.manifests].map((p) => readFileSync(p));
  const b = await writeAll(join(dir));
  const second = [b.listPath, ...b.manifests].map((p) => readFileSync(p));
  expect(second.map((x, i) => x.equals(first[i] ?? Buffer.alloc(0)))).toEqual(first.map(() => true));
});
