// The Parquet footer bytes: the tail checked (length and PAR1 magic), the FileMetaData found in it or
// where the rest starts, the two parts joined; FileMetaData decoded (compact.ts, or hyparquet's
// generic decoder as the cross-check); and the one or two ranged reads of a tail through the
// ObjectStore port. Every failure is a coded MigrationError naming the file.
import { ErrorCode, MigrationError } from '../../../core/errors';
import type { ObjectStore } from '../../../core/storage/object-store';
import { loadThrift } from '../hyparquet';
import { decodeFileMetaData } from './compact';
import { fileMetaData } from './thrift';
import type { FileMetaData } from './thrift';

/** First tail read: most footers of small files fit; larger ones cost exactly one more GET. */
export const DEFAULT_TAIL_BYTES = 64 * 1024;
const MAGIC = 0x31524150; // "PAR1" little-endian
const FOOTER_TRAILER = 8; // 4-byte metadata length + magic

export function corruptParquet(path: string, why: string, cause?: unknown): MigrationError {
  return new MigrationError(ErrorCode.FORMAT_CORRUPT_FOOTER, `Parquet file ${path}: ${why}`, { path, format: 'PARQUET' }, { cause });
}

/**
 * Checks the tail [tailStart, size) of a Parquet file; returns the FileMetaData bytes when the tail
 * holds them all, else where they start (a second read of [metaStart, tailStart) completes them).
 */
export function footerFromTail(
  path: string,
  size: number,
  tailStart: number,
  tail: Uint8Array,
): Uint8Array | { metaStart: number; metaLen: number } {
  if (tail.length !== size - tailStart)
    throw corruptParquet(path, `read ${tail.length} bytes of the tail, expected ${size - tailStart} (file shorter than listed?)`);
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  if (view.getUint32(tail.length - 4, true) !== MAGIC) throw corruptParquet(path, 'no PAR1 magic at the end (not Parquet, or truncated)');
  if (tailStart === 0 && view.getUint32(0, true) !== MAGIC) throw corruptParquet(path, 'no PAR1 magic at the start');
  const metaLen = view.getUint32(tail.length - FOOTER_TRAILER, true);
  if (metaLen === 0 || metaLen > size - 12) throw corruptParquet(path, `footer length ${metaLen} does not fit in ${size} bytes`);
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
export async function readParquetFooterBytes(
  store: ObjectStore,
  path: string,
  size: number,
  tailBytes = DEFAULT_TAIL_BYTES,
): Promise<Uint8Array> {
  if (size < 12) throw corruptParquet(path, `${size} bytes is too small for a Parquet file`);
  const tailStart = Math.max(0, size - tailBytes);
  const tail = await store.readRange(path, tailStart, size);
  const got = footerFromTail(path, size, tailStart, tail);
  if (got instanceof Uint8Array) return got;
  return joinFooter(await store.readRange(path, got.metaStart, tailStart), tail, got.metaLen);
}

/** Decodes serialized FileMetaData (compact.ts: only the fields the stats need). */
export function decodeParquetFooterSync(path: string, meta: Uint8Array): FileMetaData {
  try {
    const md = decodeFileMetaData(meta);
    if (md.schema.length === 0) throw new Error('empty schema');
    return md;
  } catch (e) {
    throw corruptParquet(path, `cannot decode FileMetaData: ${(e as Error).message}`, e);
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
    throw corruptParquet(path, `cannot decode FileMetaData: ${(e as Error).message}`, e);
  }
}
