// The footer threads' one transport for a pre-signed ranged read (ObjectStore.signedRead): plain
// HTTP over raw sockets (raw-http.ts), HTTPS through node:https (http-get.ts), where the TLS work
// outweighs what the raw client saves. Raw sockets cost the least CPU per footer GET of the
// transports measured (bench/RESULTS.md "footer threads' HTTP transport": undici's Agent#request
// +25% CPU per file, fetch 2.5×). Anything but a 200/206 with its whole body is a failure for the
// caller to fall back on the store's own path, which retries and maps errors
// (adapters/storage/s3-store.ts); nothing here is translated.
import * as https from 'node:https';
import type { SignedRead } from '../../../core/storage/object-store';
import { httpGet } from './http-get';
import { rawGet } from './raw-http';
import type { BodyAllocator } from './raw-http';

export type { BodyAllocator };

const tlsAgent = new https.Agent({ keepAlive: true, maxSockets: 64 });
const allocate: BodyAllocator = (n) => new Uint8Array(n);

/** The body of a signed ranged GET (200 or 206), landed in `alloc(length)` on plain HTTP. */
export async function threadGet(read: SignedRead, alloc: BodyAllocator = allocate): Promise<Uint8Array> {
  const url = new URL(read.url);
  if (url.protocol === 'http:') return rawGet(url, read.headers, read.timeoutMs, alloc);
  const res = await httpGet(url, read.headers, tlsAgent, read.timeoutMs);
  if (res.status !== 200 && res.status !== 206) throw new Error(`HTTP ${res.status}`);
  return res.body;
}
