// The idempotency key of an audit event (core/audit/idempotency.ts): equal for every attempt of one
// step, different for another run, activity, action, object or discriminator; and never part of
// the event's hash (old events and keyed ones hash alike).
import { AuditAction, chainEvent, eventHash, GENESIS_HASH, verifyChain } from '../../../core/audit/chain';
import { idempotencyKey } from '../../../core/audit/idempotency';

const step = { workflowId: 'migrate/abc/wave-1/db.t', runId: 'r1', activityId: '5', action: 'table.validated', object: 'hms:db.t' };

describe('idempotencyKey', () => {
  it('is a function of the step only (no attempt, no time): the same parts give the same key', () => {
    expect(idempotencyKey(step)).toBe(idempotencyKey({ ...step }));
    expect(idempotencyKey(step)).toMatch(/^step:[0-9a-f]{64}$/);
    expect(idempotencyKey({ ...step, discriminator: null })).toBe(idempotencyKey(step));
  });

  it('differs when any part differs', () => {
    const variants = [
      { ...step, workflowId: 'migrate/abc/wave-2/db.t' },
      { ...step, runId: 'r2' },
      { ...step, activityId: '6' },
      { ...step, action: 'table.registered' },
      { ...step, object: 'hms:db.u' },
      { ...step, discriminator: '42' },
    ];
    const keys = new Set([idempotencyKey(step), ...variants.map(idempotencyKey)]);
    expect(keys.size).toBe(variants.length + 1);
  });

  it('is not hashed: an event with and without its key has one hash, and the chain verifies', () => {
    const input = {
      at: '2026-12-06T03:00:00.000Z',
      actor: 'worker:h:1',
      action: AuditAction.TABLE_VALIDATED,
      object: 'hms:db.t',
      planHash: null,
      beforeDigest: null,
      afterDigest: null,
      details: { ok: true },
    };
    const plain = chainEvent(1, GENESIS_HASH, input);
    const keyed = chainEvent(1, GENESIS_HASH, { ...input, idempotencyKey: idempotencyKey(step) });
    expect(keyed.idempotencyKey).toBe(idempotencyKey(step));
    expect(keyed.hash).toBe(plain.hash);
    expect(eventHash({ ...keyed, idempotencyKey: 'step:other' })).toBe(plain.hash);
    const next = chainEvent(2, keyed.hash, { ...input, object: 'hms:db.u' });
    expect(verifyChain([keyed, next])).toMatchObject({ ok: true, events: 2 });
  });
});
