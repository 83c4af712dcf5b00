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

export function unreachable(e: unknown): MigrationError {
  if (e instanceof MigrationError) return e;
  const msg = (e as Error).message ?? String(e);
  const code = (e as { code?: string }).code;
  const connection =
    code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ETIMEDOUT' || code === '57P01' || /Connection terminated/.test(msg);
  return new MigrationError(
    connection ? ErrorCode.STATE_DB_UNREACHABLE : ErrorCode.INTERNAL,
    `state store: ${msg}`,
    { pgCode: code },
    { cause: e, retryable: connection },
  );
}
