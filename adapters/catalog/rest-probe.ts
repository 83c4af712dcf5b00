// Reachability probe for an Iceberg REST catalog: GET /v1/config (the first call every REST client
// makes), through the catalog client's transport so errors carry the same codes. One attempt, no
// retries: `migrate doctor` reports what it sees.
import { parseJson } from '../../core/iceberg/json';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { RequestAuth } from './request-auth';
import { TokenSource } from './rest-auth';
import { DEFAULT_HTTP, RestHttp } from './rest-http';

export interface RestProbe {
  readonly latencyMs: number;
  readonly defaults: Record<string, string>;
  readonly overrides: Record<string, string>;
}

const strings = (v: unknown): Record<string, string> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'))
    : {};

/** `auth`: a bearer token (string), or any authorizer (OAuth2 token source, SigV4) the caller then asks who it was. */
export async function probeRestCatalog(uri: string, timeoutMs: number, token?: string | RequestAuth): Promise<RestProbe> {
  const base = uri.replace(/\/+$/, '');
  const auth = typeof token === 'object' ? token : new TokenSource(token ? { type: 'bearer', token } : { type: 'none' }, base, timeoutMs);
  const http = new RestHttp(base, auth, { ...DEFAULT_HTTP, timeoutMs, attemptTimeoutMs: timeoutMs, maxAttempts: 1 });
  const t0 = performance.now();
  const res = await http.call({ method: 'GET', path: '/v1/config' });
  let json: unknown;
  try {
    json = parseJson(res.text);
  } catch {
    throw new MigrationError(ErrorCode.CATALOG_BAD_RESPONSE, `GET ${base}/v1/config: the body is not JSON`, { url: `${base}/v1/config` });
  }
  const body = (json ?? {}) as { defaults?: unknown; overrides?: unknown };
  return { latencyMs: Math.round(performance.now() - t0), defaults: strings(body.defaults), overrides: strings(body.overrides) };
}
