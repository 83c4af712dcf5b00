// What the backing-DB reader needs from a SQL driver: one connection inside one read-only
// REPEATABLE READ transaction, running ANSI-quoted SQL ("TBLS"."TBL_NAME") with `?` placeholders.
// Postgres and MySQL/MariaDB implement it (postgres.ts, mysql.ts); the queries live in reader.ts,
// row-path.ts and pg-json.ts, and run through queries.ts.
import { ErrorCode, MigrationError } from '../../../core/errors';
import { maskUri } from '../../../core/mask';

export type Row = Record<string, unknown>;

export interface SqlSession {
  /** Which backend, for messages. */
  readonly backend: 'postgres' | 'mysql';
  /** Run one statement; `sql` uses `?` placeholders and double-quoted identifiers. */
  query(sql: string, params: readonly unknown[]): Promise<Row[]>;
  /**
   * Optional: another connection in a transaction on this session's snapshot (Postgres
   * `SET TRANSACTION SNAPSHOT`), so reads can run side by side and still see one state.
   */
  fork?(): Promise<SqlSession>;
  /** End the transaction and the connection (idempotent). */
  close(): Promise<void>;
}

export interface HmsDbOptions {
  /** HMS catalog (CTLGS.NAME / DBS.CTLG_NAME); Hive's default is 'hive'. */
  readonly catalog?: string;
  readonly connectTimeoutMs?: number;
  /** Per-statement deadline. */
  readonly queryTimeoutMs?: number;
  /** Rows per keyset page when walking partitions (bounded memory per page). */
  readonly pageSize?: number;
  /** Ids per `IN (...)` list. */
  readonly inChunk?: number;
  /** Connections reading partitions side by side on one snapshot (Postgres only; MySQL reads on one). */
  readonly parallel?: number;
}

export const DEFAULT_DB_OPTIONS = {
  catalog: 'hive',
  connectTimeoutMs: 10_000,
  queryTimeoutMs: 120_000,
  pageSize: 5_000,
  inChunk: 1_000,
  parallel: 2,
} as const satisfies Required<HmsDbOptions>;

/** A URL without its password, for messages. */
export function redactUrl(url: string): string {
  return maskUri(url);
}

/** Error shape both drivers share: Node socket errors and server errors carry `code`, mysql2 also `errno`. */
interface DriverError {
  code?: unknown;
  errno?: unknown;
  message?: unknown;
  fatal?: unknown;
}

const NODE_NET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ETIMEDOUT',
]);
// mysql2 client-side codes for a lost or never-made connection.
const MYSQL_LOST = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_ENQUEUE_AFTER_QUIT',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
]);
const MYSQL_AUTH = new Set([1044, 1045, 1049]);

/**
 * Translate a driver error: connection-level failures → HMS_UNREACHABLE (retryable), deadlines →
 * HMS_TIMEOUT (retryable), bad credentials / unknown database → HMS_UNREACHABLE (not retryable: a
 * retry cannot help), anything else (an unexpected schema, a syntax error) → HMS_BAD_METADATA.
 */
export function translateSqlError(e: unknown, backend: SqlSession['backend'], what: string): MigrationError {
  if (e instanceof MigrationError) return e;
  const err = (typeof e === 'object' && e !== null ? e : {}) as DriverError;
  const code = typeof err.code === 'string' ? err.code : '';
  const errno = typeof err.errno === 'number' ? err.errno : undefined;
  const message = typeof err.message === 'string' ? err.message : String(e);
  const ctx = { backend, operation: what, driverCode: code || errno };
  const make = (c: ErrorCode, retryable?: boolean): MigrationError =>
    new MigrationError(
      c,
      `HMS backing DB (${backend}) ${what}: ${message}`,
      ctx,
      retryable === undefined ? { cause: e } : { cause: e, retryable },
    );

  if (
    code === 'PROTOCOL_SEQUENCE_TIMEOUT' ||
    code === '57014' ||
    /query read timeout|timeout exceeded when trying to connect/i.test(message)
  ) {
    return make(ErrorCode.HMS_TIMEOUT);
  }
  if (NODE_NET_CODES.has(code) || MYSQL_LOST.has(code) || code.startsWith('08') || ['57P01', '57P02', '57P03'].includes(code))
    return make(ErrorCode.HMS_UNREACHABLE);
  if (/connection terminated|not queryable|cannot enqueue|connection is in closed state|server closed the connection/i.test(message))
    return make(ErrorCode.HMS_UNREACHABLE);
  if (code === '28P01' || code === '28000' || code === '3D000' || (errno !== undefined && MYSQL_AUTH.has(errno)))
    return make(ErrorCode.HMS_UNREACHABLE, false);
  return make(ErrorCode.HMS_BAD_METADATA);
}
