// The gateway's check of a SigV4-signed request: the signature recomputed by the AWS SDK's own
// signer (@smithy/signature-v4 — not the product's code) from the known test credentials, over the
// headers the request says it signed, at the time it says it was signed; the payload hash must be
// the body's. Dev tooling (components/catalog-gateway.ts).
import { createHash } from 'node:crypto';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';

export interface SigV4Expect {
  readonly region: string;
  readonly service: string;
  /** access key id → secret (the dev-only keys of temporal-dev.yml). */
  readonly secrets: Readonly<Record<string, string>>;
}

export type SigV4Verdict = { readonly ok: true; readonly accessKeyId: string } | { readonly ok: false; readonly reason: string };

interface Incoming {
  readonly method: string;
  /** The raw request target: path (as sent, percent-encoded) and query. */
  readonly target: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;

export async function verifySigV4(req: Incoming, expect: SigV4Expect, nowMs = Date.now()): Promise<SigV4Verdict> {
  const header = (n: string): string | undefined => {
    const v = req.headers[n];
    return Array.isArray(v) ? v.join(',') : v;
  };
  const m = AUTH.exec(header('authorization') ?? '');
  if (!m) return { ok: false, reason: 'MissingAuthenticationToken' };
  const [, akid = '', , region, service, signed = ''] = m;
  const secret = expect.secrets[akid];
  if (secret === undefined) return { ok: false, reason: 'InvalidClientTokenId' };
  if (region !== expect.region || service !== expect.service) return { ok: false, reason: `WrongScope ${region}/${service}` };
  const amzDate = header('x-amz-date') ?? '';
  const at = Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  if (Number.isNaN(at) || Math.abs(nowMs - at) > 5 * 60_000) return { ok: false, reason: 'RequestExpired' };
  const bodyHash = createHash('sha256').update(req.body).digest('hex');
  if (header('x-amz-content-sha256') !== bodyHash) return { ok: false, reason: 'XAmzContentSHA256Mismatch' };
  const url = new URL(req.target, 'http://gateway.invalid');
  const headers: Record<string, string> = {};
  for (const n of signed.split(';')) headers[n] = header(n) ?? '';
  const signer = new SignatureV4({
    credentials: { accessKeyId: akid, secretAccessKey: secret, sessionToken: header('x-amz-security-token') },
    region: expect.region,
    service: expect.service,
    sha256: Hash.bind(null, 'sha256'),
  });
  const path = req.target.split('?')[0] ?? '/';
  const query: Record<string, string | string[]> = {};
  for (const k of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(k);
    query[k] = all.length === 1 ? (all[0] as string) : all;
  }
  const again = await signer.sign(
    {
      method: req.method,
      protocol: 'http:',
      hostname: 'gateway.invalid',
      path,
      query,
      headers,
      body: req.body.length > 0 ? req.body : undefined,
    },
    { signingDate: new Date(at) },
  );
  if (again.headers.authorization !== header('authorization')) return { ok: false, reason: 'SignatureDoesNotMatch' };
  return { ok: true, accessKeyId: akid };
}
