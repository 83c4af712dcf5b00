// The audit chain's external anchor: after each append, the head ({seq, hash, at}) is written as an
// immutable object OUTSIDE the state database, so deleting the newest events, truncating or
// dropping the audit table, or recomputing the chain is found by `audit verify` (docs/audit.md).
// The port and the pure naming/parsing rules live here; adapters/storage/audit-anchor.ts writes
// them to an ObjectStore. Pure; no I/O.
import { ErrorCode, MigrationError } from '../errors';

/** The head of the chain at one moment. */
export interface AnchorRecord {
  readonly seq: number;
  readonly hash: string;
  /** ISO-8601 instant the anchored event was written. */
  readonly at: string;
}

/** Where anchors go; each anchor is written once and never overwritten. */
export interface AuditAnchor {
  /** Where anchors live (shown by `audit verify`). */
  readonly location: string;
  /** Write the anchor of event `a.seq` (create-only; an existing one is a STORAGE_PRECONDITION_FAILED). */
  write(a: AnchorRecord): Promise<void>;
  /** The anchor with the highest seq, or undefined when none was ever written. */
  newest(): Promise<(AnchorRecord & { readonly path: string }) | undefined>;
  close?(): void;
}

/** Anchor objects file format (STYLE.md §7): `v` names it. */
export const ANCHOR_FORMAT_VERSION = 1;
/** Zero-padded so that names sort like their seq (12 digits: a trillion events). */
const SEQ_DIGITS = 12;
const NAME = /^anchor-(\d{12})\.json$/;

export function anchorName(seq: number): string {
  return `anchor-${String(seq).padStart(SEQ_DIGITS, '0')}.json`;
}

/** The seq an object name anchors, or undefined for any other name. */
export function anchorSeqOf(name: string): number | undefined {
  const m = NAME.exec(name);
  return m === null ? undefined : Number(m[1]);
}

export function anchorJson(a: AnchorRecord): string {
  return `${JSON.stringify({ v: ANCHOR_FORMAT_VERSION, seq: a.seq, hash: a.hash, at: a.at })}\n`;
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
  const r = o as Partial<Record<'v' | 'seq' | 'hash' | 'at', unknown>>;
  if (typeof o !== 'object' || o === null) return bad('not an object');
  if (r.v !== ANCHOR_FORMAT_VERSION) return bad(`format ${String(r.v)}, this build reads ${ANCHOR_FORMAT_VERSION}`);
  if (r.seq !== expectSeq) return bad(`it records event ${String(r.seq)} under the name of event ${expectSeq}`);
  if (typeof r.hash !== 'string' || !/^[0-9a-f]{64}$/.test(r.hash)) return bad('no hash');
  if (typeof r.at !== 'string') return bad('no time');
  return { seq: expectSeq, hash: r.hash, at: r.at };
}
