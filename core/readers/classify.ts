// A data file's encoding keys (core/readers/encodings.ts) from neutral footer facts: what the Parquet,
// ORC or Avro footer says about timestamp units, decimals, list and map layouts, pages, encodings and
// codecs. The format adapters decode the footers into these facts (no adapter type reaches core);
// the assessment and the conversion then ask core/readers/decide.ts what the keys mean for the
// required readers. The list and map layouts follow the backward-compatibility rules of the Parquet
// format's LogicalTypes document. Pure; no I/O.

/** A Parquet logical type as the footer states it (only the kinds the matrix distinguishes). */
export type ParquetLogical =
  | { readonly kind: 'timestamp'; readonly unit: 'millis' | 'micros' | 'nanos'; readonly utc: boolean }
  | { readonly kind: 'integer'; readonly bitWidth: number; readonly signed: boolean }
  | { readonly kind: 'date' | 'decimal' | 'enum' | 'json' | 'bson' | 'list' | 'map' | 'string' | 'other' };

/** One node of a Parquet schema tree (SchemaElement), names as in the footer. */
export interface ParquetNode {
  readonly name: string;
  readonly repetition?: 'required' | 'optional' | 'repeated';
  /** Leaves only: BOOLEAN, INT32, INT64, INT96, FLOAT, DOUBLE, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY. */
  readonly physical?: string;
  /** The ConvertedType name (TIMESTAMP_MILLIS, UINT_8, LIST, MAP, MAP_KEY_VALUE, DECIMAL…). */
  readonly converted?: string;
  readonly logical?: ParquetLogical;
  readonly children?: readonly ParquetNode[];
}

/** One column chunk's metadata (the first row group's is enough: writers keep a column's codec). */
export interface ParquetChunk {
  /** Dotted column path, for the messages. */
  readonly path: string;
  /** CompressionCodec name: UNCOMPRESSED, SNAPPY, GZIP, LZO, BROTLI, LZ4, ZSTD, LZ4_RAW. */
  readonly codec: string;
  /** Encoding names of ColumnMetaData.encodings (PLAIN, RLE, PLAIN_DICTIONARY, RLE_DICTIONARY…). */
  readonly encodings: readonly string[];
  /** ColumnMetaData.encoding_stats as `PAGE_TYPE:ENCODING`; absent when the writer left it out. */
  readonly pageEncodings?: readonly string[];
}

export type FileFacts =
  | { readonly format: 'parquet'; readonly fields: readonly ParquetNode[]; readonly chunks: readonly ParquetChunk[] }
  /** ORC: the postscript's CompressionKind name and the footer's type kinds (with the column each names). */
  | { readonly format: 'orc'; readonly compression: string; readonly types: readonly { readonly kind: string; readonly column: string }[] }
  /** Avro: the header's writer schema, parsed JSON. */
  | { readonly format: 'avro'; readonly schema: unknown };

/** A key the file holds and the first column that holds it (empty for file-wide keys such as the codec). */
export interface KeyHit {
  readonly key: string;
  readonly column: string;
}

/** The file's keys (each once, first column seen) and what could not be told (e.g. no encoding_stats). */
export interface FileEncodings {
  readonly hits: readonly KeyHit[];
  readonly unknown: readonly string[];
}

class Hits {
  private readonly seen = new Map<string, string>();
  readonly unknown: string[] = [];
  add(key: string, column: string): void {
    if (!this.seen.has(key)) this.seen.set(key, column);
  }
  note(what: string): void {
    if (!this.unknown.includes(what)) this.unknown.push(what);
  }
  done(): FileEncodings {
    return { hits: [...this.seen].map(([key, column]) => ({ key, column })), unknown: this.unknown };
  }
}

export function classifyFile(facts: FileFacts): FileEncodings {
  const h = new Hits();
  if (facts.format === 'parquet') {
    for (const f of facts.fields) parquetNode(f, f.name, h);
    parquetChunks(facts.chunks, h);
  } else if (facts.format === 'orc') {
    orcFacts(facts.compression, facts.types, h);
  } else {
    avroSchema(facts.schema, '', h, 0);
  }
  return h.done();
}

const isList = (n: ParquetNode): boolean => n.converted === 'LIST' || n.logical?.kind === 'list';
const isMap = (n: ParquetNode): boolean => n.converted === 'MAP' || n.converted === 'MAP_KEY_VALUE' || n.logical?.kind === 'map';

function parquetNode(n: ParquetNode, path: string, h: Hits): void {
  if (n.children === undefined) {
    parquetLeaf(n, path, h);
    return;
  }
  if (isList(n)) listLayout(n, path, h);
  else if (isMap(n)) mapLayout(n, path, h);
  for (const c of n.children) parquetNode(c, `${path}.${c.name}`, h);
}

/** The list rules: the repeated child decides 2-level vs 3-level, the element's name the variant. */
function listLayout(n: ParquetNode, path: string, h: Hits): void {
  const rep = n.children?.length === 1 ? n.children[0] : undefined;
  if (rep === undefined || rep.repetition !== 'repeated') return;
  if (rep.children === undefined) return h.add('parquet.list.2-level-array', path);
  // A repeated group of several fields, or one named `array` / `<list>_tuple`, IS the element.
  if (rep.children.length !== 1 || rep.name === 'array' || rep.name === `${n.name}_tuple`) {
    return h.add('parquet.list.2-level-group', path);
  }
  const el = rep.children[0]!.name;
  // A struct element is its own row: PyIceberg reads a NULL list of structs differently (docs/readers.md).
  const struct = rep.children[0]!.children !== undefined ? '-struct' : '';
  if (rep.name === 'bag' || el === 'array_element') h.add('parquet.list.3-level-bag', path);
  else if (el === 'item') h.add(`parquet.list.3-level-item${struct}`, path);
  else if (el === 'element') h.add(`parquet.list.3-level-element${struct}`, path);
  else h.note(`list ${path}: 3-level with element named ${el}`);
}

function mapLayout(n: ParquetNode, path: string, h: Hits): void {
  const rep = n.children?.length === 1 ? n.children[0] : undefined;
  if (rep === undefined || rep.repetition !== 'repeated') return;
  if (rep.converted === 'MAP_KEY_VALUE' || n.converted === 'MAP_KEY_VALUE') h.add('parquet.map.map-key-value', path);
  else if (rep.name === 'key_value') h.add('parquet.map.key_value', path);
  else if (rep.name === 'map') h.add('parquet.map.map', path);
  else h.note(`map ${path}: repeated group named ${rep.name}`);
}

const CONVERTED_UINT: Readonly<Record<string, string>> = {
  UINT_8: 'parquet.uint.8',
  UINT_16: 'parquet.uint.16',
  UINT_32: 'parquet.uint.32',
  UINT_64: 'parquet.uint.64',
};

function parquetLeaf(n: ParquetNode, path: string, h: Hits): void {
  const l = n.logical;
  const c = n.converted;
  if (n.physical === 'INT96') return h.add('parquet.ts.int96', path);
  if (l?.kind === 'timestamp') return h.add(`parquet.ts.int64-${l.unit}-${l.utc ? 'utc' : 'local'}`, path);
  if (c === 'TIMESTAMP_MILLIS') return h.add('parquet.ts.converted-millis', path);
  if (c === 'TIMESTAMP_MICROS') return h.add('parquet.ts.converted-micros', path);
  if (l?.kind === 'date' || c === 'DATE') return h.add('parquet.date.int32', path);
  if (l?.kind === 'decimal' || c === 'DECIMAL') return decimal(n.physical, path, h);
  if (l?.kind === 'integer') {
    if (!l.signed) h.add(`parquet.uint.${l.bitWidth}`, path);
    return;
  }
  if (c !== undefined && CONVERTED_UINT[c] !== undefined) return h.add(CONVERTED_UINT[c], path);
  if (l?.kind === 'enum' || c === 'ENUM') return h.add('parquet.string.enum', path);
  if (l?.kind === 'json' || c === 'JSON') return h.add('parquet.string.json', path);
  if (l?.kind === 'bson' || c === 'BSON') h.add('parquet.string.bson', path);
}

const DECIMAL_PHYSICAL: Readonly<Record<string, string>> = {
  INT32: 'parquet.decimal.int32',
  INT64: 'parquet.decimal.int64',
  FIXED_LEN_BYTE_ARRAY: 'parquet.decimal.fixed',
  BYTE_ARRAY: 'parquet.decimal.binary',
};

function decimal(physical: string | undefined, path: string, h: Hits): void {
  const key = physical === undefined ? undefined : DECIMAL_PHYSICAL[physical];
  if (key !== undefined) h.add(key, path);
}

const PARQUET_CODEC: Readonly<Record<string, string>> = {
  UNCOMPRESSED: 'uncompressed',
  SNAPPY: 'snappy',
  GZIP: 'gzip',
  ZSTD: 'zstd',
  LZ4: 'lz4',
  LZ4_RAW: 'lz4-raw',
  BROTLI: 'brotli',
};

const DELTA: Readonly<Record<string, string>> = {
  DELTA_BINARY_PACKED: 'parquet.enc.delta-binary-packed',
  DELTA_LENGTH_BYTE_ARRAY: 'parquet.enc.delta-length-byte-array',
  DELTA_BYTE_ARRAY: 'parquet.enc.delta-byte-array',
  BYTE_STREAM_SPLIT: 'parquet.enc.byte-stream-split',
};

const isDictionary = (e: string): boolean => e === 'PLAIN_DICTIONARY' || e === 'RLE_DICTIONARY';

function parquetChunks(chunks: readonly ParquetChunk[], h: Hits): void {
  for (const ch of chunks) {
    const codec = PARQUET_CODEC[ch.codec];
    if (codec !== undefined) h.add(`parquet.codec.${codec}`, ch.path);
    else h.note(`codec ${ch.codec}`);
    for (const e of ch.encodings) {
      if (isDictionary(e)) h.add('parquet.enc.dictionary', ch.path);
      const d = DELTA[e];
      if (d !== undefined) h.add(d, ch.path);
    }
    if (ch.pageEncodings === undefined) {
      // Without encoding_stats, PLAIN in the list may be the dictionary page's only: say so, don't guess.
      if (!ch.encodings.some(isDictionary) && ch.encodings.includes('PLAIN')) h.add('parquet.enc.plain', ch.path);
      h.note('page version (no encoding_stats)');
      continue;
    }
    for (const pe of ch.pageEncodings) {
      const [page, enc] = pe.split(':');
      if (page === 'DATA_PAGE') h.add('parquet.page.v1', ch.path);
      else if (page === 'DATA_PAGE_V2') h.add('parquet.page.v2', ch.path);
      if (page !== 'DICTIONARY_PAGE' && enc === 'PLAIN') h.add('parquet.enc.plain', ch.path);
    }
  }
}

const ORC_CODEC: Readonly<Record<string, string>> = {
  NONE: 'none',
  ZLIB: 'zlib',
  SNAPPY: 'snappy',
  LZ4: 'lz4',
  ZSTD: 'zstd',
};

const ORC_TYPE: Readonly<Record<string, string>> = {
  TIMESTAMP: 'orc.type.timestamp',
  TIMESTAMP_INSTANT: 'orc.type.timestamp-local-tz',
  CHAR: 'orc.type.char',
  VARCHAR: 'orc.type.varchar',
  DECIMAL: 'orc.type.decimal',
  UNION: 'orc.type.union',
};

function orcFacts(compression: string, types: readonly { kind: string; column: string }[], h: Hits): void {
  const codec = ORC_CODEC[compression];
  if (codec !== undefined) h.add(`orc.codec.${codec}`, '');
  else h.note(`ORC compression ${compression}`);
  for (const t of types) {
    const key = ORC_TYPE[t.kind];
    if (key !== undefined) h.add(key, t.column);
  }
}

const AVRO_LOGICAL: Readonly<Record<string, string>> = {
  'int:date': 'avro.logical.date',
  'long:timestamp-millis': 'avro.logical.timestamp-millis',
  'long:timestamp-micros': 'avro.logical.timestamp-micros',
  'bytes:decimal': 'avro.logical.decimal-bytes',
  'fixed:decimal': 'avro.logical.decimal-fixed',
};

/** Walks an Avro schema (records, arrays, maps, unions) for annotated primitives. */
function avroSchema(s: unknown, path: string, h: Hits, depth: number): void {
  if (depth > 64 || s === null || typeof s !== 'object') return;
  if (Array.isArray(s)) {
    for (const b of s) avroSchema(b, path, h, depth + 1);
    return;
  }
  const o = s as Record<string, unknown>;
  if (typeof o.logicalType === 'string' && typeof o.type === 'string') {
    const key = AVRO_LOGICAL[`${o.type}:${o.logicalType}`];
    if (key !== undefined) h.add(key, path);
  }
  if (o.type === 'record' && Array.isArray(o.fields)) {
    for (const f of o.fields as Record<string, unknown>[]) {
      const name = typeof f.name === 'string' ? f.name : '?';
      avroSchema(f.type, path === '' ? name : `${path}.${name}`, h, depth + 1);
    }
  } else if (o.type === 'array') avroSchema(o.items, `${path}.element`, h, depth + 1);
  else if (o.type === 'map') avroSchema(o.values, `${path}.value`, h, depth + 1);
  else if (typeof o.type === 'object') avroSchema(o.type, path, h, depth + 1);
}
