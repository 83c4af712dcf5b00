// HmsReader over a MySQL/MariaDB-backed HMS database (`mysql2`): one connection, one
// `REPEATABLE READ` read-only transaction for the reader's whole session. The session adds
// ANSI_QUOTES to sql_mode — as HMS's own MetaStoreDirectSql does — so the double-quoted SQL in
// reader.ts and row-path.ts runs unchanged. Name columns are latin1 in the HMS schema; the utf8mb4
// connection charset makes the server convert them.
import mysql from 'mysql2/promise';
import { BackingDbReader } from './reader';
import { DEFAULT_DB_OPTIONS, redactUrl, translateSqlError } from './session';
import type { HmsDbOptions, Row, SqlSession } from './session';

class MysqlSession implements SqlSession {
  readonly backend = 'mysql' as const;
  private done = false;
  constructor(
    private readonly conn: mysql.Connection,
    private readonly queryTimeoutMs: number,
  ) {}

  async query(sql: string, params: readonly unknown[]): Promise<Row[]> {
    const [rows] = await this.conn.query({ sql, timeout: this.queryTimeoutMs }, [...params]);
    return rows as Row[];
  }

  async close(): Promise<void> {
    if (this.done) return;
    this.done = true;
    try {
      await this.conn.query('ROLLBACK');
    } catch {
      // Nothing to undo in a read-only transaction; the connection may already be gone.
    } finally {
      await this.conn.end().catch(() => this.conn.destroy());
    }
  }
}

export class MysqlHmsReader extends BackingDbReader {
  /** Connect and open the read-only snapshot; HMS_UNREACHABLE (retryable) when the DB cannot be reached. */
  static async open(url: string, opts: HmsDbOptions = {}): Promise<MysqlHmsReader> {
    const o = { ...DEFAULT_DB_OPTIONS, ...opts };
    let conn: mysql.Connection | undefined;
    try {
      conn = await mysql.createConnection({
        uri: url,
        connectTimeout: o.connectTimeoutMs,
        charset: 'utf8mb4',
        supportBigNumbers: true,
        bigNumberStrings: true,
        dateStrings: true,
      });
      // A dropped connection emits 'error'; the failing query rejects on its own.
      conn.on('error', () => undefined);
      await conn.query("SET SESSION sql_mode = CONCAT(@@SESSION.sql_mode, ',ANSI_QUOTES')");
      await conn.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      // WITH CONSISTENT SNAPSHOT: InnoDB would otherwise take the snapshot at the first read.
      await conn.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
    } catch (e) {
      conn?.destroy();
      throw translateSqlError(e, 'mysql', `connect to ${redactUrl(url)}`);
    }
    return new MysqlHmsReader(new MysqlSession(conn, o.queryTimeoutMs), opts);
  }
}
