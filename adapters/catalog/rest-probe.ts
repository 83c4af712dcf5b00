// Reachability probe for an Iceberg REST catalog: GET /v1/config (the first call every REST client
// makes). Foreign errors become MigrationError codes here.
import { ErrorCode, MigrationError } from '../../core/errors';

export interface RestProbe {
  readonly latencyMs: number;
  readonly defaults: Record<string, string>;
  readonly overrides: Record<string, string>;
}

export async function probeRestCatalog(uri: string, timeoutMs: number, token?: string): Promise<RestProbe> {
  const url = `${uri.replace(/\/+$/, '')}/v1/config`;
  const t0 = performance.now();
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: token ? { Authorization: `Bearer ${token}` } : {} });
  } catch (e) {
    throw new MigrationError(ErrorCode.CATALOG_UNREACHABLE, `GET ${url}: ${(e as Error).cause ? String((e as Error).cause) : (e as Error).message}`, { url }, { cause: e });
  }
  const body = await res.text();
  if (res.status !== 200) {
    throw new MigrationError(ErrorCode.CATALOG_HTTP_ERROR, `GET ${url}: HTTP ${res.status} ${body.slice(0, 200)}`, { url, status: res.status }, { retryable: res.status >= 500 });
  }
  const json = JSON.parse(body) as { defaults?: Record<string, string>; overrides?: Record<string, string> };
  return { latencyMs: Math.round(performance.now() - t0), defaults: json.defaults ?? {}, overrides: json.overrides ?? {} };
}
