// A Parquet footer's encoding facts (core/readers/classify.ts FileFacts): the schema tree with
// physical, converted and logical types (from the FileMetaData compact.ts already decoded), and per
// leaf column of the first row group its codec, encodings and encoding_stats (page type:encoding),
// which compact.ts skips — read here by a second pass over the same footer bytes, stopping after the
// first row group. Footer bytes only: no page is read. Field ids: parquet-format's parquet.thrift.
import type { FileFacts, ParquetChunk, ParquetLogical, ParquetNode } from '../../../core/readers/classify';
import type { ObjectStore } from '../../../core/storage/object-store';
import { CompactDecodeError, Reader, T } from './compact-reader';
import type { FileMetaData, LogicalType, SchemaElement } from './thrift';

/** parquet.thrift `Type` names by value. */
const PHYSICAL = ['BOOLEAN', 'INT32', 'INT64', 'INT96', 'FLOAT', 'DOUBLE', 'BYTE_ARRAY', 'FIXED_LEN_BYTE_ARRAY'];
/** parquet.thrift `ConvertedType` names by value. */
const CONVERTED = [
  'UTF8',
  'MAP',
  'MAP_KEY_VALUE',
  'LIST',
  'ENUM',
  'DECIMAL',
  'DATE',
  'TIME_MILLIS',
  'TIME_MICROS',
  'TIMESTAMP_MILLIS',
  'TIMESTAMP_MICROS',
  'UINT_8',
  'UINT_16',
  'UINT_32',
  'UINT_64',
  'INT_8',
  'INT_16',
  'INT_32',
  'INT_64',
  'JSON',
  'BSON',
  'INTERVAL',
];
/** parquet.thrift `CompressionCodec` names by value. */
const CODEC = ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'LZO', 'BROTLI', 'LZ4', 'ZSTD', 'LZ4_RAW'];
/** parquet.thrift `Encoding` names by value (1 is the retired GROUP_VAR_INT). */
const ENCODING = [
  'PLAIN',
  'GROUP_VAR_INT',
  'PLAIN_DICTIONARY',
  'RLE',
  'BIT_PACKED',
  'DELTA_BINARY_PACKED',
  'DELTA_LENGTH_BYTE_ARRAY',
  'DELTA_BYTE_ARRAY',
  'RLE_DICTIONARY',
  'BYTE_STREAM_SPLIT',
];
/** parquet.thrift `PageType` names by value. */
const PAGE = ['DATA_PAGE', 'INDEX_PAGE', 'DICTIONARY_PAGE', 'DATA_PAGE_V2'];
const REPETITION = ['required', 'optional', 'repeated'] as const;

const nameOf = (names: readonly string[], v: number | undefined): string | undefined =>
  v === undefined ? undefined : (names[v] ?? `#${v}`);

function logicalOf(l: LogicalType | undefined): ParquetLogical | undefined {
  if (l === undefined) return undefined;
  switch (l.kind) {
    case 'TIMESTAMP':
      return { kind: 'timestamp', unit: l.unit === 'MILLIS' ? 'millis' : l.unit === 'MICROS' ? 'micros' : 'nanos', utc: l.isAdjustedToUTC };
    case 'INTEGER':
      return { kind: 'integer', bitWidth: l.bitWidth, signed: l.isSigned };
    case 'DATE':
    case 'DECIMAL':
    case 'ENUM':
    case 'JSON':
    case 'BSON':
    case 'LIST':
    case 'MAP':
    case 'STRING':
      return { kind: l.kind.toLowerCase() as 'date' };
    default:
      return { kind: 'other' };
  }
}

/** The schema tree under the root, from the flat depth-first SchemaElement list. */
export function parquetSchemaTree(schema: readonly SchemaElement[]): ParquetNode[] {
  let i = 1;
  const node = (depth: number): ParquetNode => {
    if (depth > 64) throw new CompactDecodeError('schema nesting too deep');
    const e = schema[i++];
    if (e === undefined) throw new CompactDecodeError('schema ends inside a group');
    const base = {
      name: e.name,
      repetition: e.repetition === undefined ? undefined : REPETITION[e.repetition],
      converted: nameOf(CONVERTED, e.convertedType),
      logical: logicalOf(e.logicalType),
    };
    if (e.numChildren === undefined || (e.type !== undefined && e.numChildren === 0))
      return { ...base, physical: nameOf(PHYSICAL, e.type) };
    const children: ParquetNode[] = [];
    for (let k = 0; k < e.numChildren; k++) children.push(node(depth + 1));
    return { ...base, children };
  };
  const out: ParquetNode[] = [];
  for (let k = 0; k < (schema[0]?.numChildren ?? 0); k++) out.push(node(1));
  return out;
}

function enumList(r: Reader, names: readonly string[]): string[] {
  const n = r.list();
  if (r.elementType !== T.I32) throw new CompactDecodeError('expected a list of i32');
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = names[r.int()] ?? '?';
  return out;
}

/** encoding_stats: PageEncodingStats { 1: page_type, 2: encoding, 3: count } as `PAGE:ENCODING`. */
function pageStats(r: Reader): string[] {
  const n = r.list();
  if (r.elementType !== T.STRUCT) throw new CompactDecodeError('encoding_stats is not a list of structs');
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    let page = -1;
    let enc = -1;
    let id = 0;
    for (let t = r.field(0); t !== T.STOP; t = r.field(id)) {
      id = r.fieldId;
      if (id === 1 && t === T.I32) page = r.int();
      else if (id === 2 && t === T.I32) enc = r.int();
      else r.skip(t);
    }
    out[i] = `${PAGE[page] ?? '?'}:${ENCODING[enc] ?? '?'}`;
  }
  return out;
}

/** ColumnMetaData fields 2 (encodings), 4 (codec), 13 (encoding_stats); the column is named by the caller. */
function chunkMeta(r: Reader, path: string): ParquetChunk {
  let encodings: string[] = [];
  let codec = '';
  let pageEncodings: string[] | undefined;
  let id = 0;
  for (let t = r.field(0); t !== T.STOP; t = r.field(id)) {
    id = r.fieldId; // read first: nested structs overwrite it
    if (id === 2 && t === T.LIST) encodings = enumList(r, ENCODING);
    else if (id === 4 && t === T.I32) codec = CODEC[r.int()] ?? '?';
    else if (id === 13 && t === T.LIST) pageEncodings = pageStats(r);
    else r.skip(t);
  }
  return pageEncodings === undefined ? { path, codec, encodings } : { path, codec, encodings, pageEncodings };
}

/**
 * The first row group's column chunks (FileMetaData field 4, element 0, field 1); the rest is not
 * walked. `paths`: the leaf columns' dotted paths in schema order (column chunks follow it).
 */
export function parquetFirstRowGroupChunks(meta: Uint8Array, paths: readonly string[] = []): ParquetChunk[] {
  const r = new Reader(meta);
  for (let id = 0, t = r.field(0); t !== T.STOP; t = r.field(id)) {
    id = r.fieldId;
    if (id !== 4 || t !== T.LIST) {
      r.skip(t);
      continue;
    }
    if (r.list() === 0) return [];
    // Row group 0: its columns (field 1), each a ColumnChunk whose meta_data is field 3.
    let gid = 0;
    for (let gt = r.field(0); gt !== T.STOP; gt = r.field(gid)) {
      gid = r.fieldId;
      if (gid !== 1 || gt !== T.LIST) {
        r.skip(gt);
        continue;
      }
      const n = r.list();
      if (r.elementType !== T.STRUCT) throw new CompactDecodeError('row group columns are not structs');
      const chunks = new Array<ParquetChunk>(n);
      for (let i = 0; i < n; i++) {
        let c: ParquetChunk | undefined;
        let cid = 0;
        for (let ct = r.field(0); ct !== T.STOP; ct = r.field(cid)) {
          cid = r.fieldId;
          if (cid === 3 && ct === T.STRUCT) c = chunkMeta(r, paths[i] ?? `column ${i}`);
          else r.skip(ct);
        }
        chunks[i] = c ?? { path: paths[i] ?? `column ${i}`, codec: '', encodings: [] };
      }
      return chunks;
    }
    return [];
  }
  return [];
}

/** The dotted paths of the leaves of `fields`, depth first (the order of a row group's column chunks). */
function leafPaths(fields: readonly ParquetNode[], prefix: string, out: string[]): string[] {
  for (const f of fields) {
    const p = prefix === '' ? f.name : `${prefix}.${f.name}`;
    if (f.children === undefined) out.push(p);
    else leafPaths(f.children, p, out);
  }
  return out;
}

/**
 * FileFacts of a decoded footer `md` whose serialized FileMetaData is `meta`. `firstPage`: the type of
 * the first data page as its page header says (readFirstPageType) — parquet-cpp (pyarrow) records
 * every data page as DATA_PAGE in encoding_stats, v2 pages included, so the footer alone cannot tell.
 */
export function parquetFileFacts(meta: Uint8Array, md: FileMetaData, firstPage?: string): FileFacts {
  const fields = parquetSchemaTree(md.schema);
  let chunks = parquetFirstRowGroupChunks(meta, leafPaths(fields, '', []));
  if (firstPage !== undefined) {
    const data = (pe: string): string => (/^DATA_PAGE(_V2)?:/.test(pe) ? `${firstPage}:${pe.split(':')[1] ?? ''}` : pe);
    chunks = chunks.map((c) => ({ ...c, pageEncodings: (c.pageEncodings ?? [`${firstPage}:`]).map(data) }));
  }
  return { format: 'parquet', fields, chunks };
}

/** PageHeader.type (parquet.thrift field 1) of the first row group's first data page: one small ranged read. */
export async function readFirstPageType(store: ObjectStore, path: string, md: FileMetaData): Promise<string | undefined> {
  const at = md.rowGroups[0]?.columns[0]?.dataPageOffset;
  if (at === undefined || at < 4) return undefined;
  const head = await store.readRange(path, at, at + 16);
  try {
    const r = new Reader(head);
    const t = r.field(0);
    return r.fieldId === 1 && t === T.I32 ? nameOf(PAGE, r.int()) : undefined;
  } catch {
    return undefined; // a header this short read cannot hold: page version unknown, not a corrupt file
  }
}

/** The serialized schema list of a FileMetaData (field 2), as a view: equal bytes, equal schema. */
export function parquetSchemaBytes(meta: Uint8Array): Uint8Array | undefined {
  const r = new Reader(meta);
  for (let id = 0, t = r.field(0); t !== T.STOP; t = r.field(id)) {
    id = r.fieldId;
    const start = r.pos;
    r.skip(t);
    if (id === 2) return meta.subarray(start, r.pos);
  }
  return undefined;
}
