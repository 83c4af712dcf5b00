// Parquet footer → per-file stats for an Iceberg data_file, as Iceberg's ParquetUtil.footerMetrics:
// one ranged GET of the file tail (a second only when the footer is larger), FileMetaData decoded
// with hyparquet's Thrift decoder, columns mapped to field ids (Parquet field_id when the file has
// ids, else the name mapping), counts summed over row groups, bounds only where safe
// (parquet-bounds.ts), split offsets = row-group starts. The file size comes from the listing.
import { closeSync, openSync, readSync } from 'node:fs';
import { ErrorCode, MigrationError } from '../../core/errors';
import { serializeBound } from '../../core/iceberg/bounds';
import { compareValues } from '../../core/iceberg/manifest';
import type { MappedField } from '../../core/iceberg/name-mapping';
import { isPrimitive } from '../../core/iceberg/types';
import type { IcebergType, NestedField, PrimitiveType, PrimitiveValue } from '../../core/iceberg/types';
import type { FileStats, FooterContext, FooterReader } from '../../core/storage/file-stats';
import type { ObjectStore, SignedRead } from '../../core/storage/object-store';
import { fromFsError } from '../storage/errors';
import { loadThrift } from './hyparquet';
import { decodeFileMetaData } from './parquet-compact';
import { isWithheld, pickMinMax, statValue } from './parquet-bounds';
import type { Withheld } from './parquet-bounds';
import { ConvertedType, PhysicalType, Repetition, fileMetaData } from './parquet-thrift';
import type { FileMetaData, SchemaElement } from './parquet-thrift';

/** First tail read: most footers of small files fit; larger ones cost exactly one more GET. */
export const DEFAULT_TAIL_BYTES = 64 * 1024;
const MAGIC = 0x31524150; // "PAR1" little-endian
const FOOTER_TRAILER = 8; // 4-byte metadata length + magic

function corrupt(path: string, why: string, cause?: unknown): MigrationError {
  return new MigrationError(ErrorCode.FORMAT_CORRUPT_FOOTER, `Parquet file ${path}: ${why}`, { path, format: 'PARQUET' }, { cause });
}

/**
 * Checks the tail [tailStart, size) of a Parquet file; returns the FileMetaData bytes when the tail
 * holds them all, else where they start (a second read of [metaStart, tailStart) completes them).
 */
export function footerFromTail(path: string, size: number, tailStart: number, tail: Uint8Array): Uint8Array | { metaStart: number; metaLen: number } {
  if (tail.length !== size - tailStart) throw corrupt(path, `read ${tail.length} bytes of the tail, expected ${size - tailStart} (file shorter than listed?)`);
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  if (view.getUint32(tail.length - 4, true) !== MAGIC) throw corrupt(path, 'no PAR1 magic at the end (not Parquet, or truncated)');
  if (tailStart === 0 && view.getUint32(0, true) !== MAGIC) throw corrupt(path, 'no PAR1 magic at the start');
  const metaLen = view.getUint32(tail.length - FOOTER_TRAILER, true);
  if (metaLen === 0 || metaLen > size - 12) throw corrupt(path, `footer length ${metaLen} does not fit in ${size} bytes`);
  const metaStart = size - FOOTER_TRAILER - metaLen;
  if (metaStart >= tailStart) return tail.subarray(metaStart - tailStart, tail.length - FOOTER_TRAILER);
  return { metaStart, metaLen };
}

export function joinFooter(head: Uint8Array, tail: Uint8Array, metaLen: number): Uint8Array {
  const out = new Uint8Array(metaLen);
  out.set(head, 0);
  out.set(tail.subarray(0, tail.length - FOOTER_TRAILER), head.length);
  return out;
}

/** The serialized FileMetaData of `path` (exact `size`), in one GET, or two for a large footer. */
export async function readParquetFooterBytes(store: ObjectStore, path: string, size: number, tailBytes = DEFAULT_TAIL_BYTES): Promise<Uint8Array> {
  if (size < 12) throw corrupt(path, `${size} bytes is too small for a Parquet file`);
  const tailStart = Math.max(0, size - tailBytes);
  const tail = await store.readRange(path, tailStart, size);
  const got = footerFromTail(path, size, tailStart, tail);
  if (got instanceof Uint8Array) return got;
  return joinFooter(await store.readRange(path, got.metaStart, tailStart), tail, got.metaLen);
}

/**
 * The same from a local file with blocking syscalls (open, one or two preads, close): for a worker
 * thread, where a blocking read of a page-cached tail costs less than a round trip through libuv.
 * `path` names the file in errors; `file` is its local path. With `scratch`, the result may be a
 * view into it: valid until the next call with the same scratch.
 */
export function readParquetFooterBytesLocalSync(path: string, file: string, size: number, tailBytes = DEFAULT_TAIL_BYTES, scratch?: Uint8Array): Uint8Array {
  if (size < 12) throw corrupt(path, `${size} bytes is too small for a Parquet file`);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw fromFsError(e, 'read', path);
  }
  try {
    // `scratch` (a thread's reusable buffer): the tail lands there when it fits, no allocation per file.
    const pread = (start: number, end: number, reuse: boolean): Uint8Array => {
      const buf = reuse && scratch !== undefined && scratch.length >= end - start ? scratch.subarray(0, end - start) : Buffer.allocUnsafe(end - start);
      let n = 0;
      try {
        for (let r = -1; n < buf.length && r !== 0; n += r) r = readSync(fd, buf, n, buf.length - n, start + n);
      } catch (e) {
        throw fromFsError(e, 'read', path);
      }
      return new Uint8Array(buf.buffer, buf.byteOffset, n);
    };
    const tailStart = Math.max(0, size - tailBytes);
    const tail = pread(tailStart, size, true);
    const got = footerFromTail(path, size, tailStart, tail);
    if (got instanceof Uint8Array) return got;
    return joinFooter(pread(got.metaStart, tailStart, false), tail, got.metaLen);
  } finally {
    closeSync(fd);
  }
}

/** Decodes serialized FileMetaData (parquet-compact.ts: only the fields the stats need). */
export function decodeParquetFooterSync(path: string, meta: Uint8Array): FileMetaData {
  try {
    const md = decodeFileMetaData(meta);
    if (md.schema.length === 0) throw new Error('empty schema');
    return md;
  } catch (e) {
    throw corrupt(path, `cannot decode FileMetaData: ${(e as Error).message}`, e);
  }
}

/** Decodes serialized FileMetaData with the generic Thrift decoder (hyparquet): the cross-check. */
export async function decodeParquetFooterGeneric(path: string, meta: Uint8Array): Promise<FileMetaData> {
  const thrift = await loadThrift();
  try {
    const reader = { view: new DataView(meta.buffer, meta.byteOffset, meta.byteLength), offset: 0 };
    const md = fileMetaData(thrift.deserializeTCompactProtocol(reader));
    if (md.schema.length === 0) throw new Error('empty schema');
    return md;
  } catch (e) {
    throw corrupt(path, `cannot decode FileMetaData: ${(e as Error).message}`, e);
  }
}


interface SchemaNode {
  readonly element: SchemaElement;
  readonly children: SchemaNode[];
  /** Leaf column index (schema order = column chunk order), for primitives. */
  readonly leaf?: number;
}

function buildTree(schema: readonly SchemaElement[], path: string): SchemaNode {
  let pos = 0;
  let leaves = 0;
  const node = (): SchemaNode => {
    const element = schema[pos++];
    if (element === undefined) throw corrupt(path, 'schema tree is truncated');
    const n = element.numChildren ?? 0;
    if (element.type !== undefined && n === 0) return { element, children: [], leaf: leaves++ };
    const children: SchemaNode[] = [];
    for (let i = 0; i < n; i++) children.push(node());
    return { element, children };
  };
  return node();
}

const isList = (e: SchemaElement): boolean => e.convertedType === ConvertedType.LIST || e.logicalType?.kind === 'LIST';
const isMap = (e: SchemaElement): boolean => e.convertedType === ConvertedType.MAP || e.convertedType === ConvertedType.MAP_KEY_VALUE || e.logicalType?.kind === 'MAP';

function child(mf: MappedField | undefined, name: string): MappedField | undefined {
  return mf?.fields?.find((f) => f.names.includes(name));
}

/**
 * Field id per leaf column: the Parquet field_id when the file carries ids (Iceberg-written
 * files), else by name through the name mapping (ApplyNameMapping: list element → `element`,
 * map key/value by position, legacy 2-level lists included).
 */
export function leafFieldIds(root: SchemaNode, mapping: readonly MappedField[], leafCount: number): (number | undefined)[] {
  const ids: (number | undefined)[] = new Array<number | undefined>(leafCount).fill(undefined);
  const useIds = root.children.some(function has(n: SchemaNode): boolean {
    return n.element.fieldId !== undefined || n.children.some(has);
  });
  const visit = (n: SchemaNode, mf: MappedField | undefined): void => {
    if (n.leaf !== undefined) {
      ids[n.leaf] = useIds ? n.element.fieldId : n.element.repetition === Repetition.REPEATED && mf?.fields?.length === 1 ? mf.fields[0]?.fieldId : mf?.fieldId;
      return;
    }
    if (isList(n.element) && n.children.length === 1) {
      const rep = n.children[0] as SchemaNode;
      const twoLevel = rep.leaf !== undefined || rep.children.length !== 1 || rep.element.name === 'array' || rep.element.name === `${n.element.name}_tuple`;
      visit(twoLevel ? rep : (rep.children[0] as SchemaNode), child(mf, 'element') ?? mf?.fields?.[0]);
    } else if (isMap(n.element) && n.children.length === 1) {
      const kv = n.children[0] as SchemaNode;
      const [k, v] = kv.children;
      if (k !== undefined) visit(k, child(mf, 'key'));
      if (v !== undefined) visit(v, child(mf, 'value'));
    } else {
      for (const c of n.children) visit(c, child(mf, c.element.name));
    }
  };
  visit(root, { fieldId: -1, names: [], fields: mapping });
  return ids;
}

type PrimitiveIndex = Map<number, { type: PrimitiveType; structOnly: boolean }>;
/** One index per table schema object: every file of a table shares it. */
const primitiveIndexCache = new WeakMap<readonly NestedField[], PrimitiveIndex>();

/** Iceberg primitive fields by id, with whether they are reachable through structs only. */
function primitiveIndex(fields: readonly NestedField[]): PrimitiveIndex {
  const cached = primitiveIndexCache.get(fields);
  if (cached !== undefined) return cached;
  const out = new Map<number, { type: PrimitiveType; structOnly: boolean }>();
  const visit = (id: number, t: IcebergType, structOnly: boolean): void => {
    if (isPrimitive(t)) out.set(id, { type: t, structOnly });
    else if (t.kind === 'struct') for (const f of t.fields) visit(f.id, f.type, structOnly);
    else if (t.kind === 'list') visit(t.elementId, t.element, false);
    else {
      visit(t.keyId, t.key, false);
      visit(t.valueId, t.value, false);
    }
  };
  for (const f of fields) visit(f.id, f.type, true);
  primitiveIndexCache.set(fields, out);
  return out;
}

interface Acc {
  size: number;
  values: number;
  nulls: number | undefined;
  min?: PrimitiveValue;
  max?: PrimitiveValue;
  /** Strings: the raw UTF-8 stat bytes of min/max, compared directly (UTF-8 byte order = code point order). */
  minRaw?: Uint8Array;
  maxRaw?: Uint8Array;
  withheld?: Withheld | 'missing-stats';
}

/** FileStats from decoded metadata (pure; exported for tests). */
export function parquetStats(path: string, md: FileMetaData, ctx: FooterContext): FileStats {
  const root = buildTree(md.schema, path);
  const leaves: SchemaElement[] = [];
  const leafPaths: string[][] = [];
  (function collect(n: SchemaNode, at: string[]): void {
    if (n.leaf !== undefined) {
      leaves[n.leaf] = n.element;
      leafPaths[n.leaf] = at;
    }
    for (const c of n.children) collect(c, [...at, c.element.name]);
  })(root, []);
  const ids = leafFieldIds(root, ctx.nameMapping, leaves.length);
  const index = primitiveIndex(ctx.schema.fields);
  const acc = new Map<number, Acc>();
  let records = 0;
  const splits: number[] = [];
  for (const rg of md.rowGroups) {
    records += rg.numRows;
    const first = rg.columns[0];
    if (first !== undefined) {
      const dict = first.dictionaryPageOffset;
      splits.push(dict !== undefined && dict > 0 && dict < first.dataPageOffset ? dict : first.dataPageOffset);
    }
    rg.columns.forEach((col, i) => {
      const id = ids[i];
      const field = id === undefined ? undefined : index.get(id);
      const element = leaves[i];
      if (id === undefined || field === undefined || element === undefined) return;
      if (ctx.metricsFieldIds !== undefined && !ctx.metricsFieldIds.has(id)) return;
      const a = acc.get(id) ?? { size: 0, values: 0, nulls: 0 };
      acc.set(id, a);
      a.size += col.totalCompressedSize;
      a.values += col.numValues;
      if (col.physicalType === PhysicalType.INT96) a.withheld = 'int96';
      const st = col.statistics;
      if (st === undefined) {
        a.nulls = undefined;
        a.withheld ??= 'missing-stats';
        return;
      }
      a.nulls = a.nulls === undefined || st.nullCount === undefined ? undefined : a.nulls + st.nullCount;
      if (!field.structOnly || a.withheld !== undefined) return;
      const hasValues = st.nullCount === undefined || col.numValues > st.nullCount;
      const mm = pickMinMax(element, col.physicalType, st, md.typeDefinedOrder?.[i], md.createdBy);
      if (mm === undefined) {
        if (hasValues) a.withheld = 'missing-stats';
        return;
      }
      if (typeof mm === 'string') {
        a.withheld = mm;
        return;
      }
      const lo = statValue(field.type, element, col.physicalType, mm.min, 'lower');
      const hi = statValue(field.type, element, col.physicalType, mm.max, 'upper');
      if (isWithheld(lo) || isWithheld(hi)) {
        a.withheld = isWithheld(lo) ? lo.withheld : (hi as { withheld: Withheld }).withheld;
        return;
      }
      if (field.type.kind === 'string') {
        // Skips compareValues' re-encoding of both strings on every chunk.
        if (a.minRaw === undefined || Buffer.compare(mm.min, a.minRaw) < 0) [a.min, a.minRaw] = [lo, mm.min];
        if (a.maxRaw === undefined || Buffer.compare(mm.max, a.maxRaw) > 0) [a.max, a.maxRaw] = [hi, mm.max];
        return;
      }
      if (a.min === undefined || compareValues(field.type, lo, a.min) < 0) a.min = lo;
      if (a.max === undefined || compareValues(field.type, hi, a.max) > 0) a.max = hi;
    });
  }
  return { ...assemble(acc, index, ctx), recordCount: records, splitOffsets: splits.sort((a, b) => a - b), fileColumns: leafPaths };
}

function assemble(acc: Map<number, Acc>, index: Map<number, { type: PrimitiveType }>, ctx: FooterContext): Omit<FileStats, 'recordCount'> {
  const columnSizes = new Map<number, number>();
  const valueCounts = new Map<number, number>();
  const nullValueCounts = new Map<number, number>();
  const lowerBounds = new Map<number, Uint8Array>();
  const upperBounds = new Map<number, Uint8Array>();
  const boundsWithheld = new Map<number, string>();
  const trunc = ctx.truncateLength === undefined ? 16 : ctx.truncateLength;
  for (const [id, a] of [...acc.entries()].sort((x, y) => x[0] - y[0])) {
    const type = index.get(id)?.type;
    if (type === undefined) continue;
    columnSizes.set(id, a.size);
    valueCounts.set(id, a.values);
    if (a.nulls !== undefined) nullValueCounts.set(id, a.nulls);
    if (a.withheld !== undefined) {
      boundsWithheld.set(id, a.withheld);
      continue;
    }
    if (a.min !== undefined) {
      const lo = serializeBound(type, a.min, 'lower', trunc);
      if (lo !== null) lowerBounds.set(id, lo);
    }
    if (a.max !== undefined) {
      const hi = serializeBound(type, a.max, 'upper', trunc);
      if (hi !== null) upperBounds.set(id, hi);
    }
  }
  return { columnSizes, valueCounts, nullValueCounts, lowerBounds, upperBounds, boundsWithheld };
}

/** parquetStats with a non-coded failure reported as a corrupt footer naming the file. */
export function parquetStatsChecked(path: string, md: FileMetaData, context: FooterContext): FileStats {
  try {
    return parquetStats(path, md, context);
  } catch (e) {
    if (e instanceof MigrationError) throw e;
    throw corrupt(path, `inconsistent footer: ${(e as Error).message}`, e);
  }
}

/** What a remote read (statsRemote) came to. */
export type RemoteStats =
  | { readonly kind: 'stats'; readonly stats: FileStats }
  /** The tail did not hold the whole footer: read [metaStart, tailStart) and join (parquet.ts joinFooter). */
  | { readonly kind: 'large'; readonly tail: Uint8Array; readonly metaStart: number; readonly metaLen: number }
  /** The thread's GET failed: read through the store instead (it retries and maps the error). */
  | { readonly kind: 'fallback'; readonly why: string };

/** Where the CPU half of a footer read runs: the calling thread, or a pool (footer-threads.ts). */
export interface FooterStatsDecoder {
  stats(path: string, bytes: Uint8Array, context: FooterContext): Promise<FileStats>;
  /** Optional: read the footer of a local file itself too (readParquetFooterBytesLocalSync). */
  statsLocal?(path: string, file: string, size: number, tailBytes: number, context: FooterContext): Promise<FileStats>;
  /** Optional: send a signed GET of the tail itself (ObjectStore.signedRead), then decode. */
  statsRemote?(path: string, read: SignedRead, size: number, tailStart: number, context: FooterContext): Promise<RemoteStats>;
}

/** FooterReader for Parquet over any ObjectStore. */
export class ParquetFooterReader implements FooterReader {
  constructor(private readonly store: ObjectStore, private readonly tailBytes = DEFAULT_TAIL_BYTES, private readonly decoder: FooterStatsDecoder | null = null) {}

  async readStats(path: string, size: number, context: FooterContext): Promise<FileStats> {
    // A local file and a decoder that can read it itself (a footer thread): the I/O moves there too.
    const file = this.decoder?.statsLocal !== undefined ? this.store.localFile?.(path) : undefined;
    if (file !== undefined && this.decoder?.statsLocal !== undefined) return this.decoder.statsLocal(path, file, size, this.tailBytes, context);
    // A store that can sign the GET and a decoder that can send it: the HTTP work moves there too.
    if (this.decoder?.statsRemote !== undefined && this.store.signedRead !== undefined && size >= 12) {
      const tailStart = Math.max(0, size - this.tailBytes);
      const read = await this.store.signedRead(path, tailStart, size);
      if (read !== undefined) {
        const r = await this.decoder.statsRemote(path, read, size, tailStart, context);
        if (r.kind === 'stats') return r.stats;
        if (r.kind === 'large') return this.decoder.stats(path, joinFooter(await this.store.readRange(path, r.metaStart, tailStart), r.tail, r.metaLen), context);
        // 'fallback': the thread's GET failed; the store's own read below retries and maps the error.
      }
    }
    const meta = await readParquetFooterBytes(this.store, path, size, this.tailBytes);
    if (this.decoder !== null) return this.decoder.stats(path, meta, context);
    return parquetStatsChecked(path, decodeParquetFooterSync(path, meta), context);
  }
}
