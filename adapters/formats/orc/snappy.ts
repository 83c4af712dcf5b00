// Snappy raw-block decompression (google/snappy format_description.txt): a varint uncompressed
// length, then literal and copy elements. Used for ORC's snappy-compressed tails.

export function snappyUncompress(src: Uint8Array): Uint8Array {
  let pos = 0;
  let length = 0;
  for (let shift = 0; ; shift += 7) {
    const b = src[pos++];
    if (b === undefined || shift > 28) throw new Error('snappy: bad length varint');
    length += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) break;
  }
  const out = new Uint8Array(length);
  let op = 0;
  while (pos < src.length) {
    const tag = src[pos++] ?? 0;
    const type = tag & 3;
    if (type === 0) {
      let len = tag >>> 2;
      if (len >= 60) {
        const n = len - 59;
        len = 0;
        for (let i = 0; i < n; i++) len += (src[pos++] ?? 0) * 2 ** (8 * i);
      }
      len += 1;
      if (pos + len > src.length || op + len > length) throw new Error('snappy: literal overruns the buffer');
      out.set(src.subarray(pos, pos + len), op);
      pos += len;
      op += len;
      continue;
    }
    let len: number;
    let offset: number;
    if (type === 1) {
      len = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | (src[pos++] ?? 0);
    } else if (type === 2) {
      len = (tag >>> 2) + 1;
      offset = (src[pos] ?? 0) | ((src[pos + 1] ?? 0) << 8);
      pos += 2;
    } else {
      len = (tag >>> 2) + 1;
      offset = ((src[pos] ?? 0) | ((src[pos + 1] ?? 0) << 8) | ((src[pos + 2] ?? 0) << 16)) + (src[pos + 3] ?? 0) * 2 ** 24;
      pos += 4;
    }
    if (offset === 0 || offset > op || op + len > length) throw new Error('snappy: bad copy offset');
    for (let i = 0; i < len; i++, op++) out[op] = out[op - offset] ?? 0;
  }
  if (op !== length) throw new Error(`snappy: produced ${op} bytes, expected ${length}`);
  return out;
}
