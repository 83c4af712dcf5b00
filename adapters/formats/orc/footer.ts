// ORC tail → per-file stats (as Iceberg's OrcMetrics): PostScript (its length is the last byte),
// Footer (protobuf, orc_proto.proto) decompressed per the PostScript's codec, record count,
// per-column counts/sizes/bounds where straightforward, stripe offsets as split offsets.
// One ranged GET of the tail, a second only when the footer is larger. Codecs: NONE, ZLIB (raw
// deflate), SNAPPY (snappy.ts), ZSTD where the runtime's node:zlib has it (Node ≥ 22.15 / 23.8;
// Node 20 has none → FORMAT_UNSUPPORTED); LZO/LZ4 → FORMAT_UNSUPPORTED.
// Bounds: ints, doubles, dates, decimals, strings (not written by pre-HIVE-8732 writers, whose
// string stats used a different order); timestamps, booleans and binary get none.
import * as zlib from 'node:zlib';
import { ErrorCode, MigrationError } from '../../../core/errors';
import { serializeBound } from '../../../core/iceberg/bounds';
import type { MappedField } from '../../../core/iceberg/name-mapping';
import { isPrimitive } from '../../../core/iceberg/types';
import type { IcebergType, NestedField, PrimitiveType, PrimitiveValue } from '../../../core/iceberg/types';
import type { FileStats, FooterContext, FooterReader } from '../../../core/storage/file-stats';
import type { ObjectStore } from '../../../core/storage/object-store';
import { bool, decodeMessage, double, message, messages, sint, string, strings, uint, uints } from './protobuf';
import type { Message } from './protobuf';
import { snappyUncompress } from './snappy';

export const ORC_TAIL_BYTES = 64 * 1024;
/** orc_proto.proto CompressionKind. */
const Compression = { NONE: 0, ZLIB: 1, SNAPPY: 2, LZO: 3, LZ4: 4, ZSTD: 5 } as const;
const CODEC_NAMES = ['NONE', 'ZLIB', 'SNAPPY', 'LZO', 'LZ4', 'ZSTD'];
/** orc_proto.proto Type.Kind. */
const Kind = {
  BOOLEAN: 0,
  BYTE: 1,
  SHORT: 2,
  INT: 3,
  LONG: 4,
  FLOAT: 5,
  DOUBLE: 6,
  STRING: 7,
  BINARY: 8,
  TIMESTAMP: 9,
  LIST: 10,
  MAP: 11,
  STRUCT: 12,
  UNION: 13,
  DECIMAL: 14,
  DATE: 15,
  VARCHAR: 16,
  CHAR: 17,
} as const;
/** PostScript.writerVersion from which string statistics are trustworthy (HIVE-8732). */
const WRITER_HIVE_8732 = 1;

function corrupt(path: string, why: string, cause?: unknown): MigrationError {
  return new MigrationError(ErrorCode.FORMAT_CORRUPT_FOOTER, `ORC file ${path}: ${why}`, { path, format: 'ORC' }, { cause });
}

type Decompressor = (chunk: Uint8Array) => Uint8Array;
/** node:zlib's zstd (Node ≥ 22.15 / 23.8), detected at runtime: the typings of Node 20 lack it. */
const zstdDecompressSync = (zlib as unknown as { zstdDecompressSync?: (b: Uint8Array) => Buffer }).zstdDecompressSync;
/** Whether this runtime can read ZSTD-compressed ORC tails. */
export const ORC_ZSTD_AVAILABLE = typeof zstdDecompressSync === 'function';

function decompressor(codec: number): Decompressor | undefined {
  if (codec === Compression.ZLIB) return (c) => new Uint8Array(zlib.inflateRawSync(c));
  if (codec === Compression.SNAPPY) return snappyUncompress;
  if (codec === Compression.ZSTD && zstdDecompressSync !== undefined) return (c) => new Uint8Array(zstdDecompressSync(c));
  return undefined;
}

/** ORC compression stream: chunks with a 3-byte header (length << 1 | isOriginal). */
function decompress(path: string, codec: number, buf: Uint8Array): Uint8Array {
  if (codec === Compression.NONE) return buf;
  const inflate = decompressor(codec);
  if (inflate === undefined) {
    const supported = ORC_ZSTD_AVAILABLE ? 'NONE, ZLIB, SNAPPY, ZSTD' : 'NONE, ZLIB, SNAPPY; ZSTD needs Node ≥ 22.15';
    throw new MigrationError(
      ErrorCode.FORMAT_UNSUPPORTED,
      `ORC file ${path}: ${CODEC_NAMES[codec] ?? `codec ${codec}`} compression is not supported here (${supported})`,
      { path, format: 'ORC', codec: CODEC_NAMES[codec] ?? codec },
    );
  }
  const parts: Uint8Array[] = [];
  let pos = 0;
  while (pos < buf.length) {
    if (pos + 3 > buf.length) throw corrupt(path, 'truncated compression chunk header');
    const header = (buf[pos] ?? 0) | ((buf[pos + 1] ?? 0) << 8) | ((buf[pos + 2] ?? 0) << 16);
    const len = header >>> 1;
    const chunk = buf.subarray(pos + 3, pos + 3 + len);
    if (chunk.length !== len) throw corrupt(path, 'compression chunk overruns the footer');
    pos += 3 + len;
    try {
      parts.push((header & 1) === 1 ? chunk : inflate(chunk));
    } catch (e) {
      throw corrupt(path, `cannot decompress the footer: ${(e as Error).message}`, e);
    }
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

interface OrcTail {
  readonly footer: Message;
  readonly writerVersion: number;
}

/** PostScript + decompressed Footer of `path` (exact `size`). */
export async function readOrcTail(store: ObjectStore, path: string, size: number, tailBytes = ORC_TAIL_BYTES): Promise<OrcTail> {
  if (size < 4) throw corrupt(path, `${size} bytes is too small for an ORC file`);
  const tailStart = Math.max(0, size - tailBytes);
  const tail = await store.readRange(path, tailStart, size);
  if (tail.length !== size - tailStart) throw corrupt(path, `read ${tail.length} bytes of the tail, expected ${size - tailStart}`);
  const psLen = tail[tail.length - 1] ?? 0;
  if (psLen === 0 || psLen + 1 > tail.length) throw corrupt(path, `postscript length ${psLen} does not fit`);
  let ps: Message;
  try {
    ps = decodeMessage(tail.subarray(tail.length - 1 - psLen, tail.length - 1));
  } catch (e) {
    throw corrupt(path, `cannot decode the PostScript: ${(e as Error).message}`, e);
  }
  if (string(ps, 8000) !== 'ORC') throw corrupt(path, 'no ORC magic in the PostScript (not ORC, or truncated)');
  const footerLen = Number(uint(ps, 1) ?? 0n);
  const codec = Number(uint(ps, 2) ?? 0n);
  const footerEnd = size - 1 - psLen;
  const footerStart = footerEnd - footerLen;
  if (footerLen === 0 || footerStart < 3) throw corrupt(path, `footer length ${footerLen} does not fit in ${size} bytes`);
  let raw: Uint8Array;
  if (footerStart >= tailStart) raw = tail.subarray(footerStart - tailStart, footerEnd - tailStart);
  else {
    const head = await store.readRange(path, footerStart, tailStart);
    raw = new Uint8Array(footerLen);
    raw.set(head, 0);
    raw.set(tail.subarray(0, footerEnd - tailStart), head.length);
  }
  const bytes = decompress(path, codec, raw);
  try {
    return { footer: decodeMessage(bytes), writerVersion: Number(uint(ps, 6) ?? 0n) };
  } catch (e) {
    throw corrupt(path, `cannot decode the Footer: ${(e as Error).message}`, e);
  }
}

interface OrcColumn {
  readonly kind: number;
  readonly fieldId: number | undefined;
  readonly scale: number | undefined;
  readonly structOnly: boolean;
}

/** Field id per ORC column id (pre-order, 0 = root): `iceberg.id` attributes, else the name mapping. */
function orcColumns(types: Message[], mapping: readonly MappedField[]): OrcColumn[] {
  const out: OrcColumn[] = [];
  const useIds = types.some((t) => messages(t, 7).some((a) => string(a, 1) === 'iceberg.id'));
  const visit = (id: number, mf: MappedField | undefined, structOnly: boolean): void => {
    const t = types[id];
    if (t === undefined) throw new Error(`type ${id} missing`);
    const attr = messages(t, 7).find((a) => string(a, 1) === 'iceberg.id');
    const kind = Number(uint(t, 1) ?? 0n);
    out[id] = {
      kind,
      fieldId: useIds ? (attr === undefined ? undefined : Number(string(attr, 2))) : mf?.fieldId,
      scale: uint(t, 6) === undefined ? undefined : Number(uint(t, 6)),
      structOnly,
    };
    const subs = uints(t, 2);
    const names = strings(t, 3);
    const find = (n: string): MappedField | undefined => mf?.fields?.find((f) => f.names.includes(n));
    subs.forEach((sub, i) => {
      if (kind === Kind.STRUCT) visit(sub, find(names[i] ?? ''), structOnly);
      else if (kind === Kind.LIST) visit(sub, find('element'), false);
      else if (kind === Kind.MAP) visit(sub, find(i === 0 ? 'key' : 'value'), false);
      else visit(sub, undefined, false);
    });
  };
  visit(0, { fieldId: -1, names: [], fields: mapping }, true);
  return out;
}

/**
 * The `iceberg.id` attribute of each top-level column (parallel to its names), or undefined when the
 * file carries none: the ids readers resolve this file by (core/iceberg/embedded-ids.ts).
 */
export function orcTopLevelIds(types: Message[]): (number | null)[][] | undefined {
  const root = types[0];
  if (root === undefined || !types.some((t) => messages(t, 7).some((a) => string(a, 1) === 'iceberg.id'))) return undefined;
  return uints(root, 2).map((sub) => {
    const attr = messages(types[Number(sub)] ?? new Map(), 7).find((a) => string(a, 1) === 'iceberg.id');
    const id = attr === undefined ? NaN : Number(string(attr, 2));
    return [Number.isInteger(id) ? id : null];
  });
}

/** "12.345" → unscaled bigint at `scale`, or undefined when it does not fit exactly. */
export function parseDecimal(s: string, scale: number): bigint | undefined {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(s.trim());
  if (m === null || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const frac = (m[3] ?? '').replace(/0+$/, '');
  if (frac.length > scale) return undefined;
  const v = BigInt((m[2] ?? '') + frac.padEnd(scale, '0') || '0');
  return m[1] === '-' ? -v : v;
}

function bounds(stat: Message, col: OrcColumn, type: PrimitiveType, writerVersion: number): [PrimitiveValue, PrimitiveValue] | undefined {
  const ints = message(stat, 2);
  const dbl = message(stat, 3);
  const str = message(stat, 4);
  const dec = message(stat, 6);
  const date = message(stat, 7);
  const pair = <T>(a: T | undefined, b: T | undefined): [T, T] | undefined => (a === undefined || b === undefined ? undefined : [a, b]);
  switch (type.kind) {
    case 'int':
    case 'long': {
      if (ints === undefined || ![Kind.BYTE, Kind.SHORT, Kind.INT, Kind.LONG].includes(col.kind as 1)) return undefined;
      const p = pair(sint(ints, 1), sint(ints, 2));
      return p === undefined ? undefined : type.kind === 'int' ? [Number(p[0]), Number(p[1])] : p;
    }
    case 'float':
    case 'double': {
      const p = dbl === undefined ? undefined : pair(double(dbl, 1), double(dbl, 2));
      if (p === undefined || Number.isNaN(p[0]) || Number.isNaN(p[1])) return undefined;
      return [p[0] === 0 ? -0 : p[0], p[1] === 0 ? 0 : p[1]];
    }
    case 'date':
      return date === undefined || col.kind !== Kind.DATE
        ? undefined
        : (pair(sint(date, 1), sint(date, 2))?.map(Number) as [number, number] | undefined);
    case 'string':
      if (str === undefined || writerVersion < WRITER_HIVE_8732 || ![Kind.STRING, Kind.VARCHAR, Kind.CHAR].includes(col.kind as 7))
        return undefined;
      return pair(string(str, 1), string(str, 2));
    case 'decimal': {
      if (dec === undefined || col.kind !== Kind.DECIMAL || col.scale !== type.scale) return undefined;
      const lo = string(dec, 1);
      const hi = string(dec, 2);
      return pair(lo === undefined ? undefined : parseDecimal(lo, type.scale), hi === undefined ? undefined : parseDecimal(hi, type.scale));
    }
    default:
      return undefined;
  }
}

function primitiveIndex(fields: readonly NestedField[]): Map<number, PrimitiveType> {
  const out = new Map<number, PrimitiveType>();
  const visit = (id: number, t: IcebergType): void => {
    if (isPrimitive(t)) out.set(id, t);
    else if (t.kind === 'struct') for (const f of t.fields) visit(f.id, f.type);
    else if (t.kind === 'list') visit(t.elementId, t.element);
    else {
      visit(t.keyId, t.key);
      visit(t.valueId, t.value);
    }
  };
  for (const f of fields) visit(f.id, f.type);
  return out;
}

/** FileStats from a decoded tail (pure; exported for tests). */
export function orcStats(tail: OrcTail, ctx: FooterContext): FileStats {
  const { footer, writerVersion } = tail;
  const rows = Number(uint(footer, 6) ?? 0n);
  const cols = orcColumns(messages(footer, 4), ctx.nameMapping);
  const stats = messages(footer, 7);
  const index = primitiveIndex(ctx.schema.fields);
  const columnSizes = new Map<number, number>();
  const valueCounts = new Map<number, number>();
  const nullValueCounts = new Map<number, number>();
  const lowerBounds = new Map<number, Uint8Array>();
  const upperBounds = new Map<number, Uint8Array>();
  const trunc = ctx.truncateLength === undefined ? 16 : ctx.truncateLength;
  cols.forEach((col, i) => {
    const id = col.fieldId;
    const type = id === undefined ? undefined : index.get(id);
    const st = stats[i];
    if (id === undefined || type === undefined || st === undefined) return;
    if (ctx.metricsFieldIds !== undefined && !ctx.metricsFieldIds.has(id)) return;
    const values = Number(uint(st, 1) ?? 0n);
    const onDisk = uint(st, 11);
    if (onDisk !== undefined) columnSizes.set(id, Number(onDisk));
    if (!col.structOnly) {
      valueCounts.set(id, values);
      return;
    }
    const nulls = bool(st, 10) === true ? rows - values : 0;
    nullValueCounts.set(id, nulls);
    valueCounts.set(id, values + nulls);
    const b = values > 0 ? bounds(st, col, type, writerVersion) : undefined;
    if (b === undefined) return;
    const lo = serializeBound(type, b[0], 'lower', trunc);
    const hi = serializeBound(type, b[1], 'upper', trunc);
    if (lo !== null) lowerBounds.set(id, lo);
    if (hi !== null) upperBounds.set(id, hi);
  });
  const splitOffsets = messages(footer, 3)
    .map((s) => Number(uint(s, 1) ?? 0n))
    .sort((a, b) => a - b);
  const types = messages(footer, 4);
  const fileColumns = strings(types[0] ?? new Map(), 3).map((n) => [n]);
  const out = { recordCount: rows, columnSizes, valueCounts, nullValueCounts, lowerBounds, upperBounds, splitOffsets, fileColumns };
  const fileFieldIds = orcTopLevelIds(types);
  return fileFieldIds === undefined ? out : { ...out, fileFieldIds };
}

export class OrcFooterReader implements FooterReader {
  constructor(
    private readonly store: ObjectStore,
    private readonly tailBytes = ORC_TAIL_BYTES,
  ) {}

  async readStats(path: string, size: number, context: FooterContext): Promise<FileStats> {
    const tail = await readOrcTail(this.store, path, size, this.tailBytes);
    try {
      return orcStats(tail, context);
    } catch (e) {
      if (e instanceof MigrationError) throw e;
      throw corrupt(path, `inconsistent footer: ${(e as Error).message}`, e);
    }
  }
}
