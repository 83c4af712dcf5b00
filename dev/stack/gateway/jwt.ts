// The gateway's check of an OAuth2 bearer token: a JWT signed by the token server (RS256, key from
// its JWKS by `kid`, fetched again when an unknown kid appears), issued by the expected issuer and
// not expired. Dev tooling (components/catalog-gateway.ts).
import { createPublicKey, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

export type TokenVerdict =
  | { readonly ok: true; readonly jti: string; readonly exp: number; readonly sub?: string; readonly azp?: string }
  | { readonly ok: false; readonly reason: 'missing' | 'malformed' | 'signature' | 'issuer' | 'expired' };

interface Jwk {
  kid?: string;
  kty?: string;
  use?: string;
  alg?: string;
}

export class JwtVerifier {
  private keys = new Map<string, KeyObject>();

  constructor(
    private readonly jwksUrl: string,
    private readonly issuer: string,
  ) {}

  private async refresh(): Promise<void> {
    const res = await fetch(this.jwksUrl, { signal: AbortSignal.timeout(5000) });
    const body = (await res.json()) as { keys?: Jwk[] };
    const keys = new Map<string, KeyObject>();
    for (const k of body.keys ?? []) {
      if (k.kty !== 'RSA' || (k.use !== undefined && k.use !== 'sig') || k.kid === undefined) continue;
      keys.set(k.kid, createPublicKey({ key: k as Parameters<typeof createPublicKey>[0] & object, format: 'jwk' } as never));
    }
    this.keys = keys;
  }

  async check(authorization: string | undefined, nowMs = Date.now()): Promise<TokenVerdict> {
    const m = /^Bearer (\S+)$/.exec(authorization ?? '');
    if (!m?.[1]) return { ok: false, reason: 'missing' };
    const [h, p, s] = m[1].split('.');
    if (h === undefined || p === undefined || s === undefined) return { ok: false, reason: 'malformed' };
    let header: { alg?: string; kid?: string };
    let claims: { exp?: unknown; iss?: unknown; jti?: unknown; sub?: unknown; azp?: unknown };
    try {
      header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as typeof header;
      claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    if (header.alg !== 'RS256' || header.kid === undefined) return { ok: false, reason: 'signature' };
    if (!this.keys.has(header.kid)) await this.refresh();
    const key = this.keys.get(header.kid);
    if (key === undefined || !verify('RSA-SHA256', Buffer.from(`${h}.${p}`), key, Buffer.from(s, 'base64url'))) {
      return { ok: false, reason: 'signature' };
    }
    if (claims.iss !== this.issuer) return { ok: false, reason: 'issuer' };
    if (typeof claims.exp !== 'number' || claims.exp * 1000 <= nowMs) return { ok: false, reason: 'expired' };
    const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
    return { ok: true, jti: str(claims.jti) ?? `${h}.${p}`, exp: claims.exp, sub: str(claims.sub), azp: str(claims.azp) };
  }
}
