// ListObjectsV2 and PutObject over the lean signed path (object-read/s3-ranged-get.ts S3RangedGet.signed): one
// node:http(s) request each on the keep-alive agent, no SDK middleware. A sync of a migrated table
// lists every partition and writes two or three small metadata files; through the SDK each of those
// calls cost ~1.5 ms of CPU (middleware, XML deserialisers: bench/sync/profile.ts --cpu-profile),
// more than the rest of the table's S3 work. Errors are shaped like the SDK's ({ name,
// $metadata.httpStatusCode }), so errors.ts translates both paths the same way.
import * as crypto from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';

/** One page of a ListObjectsV2 answer, as the store needs it. */
export interface ListPage {
  readonly contents: readonly { readonly key: string; readonly size: number; readonly lastModified: number; readonly etag: string }[];
  readonly commonPrefixes: readonly string[];
  readonly nextToken: string | undefined;
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML character data: the five named entities and numeric references decoded. */
export function xmlText(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (m, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
    return ENTITIES[e] ?? m;
  });
}

/** The text of the first `<tag>…</tag>` in `xml` (undefined when absent; '' for `<tag/>`). */
function element(xml: string, tag: string): string | undefined {
  const open = xml.indexOf(`<${tag}>`);
  if (open < 0) return xml.includes(`<${tag}/>`) ? '' : undefined;
  const start = open + tag.length + 2;
  const end = xml.indexOf(`</${tag}>`, start);
  return end < 0 ? undefined : xmlText(xml.slice(start, end));
}

/** Each `<tag>…</tag>` block's inner XML, in order. */
function blocks(xml: string, tag: string): string[] {
  const out: string[] = [];
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  for (let i = xml.indexOf(open); i >= 0; i = xml.indexOf(open, i)) {
    const end = xml.indexOf(close, i);
    if (end < 0) break;
    out.push(xml.slice(i + open.length, end));
    i = end + close.length;
  }
  return out;
}

/** A ListBucketResult (ListObjectsV2) document → its objects, common prefixes and continuation token. */
export function parseListObjectsV2(xml: string): ListPage {
  if (!xml.includes('<ListBucketResult')) throw new Error('not a ListBucketResult document');
  const contents = blocks(xml, 'Contents').map((c) => {
    const key = element(c, 'Key');
    if (key === undefined) throw new Error('a Contents entry without a Key');
    const modified = element(c, 'LastModified');
    return {
      key,
      size: Number(element(c, 'Size') ?? 0),
      lastModified: modified === undefined ? 0 : Date.parse(modified),
      etag: (element(c, 'ETag') ?? '').replace(/"/g, ''),
    };
  });
  const commonPrefixes = blocks(xml, 'CommonPrefixes').flatMap((c) => {
    const p = element(c, 'Prefix');
    return p === undefined ? [] : [p];
  });
  const truncated = element(xml, 'IsTruncated') === 'true';
  return { contents, commonPrefixes, nextToken: truncated ? element(xml, 'NextContinuationToken') : undefined };
}

interface Response {
  readonly status: number;
  readonly body: Buffer;
}

function request(
  method: string,
  url: URL,
  headers: Readonly<Record<string, string>>,
  agent: http.Agent,
  timeoutMs: number,
  body?: Uint8Array,
): Promise<Response> {
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise<Response>((resolve, reject) => {
    const req = mod.request(url, { method, headers, agent, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks) }),
      );
    });
    req.on('timeout', () => {
      const e = new Error(`no response in ${timeoutMs} ms`);
      e.name = 'TimeoutError';
      req.destroy(e);
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  });
}

function sdkLikeError(status: number | undefined, name: string, message: string, code?: string): Error {
  const e = new Error(message) as Error & { $metadata: { httpStatusCode?: number }; code?: string };
  e.name = name;
  e.$metadata = { httpStatusCode: status };
  if (code !== undefined) e.code = code;
  return e;
}

/** A network failure as the SDK names it (TimeoutError / NetworkingError, the errno code kept). */
function networkError(e: unknown): Error {
  if (typeof e === 'object' && e !== null && '$metadata' in e) return e as unknown as Error;
  const err = e as NodeJS.ErrnoException;
  return sdkLikeError(undefined, err.name === 'TimeoutError' ? 'TimeoutError' : 'NetworkingError', err.message, err.code);
}

/** An S3 error answer as an SDK-like error: its XML Code and Message, else the status. */
function statusError(status: number, body: Buffer): Error {
  const text = body.toString('utf8');
  const code =
    /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? (status === 404 ? 'NotFound' : status === 412 ? 'PreconditionFailed' : `Http${status}`);
  const message = /<Message>([^<]+)<\/Message>/.exec(text)?.[1] ?? `HTTP ${status}`;
  return sdkLikeError(status, code, message);
}

/** One request to sign (object-read/s3-ranged-get.ts S3RangedGet.signed implements RequestSigner). */
export interface SignedRequest {
  readonly method: 'GET' | 'PUT' | 'HEAD' | 'DELETE';
  readonly bucket: string;
  /** The object key ('' for a bucket request such as ListObjectsV2). */
  readonly key: string;
  readonly query?: readonly (readonly [string, string])[];
  /** Extra headers to send and sign (lower-case names). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Hex SHA-256 of the body (default UNSIGNED-PAYLOAD). */
  readonly payloadHash?: string;
}

/** What S3Lean needs of a signer: a SigV4-signed request line and headers (object-read/s3-ranged-get.ts S3RangedGet). */
export interface RequestSigner {
  signed(req: SignedRequest): Promise<{ origin: string; path: string; pathAndQuery: string; headers: Record<string, string> }>;
}

/** Requests through a signer (S3RangedGet's), an agent and a timeout. */
export class S3Lean {
  constructor(
    private readonly g: RequestSigner,
    private readonly agent: http.Agent,
    private readonly timeoutMs: number,
  ) {}

  /** One ListObjectsV2 page of `prefix` (`delimiter` '/' for one level; none for everything below). */
  async listPage(
    bucket: string,
    prefix: string,
    delimiter: string | undefined,
    token: string | undefined,
    maxKeys: number | undefined,
  ): Promise<ListPage> {
    const query: [string, string][] = [
      ['list-type', '2'],
      ['prefix', prefix],
    ];
    if (delimiter !== undefined) query.push(['delimiter', delimiter]);
    if (token !== undefined) query.push(['continuation-token', token]);
    if (maxKeys !== undefined) query.push(['max-keys', String(maxKeys)]);
    const { origin, pathAndQuery, headers } = await this.g.signed({ method: 'GET', bucket, key: '', query });
    let res: Response;
    try {
      res = await request('GET', new URL(pathAndQuery, origin), headers, this.agent, this.timeoutMs);
    } catch (e) {
      throw networkError(e);
    }
    if (res.status !== 200) throw statusError(res.status, res.body);
    try {
      return parseListObjectsV2(res.body.toString('utf8'));
    } catch (e) {
      throw sdkLikeError(502, 'InvalidResponse', `ListObjectsV2 ${bucket}/${prefix}: ${(e as Error).message}`);
    }
  }

  /** PutObject of `bytes` (signed payload hash); `ifNoneMatch` '*' makes it create-only (412 when the key exists). */
  async put(bucket: string, key: string, bytes: Uint8Array, ifNoneMatch: '*' | undefined): Promise<void> {
    const payloadHash = crypto.createHash('sha256').update(bytes).digest('hex');
    const { origin, pathAndQuery, headers } = await this.g.signed({
      method: 'PUT',
      bucket,
      key,
      headers: ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch },
      payloadHash,
    });
    let res: Response;
    try {
      res = await request(
        'PUT',
        new URL(pathAndQuery, origin),
        { ...headers, 'content-length': String(bytes.length) },
        this.agent,
        this.timeoutMs,
        bytes,
      );
    } catch (e) {
      throw networkError(e);
    }
    if (res.status !== 200 && res.status !== 204) throw statusError(res.status, res.body);
  }
}
