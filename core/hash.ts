// SHA-256 (FIPS 180-4) and canonical JSON in plain TypeScript, so plan hashes can be computed
// inside core/ and workflows without node:crypto. Pure; no I/O.

// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
// FIPS 180-4 §5.3.3: initial hash value.
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/** UTF-8 bytes of a JS string (lone surrogates become U+FFFD, as TextEncoder does). */
export function utf8(text: string): Uint8Array {
  const out = new Uint8Array(text.length * 3);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i++;
      } else c = 0xfffd;
    }
    if (c < 0x80) out[n++] = c;
    else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 63);
    } else if (c < 0x10000) {
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 63);
      out[n++] = 0x80 | (c & 63);
    } else {
      out[n++] = 0xf0 | (c >> 18);
      out[n++] = 0x80 | ((c >> 12) & 63);
      out[n++] = 0x80 | ((c >> 6) & 63);
      out[n++] = 0x80 | (c & 63);
    }
  }
  return out.subarray(0, n);
}

/** §5.1.1 padding: the message, a 1 bit, zeros, and the 64-bit big-endian bit length. */
function pad(bytes: Uint8Array): DataView {
  const total = Math.ceil((bytes.length + 9) / 64) * 64;
  const buf = new Uint8Array(total);
  buf.set(bytes);
  buf[bytes.length] = 0x80;
  const view = new DataView(buf.buffer);
  const bits = bytes.length * 8;
  view.setUint32(total - 8, Math.floor(bits / 0x100000000));
  view.setUint32(total - 4, bits >>> 0);
  return view;
}

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

/** §6.2.2: one 512-bit block into the running state. */
function compress(state: Uint32Array, w: Uint32Array, view: DataView, offset: number): void {
  for (let t = 0; t < 16; t++) w[t] = view.getUint32(offset + t * 4);
  for (let t = 16; t < 64; t++) {
    const a = w[t - 15] ?? 0;
    const b = w[t - 2] ?? 0;
    const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
    const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
    w[t] = ((w[t - 16] ?? 0) + s0 + (w[t - 7] ?? 0) + s1) >>> 0;
  }
  let [a, b, c, d, e, f, g, h] = [state[0]!, state[1]!, state[2]!, state[3]!, state[4]!, state[5]!, state[6]!, state[7]!];
  for (let t = 0; t < 64; t++) {
    const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t]! + w[t]!) >>> 0;
    const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) >>> 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) >>> 0;
  }
  const add = [a, b, c, d, e, f, g, h];
  for (let i = 0; i < 8; i++) state[i] = (state[i]! + add[i]!) >>> 0;
}

/** Lower-case hex SHA-256 of bytes, or of a string's UTF-8 encoding. */
export function sha256Hex(input: string | Uint8Array): string {
  const view = pad(typeof input === 'string' ? utf8(input) : input);
  const state = new Uint32Array(H0);
  const w = new Uint32Array(64);
  for (let off = 0; off < view.byteLength; off += 64) compress(state, w, view, off);
  let hex = '';
  for (const word of state) hex += word.toString(16).padStart(8, '0');
  return hex;
}

/**
 * Canonical JSON: object keys sorted by code unit, no whitespace, numbers as ECMAScript
 * Number::toString (shortest round-trip, so stable across runs and engines), `undefined`
 * members dropped. NaN and ±Infinity have no JSON form and are refused.
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  write(value, parts);
  return parts.join('');
}

function write(value: unknown, out: string[]): void {
  if (value === null) out.push('null');
  else if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${String(value)} has no JSON form`);
    out.push(JSON.stringify(value));
  } else if (typeof value === 'string' || typeof value === 'boolean') out.push(JSON.stringify(value));
  else if (Array.isArray(value)) {
    out.push('[');
    value.forEach((v: unknown, i) => {
      if (i > 0) out.push(',');
      write(v === undefined ? null : v, out);
    });
    out.push(']');
  } else if (typeof value === 'object') writeObject(value as Record<string, unknown>, out);
  else throw new TypeError(`canonicalJson: a ${typeof value} has no JSON form`);
}

function writeObject(obj: Record<string, unknown>, out: string[]): void {
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  out.push('{');
  keys.forEach((k, i) => {
    if (i > 0) out.push(',');
    out.push(JSON.stringify(k), ':');
    write(obj[k], out);
  });
  out.push('}');
}
