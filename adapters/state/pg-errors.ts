// Postgres errors of the state store as coded MigrationErrors: refusals only a change of
// `state.url` or of the role's rights can fix (credentials, a missing database, no write access),
// and connection loss (retryable). Everything else is a bug (INTERNAL).
import { ErrorCode, MigrationError } from '../../core/errors';

/** `postgres://host:port/db` without credentials, for messages. */
export function where(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'state.url';
  }
}

/** Connection-time refusals that only a change of `state.url` (or the server) can fix. */
export function refused(e: unknown, url: string): MigrationError | undefined {
  const code = (e as { code?: string }).code;
  const msg = (e as Error).message ?? String(e);
  // Postgres 28P01 invalid_password, 28000 invalid_authorization_specification (pg_hba), 3D000 invalid_catalog_name.
  if (code === '28P01' || code === '28000') {
    return new MigrationError(
      ErrorCode.STATE_DB_AUTH_FAILED,
      `state database ${where(url)} refused the credentials of state.url (${msg}): fix the user/password in state.url, or the server's pg_hba.conf`,
      { pgCode: code, database: where(url) },
      { cause: e },
    );
  }
  if (code === '3D000') {
    return new MigrationError(
      ErrorCode.STATE_DB_NOT_FOUND,
      `state database ${where(url)} does not exist: create it (createdb, or CREATE DATABASE) or fix the database name in state.url`,
      { pgCode: code, database: where(url) },
      { cause: e },
    );
  }
  // 42501 insufficient_privilege (no CREATE on the schema, no INSERT), 25006 read_only_sql_transaction (a standby, or default_transaction_read_only).
  if (code === '42501' || code === '25006') {
    return new MigrationError(
      ErrorCode.STATE_DB_NOT_WRITABLE,
      `state database ${where(url)} is not writable by the role of state.url (${msg}): point state.url at the primary, and grant the role CREATE on the schema (or create the him_* tables for it) and INSERT, UPDATE, SELECT on them`,
      { pgCode: code, database: where(url) },
      { cause: e },
    );
  }
  return undefined;
}

/**
 * Limits every state-store session runs with. A worker frozen (SIGSTOP, a VM pause, a GC stall)
 * inside a transaction holds its locks — the audit append lock among them — until the server ends
 * the session: 30 s idle in a transaction does that, and its transaction rolls back (nothing half
 * recorded; the stalled attempt fails when it wakes). A statement waits at most 45 s for a lock:
 * longer than a stalled holder can keep it.
 */
export const SESSION_LIMITS = { idle_in_transaction_session_timeout: 30_000, lock_timeout: 45_000 } as const;

export function unreachable(e: unknown): MigrationError {
  if (e instanceof MigrationError) return e;
  const msg = (e as Error).message ?? String(e);
  const code = (e as { code?: string }).code;
  const connection =
    code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ETIMEDOUT' || code === '57P01' || /Connection terminated/.test(msg);
  // 55P03 lock_not_available (lock_timeout), 57014 query_canceled (statement_timeout), or the
  // client's own query timeout: a session holds what we wait for (SESSION_LIMITS).
  if (code === '55P03' || code === '57014' || /Query read timeout/.test(msg)) {
    return new MigrationError(
      ErrorCode.STATE_DB_BUSY,
      `state store: ${msg} (another session holds a lock this statement needs: a process stalled mid-transaction is ended by the server after ${SESSION_LIMITS.idle_in_transaction_session_timeout / 1000} s)`,
      { pgCode: code },
      { cause: e },
    );
  }
  // pg-pool's own wait: every pooled session of this process is in use (typically each waits for a
  // lock a stalled session holds) for longer than the pool's connection timeout. Not a dead server
  // (that is "Connection terminated due to connection timeout"): busy, and retryable.
  if (/timeout exceeded when trying to connect/.test(msg)) {
    return new MigrationError(
      ErrorCode.STATE_DB_BUSY,
      `state store: ${msg} (every pooled session of this process is in use, e.g. waiting for a lock a stalled session holds; Postgres ends a session idle in its transaction after ${SESSION_LIMITS.idle_in_transaction_session_timeout / 1000} s)`,
      {},
      { cause: e },
    );
  }
  return new MigrationError(
    connection ? ErrorCode.STATE_DB_UNREACHABLE : ErrorCode.INTERNAL,
    `state store: ${msg}`,
    { pgCode: code },
    { cause: e, retryable: connection },
  );
}
