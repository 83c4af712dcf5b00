// The audit chain's external anchors: after each append, the head ({seq, hash, prevHash, at}) is
// written as an immutable object OUTSIDE the state database, so deleting the newest events,
// truncating or dropping the audit table, or recomputing the chain is found by `audit verify`
// (docs/audit.md), which checks every anchor, not only the newest. With a chain key, each anchor
// carries an HMAC over its content, so nobody without the key can forge one. The port and the pure
// naming/parsing rules live here; adapters/storage/audit-anchor.ts writes them to an ObjectStore.
// Pure; no I/O.
import { ErrorCode, MigrationError } from '../errors';
import type { ChainKey } from './keyed';
import { hmacSha256Hex } from './keyed';

/** The head of the chain at one moment. */
export interface AnchorRecord {
  readonly seq: number;
  readonly hash: string;
  /** ISO-8601 instant the anchored event was written. */
  readonly at: string;
  /** The anchored event's link to the one before it (format 2): consecutive anchors chain through it. */
  readonly prevHash?: string;
  /** HMAC-SHA256 of the anchor's content under the chain key (format 2, keyed chains), and that key's id. */
  readonly mac?: string;
  readonly keyId?: string;
}

/** An anchor as read back, with the object it came from. */
export type StoredAnchor = AnchorRecord & { readonly path: string };

/** Where anchors go; each anchor is written once and never overwritten. */
export interface AuditAnchor {
  /** Where anchors live (shown by `audit verify`). */
  readonly location: string;
  /** Write the anchor of event `a.seq` (create-only; an existing one is a STORAGE_PRECONDITION_FAILED). */
  write(a: AnchorRecord): Promise<void>;
  /** The anchor with the highest seq, or undefined when none was ever written. */
  newest(): Promise<StoredAnchor | undefined>;
  /** Every anchor under the location, in seq order (a malformed one is AUDIT_ANCHOR_MISMATCH). */
  all(): Promise<StoredAnchor[]>;
  close?(): void;
}

/**
 * Anchor object formats (docs/architecture.md "Habits" 7), told apart by `v`: 1 — {v, seq, hash, at}; 2 — the same plus
 * {prevHash} and, on keyed chains, {keyId, mac}. New anchors are written in the newest format.
 */
export const ANCHOR_FORMAT_VERSION = 2;
/** Zero-padded so that names sort like their seq (12 digits: a trillion events). */
const SEQ_DIGITS = 12;
const NAME = /^anchor-(\d{12})\.json$/;
const HEX64 = /^[0-9a-f]{64}$/;

export function anchorName(seq: number): string {
  return `anchor-${String(seq).padStart(SEQ_DIGITS, '0')}.json`;
}

/** The seq an object name anchors, or undefined for any other name. */
export function anchorSeqOf(name: string): number | undefined {
  const m = NAME.exec(name);
  return m === null ? undefined : Number(m[1]);
}

/** What an anchor's MAC covers. */
function macContent(a: AnchorRecord): string {
  return `hms-iceberg-migrator audit anchor v2|${a.seq}|${a.hash}|${a.prevHash ?? ''}|${a.at}`;
}

/** `a` with its MAC under `key` (unchanged without a key). */
export function signAnchor(a: AnchorRecord, key: ChainKey | undefined): AnchorRecord {
  if (key === undefined) return a;
  return { ...a, keyId: key.id, mac: hmacSha256Hex(key.bytes, macContent(a)) };
}

/** Whether `a` carries a MAC that `key` confirms. */
export function anchorMacValid(a: AnchorRecord, key: ChainKey): boolean {
  return a.mac !== undefined && a.keyId === key.id && hmacSha256Hex(key.bytes, macContent(a)) === a.mac;
}

export function anchorJson(a: AnchorRecord): string {
  // An anchor without its event's link can only be written in format 1.
  if (a.prevHash === undefined) return `${JSON.stringify({ v: 1, seq: a.seq, hash: a.hash, at: a.at })}\n`;
  const keyed = a.mac === undefined ? {} : { keyId: a.keyId, mac: a.mac };
  return `${JSON.stringify({ v: ANCHOR_FORMAT_VERSION, seq: a.seq, hash: a.hash, prevHash: a.prevHash, at: a.at, ...keyed })}\n`;
}

/** Parse an anchor object; anything but a well-formed anchor of `expectSeq` is AUDIT_ANCHOR_MISMATCH. */
export function parseAnchor(text: string, path: string, expectSeq: number): AnchorRecord {
  const bad = (why: string): never => {
    throw new MigrationError(
      ErrorCode.AUDIT_ANCHOR_MISMATCH,
      `audit anchor ${path} is not a valid anchor (${why}): it was edited or replaced`,
      { path },
    );
  };
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return bad('not JSON');
  }
  const r = o as Partial<Record<'v' | 'seq' | 'hash' | 'at' | 'prevHash' | 'mac' | 'keyId', unknown>>;
  if (typeof o !== 'object' || o === null) return bad('not an object');
  if (r.v !== 1 && r.v !== 2) return bad(`format ${String(r.v)}, this build reads 1 and ${ANCHOR_FORMAT_VERSION}`);
  if (r.seq !== expectSeq) return bad(`it records event ${String(r.seq)} under the name of event ${expectSeq}`);
  if (typeof r.hash !== 'string' || !HEX64.test(r.hash)) return bad('no hash');
  if (typeof r.at !== 'string') return bad('no time');
  const base = { seq: expectSeq, hash: r.hash, at: r.at };
  if (r.v === 1) return base;
  if (typeof r.prevHash !== 'string' || !HEX64.test(r.prevHash)) return bad('no prevHash');
  if (r.mac === undefined) return { ...base, prevHash: r.prevHash };
  if (typeof r.mac !== 'string' || !HEX64.test(r.mac) || typeof r.keyId !== 'string') return bad('a malformed mac');
  return { ...base, prevHash: r.prevHash, mac: r.mac, keyId: r.keyId };
}
