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

type ClientConfig = ConstructorParameters<typeof pg.Client>[0];

/** Connect and start the read-only REPEATABLE READ transaction; `snapshot` joins an exported one. */
async function begin(config: ClientConfig, url: string, snapshot?: string): Promise<pg.Client> {
  const client = new pg.Client(config);
  // A dropped connection emits 'error' on the client; the failing query rejects on its own.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    // Postgres takes the snapshot at the first statement, not at BEGIN: pin it now (or import one).
    if (snapshot === undefined) await client.query('SELECT 1');
    else await client.query(`SET TRANSACTION SNAPSHOT '${snapshot.replace(/'/g, "''")}'`);
  } catch (e) {
    await client.end().catch(() => undefined);
    throw translateSqlError(e, 'postgres', `connect to ${redactUrl(url)}`);
  }
  return client;
}

class PgSession implements SqlSession {
  readonly backend = 'postgres' as const;
  private done = false;
  private snapshot: Promise<string> | undefined;
  constructor(
    private readonly client: pg.Client,
    private readonly config: ClientConfig,
    private readonly url: string,
  ) {}

  /** A second connection on this transaction's snapshot (exported once; valid while this one is open). */
  async fork(): Promise<SqlSession> {
    this.snapshot ??= this.client.query<{ id: string }>('SELECT pg_export_snapshot() AS id').then((r) => String(r.rows[0]?.id));
    const id = await this.snapshot;
    return new PgSession(await begin(this.config, this.url, id), this.config, this.url);
  }

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
    const config: ClientConfig = {
      connectionString: url,
      connectionTimeoutMillis: o.connectTimeoutMs,
      query_timeout: o.queryTimeoutMs,
      statement_timeout: o.queryTimeoutMs,
      application_name: 'hms-iceberg-migrator',
    };
    const client = await begin(config, url);
    return new PostgresHmsReader(new PgSession(client, config, url), opts);
  }
}
