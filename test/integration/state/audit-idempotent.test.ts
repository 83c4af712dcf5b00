// Idempotent audit appends on the real state database (Postgres, the only state backend): an event
// whose idempotency key is already in the chain is not appended again — sequentially (a resumed
// attempt after the retry recorded), and when two stores race with the same key — and with
// recordStep the late attempt's state change is not made either. Old events without a key, an
// audit table from before the key column, and a keyed chain all still verify (`migrate audit
// verify`, anchors included). And a keyed worker refuses to start in front of an unkeyed head.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { openState } from '../../../app/runtime/runtime';
import { assertAuditKeyActive } from '../../../app/runtime/audit-setup';
import type { AuditEventInput } from '../../../core/audit/chain';
import { AuditAction } from '../../../core/audit/chain';
import { idempotencyKey } from '../../../core/audit/idempotency';
import type { MigrateConfig } from '../../../core/config/schema';
import type { StateStore } from '../../../core/state/store';
import type { Fixture } from '../audit/fixture';
import { env, fixture } from '../audit/fixture';
import { rejectionOf } from '../../helpers/errors';
import { syntheticPlan } from '../../helpers/hostile';
import { MIGRATE, run } from '../../helpers/cli';

const KEY_ENV = 'HIM_IT_IDEM_KEY';
const KEY = 'k'.repeat(48);
let f: Fixture | undefined;
const open: StateStore[] = [];

async function store(cfg: MigrateConfig, extraEnv: Record<string, string> = {}): Promise<StateStore> {
  const s = await openState(cfg, { ...process.env, ...env, ...extraEnv });
  open.push(s);
  return s;
}

afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  await f?.dispose();
  f = undefined;
});

const key = (table: string, action: string): string =>
  idempotencyKey({ workflowId: `migrate/p/wave-1/${table}`, runId: 'run-1', activityId: '7', action, object: `hms:${table}` });

function event(table: string, action: AuditEventInput['action'], details: Record<string, unknown>, withKey = true): AuditEventInput {
  return {
    at: new Date().toISOString(),
    actor: 'worker:it:1',
    action,
    object: `hms:${table}`,
    planHash: null,
    beforeDigest: null,
    afterDigest: null,
    details,
    ...(withKey ? { idempotencyKey: key(table, action) } : {}),
  };
}

async function chain(s: StateStore): Promise<{ seq: number; action: string; object: string; key: string | null; details: unknown }[]> {
  const out = [];
  for await (const e of s.readAudit())
    out.push({ seq: e.seq, action: e.action, object: e.object, key: e.idempotencyKey ?? null, details: e.details });
  return out;
}

describe('audit appends are at most once per idempotency key', () => {
  it('sequential and racing appends of one key give one event; unkeyed events are always appended; the chain and its anchors verify', async () => {
    f = await fixture();
    await f.append(2); // events without a key, as every writer before keys wrote them
    const a = await store(f.config);
    const b = await store(f.config);
    const first = await a.appendAudit(event('db.t0', AuditAction.TABLE_VALIDATED, { attempt: 1 }));
    const again = await b.appendAudit(event('db.t0', AuditAction.TABLE_VALIDATED, { attempt: 2 }));
    expect(again).toMatchObject({ seq: first.seq, hash: first.hash, details: { attempt: 1 } });
    // Two stores (two pools, two connections) racing with the same key, twenty keys at once.
    const tables = Array.from({ length: 20 }, (_, i) => `db.r${i}`);
    const raced = await Promise.all(
      tables.flatMap((t) => [
        a.appendAudit(event(t, AuditAction.TABLE_REGISTERED, { by: 'a' })),
        b.appendAudit(event(t, AuditAction.TABLE_REGISTERED, { by: 'b' })),
      ]),
    );
    for (let i = 0; i < tables.length; i++) expect(raced[2 * i]?.seq).toBe(raced[2 * i + 1]?.seq);
    // The same content without a key is two facts.
    await a.appendAudit(event('db.u', AuditAction.TABLE_FAILED, {}, false));
    await a.appendAudit(event('db.u', AuditAction.TABLE_FAILED, {}, false));
    const c = await chain(a);
    expect(c.map((e) => e.seq)).toEqual(Array.from({ length: 2 + 1 + 20 + 2 }, (_, i) => i + 1));
    expect(c.filter((e) => e.object === 'hms:db.t0')).toHaveLength(1);
    for (const t of tables) expect(c.filter((e) => e.object === `hms:${t}`)).toHaveLength(1);
    expect(c.filter((e) => e.object === 'hms:db.u').map((e) => e.key)).toEqual([null, null]);
    expect(c.filter((e) => e.key !== null)).toHaveLength(21);
    const v = await f.verify();
    expect([v.code, v.json]).toEqual([0, expect.objectContaining({ ok: true, events: 25 })]);
    expect(v.json.unanchored ?? 0).toBe(0);
  }, 180_000);

  it('recordStep: a late attempt whose key is recorded changes nothing (not even past its fence) and gets the first event back; racing attempts record once', async () => {
    f = await fixture('no-anchor');
    const a = await store(f.config);
    const b = await store(f.config);
    const plan = syntheticPlan(['h_db.t1', 'h_db.t2']);
    await a.submitPlan(plan);
    await a.updateTable(plan.hash, 'h_db.t1', { ownerRun: 'run-1' });
    const first = await a.recordStep(
      plan.hash,
      'h_db.t1',
      { status: 'migrated', validation: { attempt: 2 } },
      event('h_db.t1', AuditAction.TABLE_VALIDATED, { attempt: 2 }),
      { run: 'run-1' },
    );
    // The table moves on (e.g. it was rolled back and its run released it); then the frozen attempt 1 resumes.
    await a.updateTable(plan.hash, 'h_db.t1', { status: 'failed', ownerRun: null });
    const late = await b.recordStep(
      plan.hash,
      'h_db.t1',
      { status: 'migrated', validation: { attempt: 1 } },
      event('h_db.t1', AuditAction.TABLE_VALIDATED, { attempt: 1 }),
      { run: 'run-1' },
    );
    expect(late).toMatchObject({ seq: first.seq, hash: first.hash });
    expect(await a.getTable(plan.hash, 'h_db.t1')).toMatchObject({ status: 'failed', validation: { attempt: 2 } });
    // Without a key the fence still decides (nothing recorded).
    const fenced = await rejectionOf(
      b.recordStep(plan.hash, 'h_db.t1', { status: 'migrated' }, event('h_db.t1', AuditAction.TABLE_VALIDATED, {}, false), {
        run: 'run-1',
      }),
    );
    expect(fenced.code).toBe('TABLE_RUN_FENCED');
    // Two attempts racing on t2: one event, one state change.
    const [x, y] = await Promise.all(
      [a, b].map((s, i) =>
        s.recordStep(
          plan.hash,
          'h_db.t2',
          { status: 'registered', errorMessage: `attempt ${i}` },
          event('h_db.t2', AuditAction.TABLE_REGISTERED, { i }),
        ),
      ),
    );
    expect(x?.seq).toBe(y?.seq);
    const c = await chain(a);
    expect(c.map((e) => [e.action, e.object])).toEqual([
      [AuditAction.TABLE_VALIDATED, 'hms:h_db.t1'],
      [AuditAction.TABLE_REGISTERED, 'hms:h_db.t2'],
    ]);
    expect((await a.getTable(plan.hash, 'h_db.t2')).errorMessage).toBe(`attempt ${(c[1]?.details as { i: number }).i}`);
    const v = await f.verify();
    expect([v.code, v.json]).toEqual([0, expect.objectContaining({ ok: true, events: 2 })]);
  }, 180_000);

  it('an audit table from before the key column is upgraded in place; its events verify beside keyed ones; a keyed chain dedups too', async () => {
    process.env[KEY_ENV] = KEY;
    f = await fixture({ keyEnv: KEY_ENV });
    const unkeyedCfg: MigrateConfig = {
      ...f.config,
      audit: { anchorLocation: f.anchorLocation, trustDeclaredActor: false },
    } as MigrateConfig;
    await f.append(3, unkeyedCfg);
    await f.sql('ALTER TABLE him_audit DROP COLUMN idempotency_key'); // the schema every earlier version made
    // A keyed worker refuses to start in front of that unkeyed head (before anything else).
    const refusedStart = await rejectionOf(assertAuditKeyActive(f.config, { [KEY_ENV]: KEY }, await store(unkeyedCfg)));
    expect([refusedStart.code, refusedStart.retryable]).toEqual(['AUDIT_KEY_NOT_ACTIVE', false]);
    const s = await store(unkeyedCfg); // opening upgrades the table
    expect(await f.sql("SELECT indexname FROM pg_indexes WHERE indexname = 'him_audit_idempotency_key'")).toHaveLength(1);
    await s.appendAudit(event('db.k', AuditAction.TABLE_REGISTERED, {}));
    await s.appendAudit(event('db.k', AuditAction.TABLE_REGISTERED, {}));
    expect((await chain(s)).map((e) => e.key === null)).toEqual([true, true, true, false]);
    const act = await run(MIGRATE, ['audit', 'activate-key', '-c', f.configFile, '--json'], 120_000, { [KEY_ENV]: KEY });
    expect(act.code).toBe(0);
    const keyed = await store(f.config, { [KEY_ENV]: KEY });
    await assertAuditKeyActive(f.config, { [KEY_ENV]: KEY }, keyed); // passes now
    const k1 = await keyed.appendAudit(event('db.k2', AuditAction.TABLE_VALIDATED, { n: 1 }));
    const k2 = await keyed.appendAudit(event('db.k2', AuditAction.TABLE_VALIDATED, { n: 2 }));
    expect([k2.seq, k2.alg]).toEqual([k1.seq, 'hmac-sha256']);
    const v = await f.verify({ [KEY_ENV]: KEY });
    expect([v.code, v.json]).toEqual([0, expect.objectContaining({ ok: true, events: 6, keyed: 2 })]);
  }, 180_000);
});

describe('migrate worker with audit.keyEnv in front of an unkeyed chain head', () => {
  it('exits 1 with AUDIT_KEY_NOT_ACTIVE before it polls', async () => {
    process.env[KEY_ENV] = KEY;
    // The stack's HMS, catalog and Temporal (its own task queue): everything a worker needs to start.
    const stack = parse(readFileSync(path.join(env.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8')) as Record<
      string,
      Record<string, unknown>
    >;
    const temporal = { ...stack.temporal, taskQueue: `him-idem-${Date.now()}` };
    f = await fixture({ keyEnv: KEY_ENV }, { hms: stack.hms, catalog: stack.catalog, temporal });
    await f.append(2, { ...f.config, audit: { anchorLocation: f.anchorLocation, trustDeclaredActor: false } } as MigrateConfig);
    const started = Date.now();
    const w = await run(MIGRATE, ['worker', '-c', f.configFile, '--json'], 120_000, { [KEY_ENV]: KEY });
    // --json: the error on stdout, as one object (cli/output.ts).
    expect([w.code, JSON.parse(w.stdout)]).toEqual([
      1,
      expect.objectContaining({ ok: false, error: expect.objectContaining({ code: 'AUDIT_KEY_NOT_ACTIVE' }) }),
    ]);
    expect(`${w.stdout}${w.stderr}`).not.toContain('polling');
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 180_000);
});
