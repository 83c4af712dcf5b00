// A process stalled inside a state-store transaction (SIGSTOP, a VM pause) holds its locks: the
// row it updated and the audit append lock. Seen in CI: a worker frozen mid-apply made another
// worker's start-up fail with INTERNAL "Query read timeout", because opening the store ran the
// schema's DDL, which waits for every lock on him_tables. Now: opening a current schema takes no
// table lock (each change is guarded by a catalog check), and the server ends a session idle in its transaction after
// SESSION_LIMITS (30 s), releasing the append lock; its transaction rolls back.
// Real Postgres from the stack; a database of its own.
import pg from 'pg';
import { AUDIT_LOCK } from '../../../adapters/state/audit-append';
import { SESSION_LIMITS } from '../../../adapters/state/pg-errors';
import { PostgresStateStore } from '../../../adapters/state/postgres';
import { verifyChain } from '../../../core/audit/chain';
import type { MigrationError } from '../../../core/errors';
import { ErrorCode } from '../../../core/errors';
import type { AuditEvent } from '../../../core/audit/chain';
import { testStack, uniqueName } from '../../helpers/stack-env';

const env = testStack();
const adminUrl = env.HIM_POSTGRES_URL as string;
const db = uniqueName('himstall').toLowerCase();
const url = ((): string => {
  const u = new URL(adminUrl);
  u.pathname = `/${db}`;
  return u.toString();
})();
const admin = new pg.Client({ connectionString: adminUrl });

beforeAll(async () => {
  await admin.connect();
  await admin.query(`CREATE DATABASE "${db}"`);
});
afterAll(async () => {
  await admin.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`).catch(() => undefined);
  await admin.end();
});

const event = (object: string) => ({
  at: new Date().toISOString(),
  actor: 'test',
  action: 'wave.approved' as const,
  object,
  planHash: null,
  beforeDigest: null,
  afterDigest: null,
  details: {},
});

test('a session stalled mid-transaction blocks neither opening the store nor, past the server limit, the audit chain', async () => {
  const first = await PostgresStateStore.open(url);
  await first.appendAudit(event('before'));
  await first.close();

  // The stalled worker: a session with the store's limits that took a row lock on the audit table's
  // neighbours and the append lock, then stopped talking (from the server's side, a frozen process).
  const stalled = new pg.Client({ connectionString: url, ...SESSION_LIMITS });
  stalled.on('error', () => undefined);
  await stalled.connect();
  await stalled.query('BEGIN');
  await stalled.query('LOCK TABLE him_tables IN ROW EXCLUSIVE MODE');
  await stalled.query('SELECT pg_advisory_xact_lock($1)', [AUDIT_LOCK]);
  const stalledAt = Date.now();

  // Opening needs no lock the stalled session holds.
  const t0 = Date.now();
  const second = await PostgresStateStore.open(url);
  const openMs = Date.now() - t0;
  try {
    expect(openMs).toBeLessThan(5_000);
    // The append waits for the lock until the server ends the stalled session, then goes on. A
    // store whose single pooled session waits the same way makes its next caller wait for the
    // pool: that caller gets a retryable STATE_DB_BUSY, never INTERNAL (seen in CI).
    const appending = second.appendAudit(event('after'));
    const narrow = await PostgresStateStore.open(url, { max: 1 });
    const narrowAppend = narrow.appendAudit(event('narrow'));
    const poolWait = await narrow.listPlans().then(
      () => undefined,
      (e: unknown) => e as MigrationError,
    );
    expect([poolWait?.code, poolWait?.retryable]).toEqual([ErrorCode.STATE_DB_BUSY, true]);
    const appended = await Promise.all([appending, narrowAppend]).finally(() => narrow.close());
    const waited = Date.now() - stalledAt;
    expect(waited).toBeGreaterThanOrEqual(SESSION_LIMITS.idle_in_transaction_session_timeout - 1_000);
    expect(waited).toBeLessThan(SESSION_LIMITS.idle_in_transaction_session_timeout + 15_000);
    expect(appended.map((a) => a.seq).sort()).toEqual([2, 3]);
    // The stalled transaction is gone: its commit fails, nothing of it stays.
    await expect(stalled.query('COMMIT')).rejects.toThrow();
    const events: AuditEvent[] = [];
    for await (const e of second.readAudit()) events.push(e);
    expect(events.map((e) => e.object).sort()).toEqual(['after', 'before', 'narrow']);
    expect(verifyChain(events).ok).toBe(true);
  } finally {
    await second.close();
    await stalled.end().catch(() => undefined);
  }
}, 120_000);
