// `migrate audit verify` against an operator with database access: deleting the
// newest events, TRUNCATE, DROP TABLE and a rewrite with the chain recomputed each fail, coded
// (exit 1, never 70); an untouched chain verifies intact. Real Postgres and S3 of the stack; a
// fresh state database and anchor location per test; the real CLI binary.
import type { AuditEvent } from '../../../core/audit/chain';
import { chainEvent, GENESIS_HASH } from '../../../core/audit/chain';
import { PostgresStateStore } from '../../../adapters/state/postgres';
import { openStores } from '../../../app/runtime/runtime';
import { MIGRATE, run } from '../../helpers/cli';
import type { Fixture } from './fixture';
import { env, fixture } from './fixture';

jest.setTimeout(180_000);

const KEY_ENV = 'HIM_AUDIT_IT_KEY';
const KEY = 'it-audit-key-0123456789abcdef-0123456789abcdef';

let f: Fixture | undefined;
afterEach(async () => {
  await f?.dispose();
  f = undefined;
  delete process.env[KEY_ENV];
});

async function readChain(url: string): Promise<AuditEvent[]> {
  const s = await PostgresStateStore.open(url);
  const out: AuditEvent[] = [];
  try {
    for await (const e of s.readAudit()) out.push(e);
  } finally {
    await s.close();
  }
  return out;
}

/** Rewrite event `from` (actor → mallory) and re-chain every later event with plain sha256, as an attacker without the key would. */
async function rewriteFrom(fx: Fixture, from: number): Promise<void> {
  const events = await readChain(fx.url);
  let prev = events[from - 2]?.hash ?? GENESIS_HASH;
  await fx.sql('ALTER TABLE him_audit DISABLE TRIGGER him_audit_no_change');
  for (const e of events.slice(from - 1)) {
    const re = chainEvent(e.seq, prev, { ...e, actor: e.seq === from ? 'mallory' : e.actor });
    await fx.sql(
      'UPDATE him_audit SET actor = $2, prev_hash = $3, hash = $4, v = $5, alg = $6, key_id = $7, actor_source = $8 WHERE seq = $1',
      [e.seq, re.actor, re.prevHash, re.hash, re.v, re.alg, re.keyId, re.actorSource],
    );
    prev = re.hash;
  }
  await fx.sql('ALTER TABLE him_audit ENABLE TRIGGER him_audit_no_change');
}

const errorOf = (json: Record<string, unknown>): { code?: string; message?: string } =>
  (json.error ?? {}) as { code?: string; message?: string };

describe('audit verify with an external head anchor', () => {
  it('(e) an untouched chain verifies intact, one anchor per event, the newest matching the head', async () => {
    f = await fixture();
    const events = await f.append(6);
    const v = await f.verify();
    expect(v.code).toBe(0);
    expect(v.json).toMatchObject({
      ok: true,
      events: 6,
      head: events[5]?.hash,
      unanchored: 0,
      anchor: { seq: 6, hash: events[5]?.hash, path: `${f.anchorLocation}anchor-000000000006.json` },
    });
    const stores = openStores(f.config, { ...process.env, ...env });
    const names: string[] = [];
    for await (const e of stores.storeFor([]).list(f.anchorLocation)) names.push(e.path.slice(e.path.lastIndexOf('/') + 1));
    stores.close();
    expect(names.sort()).toEqual([1, 2, 3, 4, 5, 6].map((n) => `anchor-${String(n).padStart(12, '0')}.json`));
  });

  it('(a) deleting the newest rows (trigger disabled) fails AUDIT_ANCHOR_MISMATCH and names the anchor', async () => {
    f = await fixture();
    await f.append(5);
    await f.sql('ALTER TABLE him_audit DISABLE TRIGGER him_audit_no_change');
    await f.sql('DELETE FROM him_audit WHERE seq > 3');
    const v = await f.verify();
    expect(v.code).toBe(1);
    expect(errorOf(v.json)).toMatchObject({
      code: 'AUDIT_ANCHOR_MISMATCH',
      message: expect.stringContaining('newest 2 event(s) were deleted'),
    });
    expect(v.json).toMatchObject({ ok: false, events: 3, anchor: { seq: 5, path: `${f.anchorLocation}anchor-000000000005.json` } });
  });

  it('(b) TRUNCATE is refused by the trigger; with the trigger dropped, a truncation fails verify', async () => {
    f = await fixture();
    await f.append(3);
    await expect(f.sql('TRUNCATE him_audit')).rejects.toThrow(/append-only/);
    expect(await f.sql<{ n: string }>('SELECT count(*) AS n FROM him_audit')).toEqual([{ n: '3' }]);
    await f.sql('DROP TRIGGER him_audit_no_truncate ON him_audit');
    await f.sql('TRUNCATE him_audit');
    const v = await f.verify();
    expect(v.code).toBe(1);
    expect(errorOf(v.json)).toMatchObject({ code: 'AUDIT_ANCHOR_MISMATCH', message: expect.stringContaining('truncated') });
    // Opening the store (verify did) puts the TRUNCATE trigger back.
    expect(await f.sql("SELECT 1 FROM pg_trigger WHERE tgname = 'him_audit_no_truncate'")).toHaveLength(1);
  });

  it('(c) DROP TABLE fails verify coded (not internal), whether the table is gone or created again empty', async () => {
    f = await fixture();
    await f.append(4);
    const open = await PostgresStateStore.open(f.url);
    try {
      await f.sql('DROP TABLE him_audit');
      const read = async (): Promise<void> => {
        for await (const e of open.readAudit()) void e;
      };
      await expect(read()).rejects.toMatchObject({ code: 'AUDIT_ANCHOR_MISMATCH', message: expect.stringContaining('dropped') });
    } finally {
      await open.close();
    }
    const v = await f.verify();
    expect(v.code).toBe(1);
    expect(errorOf(v.json)).toMatchObject({ code: 'AUDIT_ANCHOR_MISMATCH', message: expect.stringContaining('dropped') });
  });

  it('(d) a row rewritten with every later hash recomputed (plain sha256) fails against the anchor', async () => {
    f = await fixture();
    await f.append(5);
    await rewriteFrom(f, 2);
    const chain = await readChain(f.url);
    expect(chain[1]?.actor).toBe('mallory');
    const v = await f.verify();
    expect(v.code).toBe(1);
    expect(errorOf(v.json)).toMatchObject({ code: 'AUDIT_ANCHOR_MISMATCH', message: expect.stringContaining('rewritten') });
  });
});

describe('audit verify with a keyed chain', () => {
  it('(d) with no anchor written, the key alone finds a recomputed rewrite; with the key variable empty verify exits 2', async () => {
    process.env[KEY_ENV] = KEY;
    f = await fixture({ keyEnv: KEY_ENV });
    const cfg = { ...f.config, audit: { keyEnv: KEY_ENV, trustDeclaredActor: false } };
    await f.append(4, cfg);
    // A new chain with a key starts with the key's activation event.
    expect((await f.verify({ [KEY_ENV]: KEY })).json).toMatchObject({ ok: true, events: 5, keyed: 5 });
    expect(await f.sql('SELECT action FROM him_audit WHERE seq = 1')).toEqual([{ action: 'audit.key-activated' }]);
    await rewriteFrom(f, 3);
    const v = await f.verify({ [KEY_ENV]: KEY });
    expect(v.code).toBe(1);
    expect(v.json).toMatchObject({
      anchor: null,
      error: { code: 'AUDIT_CHAIN_BROKEN', brokenAt: 3, message: expect.stringContaining('not keyed') },
    });
    const noKey = await f.verify({ [KEY_ENV]: '' });
    expect(noKey.code).toBe(2);
    expect(noKey.json).toMatchObject({ ok: false, error: { code: 'CONFIG_INVALID' } });
  });

  it('(d) events newer than the newest anchor (their anchor write failed) are still protected by the key', async () => {
    process.env[KEY_ENV] = KEY;
    f = await fixture({ keyEnv: KEY_ENV });
    await f.append(3);
    // Two more events written keyed but not anchored, as after a failed anchor write.
    await f.append(2, { ...f.config, audit: { keyEnv: KEY_ENV, trustDeclaredActor: false } });
    const ok = await f.verify({ [KEY_ENV]: KEY });
    expect(ok.json).toMatchObject({ ok: true, events: 6, keyed: 6, unanchored: 2, anchor: { seq: 4 }, anchorsChecked: 3 });
    await rewriteFrom(f, 5);
    const v = await f.verify({ [KEY_ENV]: KEY });
    expect(v.code).toBe(1);
    expect(v.json).toMatchObject({
      ok: false,
      error: { code: 'AUDIT_CHAIN_BROKEN', brokenAt: 5, message: expect.stringContaining('not keyed') },
    });
  });

  it('a legacy chain (format 1, old table layout) keeps verifying and continues keyed and anchored', async () => {
    process.env[KEY_ENV] = KEY;
    f = await fixture({ keyEnv: KEY_ENV });
    await f.sql(`CREATE TABLE him_audit (seq bigint PRIMARY KEY, at timestamptz NOT NULL, actor text NOT NULL, action text NOT NULL, object text NOT NULL, plan_hash text,
      before_digest text, after_digest text, details jsonb NOT NULL, prev_hash text NOT NULL, hash text NOT NULL UNIQUE)`);
    // The previous build's hash: sha256 of the content without format-2 fields.
    const { canonicalJson, sha256Hex } = await import('../../../core/hash');
    let prev = GENESIS_HASH;
    for (const seq of [1, 2]) {
      const c = {
        seq,
        prevHash: prev,
        at: `2026-01-0${seq}T00:00:00.000Z`,
        actor: 'old',
        action: 'plan.submitted',
        object: 'plan:x',
        planHash: null,
        beforeDigest: null,
        afterDigest: null,
        details: {},
      };
      const hash = sha256Hex(canonicalJson(c));
      await f.sql('INSERT INTO him_audit VALUES ($1,$2,$3,$4,$5,NULL,NULL,NULL,$6,$7,$8)', [
        seq,
        c.at,
        c.actor,
        c.action,
        c.object,
        '{}',
        prev,
        hash,
      ]);
      prev = hash;
    }
    // A writer with a key refuses the unkeyed head until the key is activated, explicitly and audited.
    await expect(f.append(1)).rejects.toMatchObject({ code: 'AUDIT_KEY_NOT_ACTIVE' });
    const act = await run(MIGRATE, ['audit', 'activate-key', '-c', f.configFile, '--json'], 120_000, { [KEY_ENV]: KEY });
    expect(act.code).toBe(0);
    expect(JSON.parse(act.stdout)).toMatchObject({ ok: true, activated: true, events: 3, keyed: 1 });
    await f.append(2);
    const v = await f.verify({ [KEY_ENV]: KEY });
    expect(v.code).toBe(0);
    expect(v.json).toMatchObject({ ok: true, events: 5, keyed: 3, anchor: { seq: 5 } });
    expect(await f.sql('SELECT seq, v, alg, action FROM him_audit ORDER BY seq')).toEqual([
      { seq: '1', v: 1, alg: 'sha256', action: 'plan.submitted' },
      { seq: '2', v: 1, alg: 'sha256', action: 'plan.submitted' },
      { seq: '3', v: 2, alg: 'hmac-sha256', action: 'audit.key-activated' },
      { seq: '4', v: 2, alg: 'hmac-sha256', action: 'table.registered' },
      { seq: '5', v: 2, alg: 'hmac-sha256', action: 'table.registered' },
    ]);
    const again = await run(MIGRATE, ['audit', 'activate-key', '-c', f.configFile, '--json'], 120_000, { [KEY_ENV]: KEY });
    expect(JSON.parse(again.stdout)).toMatchObject({ ok: true, activated: false, events: 5 });
  });
});
