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
import { AvroBytes, metricsMap } from '../avro/entry-encoder';
import { fromFsError } from '../storage/errors';
import { loadThrift } from './hyparquet';
import { decodeFileMetaData } from './parquet-compact';
import { compareMinimalTwos, fastKind, fitsPrecision, floatBound, isAscii, isUtf8, isWithheld, minimalTwos, pickMinMax, statValue, utf8Text } from './parquet-bounds';
import type { FastKind, Withheld } from './parquet-bounds';
import { ConvertedType, PhysicalType, Repetition, fileMetaData } from './parquet-thrift';
import type { ColumnChunk, FileMetaData, SchemaElement } from './parquet-thrift';

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

/** Per table and file layout (the decoder shares one schema array across equal schemas): what each leaf column feeds. */
interface LeafPlan {
  /** Index into the file's accumulators (one per distinct field id, ascending id). */
  readonly slot: number;
  readonly type: PrimitiveType;
  readonly structOnly: boolean;
  readonly element: SchemaElement;
  readonly kind: FastKind;
}

interface StatsPlan {
  readonly nameMapping: FooterContext['nameMapping'];
  readonly fields: readonly NestedField[];
  readonly metrics: ReadonlySet<number> | undefined;
  /** Per leaf column: undefined = no metrics (unmapped, not a primitive of the schema, or excluded). */
  readonly leaves: readonly (LeafPlan | undefined)[];
  readonly slots: readonly { readonly id: number; readonly type: PrimitiveType; readonly kind: FastKind }[];
  readonly leafPaths: readonly (readonly string[])[];
  /** Two leaves with one field id (a malformed file): every column takes the typed-value path. */
  readonly sharedIds: boolean;
}

const planCache = new WeakMap<readonly SchemaElement[], StatsPlan[]>();

function statsPlan(path: string, md: FileMetaData, ctx: FooterContext): StatsPlan {
  const cached = planCache.get(md.schema);
  const hit = cached?.find((p) => p.nameMapping === ctx.nameMapping && p.fields === ctx.schema.fields && p.metrics === ctx.metricsFieldIds);
  if (hit !== undefined) return hit;
  const root = buildTree(md.schema, path);
  const elements: SchemaElement[] = [];
  const leafPaths: string[][] = [];
  (function collect(n: SchemaNode, at: string[]): void {
    if (n.leaf !== undefined) {
      elements[n.leaf] = n.element;
      leafPaths[n.leaf] = at;
    }
    for (const c of n.children) collect(c, [...at, c.element.name]);
  })(root, []);
  const ids = leafFieldIds(root, ctx.nameMapping, elements.length);
  const index = primitiveIndex(ctx.schema.fields);
  const used = [...new Set(ids.filter((id, i): id is number => id !== undefined && index.has(id) && elements[i] !== undefined && (ctx.metricsFieldIds === undefined || ctx.metricsFieldIds.has(id))))].sort((a, b) => a - b);
  const slotOf = new Map(used.map((id, s) => [id, s]));
  let counted = 0;
  const leaves = ids.map((id, i): LeafPlan | undefined => {
    const slot = id === undefined ? undefined : slotOf.get(id);
    const field = id === undefined ? undefined : index.get(id);
    const element = elements[i];
    if (slot === undefined || field === undefined || element === undefined) return undefined;
    counted++;
    return { slot, type: field.type, structOnly: field.structOnly, element, kind: fastKind(field.type, element) };
  });
  const slots = used.map((id, s) => ({ id, type: (index.get(id) as { type: PrimitiveType }).type, kind: leaves.find((l) => l?.slot === s)?.kind ?? 'slow' }));
  const plan: StatsPlan = { nameMapping: ctx.nameMapping, fields: ctx.schema.fields, metrics: ctx.metricsFieldIds, leaves, slots, leafPaths, sharedIds: counted !== used.length };
  planCache.set(md.schema, [plan, ...(cached ?? []).slice(0, 3)]);
  return plan;
}

/** One field's metrics over the file's row groups. */
class Acc {
  seen = false;
  size = 0;
  values = 0;
  nulls: number | undefined = 0;
  withheld: Withheld | 'missing-stats' | undefined = undefined;
  /** Typed values (the 'slow' path). */
  min: PrimitiveValue | undefined = undefined;
  max: PrimitiveValue | undefined = undefined;
  /** Raw stat bytes: strings, INT64 values, minimal decimal bytes. */
  minRaw: Uint8Array | undefined = undefined;
  maxRaw: Uint8Array | undefined = undefined;
  /** Numbers: INT32, booleans (0/1), floats (signed zeros applied). */
  minN = 0;
  maxN = 0;
  has = false;
}

const MISMATCH = 'type-mismatch' as const;

function i32At(b: Uint8Array): number {
  return (b[0] as number) | ((b[1] as number) << 8) | ((b[2] as number) << 16) | ((b[3] as number) << 24);
}

/** Signed 64-bit little-endian order, without a bigint. */
function compareI64(a: Uint8Array, b: Uint8Array): number {
  const ha = (a[4] as number) | ((a[5] as number) << 8) | ((a[6] as number) << 16) | ((a[7] as number) << 24);
  const hb = (b[4] as number) | ((b[5] as number) << 8) | ((b[6] as number) << 16) | ((b[7] as number) << 24);
  if (ha !== hb) return ha < hb ? -1 : 1;
  const la = i32At(a) >>> 0;
  const lb = i32At(b) >>> 0;
  return la === lb ? 0 : la < lb ? -1 : 1;
}

const f32 = new DataView(new ArrayBuffer(8));
/** A FLOAT/DOUBLE stat as statValue reads it (without a DataView per stat), or why it gives no bound. */
function floatStat(b: Uint8Array, double: boolean, side: 'lower' | 'upper'): number | Withheld {
  const n = double ? 8 : 4;
  if (b.length < n) return MISMATCH;
  for (let i = 0; i < n; i++) f32.setUint8(i, b[i] as number);
  return floatBound(double ? f32.getFloat64(0, true) : f32.getFloat32(0, true), side);
}

/** statValue + compareValues for the fast kinds, straight from the stat bytes. */
function accumulateFast(a: Acc, kind: Exclude<FastKind, 'slow'>, lo: Uint8Array, hi: Uint8Array, type: PrimitiveType): Withheld | undefined {
  switch (kind) {
    case 'i32':
    case 'bool': {
      const n = kind === 'i32' ? 4 : 1;
      if (lo.length < n || hi.length < n) return MISMATCH;
      const x = kind === 'i32' ? i32At(lo) : lo[0] !== 0 ? 1 : 0;
      const y = kind === 'i32' ? i32At(hi) : hi[0] !== 0 ? 1 : 0;
      if (!a.has || x < a.minN) a.minN = x;
      if (!a.has || y > a.maxN) a.maxN = y;
      break;
    }
    case 'f32':
    case 'f64': {
      const x = floatStat(lo, kind === 'f64', 'lower');
      if (typeof x === 'string') return x;
      const y = floatStat(hi, kind === 'f64', 'upper');
      if (typeof y === 'string') return y;
      if (!a.has || compareValues(type, x, a.minN) < 0) a.minN = x;
      if (!a.has || compareValues(type, y, a.maxN) > 0) a.maxN = y;
      break;
    }
    case 'i64':
      if (lo.length < 8 || hi.length < 8) return MISMATCH;
      if (!a.has || compareI64(lo, a.minRaw as Uint8Array) < 0) a.minRaw = lo;
      if (!a.has || compareI64(hi, a.maxRaw as Uint8Array) > 0) a.maxRaw = hi;
      break;
    case 'str':
      if (!isUtf8(lo) || !isUtf8(hi)) return MISMATCH;
      if (!a.has || Buffer.compare(lo, a.minRaw as Uint8Array) < 0) a.minRaw = lo;
      if (!a.has || Buffer.compare(hi, a.maxRaw as Uint8Array) > 0) a.maxRaw = hi;
      break;
    case 'dec': {
      const precision = (type as { precision: number }).precision;
      const x = minimalTwos(lo);
      if (!fitsPrecision(x, precision)) return MISMATCH;
      const y = minimalTwos(hi);
      if (!fitsPrecision(y, precision)) return MISMATCH;
      if (!a.has || compareMinimalTwos(x, a.minRaw as Uint8Array) < 0) a.minRaw = x;
      if (!a.has || compareMinimalTwos(y, a.maxRaw as Uint8Array) > 0) a.maxRaw = y;
      break;
    }
  }
  a.has = true;
  return undefined;
}

/** The typed-value path (statValue, compareValues) for one chunk's min/max. */
function accumulateTyped(a: Acc, type: PrimitiveType, element: SchemaElement, physical: number, mm: { min: Uint8Array; max: Uint8Array }): Withheld | undefined {
  const lo = statValue(type, element, physical, mm.min, 'lower');
  const hi = statValue(type, element, physical, mm.max, 'upper');
  if (isWithheld(lo)) return lo.withheld;
  if (isWithheld(hi)) return hi.withheld;
  if (type.kind === 'string') {
    // Skips compareValues' re-encoding of both strings on every chunk.
    if (a.minRaw === undefined || Buffer.compare(mm.min, a.minRaw) < 0) [a.min, a.minRaw] = [lo, mm.min];
    if (a.maxRaw === undefined || Buffer.compare(mm.max, a.maxRaw) > 0) [a.max, a.maxRaw] = [hi, mm.max];
    return undefined;
  }
  if (a.min === undefined || compareValues(type, lo, a.min) < 0) a.min = lo;
  if (a.max === undefined || compareValues(type, hi, a.max) > 0) a.max = hi;
  return undefined;
}

/** A file's column chunks summed per field (accumulate), before they become maps or Avro bytes. */
interface Accumulated {
  readonly plan: StatsPlan;
  readonly accs: readonly Acc[];
  /** Every column takes the typed-value path (typedOnly, shared field ids, or a malformed chunk). */
  readonly typed: boolean;
  readonly records: number;
  /** Row-group start offsets, ascending. */
  readonly splits: number[];
}

function accumulate(path: string, md: FileMetaData, ctx: FooterContext, typedOnly: boolean): Accumulated {
  const plan = statsPlan(path, md, ctx);
  // Built by push, not slots.map(): map()'s result array differs in elements kind between the
  // interpreter and optimized code, which deoptimized this function and writeMetrics once each.
  const accs: Acc[] = [];
  for (let s = 0; s < plan.slots.length; s++) accs.push(new Acc());
  // A chunk whose physical type differs from its schema element's (a malformed file) is read only
  // as statValue reads it; so is every column when one field id has two leaves.
  let typed = typedOnly || plan.sharedIds;
  for (const rg of md.rowGroups) {
    for (let i = 0; i < rg.columns.length && !typed; i++) {
      const leaf = plan.leaves[i];
      if (leaf !== undefined && (rg.columns[i] as ColumnChunk).physicalType !== leaf.element.type) typed = true;
    }
  }
  let records = 0;
  const splits: number[] = [];
  for (const rg of md.rowGroups) {
    records += rg.numRows;
    const first = rg.columns[0];
    if (first !== undefined) {
      const dict = first.dictionaryPageOffset;
      splits.push(dict !== undefined && dict > 0 && dict < first.dataPageOffset ? dict : first.dataPageOffset);
    }
    for (let i = 0; i < rg.columns.length; i++) {
      const leaf = plan.leaves[i];
      if (leaf === undefined) continue;
      const col = rg.columns[i] as ColumnChunk;
      const a = accs[leaf.slot] as Acc;
      a.seen = true;
      a.size += col.totalCompressedSize;
      a.values += col.numValues;
      if (col.physicalType === PhysicalType.INT96) a.withheld = 'int96';
      const st = col.statistics;
      if (st === undefined) {
        a.nulls = undefined;
        a.withheld ??= 'missing-stats';
        continue;
      }
      a.nulls = a.nulls === undefined || st.nullCount === undefined ? undefined : a.nulls + st.nullCount;
      if (!leaf.structOnly || a.withheld !== undefined) continue;
      const hasValues = st.nullCount === undefined || col.numValues > st.nullCount;
      const mm = pickMinMax(leaf.element, col.physicalType, st, md.typeDefinedOrder?.[i], md.createdBy);
      if (mm === undefined) {
        if (hasValues) a.withheld = 'missing-stats';
        continue;
      }
      if (typeof mm === 'string') {
        a.withheld = mm;
        continue;
      }
      const w = typed || leaf.kind === 'slow' ? accumulateTyped(a, leaf.type, leaf.element, col.physicalType, mm) : accumulateFast(a, leaf.kind, mm.min, mm.max, leaf.type);
      if (w !== undefined) a.withheld = w;
    }
  }
  return { plan, accs, typed, records, splits: splits.sort((a, b) => a - b) };
}

/**
 * FileStats from decoded metadata (pure; exported for tests and the bench). `typedOnly` sends every
 * column through statValue/serializeBound (the reference the fast kinds are tested against).
 */
export function parquetStats(path: string, md: FileMetaData, ctx: FooterContext, typedOnly = false): FileStats {
  const { plan, accs, typed, records, splits } = accumulate(path, md, ctx, typedOnly);
  return { ...assemble(plan, accs, ctx, typed), recordCount: records, splitOffsets: splits, fileColumns: plan.leafPaths };
}

/**
 * parquetStats with the five metric maps written straight into `out` as the manifest entry's Avro
 * bytes (what encodeMetrics would write for parquetStats' maps, byte for byte), without the Maps
 * and a Uint8Array per bound in between: what a footer thread sends (footer-thread.ts). The
 * result's `encodedMetrics` is a view of `out`, valid until `out` is next reset.
 */
export function parquetStatsEncoded(path: string, md: FileMetaData, ctx: FooterContext, out: AvroBytes, typedOnly = false): FileStats & { readonly encodedMetrics: Uint8Array } {
  const { plan, accs, typed, records, splits } = accumulate(path, md, ctx, typedOnly);
  const start = out.length;
  const boundsWithheld = writeMetrics(plan, accs, ctx, typed, out);
  return { recordCount: records, splitOffsets: splits, fileColumns: plan.leafPaths, boundsWithheld, encodedMetrics: out.view().subarray(start) };
}

const scratch64 = new Float64Array(1);
const scratch32 = new Float32Array(1);
const scratchBytes64 = new Uint8Array(scratch64.buffer);
const scratchBytes32 = new Uint8Array(scratch32.buffer);
const littleEndian = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

const i32Bytes = new Uint8Array(4);
const boolByte = new Uint8Array(1);

/**
 * The Iceberg bound of a fast-kind accumulator side, or null when none (a truncated string can
 * have none): a view of scratch bytes or of the stat bytes, valid until the next call — copy it to
 * keep it (fastBound), or write it out (writeFastBound).
 */
function fastBoundView(kind: Exclude<FastKind, 'slow'>, type: PrimitiveType, a: Acc, side: 'lower' | 'upper', trunc: number | null): Uint8Array | null {
  const n = side === 'lower' ? a.minN : a.maxN;
  const raw = side === 'lower' ? a.minRaw : a.maxRaw;
  switch (kind) {
    case 'i32':
      i32Bytes[0] = n & 0xff;
      i32Bytes[1] = (n >>> 8) & 0xff;
      i32Bytes[2] = (n >>> 16) & 0xff;
      i32Bytes[3] = (n >>> 24) & 0xff;
      return i32Bytes;
    case 'bool':
      boolByte[0] = n;
      return boolByte;
    case 'f32':
    case 'f64': {
      // Typed arrays in platform order; Iceberg's bounds are little-endian.
      const b = kind === 'f32' ? scratchBytes32 : scratchBytes64;
      if (kind === 'f32') scratch32[0] = n;
      else scratch64[0] = n;
      return littleEndian ? b : b.slice().reverse();
    }
    case 'i64': {
      const b = raw as Uint8Array;
      return b.length === 8 ? b : b.subarray(0, 8);
    }
    case 'dec':
      return raw as Uint8Array;
    case 'str': {
      const b = raw as Uint8Array;
      // ASCII within the truncation length is its own bound; anything else is truncated as text.
      if ((trunc === null || b.length <= trunc) && isAscii(b)) return b;
      return serializeBound(type, utf8Text(b), side, trunc);
    }
  }
}

/** fastBoundView, copied. */
function fastBound(kind: Exclude<FastKind, 'slow'>, type: PrimitiveType, a: Acc, side: 'lower' | 'upper', trunc: number | null): Uint8Array | null {
  const v = fastBoundView(kind, type, a, side, trunc);
  return v === null ? null : Uint8Array.prototype.slice.call(v);
}

/** Bound entries of one side, gathered here until their count (the map's header) is known. */
const lowerEntries = new AvroBytes();
const upperEntries = new AvroBytes();

/** One side's fast-kind bound as an Avro map entry (key, bytes) in `out`; false when there is none. */
function writeFastBound(out: AvroBytes, id: number, kind: Exclude<FastKind, 'slow'>, type: PrimitiveType, a: Acc, side: 'lower' | 'upper', trunc: number | null): boolean {
  const v = fastBoundView(kind, type, a, side, trunc);
  if (v === null) return false;
  out.long(id);
  out.bytes(v);
  return true;
}

/** A typed-path bound as an Avro map entry; false when there is none. */
function writeTypedBound(out: AvroBytes, id: number, type: PrimitiveType, v: PrimitiveValue | undefined, side: 'lower' | 'upper', trunc: number | null): boolean {
  if (v === undefined) return false;
  const b = serializeBound(type, v, side, trunc);
  if (b === null) return false;
  out.long(id);
  out.bytes(b);
  return true;
}

/**
 * assemble + encodeMetrics in one pass: the maps' entries in the same (ascending id) order, the
 * same skips, written as Avro (entry-encoder.ts metricsMap). Returns the withheld bounds.
 */
function writeMetrics(plan: StatsPlan, accs: readonly Acc[], ctx: FooterContext, typed: boolean, out: AvroBytes): Map<number, string> {
  const boundsWithheld = new Map<number, string>();
  const trunc = ctx.truncateLength === undefined ? 16 : ctx.truncateLength;
  let seen = 0;
  let nulls = 0;
  for (const a of accs) {
    if (!a.seen) continue;
    seen++;
    if (a.nulls !== undefined) nulls++;
  }
  for (const which of [0, 1, 2] as const) {
    metricsMap.open(out, which === 2 ? nulls : seen);
    for (let s = 0; s < accs.length; s++) {
      const a = accs[s] as Acc;
      if (!a.seen) continue;
      const v = which === 0 ? a.size : which === 1 ? a.values : a.nulls;
      if (v === undefined) continue;
      out.long((plan.slots[s] as StatsPlan['slots'][number]).id);
      out.long(v);
    }
    metricsMap.close(out);
  }
  metricsMap.absent(out); // nan_value_counts: Parquet footers carry none
  lowerEntries.reset();
  upperEntries.reset();
  let lows = 0;
  let highs = 0;
  for (let s = 0; s < accs.length; s++) {
    const a = accs[s] as Acc;
    if (!a.seen) continue;
    const { id, type, kind } = plan.slots[s] as StatsPlan['slots'][number];
    if (a.withheld !== undefined) {
      boundsWithheld.set(id, a.withheld);
      continue;
    }
    if (!typed && kind !== 'slow') {
      if (!a.has) continue;
      if (writeFastBound(lowerEntries, id, kind, type, a, 'lower', trunc)) lows++;
      if (writeFastBound(upperEntries, id, kind, type, a, 'upper', trunc)) highs++;
      continue;
    }
    if (writeTypedBound(lowerEntries, id, type, a.min, 'lower', trunc)) lows++;
    if (writeTypedBound(upperEntries, id, type, a.max, 'upper', trunc)) highs++;
  }
  metricsMap.open(out, lows);
  out.raw(lowerEntries.view());
  metricsMap.close(out);
  metricsMap.open(out, highs);
  out.raw(upperEntries.view());
  metricsMap.close(out);
  return boundsWithheld;
}

function assemble(plan: StatsPlan, accs: readonly Acc[], ctx: FooterContext, typed: boolean): Omit<FileStats, 'recordCount'> {
  const columnSizes = new Map<number, number>();
  const valueCounts = new Map<number, number>();
  const nullValueCounts = new Map<number, number>();
  const lowerBounds = new Map<number, Uint8Array>();
  const upperBounds = new Map<number, Uint8Array>();
  const boundsWithheld = new Map<number, string>();
  const trunc = ctx.truncateLength === undefined ? 16 : ctx.truncateLength;
  for (let s = 0; s < accs.length; s++) {
    const a = accs[s] as Acc;
    if (!a.seen) continue;
    const { id, type, kind } = plan.slots[s] as StatsPlan['slots'][number];
    columnSizes.set(id, a.size);
    valueCounts.set(id, a.values);
    if (a.nulls !== undefined) nullValueCounts.set(id, a.nulls);
    if (a.withheld !== undefined) {
      boundsWithheld.set(id, a.withheld);
      continue;
    }
    if (!typed && kind !== 'slow') {
      if (!a.has) continue;
      const lo = fastBound(kind, type, a, 'lower', trunc);
      const hi = fastBound(kind, type, a, 'upper', trunc);
      if (lo !== null) lowerBounds.set(id, lo);
      if (hi !== null) upperBounds.set(id, hi);
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

/** `stats()` with a non-coded failure reported as a corrupt footer naming the file. */
function checked<T>(path: string, stats: () => T): T {
  try {
    return stats();
  } catch (e) {
    if (e instanceof MigrationError) throw e;
    throw corrupt(path, `inconsistent footer: ${(e as Error).message}`, e);
  }
}

/** parquetStats, a non-coded failure reported as a corrupt footer naming the file. */
export function parquetStatsChecked(path: string, md: FileMetaData, context: FooterContext): FileStats {
  return checked(path, () => parquetStats(path, md, context));
}

/** parquetStatsEncoded, a non-coded failure reported as a corrupt footer naming the file. */
export function parquetStatsEncodedChecked(path: string, md: FileMetaData, context: FooterContext, out: AvroBytes): FileStats & { readonly encodedMetrics: Uint8Array } {
  return checked(path, () => parquetStatsEncoded(path, md, context, out));
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
