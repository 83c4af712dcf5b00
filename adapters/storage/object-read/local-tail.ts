// A Parquet file's FileMetaData bytes from a local file with blocking syscalls (open, one or two
// preads, close): for a footer thread (footer-worker.ts) and the conversion's reader guard, where a
// blocking read of a page-cached tail costs less than a round trip through libuv. The tail is
// checked and joined by the decoders' own footerFromTail/joinFooter (adapters/formats/parquet).
import { closeSync, openSync, readSync } from 'node:fs';
import { DEFAULT_TAIL_BYTES, corruptParquet, footerFromTail, joinFooter } from '../../formats/parquet/footer';
import { fromFsError } from '../errors';

/**
 * The serialized FileMetaData of the local file `file` (exact `size`): one pread of the tail, a
 * second for a footer larger than it.
 * `path` names the file in errors; `file` is its local path. With `scratch`, the result may be a
 * view into it: valid until the next call with the same scratch.
 */
export function readParquetFooterBytesLocalSync(
  path: string,
  file: string,
  size: number,
  tailBytes = DEFAULT_TAIL_BYTES,
  scratch?: Uint8Array,
): Uint8Array {
  if (size < 12) throw corruptParquet(path, `${size} bytes is too small for a Parquet file`);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw fromFsError(e, 'read', path);
  }
  try {
    // `scratch` (a thread's reusable buffer): the tail lands there when it fits, no allocation per file.
    const pread = (start: number, end: number, reuse: boolean): Uint8Array => {
      const buf =
        reuse && scratch !== undefined && scratch.length >= end - start
          ? scratch.subarray(0, end - start)
          : Buffer.allocUnsafe(end - start);
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
