// Parquet FileMetaData as the footer reader needs it, decoded with hyparquet's Thrift compact
// decoder (raw: statistics stay bytes — hyparquet's own conversion turns decimals into floats).
// Field ids are parquet-format's parquet.thrift (apache/parquet-format src/main/thrift).
import type { ThriftStruct } from '../hyparquet';

/** parquet.thrift `Type`. */
export const PhysicalType = {
  BOOLEAN: 0,
  INT32: 1,
  INT64: 2,
  INT96: 3,
  FLOAT: 4,
  DOUBLE: 5,
  BYTE_ARRAY: 6,
  FIXED_LEN_BYTE_ARRAY: 7,
} as const;
/** parquet.thrift `ConvertedType` (the ones we read). */
export const ConvertedType = {
  UTF8: 0,
  MAP: 1,
  MAP_KEY_VALUE: 2,
  LIST: 3,
  ENUM: 4,
  DECIMAL: 5,
  DATE: 6,
  TIME_MILLIS: 7,
  TIME_MICROS: 8,
  TIMESTAMP_MILLIS: 9,
  TIMESTAMP_MICROS: 10,
  UINT_8: 11,
  UINT_64: 14,
  INTERVAL: 21,
} as const;
/** parquet.thrift `FieldRepetitionType`. */
export const Repetition = { REQUIRED: 0, OPTIONAL: 1, REPEATED: 2 } as const;

export type LogicalType =
  | { kind: 'STRING' | 'MAP' | 'LIST' | 'ENUM' | 'DATE' | 'JSON' | 'BSON' | 'UUID' | 'FLOAT16' | 'OTHER' }
  | { kind: 'DECIMAL'; scale: number; precision: number }
  | { kind: 'TIME' | 'TIMESTAMP'; isAdjustedToUTC: boolean; unit: 'MILLIS' | 'MICROS' | 'NANOS' }
  | { kind: 'INTEGER'; bitWidth: number; isSigned: boolean };

export interface SchemaElement {
  readonly type: number | undefined;
  readonly typeLength: number | undefined;
  readonly repetition: number | undefined;
  readonly name: string;
  readonly numChildren: number | undefined;
  readonly convertedType: number | undefined;
  readonly scale: number | undefined;
  readonly precision: number | undefined;
  readonly fieldId: number | undefined;
  readonly logicalType: LogicalType | undefined;
}

export interface RawStatistics {
  readonly max: Uint8Array | undefined;
  readonly min: Uint8Array | undefined;
  readonly nullCount: number | undefined;
  readonly maxValue: Uint8Array | undefined;
  readonly minValue: Uint8Array | undefined;
}

export interface ColumnChunk {
  readonly physicalType: number;
  readonly numValues: number;
  readonly totalCompressedSize: number;
  readonly dataPageOffset: number;
  readonly dictionaryPageOffset: number | undefined;
  readonly statistics: RawStatistics | undefined;
}

export interface RowGroup {
  readonly columns: readonly ColumnChunk[];
  readonly numRows: number;
}

export interface FileMetaData {
  readonly schema: readonly SchemaElement[];
  readonly numRows: number;
  readonly rowGroups: readonly RowGroup[];
  readonly createdBy: string | undefined;
  /** Per leaf column: true = TypeDefinedOrder; undefined when the file has no column_orders. */
  readonly typeDefinedOrder: readonly boolean[] | undefined;
}

const utf8 = new TextDecoder();

/** `field_<id>` keys built once: the mapping runs per column chunk, on every footer. */
const KEYS: readonly `field_${number}`[] = Array.from({ length: 32 }, (_, i) => `field_${i}` as const);

function get(s: ThriftStruct | undefined, id: number): unknown {
  return s === undefined ? undefined : s[KEYS[id] ?? `field_${id}`];
}
function num(s: ThriftStruct | undefined, id: number): number | undefined {
  const v = get(s, id);
  return typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined;
}
/** An i64 count or offset as a number; beyond 2^53 the footer is corrupt (as compact.ts decides). */
function big(s: ThriftStruct | undefined, id: number): number | undefined {
  const v = get(s, id);
  const n = typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? v : undefined;
  if (n !== undefined && !Number.isSafeInteger(n)) throw new Error(`i64 field ${id} out of range: ${String(v)}`);
  return n;
}
/** Bytes copied into this realm (hyparquet may live in another one, see hyparquet.ts). */
/** A view in this realm over a decoded binary (no element-wise copy; ArrayBuffers cross realms). */
function view(v: unknown): Uint8Array | undefined {
  if (v === undefined || v === null) return undefined;
  const t = v as { buffer?: unknown; byteOffset?: number; byteLength?: number };
  if (t.buffer !== undefined && typeof t.byteOffset === 'number' && typeof t.byteLength === 'number') {
    return new Uint8Array(t.buffer as ArrayBufferLike, t.byteOffset, t.byteLength);
  }
  return new Uint8Array(v as ArrayLike<number>);
}
function str(s: ThriftStruct | undefined, id: number): string | undefined {
  const b = view(get(s, id));
  return b === undefined ? undefined : utf8.decode(b);
}
function struct(s: ThriftStruct | undefined, id: number): ThriftStruct | undefined {
  const v = get(s, id);
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as ThriftStruct) : undefined;
}
function list(s: ThriftStruct | undefined, id: number): ThriftStruct[] {
  const v = get(s, id);
  return Array.isArray(v) ? (v as ThriftStruct[]) : [];
}

function timeUnit(u: ThriftStruct | undefined): 'MILLIS' | 'MICROS' | 'NANOS' {
  return get(u, 1) !== undefined ? 'MILLIS' : get(u, 2) !== undefined ? 'MICROS' : 'NANOS';
}

/** parquet.thrift `LogicalType` union members without parameters, by field id. */
const SIMPLE_LOGICAL: readonly (readonly [number, LogicalType])[] = [
  [1, { kind: 'STRING' }],
  [2, { kind: 'MAP' }],
  [3, { kind: 'LIST' }],
  [4, { kind: 'ENUM' }],
  [6, { kind: 'DATE' }],
  [12, { kind: 'JSON' }],
  [13, { kind: 'BSON' }],
  [14, { kind: 'UUID' }],
  [15, { kind: 'FLOAT16' }],
];

/** parquet.thrift `LogicalType` union. */
function logicalType(t: ThriftStruct | undefined): LogicalType | undefined {
  if (t === undefined) return undefined;
  for (const [id, lt] of SIMPLE_LOGICAL) if (get(t, id) !== undefined) return lt;
  const dec = struct(t, 5);
  if (dec !== undefined) return { kind: 'DECIMAL', scale: num(dec, 1) ?? 0, precision: num(dec, 2) ?? 0 };
  for (const [id, kind] of [
    [7, 'TIME'],
    [8, 'TIMESTAMP'],
  ] as const) {
    const tt = struct(t, id);
    if (tt !== undefined) return { kind, isAdjustedToUTC: get(tt, 1) === true, unit: timeUnit(struct(tt, 2)) };
  }
  const int = struct(t, 10);
  if (int !== undefined) return { kind: 'INTEGER', bitWidth: num(int, 1) ?? 0, isSigned: get(int, 2) === true };
  return { kind: 'OTHER' };
}

function statistics(s: ThriftStruct | undefined): RawStatistics | undefined {
  if (s === undefined) return undefined;
  // Views over the footer buffer, not copies: bounds are converted to values (or copied, for
  // binary) before the stats leave the reader.
  return { max: view(get(s, 1)), min: view(get(s, 2)), nullCount: big(s, 3), maxValue: view(get(s, 5)), minValue: view(get(s, 6)) };
}

function columnChunk(c: ThriftStruct): ColumnChunk {
  const md = struct(c, 3);
  if (md === undefined) throw new Error('column chunk without meta_data (encrypted or external column chunks are not supported)');
  return {
    physicalType: num(md, 1) ?? -1,
    numValues: big(md, 5) ?? 0,
    totalCompressedSize: big(md, 7) ?? 0,
    dataPageOffset: big(md, 9) ?? 0,
    dictionaryPageOffset: big(md, 11),
    statistics: statistics(struct(md, 12)),
  };
}

/** FileMetaData (parquet.thrift) from its decoded Thrift struct. */
export function fileMetaData(t: ThriftStruct): FileMetaData {
  const orders = get(t, 7);
  return {
    schema: list(t, 2).map((e) => ({
      type: num(e, 1),
      typeLength: num(e, 2),
      repetition: num(e, 3),
      name: str(e, 4) ?? '',
      numChildren: num(e, 5),
      convertedType: num(e, 6),
      scale: num(e, 7),
      precision: num(e, 8),
      fieldId: num(e, 9),
      logicalType: logicalType(struct(e, 10)),
    })),
    numRows: big(t, 3) ?? 0,
    rowGroups: list(t, 4).map((rg) => ({ columns: list(rg, 1).map(columnChunk), numRows: big(rg, 3) ?? 0 })),
    createdBy: str(t, 6),
    typeDefinedOrder: Array.isArray(orders) ? (orders as ThriftStruct[]).map((o) => get(o, 1) !== undefined) : undefined,
  };
}
