// Reachability probe for the Postgres state store.
import { Client } from 'pg';
import { ErrorCode, MigrationError } from '../../core/errors';

export async function probePostgres(url: string, timeoutMs: number): Promise<{ latencyMs: number; version: string }> {
  const t0 = performance.now();
  const c = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  try {
    await c.connect();
    const r = await c.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    return { latencyMs: Math.round(performance.now() - t0), version: r.rows[0]?.v ?? '?' };
  } catch (e) {
    throw new MigrationError(ErrorCode.STATE_DB_UNREACHABLE, `state database ${redact(url)}: ${(e as Error).message}`, {}, { cause: e });
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** Never print a password that a URL may carry. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
