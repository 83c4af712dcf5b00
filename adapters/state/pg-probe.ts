// Probe of the Postgres state store for `migrate doctor`: connect (the same coded refusals as the
// store itself: a missing database is STATE_DB_NOT_FOUND, bad credentials STATE_DB_AUTH_FAILED), then
// prove the role can write: in one transaction that is rolled back, create a table, insert a row, and
// ask for INSERT on the state tables that already exist. Nothing is left behind.
import { Client } from 'pg';
import { ErrorCode, MigrationError } from '../../core/errors';
import { maskUri } from '../../core/mask';
import { refused, unreachable, where } from './pg-errors';

/** The tables the state store writes (adapters/state/schema.ts). */
const STATE_TABLES = ['him_plans', 'him_tables', 'him_audit', 'him_validation_runs', 'him_validation_rows'];

export interface PostgresProbe {
  readonly latencyMs: number;
  readonly version: string;
  /** The state tables that exist already (none on a fresh database: the first command creates them). */
  readonly existingTables: readonly string[];
}

async function proveWritable(c: Client, url: string): Promise<string[]> {
  await c.query('BEGIN');
  try {
    await c.query('CREATE TABLE him_doctor_probe (x int)');
    await c.query('INSERT INTO him_doctor_probe VALUES (1)');
    const r = await c.query<{ t: string; ins: boolean }>(
      `SELECT t, has_table_privilege(t, 'INSERT') AS ins FROM unnest($1::text[]) AS t WHERE to_regclass(t) IS NOT NULL`,
      [STATE_TABLES],
    );
    const denied = r.rows.filter((row) => !row.ins).map((row) => row.t);
    if (denied.length > 0)
      throw new MigrationError(
        ErrorCode.STATE_DB_NOT_WRITABLE,
        `state database ${where(url)}: the role of state.url may not INSERT into ${denied.join(', ')}`,
        { database: where(url), tables: denied },
      );
    return r.rows.map((row) => row.t);
  } finally {
    await c.query('ROLLBACK').catch(() => undefined);
  }
}

export async function probePostgres(url: string, timeoutMs: number): Promise<PostgresProbe> {
  const t0 = performance.now();
  const c = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  c.on('error', () => undefined);
  try {
    await c.connect();
    const r = await c.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    const latencyMs = Math.round(performance.now() - t0);
    const existingTables = await proveWritable(c, url);
    return { latencyMs, version: r.rows[0]?.v ?? '?', existingTables };
  } catch (e) {
    if (e instanceof MigrationError) throw e;
    const coded = refused(e, url) ?? unreachable(e);
    // Anything the store's own mapping calls a bug is, for a probe, still "not reachable as configured".
    if (coded.code !== ErrorCode.INTERNAL) throw coded;
    throw new MigrationError(ErrorCode.STATE_DB_UNREACHABLE, `state database ${redact(url)}: ${(e as Error).message}`, {}, { cause: e });
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** Never print a password that a URL may carry. */
export function redact(url: string): string {
  return maskUri(url);
}
