// The audit chain's append in Postgres (used by adapters/state/postgres.ts inside the caller's
// transaction): under the append lock, the chain's head, the key rules (a keyed writer refuses an
// unkeyed head; a new keyed chain starts with `audit.key-activated`), "at most once per
// idempotency key" (docs/audit.md "Idempotent appends"), and the row <-> event mapping.
import type pg from 'pg';
import type { AuditEvent, AuditEventInput } from '../../core/audit/chain';
import { AuditAction, GENESIS_HASH, chainEvent } from '../../core/audit/chain';
import type { ChainKey } from '../../core/audit/keyed';
import { ErrorCode, MigrationError } from '../../core/errors';

export const AUDIT_LOCK = 0x68696d61; // 'hima'

/** A him_audit row as the event it holds (the idempotency key when it has one). */
export function rowToEvent(row: Record<string, unknown>): AuditEvent {
  const at = row.at instanceof Date ? row.at.toISOString() : String(row.at);
  return {
    seq: Number(row.seq),
    at,
    actor: row.actor,
    action: row.action,
    object: row.object,
    planHash: row.plan_hash,
    beforeDigest: row.before_digest,
    afterDigest: row.after_digest,
    details: row.details,
    prevHash: row.prev_hash,
    hash: row.hash,
    v: Number(row.v ?? 1),
    alg: row.alg ?? 'sha256',
    keyId: row.key_id ?? null,
    ...(row.actor_source === null || row.actor_source === undefined ? {} : { actorSource: row.actor_source }),
    ...(row.idempotency_key === null || row.idempotency_key === undefined ? {} : { idempotencyKey: row.idempotency_key }),
  } as AuditEvent;
}

type Queryable = Pick<pg.PoolClient, 'query'>;

/** The event already appended under `key`, if any. */
export async function eventByKey(db: Queryable, key: string | null | undefined): Promise<AuditEvent | null> {
  if (key === null || key === undefined) return null;
  const r = await db.query('SELECT * FROM him_audit WHERE idempotency_key = $1', [key]);
  return r.rows[0] === undefined ? null : rowToEvent(r.rows[0] as Record<string, unknown>);
}

/** The chain's newest event, or null for an empty chain. */
export async function headEvent(db: Queryable): Promise<AuditEvent | null> {
  const r = await db.query('SELECT * FROM him_audit ORDER BY seq DESC LIMIT 1');
  return r.rows[0] === undefined ? null : rowToEvent(r.rows[0] as Record<string, unknown>);
}

/** AUDIT_KEY_NOT_ACTIVE: a keyed writer (or worker) in front of an unkeyed head. */
export function keyNotActive(seq: number, what = 'nothing recorded'): MigrationError {
  return new MigrationError(
    ErrorCode.AUDIT_KEY_NOT_ACTIVE,
    `audit.keyEnv is configured but the audit chain's newest event (${seq}) is not keyed: the key was never activated on this chain, or its keyed events were rewritten without the key. Run \`migrate audit verify\`; when it is intact and the key is new, \`migrate audit activate-key\` once; ${what}`,
    { seq },
    { retryable: false },
  );
}

/**
 * Append `e` (inside the caller's transaction): takes the append lock, then — when the event's
 * idempotency key is already in the chain — appends nothing and returns that event with
 * `existing: true` (the caller rolls its transaction back: the step was recorded by an earlier
 * attempt). Throws AUDIT_KEY_NOT_ACTIVE when keyed in front of an unkeyed head.
 */
export async function appendChained(
  client: Queryable,
  e: AuditEventInput,
  key: ChainKey | undefined,
): Promise<{ event: AuditEvent; existing: boolean }> {
  await client.query('SELECT pg_advisory_xact_lock($1)', [AUDIT_LOCK]);
  // Under the lock, in a statement after it was granted: a racing append of the same key has committed.
  const prior = await eventByKey(client, e.idempotencyKey);
  if (prior !== null) return { event: prior, existing: true };
  const head = await headEvent(client);
  let seq = head === null ? 1 : head.seq + 1;
  let prevHash = head?.hash ?? GENESIS_HASH;
  // Normalise the instant to what timestamptz gives back (ms ISO), so verification re-hashes alike.
  const at = new Date(e.at).toISOString();
  if (key !== undefined && head !== null && head.alg !== 'hmac-sha256' && e.action !== AuditAction.AUDIT_KEY_ACTIVATED)
    throw keyNotActive(head.seq);
  if (key !== undefined && head === null && e.action !== AuditAction.AUDIT_KEY_ACTIVATED) {
    // A new chain with a key starts with the key's activation: from there on, every event is keyed.
    const activation = chainEvent(
      seq,
      prevHash,
      {
        at,
        actor: e.actor,
        ...(e.actorSource === undefined ? {} : { actorSource: e.actorSource }),
        action: AuditAction.AUDIT_KEY_ACTIVATED,
        object: `audit:key:${key.id}`,
        planHash: null,
        beforeDigest: null,
        afterDigest: null,
        details: { keyId: key.id, afterSeq: seq - 1 },
      },
      key,
    );
    await insertEvent(client, activation);
    seq++;
    prevHash = activation.hash;
  }
  const ev = chainEvent(seq, prevHash, { ...e, at }, key);
  await insertEvent(client, ev);
  return { event: ev, existing: false };
}

/** One chained event into him_audit (inside the caller's transaction, under the append lock). */
async function insertEvent(client: Queryable, ev: AuditEvent): Promise<void> {
  await client.query(
    'INSERT INTO him_audit (seq, at, actor, action, object, plan_hash, before_digest, after_digest, details, prev_hash, hash, v, actor_source, alg, key_id, idempotency_key) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16)',
    [
      ev.seq,
      ev.at,
      ev.actor,
      ev.action,
      ev.object,
      ev.planHash,
      ev.beforeDigest,
      ev.afterDigest,
      JSON.stringify(ev.details),
      ev.prevHash,
      ev.hash,
      ev.v,
      ev.actorSource,
      ev.alg,
      ev.keyId,
      ev.idempotencyKey ?? null,
    ],
  );
}
