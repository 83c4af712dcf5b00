// catalog-gateway: an authenticating front of the reference REST catalog, which checks nothing
// itself. Port `oauth2`: every request needs a bearer JWT from the stack's token server (JWKS
// signature, issuer, expiry, not revoked) or gets 401. Port `sigv4`: every request must carry a
// SigV4 signature that the AWS SDK's signer reproduces from the known test keys, or gets 403.
// Accepted requests go to iceberg-rest unchanged (less the credentials). Admin routes under
// /__gateway/ (no auth; loopback only): GET stats, GET tokens (the raw tokens accepted, for the
// tests' secret scans), POST revoke (every token seen so far answers 401 from now on), POST
// reject?count=N (the next N bearer requests answer 401), POST delay?ms=N (a slow catalog). Started by components/catalog-gateway.ts with its settings in the environment.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { JwtVerifier } from './jwt';
import { verifySigV4 } from './sigv4-verify';

const env = (n: string): string => {
  const v = process.env[n];
  if (v === undefined || v === '') throw new Error(`catalog-gateway: ${n} is not set`);
  return v;
};

const upstream = env('HIM_GW_UPSTREAM');
const jwt = new JwtVerifier(env('HIM_GW_JWKS'), env('HIM_GW_ISSUER'));
const sigv4 = {
  region: env('HIM_GW_SIGV4_REGION'),
  service: env('HIM_GW_SIGV4_SERVICE'),
  secrets: { [env('HIM_GW_SIGV4_KEY')]: env('HIM_GW_SIGV4_SECRET') },
};

const stats = {
  oauth2: {
    requests: 0,
    accepted: 0,
    rejected: {} as Record<string, number>,
    tokens: [] as { jti: string; exp: number; azp?: string; firstSeen: number }[],
  },
  sigv4: { requests: 0, accepted: 0, rejected: {} as Record<string, number> },
};
const revoked = new Set<string>();
/** Raw bearer tokens accepted (dev only, loopback): the e2e tests scan logs and histories for them. */
const seenTokens = new Set<string>();
/** The next N bearer requests answer 401 whatever their token (POST /__gateway/reject?count=N). */
let rejectNext = 0;
/** Added before every bearer request is forwarded (POST /__gateway/delay?ms=N): a slow catalog, so a wave outlives a token. */
let delayMs = 0;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...extra });
  res.end(JSON.stringify(body));
}

/** The REST spec's error model (docs/design/iceberg-spec.md §6 "Errors"). */
function refuse(res: ServerResponse, status: 401 | 403, type: string, message: string): void {
  send(
    res,
    status,
    { error: { message, type, code: status } },
    status === 401 ? { 'www-authenticate': 'Bearer error="invalid_token"' } : {},
  );
}

const DROP = new Set([
  'authorization',
  'host',
  'connection',
  'content-length',
  'x-amz-date',
  'x-amz-content-sha256',
  'x-amz-security-token',
]);

async function forward(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (!DROP.has(k) && typeof v === 'string') headers[k] = v;
  const method = req.method ?? 'GET';
  const up = await fetch(`${upstream}${req.url ?? '/'}`, {
    method,
    headers,
    body: method === 'GET' || method === 'HEAD' ? undefined : body,
    signal: AbortSignal.timeout(60_000),
  });
  const text = method === 'HEAD' ? '' : await up.text();
  const out: Record<string, string> = {};
  const ct = up.headers.get('content-type');
  if (ct !== null) out['content-type'] = ct;
  res.writeHead(up.status, out);
  res.end(text);
}

function count(bucket: Record<string, number>, reason: string): void {
  bucket[reason] = (bucket[reason] ?? 0) + 1;
}

async function admin(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === 'GET' && req.url === '/__gateway/stats') return send(res, 200, { ...stats, revoked: revoked.size });
  if (req.method === 'GET' && req.url === '/__gateway/tokens') return send(res, 200, { tokens: [...seenTokens] });
  if (req.method === 'POST' && req.url === '/__gateway/revoke') {
    for (const t of stats.oauth2.tokens) revoked.add(t.jti);
    return send(res, 200, { revoked: revoked.size });
  }
  const reject = /^\/__gateway\/reject\?count=(\d+)$/.exec(req.url ?? '');
  const delay = /^\/__gateway\/delay\?ms=(\d+)$/.exec(req.url ?? '');
  if (req.method === 'POST' && delay) {
    delayMs = Math.min(Number(delay[1]), 5000);
    return send(res, 200, { delayMs });
  }
  if (req.method === 'POST' && reject) {
    rejectNext = Number(reject[1]);
    return send(res, 200, { rejectNext });
  }
  send(res, 404, { error: { message: `no admin route ${req.method} ${req.url}`, type: 'NotFound', code: 404 } });
}

async function oauth2(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.url?.startsWith('/__gateway/')) return admin(req, res);
  const body = await readBody(req);
  stats.oauth2.requests++;
  const v = await jwt.check(req.headers.authorization);
  const forced = rejectNext > 0 ? (rejectNext--, 'revoked') : undefined;
  const reason = !v.ok ? v.reason : (forced ?? (revoked.has(v.jti) ? 'revoked' : undefined));
  if (reason !== undefined || !v.ok) {
    count(stats.oauth2.rejected, reason ?? 'invalid');
    return refuse(res, 401, 'NotAuthorizedException', `bearer token ${reason ?? 'invalid'}`);
  }
  if (!stats.oauth2.tokens.some((t) => t.jti === v.jti))
    stats.oauth2.tokens.push({ jti: v.jti, exp: v.exp, azp: v.azp, firstSeen: Date.now() });
  stats.oauth2.accepted++;
  seenTokens.add(req.headers.authorization?.slice('Bearer '.length) ?? '');
  if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
  await forward(req, res, body);
}

async function signed(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.url?.startsWith('/__gateway/')) return admin(req, res);
  const body = await readBody(req);
  stats.sigv4.requests++;
  const v = await verifySigV4({ method: req.method ?? 'GET', target: req.url ?? '/', headers: req.headers, body }, sigv4);
  if (!v.ok) {
    count(stats.sigv4.rejected, v.reason);
    return refuse(res, 403, v.reason, `SigV4: ${v.reason}`);
  }
  stats.sigv4.accepted++;
  await forward(req, res, body);
}

function serve(port: number, handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): void {
  createServer((req, res) => {
    handler(req, res).catch((e: unknown) => {
      if (!res.headersSent) send(res, 502, { error: { message: `gateway: ${(e as Error).message}`, type: 'BadGateway', code: 502 } });
      else res.end();
    });
  }).listen(port, '127.0.0.1');
}

serve(Number(env('HIM_GW_OAUTH2_PORT')), oauth2);
serve(Number(env('HIM_GW_SIGV4_PORT')), signed);
process.stdout.write(`catalog-gateway: oauth2 on ${env('HIM_GW_OAUTH2_PORT')}, sigv4 on ${env('HIM_GW_SIGV4_PORT')} → ${upstream}\n`);
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => process.exit(0));
