// The audit log's hash chain (SOX/ICFR evidence): every event carries the hash of the one before
// it, and its own hash covers its content and that link, so editing, dropping or reordering any
// event breaks verification from that point on. Pure; no I/O; time comes in with the event.
import { canonicalJson, sha256Hex } from '../plan/hash';

/** Every mutation the tool makes, and every human decision (approvals, forced rollbacks). */
export const AuditAction = {
  PLAN_SUBMITTED: 'plan.submitted',
  WAVE_APPROVED: 'wave.approved',
  TABLE_ORIGINAL_SAVED: 'table.original-saved',
  TABLE_METADATA_WRITTEN: 'table.metadata-written',
  TABLE_REGISTERED: 'table.registered',
  TABLE_VALIDATED: 'table.validated',
  TABLE_FAILED: 'table.failed',
  TABLE_UNREGISTERED: 'table.unregistered',
  TABLE_METADATA_DELETED: 'table.metadata-deleted',
  TABLE_ROLLED_BACK: 'table.rolled-back',
  ROLLBACK_FORCED: 'rollback.forced',
  VALIDATION_RUN: 'validation.run',
  /** `migrate repair`: a table's orphaned metadata removed and its record closed as failed. */
  TABLE_REPAIRED: 'table.repaired',
} as const;
export type AuditAction = (typeof AuditAction)[keyof typeof AuditAction];

export interface AuditEventInput {
  /** ISO-8601 instant. */
  readonly at: string;
  /** Who: a user name (CLI), `worker:<identity>` for activities. */
  readonly actor: string;
  readonly action: AuditAction;
  /** What: `hms:db.table`, `plan:<hash>`, `wave:<n>`. */
  readonly object: string;
  readonly planHash: string | null;
  /** sha256 of the object before/after the action (null when there is no such state). */
  readonly beforeDigest: string | null;
  readonly afterDigest: string | null;
  readonly details: Readonly<Record<string, unknown>>;
}

export interface AuditEvent extends AuditEventInput {
  readonly seq: number;
  readonly prevHash: string;
  readonly hash: string;
}

export const GENESIS_HASH = '0'.repeat(64);

/** The hash of event `seq` with content `e` following `prevHash`. */
export function eventHash(seq: number, prevHash: string, e: AuditEventInput): string {
  return sha256Hex(canonicalJson({ seq, prevHash, at: e.at, actor: e.actor, action: e.action, object: e.object, planHash: e.planHash, beforeDigest: e.beforeDigest, afterDigest: e.afterDigest, details: e.details }));
}

export function chainEvent(seq: number, prevHash: string, e: AuditEventInput): AuditEvent {
  return { ...e, seq, prevHash, hash: eventHash(seq, prevHash, e) };
}

export interface ChainVerdict {
  readonly ok: boolean;
  readonly events: number;
  /** The first broken event (seq) and why. */
  readonly brokenAt?: number;
  readonly reason?: string;
  readonly head: string;
}

/** Fold the events in seq order; the first gap, bad link or bad hash ends verification. */
export function verifyChain(events: Iterable<AuditEvent>): ChainVerdict {
  let prev = GENESIS_HASH;
  let expectSeq = 1;
  let n = 0;
  for (const e of events) {
    if (e.seq !== expectSeq) return { ok: false, events: n, brokenAt: e.seq, reason: `expected event ${expectSeq}, found ${e.seq} (an event was removed or reordered)`, head: prev };
    if (e.prevHash !== prev) return { ok: false, events: n, brokenAt: e.seq, reason: 'its link to the previous event does not match', head: prev };
    if (eventHash(e.seq, e.prevHash, e) !== e.hash) return { ok: false, events: n, brokenAt: e.seq, reason: 'its content does not match its hash (edited after writing)', head: prev };
    prev = e.hash;
    expectSeq++;
    n++;
  }
  return { ok: true, events: n, head: prev };
}

/** Digest of any JSON-able state (saved originals, metadata locations) for before/after fields. */
export function digestOf(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
