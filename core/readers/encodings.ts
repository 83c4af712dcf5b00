// The encodings Hive-era writers leave in Parquet, ORC and Avro files, as stable keys: the rows of
// the reader matrix (core/readers/matrix.ts, measured on the stack by test/e2e/reader-matrix.test.ts
// and rendered into docs/readers.md) and what the assessment derives from a file's footer
// (core/readers/classify.ts). A key names one property a reader can get wrong; a file usually has
// several (its timestamp unit, its codec, its list layout...). Pure; no I/O.

/** The engines the matrix measures. */
export const READERS = ['pyiceberg', 'spark', 'trino'] as const;
export type Reader = (typeof READERS)[number];

/**
 * What a reader did with a migrated table holding the encoding:
 * - `ok`: the full-scan content checksum equals Hive's and every predicate count is right;
 * - `wrong`: it reads, but values or predicate answers differ from Hive's (the silent case);
 * - `fails`: the read raises an error (loud, nothing wrong returned);
 * - `refused`: the tool does not migrate such a table metadata-only (nothing for a reader to read).
 */
export const VERDICTS = ['ok', 'wrong', 'fails', 'refused'] as const;
export type Verdict = (typeof VERDICTS)[number];

export type FileFormatKey = 'parquet' | 'orc' | 'avro';

/** One encoding: its key, the file format, and a sentence saying what writes it. */
export interface EncodingDef {
  readonly key: string;
  readonly format: FileFormatKey;
  readonly what: string;
  /**
   * When a reader's `wrong` on this key depends on the values, not the layout: the condition (e.g.
   * "a NULL list"). Footers cannot tell whether a file holds such values, so a wrong reader is a
   * warning naming the condition (READER_ENCODING_LIMIT), not a refusal, even when required.
   */
  readonly wrongOnlyWith?: string;
}

const p = (key: string, what: string): EncodingDef => ({ key: `parquet.${key}`, format: 'parquet', what });
const o = (key: string, what: string): EncodingDef => ({ key: `orc.${key}`, format: 'orc', what });
const a = (key: string, what: string): EncodingDef => ({ key: `avro.${key}`, format: 'avro', what });

/** Every encoding the matrix covers, in the order docs/readers.md lists them. */
export const ENCODINGS: readonly EncodingDef[] = [
  p('ts.int96', 'INT96 timestamps (Hive, Impala, Spark < 3 default)'),
  p('ts.int64-millis-utc', 'INT64 TIMESTAMP(MILLIS, isAdjustedToUTC=true) (Spark outputTimestampType=TIMESTAMP_MILLIS)'),
  p('ts.int64-millis-local', 'INT64 TIMESTAMP(MILLIS, isAdjustedToUTC=false)'),
  p('ts.int64-micros-utc', 'INT64 TIMESTAMP(MICROS, isAdjustedToUTC=true)'),
  p('ts.int64-micros-local', 'INT64 TIMESTAMP(MICROS, isAdjustedToUTC=false)'),
  p('ts.int64-nanos-utc', 'INT64 TIMESTAMP(NANOS, isAdjustedToUTC=true)'),
  p('ts.int64-nanos-local', 'INT64 TIMESTAMP(NANOS, isAdjustedToUTC=false)'),
  p('ts.converted-millis', 'INT64 with converted type TIMESTAMP_MILLIS only (no logical type; parquet-mr < 1.11)'),
  p('ts.converted-micros', 'INT64 with converted type TIMESTAMP_MICROS only (no logical type)'),
  p('date.int32', 'INT32 DATE'),
  p('decimal.int32', 'DECIMAL stored as INT32'),
  p('decimal.int64', 'DECIMAL stored as INT64'),
  p('decimal.fixed', 'DECIMAL stored as FIXED_LEN_BYTE_ARRAY'),
  p('decimal.binary', 'DECIMAL stored as BINARY'),
  p('uint.8', 'INT32 with INTEGER(8, unsigned) / UINT_8'),
  p('uint.16', 'INT32 with INTEGER(16, unsigned) / UINT_16'),
  p('uint.32', 'INT32 with INTEGER(32, unsigned) / UINT_32'),
  p('uint.64', 'INT64 with INTEGER(64, unsigned) / UINT_64'),
  p('string.enum', 'BINARY annotated ENUM'),
  p('string.json', 'BINARY annotated JSON'),
  p('string.bson', 'BINARY annotated BSON'),
  p('list.3-level-element', 'LIST, 3-level, repeated group `list` with field `element` (the spec form), primitive element'),
  p('list.3-level-item', 'LIST, 3-level, primitive element named `item` (parquet-mr, older Hive, pyarrow use_compliant_nested_type=False)'),
  {
    ...p('list.3-level-element-struct', 'LIST, 3-level, element `element` is a struct (the spec form, list of struct)'),
    wrongOnlyWith: 'a NULL list (read as [])',
  },
  {
    ...p('list.3-level-item-struct', 'LIST, 3-level, element `item` is a struct (pyarrow use_compliant_nested_type=False, parquet-mr)'),
    wrongOnlyWith: 'a NULL list (read as [])',
  },
  p('list.3-level-bag', 'LIST, repeated group `bag` with field `array_element` (Hive < 1.2)'),
  p('list.2-level-array', 'LIST, 2-level: `repeated <primitive> array` (parquet-avro, old Hive)'),
  {
    ...p('list.2-level-group', 'LIST, 2-level: a repeated group of several fields is the element struct'),
    wrongOnlyWith: 'a NULL list (read as [])',
  },
  p('map.key_value', 'MAP, repeated group `key_value` (the spec form)'),
  p('map.map', 'MAP, repeated group named `map` (older writers)'),
  p('map.map-key-value', 'MAP annotated MAP_KEY_VALUE on the repeated group (Hive, parquet-mr < 1.x)'),
  p('page.v1', 'data page v1'),
  p('page.v2', 'data page v2'),
  p('enc.dictionary', 'dictionary-encoded pages (PLAIN_DICTIONARY / RLE_DICTIONARY)'),
  p('enc.plain', 'PLAIN pages, no dictionary'),
  p('enc.delta-binary-packed', 'DELTA_BINARY_PACKED integers'),
  p('enc.delta-length-byte-array', 'DELTA_LENGTH_BYTE_ARRAY strings'),
  p('enc.delta-byte-array', 'DELTA_BYTE_ARRAY strings'),
  p('enc.byte-stream-split', 'BYTE_STREAM_SPLIT floating point'),
  p('codec.uncompressed', 'UNCOMPRESSED'),
  p('codec.snappy', 'SNAPPY'),
  p('codec.gzip', 'GZIP'),
  p('codec.zstd', 'ZSTD'),
  p('codec.lz4', 'LZ4 (the Hadoop framing)'),
  p('codec.lz4-raw', 'LZ4_RAW'),
  p('codec.brotli', 'BROTLI'),
  o('codec.zlib', 'ORC, ZLIB'),
  o('codec.snappy', 'ORC, SNAPPY'),
  o('codec.zstd', 'ORC, ZSTD'),
  o('codec.lz4', 'ORC, LZ4'),
  o('codec.none', 'ORC, uncompressed'),
  o('type.timestamp', 'ORC timestamp'),
  o('type.timestamp-local-tz', 'ORC timestamp with local time zone (Hive 3 `timestamp with local time zone`)'),
  o('type.char', 'ORC char(n)'),
  o('type.varchar', 'ORC varchar(n)'),
  o('type.decimal', 'ORC decimal(p,s)'),
  o('type.union', 'ORC uniontype'),
  a('logical.date', 'Avro int with logicalType date'),
  a('logical.timestamp-millis', 'Avro long with logicalType timestamp-millis'),
  a('logical.timestamp-micros', 'Avro long with logicalType timestamp-micros'),
  a('logical.decimal-bytes', 'Avro bytes with logicalType decimal'),
  a('logical.decimal-fixed', 'Avro fixed with logicalType decimal'),
];

export const ENCODING_KEYS: ReadonlySet<string> = new Set(ENCODINGS.map((e) => e.key));
