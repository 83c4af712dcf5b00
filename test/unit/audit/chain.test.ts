import { chainEvent, GENESIS_HASH, verifyChain } from '../../../core/audit/chain';
import type { AuditEvent, AuditEventInput } from '../../../core/audit/chain';

const input = (i: number): AuditEventInput => ({ at: `2026-12-03T00:00:0${i}.000Z`, actor: 'alice', action: 'table.registered', object: `rest:ns.t${i}`, planHash: 'p'.repeat(64), beforeDigest: null, afterDigest: `d${i}`, details: { n: i, nested: { b: 2, a: 1 } } });
function chain(n: number): AuditEvent[] {
  const out: AuditEvent[] = [];
  for (let i = 1; i <= n; i++) out.push(chainEvent(i, out[i - 2]?.hash ?? GENESIS_HASH, input(i)));
  return out;
}

describe('audit hash chain', () => {
  it('an intact chain verifies, and its head is the last hash', () => {
    const c = chain(5);
    expect(verifyChain(c)).toEqual({ ok: true, events: 5, head: c[4]?.hash });
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
