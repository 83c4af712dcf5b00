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
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(nameOf(names, r.int()) ?? '');
  return out;
}

/** ColumnMetaData fields 2 (encodings), 3 (path_in_schema), 4 (codec), 13 (encoding_stats). */
function chunkMeta(r: Reader): ParquetChunk {
  let encodings: string[] = [];
  let path = '';
  let codec = '';
  let pageEncodings: string[] | undefined;
  r.struct((id, t) => {
    if (id === 2 && t === T.LIST) encodings = enumList(r, ENCODING);
    else if (id === 3 && t === T.LIST) {
      const n = r.list();
      const parts: string[] = [];
      for (let i = 0; i < n; i++) parts.push(r.string());
      path = parts.join('.');
    } else if (id === 4 && t === T.I32) codec = nameOf(CODEC, r.int()) ?? '';
    else if (id === 13 && t === T.LIST) {
      pageEncodings = r.structs(() => {
        let page = -1;
        let enc = -1;
        r.struct((sid, st) => {
          if (st !== T.I32 || (sid !== 1 && sid !== 2)) return false;
          if (sid === 1) page = r.int();
          else enc = r.int();
          return true;
        });
        return `${nameOf(PAGE, page) ?? ''}:${nameOf(ENCODING, enc) ?? ''}`;
      });
    } else return false;
    return true;
  });
  return { path, codec, encodings, ...(pageEncodings === undefined ? {} : { pageEncodings }) };
}

/** The first row group's column chunks (FileMetaData field 4, element 0, field 1); the rest is not walked. */
export function parquetFirstRowGroupChunks(meta: Uint8Array): ParquetChunk[] {
  const r = new Reader(meta);
  let chunks: ParquetChunk[] = [];
  for (let id = 0, t = r.field(0); t !== T.STOP; t = r.field(id)) {
    id = r.fieldId;
    if (id !== 4 || t !== T.LIST) {
      r.skip(t);
      continue;
    }
    if (r.list() === 0) return [];
    // Row group 0: its columns (field 1), each a ColumnChunk whose meta_data is field 3.
    r.struct((gid, gt) => {
      if (gid !== 1 || gt !== T.LIST) return false;
      chunks = r.structs(() => {
        let c: ParquetChunk | undefined;
        r.struct((cid, ct) => {
          if (cid !== 3 || ct !== T.STRUCT) return false;
          c = chunkMeta(r);
          return true;
        });
        return c ?? { path: '', codec: '', encodings: [] };
      });
      return true;
    });
    return chunks;
  }
  return chunks;
}

/**
 * FileFacts of a decoded footer `md` whose serialized FileMetaData is `meta`. `firstPage`: the type of
 * the first data page as its page header says (readFirstPageType) — parquet-cpp (pyarrow) records
 * every data page as DATA_PAGE in encoding_stats, v2 pages included, so the footer alone cannot tell.
 */
export function parquetFileFacts(meta: Uint8Array, md: FileMetaData, firstPage?: string): FileFacts {
  let chunks = parquetFirstRowGroupChunks(meta);
  if (firstPage !== undefined) {
    const data = (pe: string): string => (/^DATA_PAGE(_V2)?:/.test(pe) ? `${firstPage}:${pe.split(':')[1] ?? ''}` : pe);
    chunks = chunks.map((c) => ({ ...c, pageEncodings: (c.pageEncodings ?? [`${firstPage}:`]).map(data) }));
  }
  return { format: 'parquet', fields: parquetSchemaTree(md.schema), chunks };
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
