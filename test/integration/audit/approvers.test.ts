// Who may approve (audit.approvers) and where an actor's name comes from (app/runtime/identity.ts). The
// approve command calls checkApprover before sending anything: a refused approver leaves no audit
// event. Config from a real YAML file through loadConfig; events in a fresh state database.
import os from 'node:os';
import { ActorSource, AuditAction } from '../../../core/audit/chain';
import { ErrorCode, MigrationError } from '../../../core/errors';
import { loadConfig } from '../../../cli/config';
import { actorOf, checkApprover } from '../../../app/runtime/identity';
import type { ActorIdentity } from '../../../app/runtime/identity';
import { openState } from '../../../app/runtime/runtime';
import type { Fixture } from './fixture';
import { env, fixture } from './fixture';

jest.setTimeout(120_000);

let f: Fixture | undefined;
afterEach(async () => {
  await f?.dispose();
  f = undefined;
});

const refusal = (fn: () => void): MigrationError | undefined => {
  try {
    fn();
  } catch (e) {
    return e as MigrationError;
  }
  return undefined;
};

/** The approve flow as the command runs it: check, then record the approval. */
async function approve(fx: Fixture, who: ActorIdentity): Promise<void> {
  const { config } = loadConfig({ file: fx.configFile, env: {}, sets: [], cwd: fx.dir });
  checkApprover(config, who);
  const state = await openState(config, { ...process.env, ...env });
  try {
    await state.appendAudit({
      at: new Date().toISOString(),
      actor: who.actor,
      actorSource: who.actorSource,
      action: AuditAction.WAVE_APPROVED,
      object: 'wave:1',
      planHash: null,
      beforeDigest: null,
      afterDigest: null,
      details: { wave: 1 },
    });
  } finally {
    await state.close();
  }
}

describe('actorOf', () => {
  it('marks MIGRATE_ACTOR as declared and the OS account as os', () => {
    expect(actorOf({ MIGRATE_ACTOR: 'alice' })).toEqual({ actor: 'alice', actorSource: ActorSource.DECLARED, user: 'alice' });
    const me = os.userInfo().username;
    expect(actorOf({})).toEqual({ actor: `${me}@${os.hostname()}`, actorSource: ActorSource.OS, user: me });
    expect(actorOf({ MIGRATE_ACTOR: '  ' }).actorSource).toBe(ActorSource.OS);
  });
});

describe('audit.approvers', () => {
  const os1 = (user: string): ActorIdentity => ({ actor: `${user}@host1`, actorSource: ActorSource.OS, user });

  it('(f) an approver on the list is recorded with the source of the name; one not on it is AUDIT_APPROVER_REFUSED and nothing is recorded', async () => {
    f = await fixture({ approvers: ['alice', 'bob@host2'] });
    await approve(f, os1('alice'));
    const e = refusal(() => checkApprover(f?.config as never, os1('mallory')));
    expect(e).toBeInstanceOf(MigrationError);
    expect(e).toMatchObject({
      code: ErrorCode.AUDIT_APPROVER_REFUSED,
      message: expect.stringContaining('mallory@host1 (os) is not on audit.approvers (alice, bob@host2)'),
    });
    await expect(approve(f, os1('mallory'))).rejects.toMatchObject({ code: ErrorCode.AUDIT_APPROVER_REFUSED });
    // user@host entries match that host only.
    await expect(approve(f, os1('bob'))).rejects.toMatchObject({ code: ErrorCode.AUDIT_APPROVER_REFUSED });
    await approve(f, { actor: 'bob@host2', actorSource: ActorSource.OS, user: 'bob' });
    expect(await f.sql('SELECT actor, actor_source, action FROM him_audit ORDER BY seq')).toEqual([
      { actor: 'alice@host1', actor_source: 'os', action: 'wave.approved' },
      { actor: 'bob@host2', actor_source: 'os', action: 'wave.approved' },
    ]);
    expect((await f.verify()).json).toMatchObject({ ok: true, events: 2 });
  });

  it('(f) a declared name (MIGRATE_ACTOR) does not count as an approver unless audit.trustDeclaredActor', async () => {
    f = await fixture({ approvers: ['alice'] });
    await f.append(0); // the schema, so "nothing recorded" is a count
    await expect(approve(f, actorOf({ MIGRATE_ACTOR: 'alice' }))).rejects.toMatchObject({
      code: ErrorCode.AUDIT_APPROVER_REFUSED,
      message: expect.stringContaining('self-declared'),
    });
    expect(await f.sql('SELECT seq FROM him_audit')).toEqual([]);
    const trusting = { ...f.config, audit: { ...f.config.audit, approvers: ['alice'], trustDeclaredActor: true } };
    expect(refusal(() => checkApprover(trusting, actorOf({ MIGRATE_ACTOR: 'alice' })))).toBeUndefined();
  });

  it('(f) no list, or an empty one, lets anyone approve', async () => {
    f = await fixture({ approvers: [] });
    expect(refusal(() => checkApprover(f?.config as never, actorOf({ MIGRATE_ACTOR: 'anyone' })))).toBeUndefined();
    expect(refusal(() => checkApprover({}, os1('anyone')))).toBeUndefined();
  });
});
