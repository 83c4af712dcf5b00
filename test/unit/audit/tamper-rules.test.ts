// The four tamperings an earlier verify let through (docs/audit.md "What each holder can forge"),
// decided by the pure rules of core/audit: every anchor is checked, anchors are signed on keyed
// chains, a configured key needs keyed events, unkeyed events past the newest anchor fail.
import type { AnchorRecord } from '../../../core/audit/anchor';
import { anchorJson, anchorMacValid, parseAnchor, signAnchor } from '../../../core/audit/anchor';
import type { AuditEvent, AuditEventInput } from '../../../core/audit/chain';
import { chainEvent, GENESIS_HASH, verifyChain } from '../../../core/audit/chain';
import { chainKeyFrom } from '../../../core/audit/keyed';
import { ErrorCode } from '../../../core/errors';

const key = chainKeyFrom('k'.repeat(48));
const input = (i: number, actor = 'worker:h:1'): AuditEventInput => ({
  at: `2026-12-05T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
  actor,
  action: 'table.validated',
  object: `rest:ns.t${i}`,
  planHash: null,
  beforeDigest: null,
  afterDigest: null,
  details: { i },
});
/** Events `from`..`to` chained after `prev`, keyed with `k` (unkeyed without). */
function chainOf(from: number, to: number, prev: string, k?: typeof key, actor?: string): AuditEvent[] {
  const out: AuditEvent[] = [];
  for (let i = from; i <= to; i++) out.push(chainEvent(i, out[out.length - 1]?.hash ?? prev, input(i, actor), k));
  return out;
}
const anchorOf = (e: AuditEvent, k?: typeof key): AnchorRecord =>
  signAnchor({ seq: e.seq, hash: e.hash, prevHash: e.prevHash, at: e.at }, k);
const at = (c: AuditEvent[], seq: number): AuditEvent => c[seq - 1] as AuditEvent;

describe('(1) no key, with anchors: a forged newest event appended', () => {
  const real = chainOf(1, 5, GENESIS_HASH);
  const anchors = real.map((e) => anchorOf(e));
  it('the untouched chain is intact with every anchor checked', () => {
    expect(verifyChain(real, { anchors })).toMatchObject({ ok: true, events: 5, anchorsChecked: 5, unanchored: 0 });
  });
  it('an appended unkeyed event without its anchor fails AUDIT_ANCHOR_MISMATCH (not a note)', () => {
    const forged = [...real, chainEvent(6, at(real, 5).hash, input(6, 'mallory'))];
    expect(verifyChain(forged, { anchors })).toMatchObject({
      ok: false,
      code: ErrorCode.AUDIT_ANCHOR_MISMATCH,
      brokenAt: 6,
      unanchoredUnkeyed: 1,
      reason: expect.stringContaining('neither anchored nor keyed'),
    });
  });
  it('keyed events past the newest anchor (a failed anchor write) stay a count: the key protects them', () => {
    const c = chainOf(1, 5, GENESIS_HASH, key);
    expect(verifyChain(c, { key, anchors: c.slice(0, 3).map((e) => anchorOf(e, key)) })).toMatchObject({ ok: true, unanchored: 2 });
  });
});

describe('(2) anchors: the chain recomputed from event 4, plus one forged newest anchor', () => {
  const real = chainOf(1, 8, GENESIS_HASH);
  const realAnchors = real.map((e) => anchorOf(e));
  const recomputed = [...real.slice(0, 3), ...chainOf(4, 8, at(real, 3).hash, undefined, 'mallory')];
  const forgedNewest = [...recomputed, chainEvent(9, at(recomputed, 8).hash, input(9, 'mallory'))];
  it('the newest anchor alone agrees with the forgery', () => {
    expect(verifyChain(forgedNewest, { anchor: anchorOf(at(forgedNewest, 9)) })).toMatchObject({ ok: true });
  });
  it('the older anchors contradict it: AUDIT_ANCHOR_MISMATCH at the first rewritten event', () => {
    expect(verifyChain(forgedNewest, { anchors: [...realAnchors, anchorOf(at(forgedNewest, 9))] })).toMatchObject({
      ok: false,
      code: ErrorCode.AUDIT_ANCHOR_MISMATCH,
      brokenAt: 4,
      reason: expect.stringContaining('rewritten'),
    });
  });
  it("an anchor whose prevHash disagrees with its event's link is found", () => {
    const a = { ...anchorOf(at(real, 5)), prevHash: 'f'.repeat(64) };
    expect(verifyChain(real, { anchors: [a] })).toMatchObject({ ok: false, brokenAt: 5, reason: expect.stringContaining('another link') });
  });
});

describe('(3) key, no anchor: every keyed event downgraded to plain sha256', () => {
  const real = chainOf(1, 6, GENESIS_HASH, key);
  const downgraded = chainOf(1, 6, GENESIS_HASH);
  it('the keyed chain verifies; the downgraded one fails AUDIT_CHAIN_BROKEN: a configured key needs keyed events', () => {
    expect(verifyChain(real, { key })).toMatchObject({ ok: true, keyed: 6 });
    expect(verifyChain(downgraded, { key })).toMatchObject({
      ok: false,
      code: ErrorCode.AUDIT_CHAIN_BROKEN,
      keyed: 0,
      reason: expect.stringContaining('downgraded'),
    });
  });
  it('a downgrade of the tail only is found where keyed turns unkeyed', () => {
    const tail = [...real.slice(0, 3), ...chainOf(4, 6, at(real, 3).hash)];
    expect(verifyChain(tail, { key })).toMatchObject({ ok: false, code: ErrorCode.AUDIT_CHAIN_BROKEN, brokenAt: 4 });
  });
  it('an empty chain with a key is intact (nothing written yet)', () => {
    expect(verifyChain([], { key })).toMatchObject({ ok: true, events: 0 });
  });
});

describe('(4) key + anchors: downgrade, forged append and forged anchor', () => {
  const real = chainOf(1, 5, GENESIS_HASH, key);
  const anchors = real.map((e) => anchorOf(e, key));
  const downgraded = chainOf(1, 6, GENESIS_HASH, undefined, 'mallory');
  const forgedAnchor = anchorOf(at(downgraded, 6));
  it('fails: the chain holds no keyed event', () => {
    expect(verifyChain(downgraded, { key, anchors: [...anchors, forgedAnchor] })).toMatchObject({
      ok: false,
      code: ErrorCode.AUDIT_CHAIN_BROKEN,
    });
  });
  it('a forged anchor over a keyed event, unsigned or signed with another key, fails AUDIT_ANCHOR_MISMATCH', () => {
    const unsigned = { seq: 5, hash: at(real, 5).hash, prevHash: at(real, 5).prevHash, at: at(real, 5).at };
    expect(verifyChain(real, { key, anchors: [unsigned] })).toMatchObject({
      ok: false,
      code: ErrorCode.AUDIT_ANCHOR_MISMATCH,
      reason: expect.stringContaining('not signed'),
    });
    const other = signAnchor(unsigned, chainKeyFrom('o'.repeat(48)));
    expect(verifyChain(real, { key, anchors: [other] })).toMatchObject({ ok: false, reason: expect.stringContaining('forged') });
  });
  it('the untouched keyed, anchored chain verifies with every anchor checked', () => {
    expect(verifyChain(real, { key, anchors })).toMatchObject({ ok: true, anchorsChecked: 5, keyed: 5 });
  });
});

describe('anchor objects: formats 1 and 2', () => {
  const e = chainOf(1, 1, GENESIS_HASH, key)[0] as AuditEvent;
  it('a signed anchor round-trips through its JSON and its MAC is confirmed only by its key', () => {
    const a = anchorOf(e, key);
    const back = parseAnchor(anchorJson(a), 'x/anchor-000000000001.json', 1);
    expect(back).toEqual(a);
    expect(anchorMacValid(back, key)).toBe(true);
    expect(anchorMacValid({ ...back, hash: '0'.repeat(64) }, key)).toBe(false);
    expect(anchorMacValid(back, chainKeyFrom('o'.repeat(48)))).toBe(false);
  });
  it('a format-1 anchor (no prevHash, no MAC) still parses and still pins a keyed event by its hash', () => {
    const v1 = `${JSON.stringify({ v: 1, seq: 1, hash: e.hash, at: e.at })}\n`;
    const a = parseAnchor(v1, 'p', 1);
    expect(a).toEqual({ seq: 1, hash: e.hash, at: e.at });
    expect(verifyChain([e], { key, anchors: [a] })).toMatchObject({ ok: true });
  });
  it.each([
    ['a format-2 anchor without prevHash', { v: 2, seq: 1, hash: 'a'.repeat(64), at: 'x' }, /no prevHash/],
    ['a malformed MAC', { v: 2, seq: 1, hash: 'a'.repeat(64), prevHash: 'b'.repeat(64), at: 'x', mac: 'zz', keyId: 'k' }, /malformed mac/],
    ['an unknown format', { v: 3, seq: 1, hash: 'a'.repeat(64), at: 'x' }, /format 3/],
  ])('%s is AUDIT_ANCHOR_MISMATCH', (_n, obj, msg) => {
    expect(() => parseAnchor(JSON.stringify(obj), 'p', 1)).toThrow(msg);
  });
});
