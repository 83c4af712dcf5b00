import { chainEvent, GENESIS_HASH, verifyChain } from '../../../core/audit/chain';
import type { AuditEvent, AuditEventInput } from '../../../core/audit/chain';
import { chainKeyFrom } from '../../../core/audit/keyed';
import { ErrorCode } from '../../../core/errors';
import { canonicalJson, sha256Hex } from '../../../core/hash';

const input = (i: number): AuditEventInput => ({
  at: `2026-12-03T00:00:0${i}.000Z`,
  actor: 'alice',
  action: 'table.registered',
  object: `rest:ns.t${i}`,
  planHash: 'p'.repeat(64),
  beforeDigest: null,
  afterDigest: `d${i}`,
  details: { n: i, nested: { b: 2, a: 1 } },
});
function chain(n: number): AuditEvent[] {
  const out: AuditEvent[] = [];
  for (let i = 1; i <= n; i++) out.push(chainEvent(i, out[i - 2]?.hash ?? GENESIS_HASH, input(i)));
  return out;
}

describe('audit hash chain', () => {
  it('an intact chain verifies, and its head is the last hash', () => {
    const c = chain(5);
    expect(verifyChain(c)).toEqual({ ok: true, events: 5, keyed: 0, head: c[4]?.hash });
  });
  it('key order inside details does not matter (canonical JSON), content does', () => {
    const a = chainEvent(1, GENESIS_HASH, input(1));
    const b = chainEvent(1, GENESIS_HASH, { ...input(1), details: { nested: { a: 1, b: 2 }, n: 1 } });
    expect(a.hash).toBe(b.hash);
    expect(chainEvent(1, GENESIS_HASH, { ...input(1), actor: 'mallory' }).hash).not.toBe(a.hash);
  });
  it('an edited event is found', () => {
    const c = chain(5);
    c[2] = { ...(c[2] as AuditEvent), actor: 'mallory' };
    expect(verifyChain(c)).toMatchObject({ ok: false, brokenAt: 3, events: 2 });
  });
  it('an edit that also re-hashes the event breaks the next link', () => {
    const c = chain(5);
    const e = c[2] as AuditEvent;
    c[2] = chainEvent(3, e.prevHash, { ...e, actor: 'mallory' });
    expect(verifyChain(c)).toMatchObject({ ok: false, brokenAt: 4 });
  });
  it('a removed or reordered event is found', () => {
    const c = chain(5);
    expect(verifyChain([...c.slice(0, 2), ...c.slice(3)])).toMatchObject({ ok: false, brokenAt: 4 });
    expect(verifyChain([c[0], c[2], c[1], c[3]] as AuditEvent[])).toMatchObject({ ok: false, brokenAt: 3 });
  });
});

describe('audit chain format 2: keyed events, legacy events, anchors', () => {
  const key = chainKeyFrom('x'.repeat(48));
  const keyed = (n: number, from = 1, prev = GENESIS_HASH): AuditEvent[] => {
    const out: AuditEvent[] = [];
    for (let i = from; i < from + n; i++) out.push(chainEvent(i, out[out.length - 1]?.hash ?? prev, input(i), key));
    return out;
  };
  /** A format-1 event as the previous build wrote it: plain sha256 over the content without v/actorSource/alg/keyId. */
  const legacy = (seq: number, prevHash: string): AuditEvent => {
    const e = input(seq);
    const hash = sha256Hex(
      canonicalJson({
        seq,
        prevHash,
        at: e.at,
        actor: e.actor,
        action: e.action,
        object: e.object,
        planHash: e.planHash,
        beforeDigest: e.beforeDigest,
        afterDigest: e.afterDigest,
        details: e.details,
      }),
    );
    return { ...e, v: 1, seq, prevHash, alg: 'sha256', keyId: null, hash };
  };

  it('a keyed chain verifies with its key, and records the actor source', () => {
    const c = keyed(4);
    expect(c[0]).toMatchObject({ v: 2, alg: 'hmac-sha256', keyId: key.id, actorSource: 'unspecified' });
    expect(chainEvent(1, GENESIS_HASH, { ...input(1), actor: 'worker:h:1' }).actorSource).toBe('worker');
    expect(verifyChain(c, { key })).toMatchObject({ ok: true, events: 4, keyed: 4 });
  });
  it('a keyed chain without the key cannot be verified: CONFIG_INVALID, not intact', () => {
    expect(verifyChain(keyed(2))).toMatchObject({ ok: false, code: ErrorCode.CONFIG_INVALID, brokenAt: 1 });
  });
  it('another key is named as such', () => {
    expect(verifyChain(keyed(2), { key: chainKeyFrom('y'.repeat(48)) })).toMatchObject({
      ok: false,
      code: ErrorCode.AUDIT_CHAIN_BROKEN,
      brokenAt: 1,
      reason: expect.stringContaining(key.id),
    });
  });
  it('a rewrite recomputed with plain sha256 (either format) is found: keyed never goes back to unkeyed', () => {
    const c = keyed(4);
    const third = c[2] as AuditEvent;
    // The attacker rewrites event 3 and re-chains 3..4 without the key.
    const r3 = chainEvent(3, third.prevHash, { ...input(3), actor: 'mallory' });
    const r4 = chainEvent(4, r3.hash, input(4));
    expect(verifyChain([c[0], c[1], r3, r4] as AuditEvent[], { key })).toMatchObject({
      ok: false,
      code: ErrorCode.AUDIT_CHAIN_BROKEN,
      brokenAt: 3,
      reason: expect.stringContaining('not keyed'),
    });
    const v1 = legacy(3, third.prevHash);
    expect(verifyChain([c[0], c[1], v1] as AuditEvent[], { key })).toMatchObject({
      ok: false,
      brokenAt: 3,
      reason: expect.stringContaining('not keyed'),
    });
  });
  it('a legacy (format 1) chain still verifies, and may continue keyed (the upgrade path)', () => {
    const old = [legacy(1, GENESIS_HASH)];
    old.push(legacy(2, (old[0] as AuditEvent).hash));
    expect(verifyChain(old)).toMatchObject({ ok: true, events: 2, keyed: 0 });
    const all = [...old, ...keyed(2, 3, (old[1] as AuditEvent).hash)];
    expect(verifyChain(all, { key })).toMatchObject({ ok: true, events: 4, keyed: 2 });
    // Old and new unkeyed writers side by side (a rolling upgrade): formats may interleave.
    const mixed = [...old, chainEvent(3, (old[1] as AuditEvent).hash, input(3))];
    mixed.push(legacy(4, (mixed[2] as AuditEvent).hash));
    expect(verifyChain(mixed)).toMatchObject({ ok: true, events: 4 });
  });
  it('the anchor: deleted newest events, an empty table and a recomputed chain each fail AUDIT_ANCHOR_MISMATCH', () => {
    const c = keyed(5);
    const anchor = { seq: 5, hash: (c[4] as AuditEvent).hash, at: 'now' };
    expect(verifyChain(c, { key, anchor })).toMatchObject({ ok: true, unanchored: 0 });
    expect(verifyChain(c.slice(0, 3), { key, anchor })).toMatchObject({
      ok: false,
      code: ErrorCode.AUDIT_ANCHOR_MISMATCH,
      events: 3,
      reason: expect.stringContaining('newest 2 event(s) were deleted'),
    });
    expect(verifyChain([], { key, anchor })).toMatchObject({
      ok: false,
      code: ErrorCode.AUDIT_ANCHOR_MISMATCH,
      reason: expect.stringContaining('truncated'),
    });
    const plain = chain(5);
    expect(verifyChain(plain, { anchor })).toMatchObject({
      ok: false,
      code: ErrorCode.AUDIT_ANCHOR_MISMATCH,
      brokenAt: 5,
      reason: expect.stringContaining('rewritten'),
    });
  });
  it('events newer than the anchor are counted, not refused', () => {
    const c = keyed(5);
    expect(verifyChain(c, { key, anchor: { seq: 3, hash: (c[2] as AuditEvent).hash, at: 'now' } })).toMatchObject({
      ok: true,
      unanchored: 2,
    });
  });
});
