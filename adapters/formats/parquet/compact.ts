// A Thrift compact-protocol decoder for exactly the parts of Parquet's FileMetaData the footer
// reader uses, skipping everything else without materialising it (encodings, encoding stats,
// key/value metadata — pyarrow puts the whole Arrow schema there —, page/bloom index offsets,
// size statistics). Integers are decoded as numbers (counts, sizes and offsets of one file stay
// far below 2^53; a larger varint is rejected as corrupt rather than rounded).
//
// Wire format: Thrift compact protocol (thrift/doc/specs/thrift-compact-protocol.md); field ids:
// parquet-format's parquet.thrift. Produces the same FileMetaData shape as the generated decoder
// (thrift.ts), so one stats mapping serves both; test/adapters/formats/parquet.test.ts checks it against
// the generic decoder on pyarrow-written footers.
import { CompactDecodeError, Reader, T as TYPES } from './compact-reader';
import type { ColumnChunk, FileMetaData, LogicalType, RawStatistics, RowGroup, SchemaElement } from './thrift';

export { CompactDecodeError };

// A module-local binding for the type ids the loops below test on every field: an imported binding
// compiles (CommonJS through tsx, on the main thread) to a getter call per use, and this decoder ran
// ~5× slower with one (bench/convert/footer-cpu.ts); a local const is folded into the code.
const T = TYPES;

function schemaElement(r: Reader): SchemaElement {
  let type: number | undefined;
  let typeLength: number | undefined;
  let repetition: number | undefined;
  let name = '';
  let numChildren: number | undefined;
  let convertedType: number | undefined;
  let scale: number | undefined;
  let precision: number | undefined;
  let fieldId: number | undefined;
  let logicalType: LogicalType | undefined;
  r.struct((id, t) => {
    if (id === 4 && t === T.BINARY) name = r.string();
    else if (id === 10 && t === T.STRUCT) logicalType = logical(r);
    else if (id >= 1 && id <= 9 && t === T.I32) {
      const v = r.int();
      if (id === 1) type = v;
      else if (id === 2) typeLength = v;
      else if (id === 3) repetition = v;
      else if (id === 5) numChildren = v;
      else if (id === 6) convertedType = v;
      else if (id === 7) scale = v;
      else if (id === 8) precision = v;
      else fieldId = v;
    } else return false;
    return true;
  });
  return { type, typeLength, repetition, name, numChildren, convertedType, scale, precision, fieldId, logicalType };
}

const SIMPLE: Readonly<Record<number, LogicalType>> = {
  1: { kind: 'STRING' },
  2: { kind: 'MAP' },
  3: { kind: 'LIST' },
  4: { kind: 'ENUM' },
  6: { kind: 'DATE' },
  12: { kind: 'JSON' },
  13: { kind: 'BSON' },
  14: { kind: 'UUID' },
  15: { kind: 'FLOAT16' },
};

/** parquet.thrift `LogicalType` (a union: the first set member decides). */
function logical(r: Reader): LogicalType {
  let out: LogicalType | undefined;
  r.struct((id, t) => {
    if (t !== T.STRUCT || out !== undefined) return false;
    const simple = SIMPLE[id];
    if (simple !== undefined) {
      r.skip(T.STRUCT);
      out = simple;
    } else if (id === 5) {
      let scale = 0;
      let precision = 0;
      r.struct((fid, ft) => {
        if (ft !== T.I32) return false;
        if (fid === 1) scale = r.int();
        else if (fid === 2) precision = r.int();
        else return false;
        return true;
      });
      out = { kind: 'DECIMAL', scale, precision };
    } else if (id === 7 || id === 8) {
      let isAdjustedToUTC = false;
      let unit: 'MILLIS' | 'MICROS' | 'NANOS' = 'NANOS';
      r.struct((fid, ft) => {
        if (fid === 1 && (ft === T.TRUE || ft === T.FALSE)) isAdjustedToUTC = ft === T.TRUE;
        else if (fid === 2 && ft === T.STRUCT) {
          r.struct((uid, ut) => {
            if (ut !== T.STRUCT) return false;
            unit = uid === 1 ? 'MILLIS' : uid === 2 ? 'MICROS' : 'NANOS';
            r.skip(T.STRUCT);
            return true;
          });
        } else return false;
        return true;
      });
      out = { kind: id === 7 ? 'TIME' : 'TIMESTAMP', isAdjustedToUTC, unit };
    } else if (id === 10) {
      let bitWidth = 0;
      let isSigned = false;
      r.struct((fid, ft) => {
        if (fid === 1 && ft === T.BYTE) bitWidth = (r.byte() << 24) >> 24;
        else if (fid === 2 && (ft === T.TRUE || ft === T.FALSE)) isSigned = ft === T.TRUE;
        else return false;
        return true;
      });
      out = { kind: 'INTEGER', bitWidth, isSigned };
    } else return false;
    return true;
  });
  return out ?? { kind: 'OTHER' };
}

/**
 * parquet.thrift Statistics. The deprecated `min`/`max` are materialised only when `min_value`/
 * `max_value` are not both present: the bounds never read them then (bounds.ts pickMinMax),
 * and pyarrow writes both pairs, so this saves two views per column chunk.
 */
function statistics(r: Reader): RawStatistics {
  let maxAt = -1;
  let maxLen = 0;
  let minAt = -1;
  let minLen = 0;
  let nullCount: number | undefined;
  let maxValue: Uint8Array | undefined;
  let minValue: Uint8Array | undefined;
  let id = 0;
  for (let t = r.field(0); t !== T.STOP; t = r.field(id)) {
    id = r.fieldId; // read first: nested structs overwrite it
    if (t === T.BINARY && id === 1) [maxAt, maxLen] = [r.span(), r.spanLength];
    else if (t === T.BINARY && id === 2) [minAt, minLen] = [r.span(), r.spanLength];
    else if (t === T.BINARY && id === 5) maxValue = r.binary();
    else if (t === T.BINARY && id === 6) minValue = r.binary();
    else if (t === T.I64 && id === 3) nullCount = r.int();
    else r.skip(t);
  }
  const both = maxValue !== undefined && minValue !== undefined;
  const max = both || maxAt < 0 ? undefined : r.buf.subarray(maxAt, maxAt + maxLen);
  const min = both || minAt < 0 ? undefined : r.buf.subarray(minAt, minAt + minLen);
  return { max, min, nullCount, maxValue, minValue };
}

function columnMetaData(r: Reader): ColumnChunk {
  let physicalType = -1;
  let numValues = 0;
  let totalCompressedSize = 0;
  let dataPageOffset = 0;
  let dictionaryPageOffset: number | undefined;
  let stats: RawStatistics | undefined;
  let id = 0;
  for (let t = r.field(0); t !== T.STOP; t = r.field(id)) {
    id = r.fieldId; // read first: nested structs overwrite it
    if (id === 1 && t === T.I32) physicalType = r.int();
    else if (id === 3 && t === T.LIST) {
      // path_in_schema: column chunks follow the schema's leaf order, which is what the stats use.
      const n = r.list();
      if (r.elementType !== T.BINARY) throw new CompactDecodeError('path_in_schema is not a list of strings');
      for (let i = 0; i < n; i++) r.skip(T.BINARY);
    } else if (t === T.I64 && id === 5) numValues = r.int();
    else if (t === T.I64 && id === 7) totalCompressedSize = r.int();
    else if (t === T.I64 && id === 9) dataPageOffset = r.int();
    else if (t === T.I64 && id === 11) dictionaryPageOffset = r.int();
    else if (id === 12 && t === T.STRUCT) stats = statistics(r);
    else r.skip(t);
  }
  return { physicalType, numValues, totalCompressedSize, dataPageOffset, dictionaryPageOffset, statistics: stats };
}

function columnChunk(r: Reader): ColumnChunk {
  let md: ColumnChunk | undefined;
  let id = 0;
  for (let t = r.field(0); t !== T.STOP; t = r.field(id)) {
    id = r.fieldId;
    if (id === 3 && t === T.STRUCT) md = columnMetaData(r);
    else r.skip(t);
  }
  if (md === undefined)
    throw new CompactDecodeError('column chunk without meta_data (encrypted or external column chunks are not supported)');
  return md;
}

function rowGroup(r: Reader): RowGroup {
  let columns: ColumnChunk[] = [];
  let numRows = 0;
  let id = 0;
  for (let t = r.field(0); t !== T.STOP; t = r.field(id)) {
    id = r.fieldId; // read first: nested structs overwrite it
    if (id === 1 && t === T.LIST) {
      const n = r.list();
      if (r.elementType !== T.STRUCT) throw new CompactDecodeError(`expected a list of structs, found element type ${r.elementType}`);
      columns = new Array<ColumnChunk>(n);
      for (let i = 0; i < n; i++) columns[i] = columnChunk(r);
    } else if (id === 3 && t === T.I64) numRows = r.int();
    else r.skip(t);
  }
  return { columns, numRows };
}

/**
 * Recently decoded schema lists, keyed by their exact bytes (most recent first). Files of one table
 * written by one writer carry byte-identical schemas: a match skips the decode and hands out the
 * same SchemaElement array, which plan.ts keys its per-layout plan on. Treat it as read-only.
 */
const schemaCache: { bytes: Buffer; schema: SchemaElement[] }[] = [];
const SCHEMA_CACHE_SIZE = 8;

function cachedSchema(r: Reader): SchemaElement[] {
  const start = r.pos;
  const buf = r.buf;
  for (const c of schemaCache) {
    const n = c.bytes.length;
    // Decoding is deterministic and reads forward only: equal leading bytes decode to the same list.
    if (start + n <= buf.length && c.bytes.equals(Buffer.from(buf.buffer, buf.byteOffset + start, n))) {
      r.pos = start + n;
      return c.schema;
    }
  }
  const schema = r.structs(() => schemaElement(r));
  schemaCache.unshift({ bytes: Buffer.from(buf.subarray(start, r.pos)), schema });
  if (schemaCache.length > SCHEMA_CACHE_SIZE) schemaCache.pop();
  return schema;
}

/** FileMetaData from its serialized bytes (the footer without the length and magic). */
export function decodeFileMetaData(bytes: Uint8Array): FileMetaData {
  const r = new Reader(bytes);
  let schema: SchemaElement[] = [];
  let numRows = 0;
  let rowGroups: RowGroup[] = [];
  let createdBy: string | undefined;
  let typeDefinedOrder: boolean[] | undefined;
  r.struct((id, t) => {
    if (id === 2 && t === T.LIST) schema = cachedSchema(r);
    else if (id === 3 && t === T.I64) numRows = r.int();
    else if (id === 4 && t === T.LIST) rowGroups = r.structs(() => rowGroup(r));
    else if (id === 6 && t === T.BINARY) createdBy = r.string();
    else if (id === 7 && t === T.LIST) {
      typeDefinedOrder = r.structs(() => {
        let typeOrder = false;
        r.struct((oid, ot) => {
          if (oid === 1 && ot === T.STRUCT) typeOrder = true;
          return false; // skipped either way (TypeDefinedOrder is an empty struct)
        });
        return typeOrder;
      });
    } else return false;
    return true;
  });
  if (r.pos > bytes.length) throw new CompactDecodeError('footer ends inside a field');
  return { schema, numRows, rowGroups, createdBy, typeDefinedOrder };
}
