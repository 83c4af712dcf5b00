// FileStats ↔ one byte buffer, for the footer threads' replies (adapters/storage/object-read/:
// footer-worker.ts → footer-pool.ts). Pure; no I/O.
// Structured clone of a FileStats copies five Maps and allocates an ArrayBuffer per bound (~40 per
// 20-column file); one transferred buffer with the bounds as views into it costs the receiving
// (main) thread a fraction of that in allocation and GC. Layout, little-endian:
//   f64 recordCount
//   4 × numeric map (columnSizes, valueCounts, nullValueCounts, splitOffsets as a map of index → offset):
//     i32 n (-1 = absent), then n × (u32 key, f64 value)
//   2 × bytes map (lowerBounds, upperBounds): i32 n (-1 = absent), then n × (u32 key, u32 len, bytes)
//   encodedMetrics: i32 len (-1 = absent), then the bytes
//   boundsWithheld: i32 n (-1 = absent), then n × (u32 key, u8 len, ASCII reason)
//   u32 len, UTF-8 JSON of the fileColumns, or len 0 when absent (most replies: footer-worker.ts
//   sends a file's column paths only when they differ from the previous file's); a file with
//   embedded field ids sends {"c": paths, "i": ids} instead
import type { FileStats } from '../../core/storage/file-stats';

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

type NumMap = ReadonlyMap<number, number> | undefined;
type BytesMap = ReadonlyMap<number, Uint8Array> | undefined;

const NONE = new Uint8Array(0);

/** The column paths as sent: an array, or with the file's embedded field ids beside them. */
type WireColumns = string[][] | { c: string[][] | undefined; i: (number | null)[][] };

function reasonBytes(why: string): number {
  // Reasons are short ASCII codes (parquet/bounds.ts Withheld); anything else is refused, not mangled.
  if (why.length > 255 || !/^[\x20-\x7e]*$/.test(why)) throw new Error(`bounds-withheld reason ${JSON.stringify(why)} is not short ASCII`);
  return why.length;
}

// forEach rather than for-of over entries: no [key, value] array per entry (this runs per file).
export function encodeFileStats(s: FileStats): Uint8Array {
  const nums: NumMap[] = [s.columnSizes, s.valueCounts, s.nullValueCounts];
  const bytes: BytesMap[] = [s.lowerBounds, s.upperBounds];
  const columns = s.fileFieldIds === undefined ? s.fileColumns : { c: s.fileColumns, i: s.fileFieldIds };
  const extra = columns === undefined ? NONE : utf8.encode(JSON.stringify(columns));
  let size = 8 + 4 * 8 + 4 + extra.length + (s.splitOffsets?.length ?? 0) * 12 + (s.encodedMetrics?.length ?? 0);
  s.boundsWithheld?.forEach((why) => (size += 5 + reasonBytes(why)));
  for (const m of nums) size += (m?.size ?? 0) * 12;
  for (const m of bytes) m?.forEach((b) => (size += 8 + b.length));
  const out = new Uint8Array(size);
  const v = new DataView(out.buffer);
  let at = 0;
  v.setFloat64(at, s.recordCount, true);
  at += 8;
  const num = (n: number, k: number): void => {
    v.setUint32(at, k, true);
    v.setFloat64(at + 4, n, true);
    at += 12;
  };
  for (const m of nums) {
    v.setInt32(at, m === undefined ? -1 : m.size, true);
    at += 4;
    m?.forEach(num);
  }
  // splitOffsets as a map of index → offset.
  v.setInt32(at, s.splitOffsets === undefined ? -1 : s.splitOffsets.length, true);
  at += 4;
  s.splitOffsets?.forEach(num);
  for (const m of bytes) {
    v.setInt32(at, m === undefined ? -1 : m.size, true);
    at += 4;
    m?.forEach((b, k) => {
      v.setUint32(at, k, true);
      v.setUint32(at + 4, b.length, true);
      out.set(b, at + 8);
      at += 8 + b.length;
    });
  }
  const em = s.encodedMetrics;
  v.setInt32(at, em === undefined ? -1 : em.length, true);
  at += 4;
  if (em !== undefined) {
    out.set(em, at);
    at += em.length;
  }
  const w = s.boundsWithheld;
  v.setInt32(at, w === undefined ? -1 : w.size, true);
  at += 4;
  w?.forEach((why, k) => {
    v.setUint32(at, k, true);
    out[at + 4] = why.length;
    for (let i = 0; i < why.length; i++) out[at + 5 + i] = why.charCodeAt(i);
    at += 5 + why.length;
  });
  v.setUint32(at, extra.length, true);
  out.set(extra, at + 4);
  return out;
}

/** The inverse; bounds are views into `buf` (not copies). */
export function decodeFileStats(buf: Uint8Array): FileStats {
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let at = 0;
  const recordCount = v.getFloat64(at, true);
  at += 8;
  const nums: (Map<number, number> | undefined)[] = [];
  for (let i = 0; i < 3; i++) {
    const n = v.getInt32(at, true);
    at += 4;
    if (n < 0) {
      nums.push(undefined);
      continue;
    }
    const m = new Map<number, number>();
    for (let j = 0; j < n; j++, at += 12) m.set(v.getUint32(at, true), v.getFloat64(at + 4, true));
    nums.push(m);
  }
  // splitOffsets, written as a map of index → offset: the offsets in index order.
  const ns = v.getInt32(at, true);
  at += 4;
  let split: number[] | undefined;
  if (ns >= 0) {
    split = new Array<number>(ns);
    for (let j = 0; j < ns; j++, at += 12) split[v.getUint32(at, true)] = v.getFloat64(at + 4, true);
  }
  const bytes: (Map<number, Uint8Array> | undefined)[] = [];
  for (let i = 0; i < 2; i++) {
    const n = v.getInt32(at, true);
    at += 4;
    if (n < 0) {
      bytes.push(undefined);
      continue;
    }
    const m = new Map<number, Uint8Array>();
    for (let j = 0; j < n; j++) {
      const len = v.getUint32(at + 4, true);
      m.set(v.getUint32(at, true), buf.subarray(at + 8, at + 8 + len));
      at += 8 + len;
    }
    bytes.push(m);
  }
  const nm = v.getInt32(at, true);
  at += 4;
  const encodedMetrics = nm < 0 ? undefined : buf.subarray(at, at + nm);
  at += Math.max(0, nm);
  let boundsWithheld: Map<number, string> | undefined;
  const nw = v.getInt32(at, true);
  at += 4;
  if (nw >= 0) {
    boundsWithheld = new Map<number, string>();
    for (let j = 0; j < nw; j++) {
      const len = buf[at + 4] as number;
      boundsWithheld.set(v.getUint32(at, true), String.fromCharCode.apply(null, buf.subarray(at + 5, at + 5 + len) as unknown as number[]));
      at += 5 + len;
    }
  }
  const len = v.getUint32(at, true);
  const parsed = len === 0 ? undefined : (JSON.parse(fromUtf8.decode(buf.subarray(at + 4, at + 4 + len))) as WireColumns);
  const fileColumns = parsed === undefined || Array.isArray(parsed) ? parsed : parsed.c;
  const fileFieldIds = parsed === undefined || Array.isArray(parsed) ? undefined : parsed.i;
  const [columnSizes, valueCounts, nullValueCounts] = nums;
  const [lowerBounds, upperBounds] = bytes;
  // Absent fields stay absent (not present-and-undefined); set one by one, no spread per field.
  const out: { -readonly [K in keyof FileStats]: FileStats[K] } = { recordCount };
  if (columnSizes !== undefined) out.columnSizes = columnSizes;
  if (valueCounts !== undefined) out.valueCounts = valueCounts;
  if (nullValueCounts !== undefined) out.nullValueCounts = nullValueCounts;
  if (lowerBounds !== undefined) out.lowerBounds = lowerBounds;
  if (upperBounds !== undefined) out.upperBounds = upperBounds;
  if (split !== undefined) out.splitOffsets = split;
  if (fileColumns !== undefined) out.fileColumns = fileColumns;
  if (fileFieldIds !== undefined) out.fileFieldIds = fileFieldIds;
  if (encodedMetrics !== undefined) out.encodedMetrics = encodedMetrics;
  if (boundsWithheld !== undefined) out.boundsWithheld = boundsWithheld;
  return out;
}
