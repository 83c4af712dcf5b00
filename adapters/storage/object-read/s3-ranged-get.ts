// The object-read signer and ranged GET: SigV4 (HMAC-SHA256, UNSIGNED-PAYLOAD unless a payload hash
// is given) over credentials from the S3 client's own provider chain, refreshed before expiry
// (../s3-credentials.ts), to AWS or a custom endpoint, virtual-hosted or path-style
// (../s3-addressing.ts). It signs the footer threads' reads (signedUrl: the thread sends them,
// thread-transport.ts) and sends the main thread's ranged GETs over node:http(s) (get, http-get.ts);
// ListObjectsV2 and PutObject go through the same signer and agent (../s3-lean.ts); HEAD and DELETE
// stay on the SDK. bench/footers measured the SDK's middleware at ~1.5 ms CPU per GetObject — the
// bottleneck at thousands of small footers per second on 2 cores. Errors are shaped like SDK errors
// ({ name, $metadata.httpStatusCode }) so ../errors.ts translates both the same way.
import * as crypto from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { S3Client } from '@aws-sdk/client-s3';
import { S3Addressing, encodeSegment } from '../s3-addressing';
import { RefreshingCredentials } from '../s3-credentials';
import type { SignedRequest } from '../s3-lean';
import { S3Lean } from '../s3-lean';
import type { S3CredentialProvider } from '../s3-credentials';
import { httpGet } from './http-get';
import type { HttpGetResponse } from './http-get';

export interface S3RangedGetOptions {
  /** Credentials instead of the client's provider chain (tests; the chain is the default). */
  readonly credentials?: S3CredentialProvider;
  /**
   * Host name resolution for connections (default: the system resolver). Tests map a virtual host
   * such as `<bucket>.s3.test` to 127.0.0.1 with it, as curl --resolve does; the Host header stays.
   */
  readonly lookup?: LookupFunction;
}

export interface RangedGetResult {
  readonly bytes: Uint8Array;
  /** Total object size from Content-Range (undefined when the server did not send one). */
  readonly total: number | undefined;
}

/** sha256 hex of a string: one-shot crypto.hash where this Node has it (≥ 20.12), else a Hash object. */
const sha256Hex: (s: string) => string =
  typeof (crypto as { hash?: unknown }).hash === 'function'
    ? (s) => (crypto as unknown as { hash(alg: string, data: string, enc: 'hex'): string }).hash('sha256', s, 'hex')
    : (s) => crypto.createHash('sha256').update(s).digest('hex');

/** x-amz-date (YYYYMMDDTHHMMSSZ) of the current second, formatted once per second. */
let amzDateCache = { second: -1, value: '' };
function amzDateNow(): string {
  const second = Math.floor(Date.now() / 1000);
  if (amzDateCache.second !== second)
    amzDateCache = {
      second,
      value: new Date(second * 1000)
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d{3}/, ''),
    };
  return amzDateCache.value;
}

function sdkLikeError(status: number | undefined, name: string, message: string, code?: string): Error {
  const e = new Error(message) as Error & { $metadata: { httpStatusCode?: number }; code?: string };
  e.name = name;
  e.$metadata = { httpStatusCode: status };
  if (code !== undefined) e.code = code;
  return e;
}

export class S3RangedGet {
  private readonly agent: http.Agent;
  readonly addressing: S3Addressing;
  readonly credentials: RefreshingCredentials;
  private keyCache: { date: string; secret: string; key: Buffer } | undefined;
  private readonly lookup: LookupFunction | undefined;

  constructor(
    client: S3Client,
    private readonly region: string,
    endpoint: string | undefined,
    pathStyle: boolean,
    maxSockets: number,
    private readonly timeoutMs: number,
    opts: S3RangedGetOptions = {},
  ) {
    this.addressing = new S3Addressing(region, endpoint, pathStyle);
    const Agent = this.addressing.base.protocol === 'https:' ? https.Agent : http.Agent;
    this.lookup = opts.lookup;
    this.agent = new Agent({ keepAlive: true, maxSockets, ...(opts.lookup ? { lookup: opts.lookup } : {}) });
    this.credentials = new RefreshingCredentials(opts.credentials ?? ((o) => client.config.credentials(o)));
    this.requests = new S3Lean(this, this.agent, timeoutMs);
  }

  /** ListObjectsV2 and PutObject through this signer and agent (s3-lean.ts). */
  readonly requests: S3Lean;

  destroy(): void {
    this.agent.destroy();
  }

  private signingKey(secret: string, date: string): Buffer {
    if (this.keyCache?.date === date && this.keyCache.secret === secret) return this.keyCache.key;
    let k = crypto.createHmac('sha256', `AWS4${secret}`).update(date).digest();
    for (const part of [this.region, 's3', 'aws4_request']) k = crypto.createHmac('sha256', k).update(part).digest();
    this.keyCache = { date, secret, key: k };
    return k;
  }

  /** Where the GET goes and its SigV4-signed headers (UNSIGNED-PAYLOAD). */
  async signedGet(bucket: string, key: string, range: string): Promise<{ origin: string; path: string; headers: Record<string, string> }> {
    const { origin, path, headers } = await this.signed({ method: 'GET', bucket, key, headers: { range } });
    return { origin, path, headers };
  }

  /**
   * Any S3 request signed with SigV4: the canonical request over `host`, the given headers (names
   * lower case; each is signed), x-amz-content-sha256 (`payloadHash`, UNSIGNED-PAYLOAD by default),
   * x-amz-date and the session token; the query's names and values RFC 3986-encoded and sorted.
   * `pathAndQuery` is what goes on the request line, encoded exactly as signed.
   */
  async signed(req: SignedRequest): Promise<{ origin: string; path: string; pathAndQuery: string; headers: Record<string, string> }> {
    const creds = await this.credentials.get();
    const { origin, host, path } = this.addressing.target(req.bucket, req.key);
    const amzDate = amzDateNow();
    const date = amzDate.slice(0, 8);
    const payloadHash = req.payloadHash ?? 'UNSIGNED-PAYLOAD';
    const headers: Record<string, string> = { host, ...req.headers, 'x-amz-content-sha256': payloadHash, 'x-amz-date': amzDate };
    if (creds.sessionToken !== undefined) headers['x-amz-security-token'] = creds.sessionToken;
    const names = Object.keys(headers).sort();
    const query = (req.query ?? [])
      .map(([k, v]) => `${encodeSegment(k)}=${encodeSegment(v)}`)
      .sort()
      .join('&');
    const canonical = `${req.method}\n${path}\n${query}\n${names.map((n) => `${n}:${headers[n] as string}\n`).join('')}\n${names.join(';')}\n${payloadHash}`;
    const scope = `${date}/${this.region}/s3/aws4_request`;
    const toSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${sha256Hex(canonical)}`;
    const signature = crypto.createHmac('sha256', this.signingKey(creds.secretAccessKey, date)).update(toSign).digest('hex');
    headers.authorization = `AWS4-HMAC-SHA256 Credential=${creds.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
    return { origin, path, pathAndQuery: query === '' ? path : `${path}?${query}`, headers };
  }

  /** A signed ranged GET as a URL and headers, for a worker thread to send (ObjectStore.signedRead). */
  async signedUrl(
    bucket: string,
    key: string,
    range: string,
  ): Promise<{ url: string; headers: Record<string, string>; timeoutMs: number }> {
    const { origin, path, headers } = await this.signedGet(bucket, key, range);
    // A thread has no lookup function: with one configured (tests), it gets the resolved address
    // to connect to, the signed Host header naming the virtual host.
    return { url: (await this.connectOrigin(origin)) + path, headers, timeoutMs: this.timeoutMs };
  }

  private async connectOrigin(origin: string): Promise<string> {
    const lookup = this.lookup;
    if (lookup === undefined) return origin;
    const u = new URL(origin);
    const address = await new Promise<string>((resolve, reject) =>
      lookup(u.hostname, {}, (err, addr) => (err ? reject(err) : resolve(typeof addr === 'string' ? addr : (addr[0]?.address ?? '')))),
    );
    u.hostname = address;
    return u.origin;
  }

  async get(bucket: string, key: string, range: string): Promise<RangedGetResult> {
    const { origin, path, headers } = await this.signedGet(bucket, key, range);
    let res: HttpGetResponse;
    try {
      res = await httpGet(new URL(path, origin), headers, this.agent, this.timeoutMs);
    } catch (e) {
      throw '$metadata' in (e as object)
        ? e
        : sdkLikeError(
            undefined,
            (e as Error).name === 'TimeoutError' ? 'TimeoutError' : 'NetworkingError',
            (e as Error).message,
            (e as NodeJS.ErrnoException).code,
          );
    }
    const { status, body } = res;
    if (status === 200 || status === 206) {
      const m = /\/(\d+)$/.exec(res.contentRange ?? '');
      return { bytes: body, total: m === null ? (status === 200 ? body.length : undefined) : Number(m[1]) };
    }
    const text = Buffer.from(body).toString('utf8');
    const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? (status === 404 ? 'NotFound' : `Http${status}`);
    const message = /<Message>([^<]+)<\/Message>/.exec(text)?.[1] ?? `HTTP ${status}`;
    throw sdkLikeError(status, code, message);
  }
}
