// The four tamperings an earlier `audit verify` let through, done as the holder of the named rights
// would (docs/audit.md "What each holder can forge"): plain SQL on the state database as its owner,
// create-only writes to the anchor location, never the chain key. Real Postgres and S3 of the stack;
// a fresh state database and anchor location per test; the real CLI binary.
import { anchorJson, anchorName } from '../../../core/audit/anchor';
import type { AuditEvent } from '../../../core/audit/chain';
import { chainEvent, GENESIS_HASH } from '../../../core/audit/chain';
import { PostgresStateStore } from '../../../adapters/state/postgres';
import { openStores } from '../../../app/runtime/runtime';
import { MIGRATE, run } from '../../helpers/cli';
import type { Fixture } from './fixture';
import { env, fixture } from './fixture';

jest.setTimeout(180_000);

const KEY_ENV = 'HIM_AUDIT_RIGHTS_KEY';
const KEY = 'rights-audit-key-0123456789abcdef-0123456789abcdef';

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

const forgedInput = (seq: number) => ({
  at: new Date().toISOString(),
  actor: 'mallory',
  action: 'wave.approved' as const,
  object: `wave:${seq}`,
  planHash: null,
  beforeDigest: null,
  afterDigest: null,
  details: { forged: true },
});

/** Every event from `from` on re-chained with plain sha256 (actor → mallory), as a database owner without the key would. */
async function downgradeFrom(fx: Fixture, from: number): Promise<AuditEvent[]> {
  const events = await readChain(fx.url);
  let prev = events[from - 2]?.hash ?? GENESIS_HASH;
  const out = events.slice(0, from - 1);
  await fx.sql('ALTER TABLE him_audit DISABLE TRIGGER him_audit_no_change');
  for (const e of events.slice(from - 1)) {
    const re = chainEvent(e.seq, prev, { ...e, actor: 'mallory' });
    await fx.sql(
      'UPDATE him_audit SET actor = $2, prev_hash = $3, hash = $4, v = $5, alg = $6, key_id = $7, actor_source = $8 WHERE seq = $1',
      [e.seq, re.actor, re.prevHash, re.hash, re.v, re.alg, re.keyId, re.actorSource],
    );
    out.push(re);
    prev = re.hash;
  }
  await fx.sql('ALTER TABLE him_audit ENABLE TRIGGER him_audit_no_change');
  return out;
}

/** One forged event appended with INSERT (no trigger stops an insert), plain sha256. */
async function appendForged(fx: Fixture, after: AuditEvent | undefined): Promise<AuditEvent> {
  const seq = (after?.seq ?? 0) + 1;
  const ev = chainEvent(seq, after?.hash ?? GENESIS_HASH, forgedInput(seq));
  await fx.sql(
    'INSERT INTO him_audit (seq, at, actor, action, object, plan_hash, before_digest, after_digest, details, prev_hash, hash, v, actor_source, alg, key_id) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15)',
    [
      ev.seq,
      ev.at,
      ev.actor,
      ev.action,
      ev.object,
      null,
      null,
      null,
      JSON.stringify(ev.details),
      ev.prevHash,
      ev.hash,
      ev.v,
      ev.actorSource,
      ev.alg,
      null,
    ],
  );
  return ev;
}

/** A forged anchor object, written create-only as the migration role may. */
async function forgeAnchor(fx: Fixture, ev: AuditEvent): Promise<void> {
  const stores = openStores(fx.config, { ...process.env, ...env });
  try {
    const text = anchorJson({ seq: ev.seq, hash: ev.hash, prevHash: ev.prevHash, at: ev.at });
    await stores.storeFor([]).put(`${fx.anchorLocation}${anchorName(ev.seq)}`, new TextEncoder().encode(text), { ifNoneMatch: '*' });
  } finally {
    stores.close();
  }
}

const errorOf = (json: Record<string, unknown>): { code?: string; message?: string; brokenAt?: number } =>
  (json.error ?? {}) as { code?: string; message?: string; brokenAt?: number };

describe('audit verify against the holder of database rights (and create-only anchor writes), without the key', () => {
  it('(1) anchors, no key: a forged newest event appended fails AUDIT_ANCHOR_MISMATCH; `audit anchor` records a human review before it anchors', async () => {
    f = await fixture();
    const events = await f.append(5);
    await appendForged(f, events[4]);
    const v = await f.verify();
    expect(v.code).toBe(1);
    expect(v.json).toMatchObject({ ok: false, events: 6, anchorsChecked: 5 });
    expect(errorOf(v.json)).toMatchObject({
      code: 'AUDIT_ANCHOR_MISMATCH',
      brokenAt: 6,
      message: expect.stringContaining('neither anchored nor keyed'),
    });
    const a = await run(MIGRATE, ['audit', 'anchor', '-c', f.configFile, '--json'], 120_000);
    expect(a.code).toBe(0);
    expect(JSON.parse(a.stdout)).toMatchObject({ ok: true, anchored: 1, events: 7, unanchored: 0 });
    expect(await f.sql('SELECT seq, action, details FROM him_audit WHERE seq = 7')).toEqual([
      { seq: '7', action: 'audit.anchored', details: { from: 6, to: 6, events: 1 } },
    ]);
  });

  it('(2) anchors: the chain recomputed from event 6 plus a forged newest anchor fails on the older anchors', async () => {
    f = await fixture();
    await f.append(12);
    const rewritten = await downgradeFrom(f, 6);
    const forged = await appendForged(f, rewritten[rewritten.length - 1]);
    await forgeAnchor(f, forged);
    const v = await f.verify();
    expect(v.code).toBe(1);
    expect(v.json).toMatchObject({ ok: false, anchorsChecked: 13, anchor: { seq: 13 } });
    expect(errorOf(v.json)).toMatchObject({ code: 'AUDIT_ANCHOR_MISMATCH', brokenAt: 6, message: expect.stringContaining('rewritten') });
  });

  it('(3) key, no anchor: every keyed event downgraded to sha256 fails AUDIT_CHAIN_BROKEN, and keyed writers refuse the head', async () => {
    process.env[KEY_ENV] = KEY;
    f = await fixture({ keyEnv: KEY_ENV, anchorLocation: undefined });
    await f.append(4);
    expect((await f.verify({ [KEY_ENV]: KEY })).json).toMatchObject({ ok: true, events: 5, keyed: 5, anchor: null });
    await downgradeFrom(f, 1);
    const v = await f.verify({ [KEY_ENV]: KEY });
    expect(v.code).toBe(1);
    expect(v.json).toMatchObject({ ok: false, keyed: 0 });
    expect(errorOf(v.json)).toMatchObject({ code: 'AUDIT_CHAIN_BROKEN', message: expect.stringContaining('downgraded') });
    await expect(f.append(1)).rejects.toMatchObject({ code: 'AUDIT_KEY_NOT_ACTIVE' });
    expect(await f.sql('SELECT count(*)::int AS n FROM him_audit')).toEqual([{ n: 5 }]);
  });

  it('(4) key + anchor: downgrade, a forged append and a forged anchor fail', async () => {
    process.env[KEY_ENV] = KEY;
    f = await fixture({ keyEnv: KEY_ENV });
    await f.append(4);
    const down = await downgradeFrom(f, 1);
    const forged = await appendForged(f, down[down.length - 1]);
    await forgeAnchor(f, forged);
    const v = await f.verify({ [KEY_ENV]: KEY });
    expect(v.code).toBe(1);
    expect(errorOf(v.json).code).toMatch(/^AUDIT_(CHAIN_BROKEN|ANCHOR_MISMATCH)$/);
  });
});
