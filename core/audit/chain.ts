// The audit log's hash chain (SOX/ICFR evidence): every event carries the hash of the one before
// it, and its own hash covers its content and that link, so editing, dropping or reordering any
// event breaks verification from that point on. With a key (audit.keyEnv) the hash is an
// HMAC-SHA256, so a rewrite cannot recompute it; an external anchor (./anchor.ts) pins the head,
// so deleting the newest events or emptying the table is found too. Pure; no I/O; time comes in
// with the event.
import { canonicalJson, sha256Hex } from '../hash';
import { ErrorCode } from '../errors';
import type { AnchorRecord } from './anchor';
import { anchorMacValid } from './anchor';
import type { ChainKey } from './keyed';
import { hmacSha256Hex } from './keyed';

/** Every mutation the tool makes, and every human decision (approvals, forced rollbacks). */
export const AuditAction = {
  PLAN_SUBMITTED: 'plan.submitted',
  WAVE_APPROVED: 'wave.approved',
  /** An approval the worker's rules refused (who, from where, why), whatever client sent it. */
  WAVE_APPROVAL_REFUSED: 'wave.approval-refused',
  /** The worker verified the plan's signature with its own plan.signing keys (signer, key id). */
  PLAN_SIGNATURE_VERIFIED: 'plan.signature-verified',
  /** The worker refused a plan (unsigned or a bad signature on a signing worker, content not matching its hash). */
  PLAN_REFUSED: 'plan.refused',
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
  /** `migrate sync`: a snapshot committed to a migrated table (snapshot id, files added and removed). */
  TABLE_SYNCED: 'table.synced',
  /** `migrate cutover`: Hive writers fenced (register mode: the table renamed aside; in place: nothing to fence, recorded as such). */
  TABLE_FENCED: 'table.fenced',
  /** `migrate cutover`: final sync and validation done; Iceberg is the table from now on. */
  TABLE_CUTOVER: 'table.cutover',
  /** `migrate rollback` of a fenced or cut-over table: the Hive table back under its name, as it was. */
  TABLE_UNFENCED: 'table.unfenced',
  /** `migrate rollback`: appends other engines made since ours registered back into Hive (partitions added, files, snapshot ids). */
  TABLE_PUT_BACK: 'table.put-back',
  /** apply: a Hive view created as an Iceberg view (representations, target, metadata location). */
  VIEW_CREATED: 'view.created',
  /** apply: the Iceberg view read back and compared with what was created. */
  VIEW_VALIDATED: 'view.validated',
  /** undo or rollback: an Iceberg view this tool created dropped (the Hive view was never touched). */
  VIEW_DROPPED: 'view.dropped',
  /** apply: a Hive view left in Hive, with its code (VIEW_BASE_NOT_MIGRATED, VIEW_CATALOG_UNSUPPORTED, …). */
  VIEW_SKIPPED: 'view.skipped',
  /** The rewrite path: the Spark job wrote a new Iceberg table from the Hive one (job id, location, rows and checksums of both sides, files). */
  TABLE_REWRITTEN: 'table.rewritten',
  /** The rewrite path undone: the new table dropped (no purge) and the files its job wrote deleted (never the source). */
  TABLE_REWRITE_DROPPED: 'table.rewrite-dropped',
  /** The chain key configured (audit.keyEnv) is in use from this event on: every later event must be keyed with it. */
  AUDIT_KEY_ACTIVATED: 'audit.key-activated',
  /** `migrate audit anchor`: an operator reviewed events newer than the newest anchor (an anchor write had failed) and anchored the head. */
  AUDIT_ANCHORED: 'audit.anchored',
  /** The read-back proof (validation.readBack): the sampled files, both sides' rows and checksums, the engine and job, or why it was not made. */
  TABLE_READ_BACK: 'table.read-back',
} as const;
export type AuditAction = (typeof AuditAction)[keyof typeof AuditAction];

/**
 * Where the actor's name came from. `declared`: typed by the user (MIGRATE_ACTOR), nothing checks
 * it; `os`: the operating-system account running the command; `worker`: a worker process
 * (`worker:<host>:<pid>`); `temporal-identity`: the identity a Temporal client presented;
 * `unspecified`: not said (events written before format 2, or a caller that did not say).
 */
export const ActorSource = {
  DECLARED: 'declared',
  OS: 'os',
  WORKER: 'worker',
  TEMPORAL_IDENTITY: 'temporal-identity',
  UNSPECIFIED: 'unspecified',
} as const;
export type ActorSource = (typeof ActorSource)[keyof typeof ActorSource];

export interface AuditEventInput {
  /** ISO-8601 instant. */
  readonly at: string;
  /** Who: a user name (CLI), `worker:<identity>` for activities. */
  readonly actor: string;
  /** Where `actor` came from (format 2); derived from the name when not given. */
  readonly actorSource?: ActorSource;
  readonly action: AuditAction;
  /** What: `hms:db.table`, `plan:<hash>`, `wave:<n>`. */
  readonly object: string;
  readonly planHash: string | null;
  /** sha256 of the object before/after the action (null when there is no such state). */
  readonly beforeDigest: string | null;
  readonly afterDigest: string | null;
  readonly details: Readonly<Record<string, unknown>>;
  /**
   * The same for every attempt of one logical step (./idempotency.ts): the store appends at most
   * one event per key and returns the existing one to a later attempt. Not part of the hashed
   * content (docs/audit.md "Idempotent appends"); null or absent: always appended.
   */
  readonly idempotencyKey?: string | null;
}

/**
 * Event formats (docs/architecture.md "Habits" 7), kept per event so old chains stay verifiable:
 * 1 — sha256 of {seq, prevHash, at, actor, action, object, planHash, beforeDigest, afterDigest, details};
 * 2 — the same plus {v, actorSource, alg, keyId}, hashed with `alg` (sha256, or HMAC-SHA256 with the key `keyId`).
 * New events are always written as the newest format. Formats may interleave while old and new
 * writers run side by side (an unkeyed event is recomputable in either format); once an event is
 * keyed, every later one must be keyed.
 */
export const AUDIT_EVENT_VERSION = 2;
export type AuditEventVersion = 1 | 2;
export type HashAlg = 'sha256' | 'hmac-sha256';

export interface AuditEvent extends AuditEventInput {
  readonly v: AuditEventVersion;
  readonly seq: number;
  readonly prevHash: string;
  readonly alg: HashAlg;
  /** The id of the key of an `hmac-sha256` event (keyed.ts chainKeyFrom), else null. */
  readonly keyId: string | null;
  readonly hash: string;
}

export const GENESIS_HASH = '0'.repeat(64);

type Unhashed = Omit<AuditEvent, 'hash'>;

/** What the hash of an event covers, per format. */
function hashedContent(e: Unhashed): string {
  const base = {
    seq: e.seq,
    prevHash: e.prevHash,
    at: e.at,
    actor: e.actor,
    action: e.action,
    object: e.object,
    planHash: e.planHash,
    beforeDigest: e.beforeDigest,
    afterDigest: e.afterDigest,
    details: e.details,
  };
  if (e.v === 1) return canonicalJson(base);
  return canonicalJson({ ...base, v: e.v, actorSource: e.actorSource ?? ActorSource.UNSPECIFIED, alg: e.alg, keyId: e.keyId });
}

/** The hash of an event: sha256 or, for a keyed event, HMAC-SHA256 with `key` (which must match `keyId`). */
export function eventHash(e: Unhashed, key?: ChainKey): string {
  const text = hashedContent(e);
  if (e.alg === 'sha256') return sha256Hex(text);
  if (key === undefined) throw new Error('eventHash: a keyed event needs its key');
  return hmacSha256Hex(key.bytes, text);
}

/** Where an actor name came from when the caller did not say: worker names are recognisable. */
export function actorSourceOf(e: AuditEventInput): ActorSource {
  return e.actorSource ?? (e.actor.startsWith('worker:') ? ActorSource.WORKER : ActorSource.UNSPECIFIED);
}

/** Event `seq` with content `e` following `prevHash`, in the newest format (keyed when a key is given). */
export function chainEvent(seq: number, prevHash: string, e: AuditEventInput, key?: ChainKey): AuditEvent {
  const u: Unhashed = {
    ...e,
    actorSource: actorSourceOf(e),
    v: AUDIT_EVENT_VERSION,
    seq,
    prevHash,
    alg: key === undefined ? 'sha256' : 'hmac-sha256',
    keyId: key?.id ?? null,
  };
  return { ...u, hash: eventHash(u, key) };
}

/** Why verification failed: a coded error (cli/commands/audit.ts maps CONFIG_INVALID to exit 2, the rest to 1). */
export type ChainFailureCode =
  | typeof ErrorCode.AUDIT_CHAIN_BROKEN
  | typeof ErrorCode.AUDIT_ANCHOR_MISMATCH
  | typeof ErrorCode.CONFIG_INVALID;

export interface ChainVerdict {
  readonly ok: boolean;
  /** Events that verified (all of them when ok). */
  readonly events: number;
  /** Of those, keyed (HMAC) events. */
  readonly keyed: number;
  readonly head: string;
  /** The newest external anchor, if any, and how many events are newer than it. */
  readonly anchor?: AnchorRecord;
  readonly unanchored?: number;
  /** How many anchors were checked against the chain (every one under the location). */
  readonly anchorsChecked?: number;
  /** Of the unanchored events, those not keyed: a failure, unless their anchor was still being written (app/audit.ts reads the anchors again once). */
  readonly unanchoredUnkeyed?: number;
  readonly code?: ChainFailureCode;
  /** The first broken event (seq) and why. */
  readonly brokenAt?: number;
  readonly reason?: string;
}

export interface VerifyOptions {
  /** The configured chain key; needed to verify keyed events, and with it the chain must hold keyed events. */
  readonly key?: ChainKey;
  /** Every anchor written outside the database (audit.anchorLocation configured), any order. */
  readonly anchors?: readonly AnchorRecord[];
  /** One anchor (the newest), for callers that hold only that. */
  readonly anchor?: AnchorRecord;
}

type Step = { readonly code: ChainFailureCode; readonly reason: string } | null;

/** One event against its predecessor and the chain so far. */
function checkEvent(e: AuditEvent, expectSeq: number, prev: string, state: { keyed: boolean }, key: ChainKey | undefined): Step {
  const broken = (reason: string): Step => ({ code: ErrorCode.AUDIT_CHAIN_BROKEN, reason });
  if (e.seq !== expectSeq) return broken(`expected event ${expectSeq}, found ${e.seq} (an event was removed or reordered)`);
  if (e.prevHash !== prev) return broken('its link to the previous event does not match');
  if (state.keyed && e.alg !== 'hmac-sha256') return broken('it is not keyed but follows keyed events (rewritten without the key)');
  if (e.alg === 'hmac-sha256') {
    if (key === undefined)
      return {
        code: ErrorCode.CONFIG_INVALID,
        reason: `it is keyed (key id ${e.keyId ?? '?'}) and no key is configured: set audit.keyEnv and that variable to verify`,
      };
    if (e.keyId !== key.id)
      return broken(
        `it was keyed with key id ${e.keyId ?? '?'}, the configured key has id ${key.id} (the key was changed, or the event was rewritten)`,
      );
  }
  if (eventHash(e, key) !== e.hash) return broken('its content does not match its hash (edited after writing)');
  return null;
}

/** What verification keeps of an anchored event. */
interface Pinned {
  readonly hash: string;
  readonly prevHash: string;
  readonly keyed: boolean;
}

/** One anchor against the event it pins (undefined: the chain is shorter); null when they agree. */
function checkAnchor(a: AnchorRecord, e: Pinned | undefined, key: ChainKey | undefined, n: number): string | null {
  if (e === undefined) {
    const what =
      n === 0
        ? 'the audit table is empty: it was truncated, or dropped and created again'
        : `the newest ${a.seq - n} event(s) were deleted`;
    return `the chain ends at event ${n} but the anchor written at ${a.at} records event ${a.seq}: ${what}`;
  }
  if (e.hash !== a.hash)
    return `event ${a.seq} has hash ${e.hash.slice(0, 16)}… but the anchor records ${a.hash.slice(0, 16)}…: events up to ${a.seq} were rewritten (the chain was recomputed)`;
  if (a.prevHash !== undefined && a.prevHash !== e.prevHash)
    return `the anchor of event ${a.seq} records another link to event ${a.seq - 1}: the anchor or the chain was forged`;
  if (key !== undefined && a.mac !== undefined && !anchorMacValid(a, key))
    return `the anchor of event ${a.seq} carries a signature the configured key does not confirm: it was forged (or written with another key)`;
  // Format-1 anchors predate signing: they pin the event's hash only, which nobody can forge for a keyed event.
  if (key !== undefined && e.keyed && a.mac === undefined && a.prevHash !== undefined)
    return `event ${a.seq} is keyed but its anchor is not signed: the anchor was forged by someone without the key`;
  return null;
}

/** The chain's anchors checked; the newest also bounds what is unanchored. */
function verifyAnchors(
  n: number,
  pinned: ReadonlyMap<number, Pinned>,
  unkeyedAfter: (seq: number) => number,
  anchors: readonly AnchorRecord[],
  key: ChainKey | undefined,
): Omit<ChainVerdict, 'ok' | 'events' | 'keyed' | 'head'> & { ok: boolean } {
  const sorted = [...anchors].sort((x, y) => x.seq - y.seq);
  const newest = sorted[sorted.length - 1];
  const base = { ...(newest === undefined ? {} : { anchor: newest }), anchorsChecked: sorted.length };
  const fail = (brokenAt: number, reason: string) => ({ ...base, ok: false, code: ErrorCode.AUDIT_ANCHOR_MISMATCH, brokenAt, reason });
  // The newest first: a deleted head is the clearest story; then the oldest contradiction.
  if (newest !== undefined && newest.seq > n) return fail(n + 1, checkAnchor(newest, undefined, key, n) ?? '');
  for (const a of sorted) {
    const why = checkAnchor(a, pinned.get(a.seq), key, n);
    if (why !== null) return fail(a.seq, why);
  }
  if (newest === undefined) return { ...base, ok: true };
  const unanchored = n - newest.seq;
  const unkeyed = unkeyedAfter(newest.seq);
  if (unkeyed > 0)
    return {
      ...fail(
        newest.seq + 1,
        `${unkeyed} event(s) after event ${newest.seq} (the newest anchor) are neither anchored nor keyed: anyone who can INSERT into him_audit can append such events. ` +
          'If a writer warned that an anchor write failed, run `migrate audit anchor` to review and anchor them; otherwise they were forged',
      ),
      unanchored,
      unanchoredUnkeyed: unkeyed,
    };
  return { ...base, ok: true, unanchored };
}

/**
 * Fold the events in seq order; the first gap, bad link or bad hash ends verification. Then, with a
 * key, the chain must hold keyed events (a configured key is activated by a keyed event; a chain
 * with none was downgraded or never written with the key), and every anchor must agree with the
 * event it pins (signed when that event is keyed); events newer than the newest anchor must be keyed.
 */
export function verifyChain(events: Iterable<AuditEvent>, opts: VerifyOptions = {}): ChainVerdict {
  let prev = GENESIS_HASH;
  let n = 0;
  let keyed = 0;
  const state = { keyed: false };
  const anchors = opts.anchors ?? (opts.anchor === undefined ? undefined : [opts.anchor]);
  const wanted = new Set((anchors ?? []).map((a) => a.seq));
  const pinned = new Map<number, Pinned>();
  /** seq of every unkeyed event (only the tail after the newest anchor is asked for). */
  const unkeyedSeqs: number[] = [];
  const newestSeq = [...wanted].reduce((m, x) => Math.max(m, x), 0);
  for (const e of events) {
    const bad = checkEvent(e, n + 1, prev, state, opts.key);
    if (bad !== null) return { ok: false, events: n, keyed, head: prev, code: bad.code, brokenAt: e.seq, reason: bad.reason };
    state.keyed ||= e.alg === 'hmac-sha256';
    if (e.alg === 'hmac-sha256') keyed++;
    else if (e.seq > newestSeq) unkeyedSeqs.push(e.seq);
    if (wanted.has(e.seq)) pinned.set(e.seq, { hash: e.hash, prevHash: e.prevHash, keyed: e.alg === 'hmac-sha256' });
    prev = e.hash;
    n++;
  }
  const head = { events: n, keyed, head: prev };
  if (opts.key !== undefined && n > 0 && keyed === 0)
    return {
      ok: false,
      ...head,
      code: ErrorCode.AUDIT_CHAIN_BROKEN,
      brokenAt: n,
      reason:
        `audit.keyEnv is configured but none of the ${n} events is keyed: the keyed events were rewritten without the key (downgraded), ` +
        'or no process has written with this key yet (run `migrate audit activate-key` once to start the keyed chain)',
    };
  if (anchors === undefined) return { ok: true, ...head };
  const a = verifyAnchors(n, pinned, (after) => unkeyedSeqs.filter((s) => s > after).length, anchors, opts.key);
  return { ...head, ...a };
}

/** Digest of any JSON-able state (saved originals, metadata locations) for before/after fields. */
export function digestOf(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
