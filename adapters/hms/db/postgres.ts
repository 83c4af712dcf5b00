// HmsReader over a Postgres-backed HMS database (`pg`): one client, one
// `REPEATABLE READ, READ ONLY` transaction for the reader's whole session, so every query sees the
// same snapshot. HMS created its tables with quoted upper-case identifiers ("TBLS"."TBL_NAME").
// Keep sessions short: an open snapshot holds back VACUUM on the HMS database.
import pg from 'pg';
import { BackingDbReader } from './reader';
import { DEFAULT_DB_OPTIONS, redactUrl, translateSqlError } from './session';
import type { HmsDbOptions, Row, SqlSession } from './session';

/** `?` placeholders → `$1…$n` (our SQL has no `?` inside literals). */
export function toPgPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

class PgSession implements SqlSession {
  readonly backend = 'postgres' as const;
  private done = false;
  constructor(private readonly client: pg.Client) {}

  async query(sql: string, params: readonly unknown[]): Promise<Row[]> {
    const res = await this.client.query<Row>(toPgPlaceholders(sql), [...params]);
    return res.rows;
  }

  async close(): Promise<void> {
    if (this.done) return;
    this.done = true;
    try {
      await this.client.query('ROLLBACK');
    } catch {
      // Nothing to undo in a read-only transaction; the connection may already be gone.
    } finally {
      await this.client.end().catch(() => undefined);
    }
  }
}

export class PostgresHmsReader extends BackingDbReader {
  /** Connect and open the read-only snapshot; HMS_UNREACHABLE (retryable) when the DB cannot be reached. */
  static async open(url: string, opts: HmsDbOptions = {}): Promise<PostgresHmsReader> {
    const o = { ...DEFAULT_DB_OPTIONS, ...opts };
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: o.connectTimeoutMs,
      query_timeout: o.queryTimeoutMs,
      statement_timeout: o.queryTimeoutMs,
      application_name: 'hms-iceberg-migrator',
    });
    // A dropped connection emits 'error' on the client; the failing query rejects on its own.
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      // Postgres takes the snapshot at the first statement, not at BEGIN: pin it to open() now.
      await client.query('SELECT 1');
    } catch (e) {
      await client.end().catch(() => undefined);
      throw translateSqlError(e, 'postgres', `connect to ${redactUrl(url)}`);
    }
    return new PostgresHmsReader(new PgSession(client), opts);
  }
}
