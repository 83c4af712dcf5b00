// The footer thread's own HTTP GET of a pre-signed ranged read (ObjectStore.signedRead): keep-alive
// sockets of this thread, the body as one buffer. Anything but a 200/206 with a body is reported as
// a failure for the caller to fall back on the store's own path, which retries and maps errors
// (adapters/storage/s3-store.ts); nothing here is retried or translated.
import * as http from 'node:http';
import * as https from 'node:https';
import type { SignedRead } from '../../core/storage/object-store';

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

export function threadGet(read: SignedRead): Promise<Uint8Array> {
  const url = new URL(read.url);
  const mod = url.protocol === 'https:' ? https : http;
  const agent = url.protocol === 'https:' ? agents['https:'] : agents['http:'];
  return new Promise<Uint8Array>((resolve, reject) => {
    const req = mod.request(url, { method: 'GET', headers: read.headers, agent, timeout: read.timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        if (status !== 200 && status !== 206) return reject(new Error(`HTTP ${status}`));
        const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
        resolve(new Uint8Array(body.buffer, body.byteOffset, body.length));
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no response in ${read.timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}
