// AWS Signature Version 4 for the REST catalog's requests (AWS Glue's Iceberg endpoint, S3 Tables):
// header-based signing of one HTTP request, as the AWS SDK's signer does it for non-S3 services
// (path segments normalised and URI-encoded twice, the payload hash sent as x-amz-content-sha256).
// test/unit/catalog/sigv4.test.ts proves the Authorization header byte-equal to @smithy/signature-v4
// for every request shape the catalog makes. Pure computation over node:crypto; no I/O.
import { createHash, createHmac } from 'node:crypto';

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface SignInput {
  readonly method: string;
  /** The full URL as sent (path already percent-encoded once, as on the wire). */
  readonly url: string;
  /** Headers to sign besides host and the x-amz-* ones added here (lower-case names). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly region: string;
  /** The signing name: `glue`, `s3tables`. */
  readonly service: string;
  readonly credentials: AwsCredentials;
  readonly now: Date;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';
/** Headers the SDK never signs (a proxy may change them): @smithy/signature-v4 ALWAYS_UNSIGNABLE_HEADERS. */
const UNSIGNABLE = new Set([
  'authorization',
  'cache-control',
  'connection',
  'expect',
  'from',
  'keep-alive',
  'max-forwards',
  'pragma',
  'referer',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'user-agent',
  'x-amzn-trace-id',
]);

const sha256Hex = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (key: Buffer | string, s: string): Buffer => createHmac('sha256', key).update(s, 'utf8').digest();

/** RFC 3986 unreserved characters stay; everything else is %XX (upper-case hex). */
export function uriEscape(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The path with empty and `.` segments dropped, `..` applied, then encoded again (`%1F` → `%251F`). */
function canonicalPath(path: string): string {
  const segments: string[] = [];
  for (const s of path.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') segments.pop();
    else segments.push(s);
  }
  const trailing = segments.length > 0 && path.endsWith('/') ? '/' : '';
  const normalized = `${path.startsWith('/') ? '/' : ''}${segments.join('/')}${trailing}`;
  return uriEscape(normalized).replace(/%2F/g, '/');
}

/** Query parameters decoded from the URL, re-encoded strictly and sorted by name. */
function canonicalQuery(params: URLSearchParams): string {
  const byKey = new Map<string, string[]>();
  for (const [k, v] of params) {
    if (k.toLowerCase() === 'x-amz-signature') continue;
    const key = uriEscape(k);
    byKey.set(key, [...(byKey.get(key) ?? []), `${key}=${uriEscape(v)}`]);
  }
  return [...byKey.keys()]
    .sort()
    .map((k) => (byKey.get(k) ?? []).sort().join('&'))
    .join('&');
}

/** `20261204T212501Z` and `20261204`. */
export function amzDates(now: Date): { long: string; short: string } {
  const long = now
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
  return { long, short: long.slice(0, 8) };
}

/** The headers to add to the request: x-amz-date, x-amz-content-sha256, x-amz-security-token, authorization. */
export function signRequest(input: SignInput): Record<string, string> {
  const url = new URL(input.url);
  const { long, short } = amzDates(input.now);
  const payloadHash = sha256Hex(input.body ?? '');
  const added: Record<string, string> = { 'x-amz-date': long, 'x-amz-content-sha256': payloadHash };
  if (input.credentials.sessionToken) added['x-amz-security-token'] = input.credentials.sessionToken;
  const all: Record<string, string> = { host: url.host, ...lowerKeys(input.headers), ...added };
  const names = Object.keys(all)
    .filter((n) => !UNSIGNABLE.has(n) && !/^(proxy|sec)-/.test(n))
    .sort();
  const canonicalHeaders = names.map(
    (n) =>
      `${n}:${(all[n] ?? '')
        .replace(/[\r\n]/g, ' ')
        .replace(/[ \t]+/g, ' ')
        .replace(/^ | $/g, '')}`,
  );
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    input.method,
    canonicalPath(url.pathname),
    canonicalQuery(url.searchParams),
    ...canonicalHeaders,
    '',
    signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${short}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = [ALGORITHM, long, scope, sha256Hex(canonicalRequest)].join('\n');
  let key: Buffer = hmac(`AWS4${input.credentials.secretAccessKey}`, short);
  for (const part of [input.region, input.service, 'aws4_request']) key = hmac(key, part);
  const signature = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  return {
    ...added,
    authorization: `${ALGORITHM} Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}

function lowerKeys(h: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}
