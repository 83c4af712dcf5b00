// The footer thread's own send of a pre-signed ranged read (ObjectStore.signedRead), on this
// thread's keep-alive sockets (storage/s3-ranged-get.ts httpGet). Anything but a 200/206 is a
// failure for the caller to fall back on the store's own path, which retries and maps errors
// (adapters/storage/s3-store.ts); nothing here is retried or translated.
import * as http from 'node:http';
import * as https from 'node:https';
import type { SignedRead } from '../../core/storage/object-store';
import { httpGet } from '../storage/s3-ranged-get';

const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) };

export async function threadGet(read: SignedRead): Promise<Uint8Array> {
  const url = new URL(read.url);
  const res = await httpGet(url, read.headers, url.protocol === 'https:' ? agents.https : agents.http, read.timeoutMs);
  if (res.status !== 200 && res.status !== 206) throw new Error(`HTTP ${res.status}`);
  return res.body;
}
