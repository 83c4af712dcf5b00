// Authorization for the Iceberg REST catalog (docs/design/iceberg-spec.md §6 "Auth"): none, a static bearer token,
// SigV4 (rest-sigv4.ts), or OAuth2 client credentials (form POST to the token endpoint — configured, or announced by the
// server as `oauth2-server-uri`, else `<uri>/v1/oauth/tokens`), cached until shortly before it
// expires and shared by concurrent callers. Tokens and secrets never appear in errors or logs.
import { ErrorCode, MigrationError } from '../../core/errors';
import type { SigV4Settings } from './rest-sigv4';
import { SigV4Auth } from './rest-sigv4';
import type { RequestAuth } from './request-auth';

/** Who the last token says we are (decoded for display only, never verified here): doctor shows it. */
export interface TokenIdentity {
  readonly endpoint: string;
  readonly clientId?: string;
  readonly subject?: string;
  /** Epoch ms when the token expires (from expires_in, else the JWT's exp). */
  readonly expiresAt?: number;
  readonly scope?: string;
}

export type RestAuth =
  | { readonly type: 'none' }
  | { readonly type: 'bearer'; readonly token: string }
  | {
      readonly type: 'oauth2';
      readonly clientId: string;
      readonly clientSecret: string;
      /** Default `catalog`, as the Java client sends. */
      readonly scope?: string;
      /** Absolute URL; default: the catalog's `oauth2-server-uri`, else `<uri>/v1/oauth/tokens`. */
      readonly tokenEndpoint?: string;
      /** Where the secret came from (an environment variable's name), for the error's remedy. */
      readonly secretFrom?: string;
    }
  | ({ readonly type: 'sigv4' } & SigV4Settings);

/** The authorizer of `auth` for a catalog at `baseUri`. */
export function createRequestAuth(auth: RestAuth, baseUri: string, timeoutMs: number): TokenSource | SigV4Auth {
  return auth.type === 'sigv4' ? new SigV4Auth(auth) : new TokenSource(auth, baseUri, timeoutMs);
}

/** Refresh this long before `expires_in` runs out (at most a tenth of the token's life). */
const EXPIRY_SKEW_MS = 60_000;

interface Cached {
  readonly token: string;
  /** Epoch ms after which the token is fetched again; Infinity when the server gave no expiry. */
  readonly refreshAt: number;
}

export class TokenSource implements RequestAuth {
  private cached: Cached | undefined;
  private inflight: Promise<Cached> | undefined;
  private serverEndpoint: string | undefined;
  /** The identity of the last token fetched (no token text). */
  identity: TokenIdentity | undefined;
  /** Token endpoint requests made (tests assert the cache through it). */
  fetches = 0;

  constructor(
    private readonly auth: Exclude<RestAuth, { type: 'sigv4' }>,
    private readonly baseUri: string,
    private readonly timeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The endpoint the catalog announced in /v1/config (`oauth2-server-uri`); a configured one wins. */
  useServerEndpoint(uri: string | undefined): void {
    this.serverEndpoint = uri;
  }

  /** True when a 401 may be cured by fetching a new token. */
  get refreshable(): boolean {
    return this.auth.type === 'oauth2';
  }

  /** Forget the cached token (after a 401). */
  invalidate(): void {
    this.cached = undefined;
  }

  async headersFor(): Promise<Record<string, string>> {
    const a = await this.authorization();
    return a === undefined ? {} : { authorization: a };
  }

  async authorization(): Promise<string | undefined> {
    switch (this.auth.type) {
      case 'none':
        return undefined;
      case 'bearer':
        return `Bearer ${this.auth.token}`;
      case 'oauth2': {
        const c = this.cached !== undefined && this.now() < this.cached.refreshAt ? this.cached : await this.fetchShared();
        return `Bearer ${c.token}`;
      }
    }
  }

  private fetchShared(): Promise<Cached> {
    this.inflight ??= this.fetchToken().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private endpoint(): string {
    if (this.auth.type === 'oauth2' && this.auth.tokenEndpoint !== undefined) return this.auth.tokenEndpoint;
    return this.serverEndpoint ?? `${this.baseUri}/v1/oauth/tokens`;
  }

  private async fetchToken(): Promise<Cached> {
    if (this.auth.type !== 'oauth2') throw new MigrationError(ErrorCode.INTERNAL, 'no OAuth2 settings');
    const url = this.endpoint();
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.auth.clientId,
      client_secret: this.auth.clientSecret,
      scope: this.auth.scope ?? 'catalog',
    });
    this.fetches++;
    const started = this.now();
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        body: form,
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      const timeout = (e as Error).name === 'TimeoutError' || (e as Error).name === 'AbortError';
      throw new MigrationError(
        timeout ? ErrorCode.CATALOG_TIMEOUT : ErrorCode.CATALOG_UNREACHABLE,
        `OAuth2 token request to ${url}: ${timeout ? `no answer within ${this.timeoutMs} ms` : causeText(e)}`,
        { url },
      );
    }
    const text = await res.text();
    if (!res.ok) {
      const code = res.status >= 500 || res.status === 429 ? ErrorCode.CATALOG_SERVER_ERROR : ErrorCode.CATALOG_AUTH_FAILED;
      const fix =
        code === ErrorCode.CATALOG_AUTH_FAILED
          ? ` (check client id ${this.auth.clientId} and the secret${this.auth.secretFrom ? ` in ${this.auth.secretFrom}` : ''}, and that the client may use the client-credentials grant with scope ${this.auth.scope ?? 'catalog'})`
          : '';
      throw new MigrationError(code, `OAuth2 token request to ${url}: HTTP ${res.status} ${oauthError(text)}${fix}`, {
        url,
        status: res.status,
        clientId: this.auth.clientId,
      });
    }
    let body: { access_token?: unknown; expires_in?: unknown };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new MigrationError(ErrorCode.CATALOG_BAD_RESPONSE, `OAuth2 token response from ${url} is not JSON`, { url });
    }
    if (typeof body.access_token !== 'string' || body.access_token === '') {
      throw new MigrationError(ErrorCode.CATALOG_BAD_RESPONSE, `OAuth2 token response from ${url} has no access_token`, { url });
    }
    const claims = jwtClaims(body.access_token);
    const jwtLifeMs = typeof claims.exp === 'number' ? claims.exp * 1000 - this.now() : undefined;
    const lifeMs = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in * 1000 : (jwtLifeMs ?? Infinity);
    const refreshAt = started + lifeMs - Math.min(EXPIRY_SKEW_MS, lifeMs / 10);
    this.identity = {
      endpoint: url,
      clientId: str(claims.client_id) ?? str(claims.azp) ?? this.auth.clientId,
      subject: str(claims.sub),
      expiresAt: Number.isFinite(lifeMs) ? started + lifeMs : undefined,
      scope: str((body as { scope?: unknown }).scope) ?? str(claims.scope),
    };
    this.cached = { token: body.access_token, refreshAt };
    return this.cached;
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The payload of a JWT access token (RFC 9068), unverified — for display and expiry only; {} when opaque. */
export function jwtClaims(token: string): Record<string, unknown> {
  const part = token.split('.')[1];
  if (part === undefined) return {};
  try {
    const v = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** RFC 6749 §5.2 error text (`error`, `error_description`) — never the request, which holds the secret. */
function oauthError(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: unknown; error_description?: unknown };
    return [j.error, j.error_description].filter((v) => typeof v === 'string').join(': ');
  } catch {
    return text.slice(0, 200);
  }
}

export function causeText(e: unknown): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  return err.cause?.code ?? err.cause?.message ?? err.message;
}
