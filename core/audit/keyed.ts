// HMAC-SHA256 (RFC 2104, FIPS 198-1) over the pure SHA-256 of core/plan/hash, for the keyed audit
// chain: without the key, nobody can recompute the hashes of rewritten events. Pure; no I/O.
import { sha256Hex, utf8 } from '../hash';

/** RFC 2104 §2: SHA-256 works on 64-byte blocks. */
const BLOCK = 64;
const IPAD = 0x36;
const OPAD = 0x5c;

/** The chain key: its bytes and a public id (so verify can say which key an event was made with). */
export interface ChainKey {
  readonly id: string;
  readonly bytes: Uint8Array;
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Lower-case hex HMAC-SHA256 of `message` (a string is UTF-8 encoded). */
export function hmacSha256Hex(key: Uint8Array, message: string | Uint8Array): string {
  // RFC 2104 §2: a key longer than the block is hashed first; shorter keys are zero-padded.
  const k0 = new Uint8Array(BLOCK);
  k0.set(key.length > BLOCK ? hexBytes(sha256Hex(key)) : key);
  const inner = new Uint8Array(BLOCK);
  const outer = new Uint8Array(BLOCK);
  for (let i = 0; i < BLOCK; i++) {
    inner[i] = (k0[i] ?? 0) ^ IPAD;
    outer[i] = (k0[i] ?? 0) ^ OPAD;
  }
  const msg = typeof message === 'string' ? utf8(message) : message;
  return sha256Hex(concat(outer, hexBytes(sha256Hex(concat(inner, msg)))));
}

/** Keys shorter than this are refused: an HMAC is only as strong as its key. */
export const MIN_KEY_BYTES = 32;

/**
 * A chain key from the text of the configured environment variable. The id is a hash of the key
 * under a fixed label (never the key): it tells keys apart without revealing them.
 */
export function chainKeyFrom(text: string): ChainKey {
  const bytes = utf8(text);
  return { bytes, id: hmacSha256Hex(bytes, 'hms-iceberg-migrator audit key id').slice(0, 16) };
}
