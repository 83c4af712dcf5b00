// Every encoding key from synthetic footer facts, and what the classifier will not guess.
import type { FileFacts, ParquetChunk, ParquetNode } from '../../../core/readers/classify';
import { classifyFile } from '../../../core/readers/classify';
import { ENCODINGS } from '../../../core/readers/encodings';

const leaf = (n: Partial<ParquetNode> & { physical: string }): ParquetNode => ({ name: 'c', repetition: 'optional', ...n });
const chunk = (c: Partial<ParquetChunk>): ParquetChunk => ({
  path: 'c',
  codec: 'UNCOMPRESSED',
  encodings: ['RLE'],
  pageEncodings: [],
  ...c,
});
const pq = (fields: ParquetNode[], chunks: ParquetChunk[] = []): FileFacts => ({ format: 'parquet', fields, chunks });
const list = (rep: ParquetNode, name = 'xs'): ParquetNode => ({ name, repetition: 'optional', converted: 'LIST', children: [rep] });
const group = (name: string, children: ParquetNode[]): ParquetNode => ({ name, repetition: 'optional', children });
const map = (rep: ParquetNode, converted = 'MAP'): ParquetNode => ({ name: 'm', repetition: 'optional', converted, children: [rep] });
const kv = (name: string, extra: Partial<ParquetNode> = {}): ParquetNode => ({
  name,
  repetition: 'repeated',
  children: [leaf({ name: 'key', physical: 'BYTE_ARRAY', repetition: 'required' }), leaf({ name: 'value', physical: 'INT32' })],
  ...extra,
});
const ts = (unit: 'millis' | 'micros' | 'nanos', utc: boolean): ParquetNode =>
  leaf({ physical: 'INT64', logical: { kind: 'timestamp', unit, utc } });

/** One synthetic file per key, holding that key (and possibly others). */
const CASES: Record<string, FileFacts> = {
  'parquet.ts.int96': pq([leaf({ physical: 'INT96' })]),
  'parquet.ts.int64-millis-utc': pq([ts('millis', true)]),
  'parquet.ts.int64-millis-local': pq([ts('millis', false)]),
  'parquet.ts.int64-micros-utc': pq([ts('micros', true)]),
  'parquet.ts.int64-micros-local': pq([ts('micros', false)]),
  'parquet.ts.int64-nanos-utc': pq([ts('nanos', true)]),
  'parquet.ts.int64-nanos-local': pq([ts('nanos', false)]),
  'parquet.ts.converted-millis': pq([leaf({ physical: 'INT64', converted: 'TIMESTAMP_MILLIS' })]),
  'parquet.ts.converted-micros': pq([leaf({ physical: 'INT64', converted: 'TIMESTAMP_MICROS' })]),
  'parquet.date.int32': pq([leaf({ physical: 'INT32', converted: 'DATE' })]),
  'parquet.decimal.int32': pq([leaf({ physical: 'INT32', logical: { kind: 'decimal' } })]),
  'parquet.decimal.int64': pq([leaf({ physical: 'INT64', converted: 'DECIMAL' })]),
  'parquet.decimal.fixed': pq([leaf({ physical: 'FIXED_LEN_BYTE_ARRAY', converted: 'DECIMAL' })]),
  'parquet.decimal.binary': pq([leaf({ physical: 'BYTE_ARRAY', converted: 'DECIMAL' })]),
  'parquet.uint.8': pq([leaf({ physical: 'INT32', logical: { kind: 'integer', bitWidth: 8, signed: false } })]),
  'parquet.uint.16': pq([leaf({ physical: 'INT32', converted: 'UINT_16' })]),
  'parquet.uint.32': pq([leaf({ physical: 'INT32', logical: { kind: 'integer', bitWidth: 32, signed: false } })]),
  'parquet.uint.64': pq([leaf({ physical: 'INT64', converted: 'UINT_64' })]),
  'parquet.string.enum': pq([leaf({ physical: 'BYTE_ARRAY', converted: 'ENUM' })]),
  'parquet.string.json': pq([leaf({ physical: 'BYTE_ARRAY', logical: { kind: 'json' } })]),
  'parquet.string.bson': pq([leaf({ physical: 'BYTE_ARRAY', converted: 'BSON' })]),
  'parquet.list.3-level-element': pq([
    list({ name: 'list', repetition: 'repeated', children: [leaf({ name: 'element', physical: 'INT32' })] }),
  ]),
  'parquet.list.3-level-item': pq([list({ name: 'list', repetition: 'repeated', children: [leaf({ name: 'item', physical: 'INT32' })] })]),
  'parquet.list.3-level-element-struct': pq([
    list({ name: 'list', repetition: 'repeated', children: [group('element', [leaf({ name: 'a', physical: 'INT32' })])] }),
  ]),
  'parquet.list.3-level-item-struct': pq([
    list({ name: 'list', repetition: 'repeated', children: [group('item', [leaf({ name: 'a', physical: 'INT32' })])] }),
  ]),
  'parquet.list.3-level-bag': pq([
    list({ name: 'bag', repetition: 'repeated', children: [leaf({ name: 'array_element', physical: 'INT32' })] }),
  ]),
  'parquet.list.2-level-array': pq([list(leaf({ name: 'array', physical: 'INT32', repetition: 'repeated' }))]),
  'parquet.list.2-level-group': pq([list(kv('bag'))]),
  'parquet.map.key_value': pq([map(kv('key_value'))]),
  'parquet.map.map': pq([map(kv('map'))]),
  'parquet.map.map-key-value': pq([map(kv('map', { converted: 'MAP_KEY_VALUE' }))]),
  'parquet.page.v1': pq([], [chunk({ pageEncodings: ['DATA_PAGE:RLE'] })]),
  'parquet.page.v2': pq([], [chunk({ pageEncodings: ['DATA_PAGE_V2:RLE'] })]),
  'parquet.enc.dictionary': pq([], [chunk({ encodings: ['PLAIN', 'RLE', 'RLE_DICTIONARY'] })]),
  'parquet.enc.plain': pq([], [chunk({ pageEncodings: ['DATA_PAGE:PLAIN'] })]),
  'parquet.enc.delta-binary-packed': pq([], [chunk({ encodings: ['DELTA_BINARY_PACKED'] })]),
  'parquet.enc.delta-length-byte-array': pq([], [chunk({ encodings: ['DELTA_LENGTH_BYTE_ARRAY'] })]),
  'parquet.enc.delta-byte-array': pq([], [chunk({ encodings: ['DELTA_BYTE_ARRAY'] })]),
  'parquet.enc.byte-stream-split': pq([], [chunk({ encodings: ['BYTE_STREAM_SPLIT'] })]),
  'parquet.codec.uncompressed': pq([], [chunk({})]),
  'parquet.codec.snappy': pq([], [chunk({ codec: 'SNAPPY' })]),
  'parquet.codec.gzip': pq([], [chunk({ codec: 'GZIP' })]),
  'parquet.codec.zstd': pq([], [chunk({ codec: 'ZSTD' })]),
  'parquet.codec.lz4': pq([], [chunk({ codec: 'LZ4' })]),
  'parquet.codec.lz4-raw': pq([], [chunk({ codec: 'LZ4_RAW' })]),
  'parquet.codec.brotli': pq([], [chunk({ codec: 'BROTLI' })]),
  'orc.codec.zlib': { format: 'orc', compression: 'ZLIB', types: [] },
  'orc.codec.snappy': { format: 'orc', compression: 'SNAPPY', types: [] },
  'orc.codec.zstd': { format: 'orc', compression: 'ZSTD', types: [] },
  'orc.codec.lz4': { format: 'orc', compression: 'LZ4', types: [] },
  'orc.codec.none': { format: 'orc', compression: 'NONE', types: [] },
  'orc.type.timestamp': { format: 'orc', compression: 'NONE', types: [{ kind: 'TIMESTAMP', column: 't' }] },
  'orc.type.timestamp-local-tz': { format: 'orc', compression: 'NONE', types: [{ kind: 'TIMESTAMP_INSTANT', column: 't' }] },
  'orc.type.char': { format: 'orc', compression: 'NONE', types: [{ kind: 'CHAR', column: 't' }] },
  'orc.type.varchar': { format: 'orc', compression: 'NONE', types: [{ kind: 'VARCHAR', column: 't' }] },
  'orc.type.decimal': { format: 'orc', compression: 'NONE', types: [{ kind: 'DECIMAL', column: 't' }] },
  'orc.type.union': { format: 'orc', compression: 'NONE', types: [{ kind: 'UNION', column: 't' }] },
  'avro.logical.date': {
    format: 'avro',
    schema: { type: 'record', name: 'r', fields: [{ name: 'd', type: { type: 'int', logicalType: 'date' } }] },
  },
  'avro.logical.timestamp-millis': {
    format: 'avro',
    schema: { type: 'record', name: 'r', fields: [{ name: 't', type: ['null', { type: 'long', logicalType: 'timestamp-millis' }] }] },
  },
  'avro.logical.timestamp-micros': {
    format: 'avro',
    schema: {
      type: 'record',
      name: 'r',
      fields: [{ name: 'ts', type: { type: 'array', items: { type: 'long', logicalType: 'timestamp-micros' } } }],
    },
  },
  'avro.logical.decimal-bytes': {
    format: 'avro',
    schema: { type: 'record', name: 'r', fields: [{ name: 'x', type: { type: 'bytes', logicalType: 'decimal', precision: 9, scale: 2 } }] },
  },
  'avro.logical.decimal-fixed': {
    format: 'avro',
    schema: {
      type: 'record',
      name: 'r',
      fields: [{ name: 'x', type: { type: 'fixed', size: 8, name: 'f', logicalType: 'decimal', precision: 9, scale: 2 } }],
    },
  },
};

const keysOf = (f: FileFacts): string[] => classifyFile(f).hits.map((h) => h.key);

describe('classifyFile', () => {
  it('has a case for every encoding key', () => {
    expect(Object.keys(CASES).sort()).toEqual(ENCODINGS.map((e) => e.key).sort());
  });

  it.each(ENCODINGS.map((e) => [e.key]))('%s', (key) => {
    expect(keysOf(CASES[key]!)).toContain(key);
  });

  it('names the column holding the key', () => {
    const f = pq([{ name: 's', repetition: 'optional', children: [ts('millis', true)] }]);
    expect(classifyFile(f).hits).toEqual([{ key: 'parquet.ts.int64-millis-utc', column: 's.c' }]);
  });

  it('does not tell a 3-level list from a 2-level one by the element alone', () => {
    // `array` with one field is the 2-level element struct (the spec's backward-compatibility rule).
    const f = pq([list({ name: 'array', repetition: 'repeated', children: [leaf({ name: 'element', physical: 'INT32' })] })]);
    expect(keysOf(f)).toEqual(['parquet.list.2-level-group']);
    const tuple = pq([list({ name: 'xs_tuple', repetition: 'repeated', children: [leaf({ name: 'item', physical: 'INT32' })] })]);
    expect(keysOf(tuple)).toEqual(['parquet.list.2-level-group']);
  });

  it('says when encoding_stats are absent instead of guessing the page version', () => {
    const r = classifyFile(pq([], [{ path: 'c', codec: 'SNAPPY', encodings: ['PLAIN', 'RLE', 'PLAIN_DICTIONARY'] }]));
    expect(r.hits.map((h) => h.key).sort()).toEqual(['parquet.codec.snappy', 'parquet.enc.dictionary']);
    expect(r.unknown).toEqual(['page version (no encoding_stats)']);
  });

  it('counts PLAIN only for data pages, not the dictionary page', () => {
    const r = classifyFile(
      pq([], [chunk({ encodings: ['PLAIN', 'RLE_DICTIONARY'], pageEncodings: ['DICTIONARY_PAGE:PLAIN', 'DATA_PAGE:RLE_DICTIONARY'] })]),
    );
    expect(r.hits.map((h) => h.key)).not.toContain('parquet.enc.plain');
    expect(r.hits.map((h) => h.key)).toContain('parquet.page.v1');
  });

  it('signed integers and plain strings hold no key', () => {
    const f = pq([
      leaf({ physical: 'INT32', logical: { kind: 'integer', bitWidth: 8, signed: true } }),
      leaf({ physical: 'BYTE_ARRAY', converted: 'UTF8' }),
    ]);
    expect(keysOf(f)).toEqual([]);
  });

  it('notes an unknown codec and an odd list element name', () => {
    const r = classifyFile(
      pq([list({ name: 'list', repetition: 'repeated', children: [leaf({ name: 'x', physical: 'INT32' })] })], [chunk({ codec: 'LZO' })]),
    );
    expect(r.unknown).toEqual(['list xs: 3-level with element named x', 'codec LZO']);
  });
});
