// One GET over node:http(s) with a keep-alive agent, the whole body in one buffer: the main thread's
// ranged GET (s3-ranged-get.ts S3RangedGet.get) and the footer threads' reads over TLS
// (thread-transport.ts), where the TLS work outweighs what raw-http.ts saves. Nothing here is
// translated into MigrationErrors; the callers do that.
import * as http from 'node:http';
import * as https from 'node:https';

export interface HttpGetResponse {
  readonly status: number;
  readonly contentRange: string | undefined;
  readonly body: Uint8Array;
}

/**
 * One GET over `agent`. Rejects on a network error or `timeoutMs` without a byte (an Error named
 * TimeoutError); any status resolves.
 */
export function httpGet(
  url: URL,
  headers: Readonly<Record<string, string>>,
  agent: http.Agent,
  timeoutMs: number,
): Promise<HttpGetResponse> {
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise<HttpGetResponse>((resolve, reject) => {
    const req = mod.request(url, { method: 'GET', headers, agent, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
        resolve({
          status: res.statusCode ?? 0,
          contentRange: res.headers['content-range'],
          body: new Uint8Array(body.buffer, body.byteOffset, body.length),
        });
      });
    });
    req.on('timeout', () => {
      const e = new Error(`no response in ${timeoutMs} ms`);
      e.name = 'TimeoutError';
      req.destroy(e);
    });
    req.on('error', reject);
    req.end();
  });
}
