// Plan signing (docs/plan-signing.md) through the real node:crypto adapter and readPlanForApply:
// HMAC and Ed25519 round trips, a forged plan re-hashed with plain sha256, unsigned plans, other
// keys, an edited signer, key rotation, and key misconfiguration (CONFIG_INVALID, named path).
import { generateKeyPairSync } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openPlanSigning } from '../../../adapters/crypto/signing';
import { serializePlan } from '../../../core/plan/plan-file';
import type { PlanFile } from '../../../core/plan/plan-file';
import { signingMessage } from '../../../core/plan/signing';
import { planSigningKey, readPlanForApply, signBuiltPlan } from '../../../app/plan/plan-input';
import { conversionPin } from '../../../core/plan/pin';
import { configWith, errorOf, makePlan, rehashed, tempDir, writePlan } from './plan-input-helpers';
import { inv, table as hiveTable } from '../assess/fixture';

const PIN = conversionPin(inv(hiveTable()));

const KEY_A = 'a'.repeat(20) + '-plan-key-one-0123456789';
const KEY_B = 'b'.repeat(20) + '-plan-key-two-0123456789';
const env = { MIGRATE_PLAN_KEY: KEY_A, OTHER_KEY: KEY_B, MIGRATE_ACTOR: 'alice' };
const hmac = { type: 'hmac', keyEnv: 'MIGRATE_PLAN_KEY' };
let dir = '';

function edPair(name: string): { privateKeyFile: string; publicKeyFile: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const privateKeyFile = path.join(dir, `${name}.pem`);
  const publicKeyFile = path.join(dir, `${name}.pub.pem`);
  writeFileSync(privateKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(publicKeyFile, publicKey.export({ type: 'spki', format: 'pem' }));
  return { privateKeyFile, publicKeyFile };
}

function signedWith(signing: unknown, e: NodeJS.ProcessEnv = env): PlanFile {
  const s = planSigningKey(configWith(signing), e);
  if (s === undefined) throw new Error('signing not configured');
  return signBuiltPlan(makePlan(), s, e);
}

/** Move s.gone from notPlanned into a new wave 3 and re-hash with plain sha256, keeping the signature. */
function forge(plan: PlanFile): Record<string, unknown> {
  const doc = JSON.parse(serializePlan(plan)) as Record<string, unknown> & PlanFile;
  const waves = [
    ...doc.waves,
    {
      number: 3,
      tables: [
        { id: 's.gone', team: 'data', class: 'migrate', fingerprint: 'fp-s.gone', files: 1, bytes: 100, pin: null, partitions: null },
      ],
      estimates: { files: 1, bytes: 100, expectedSeconds: 1 },
    },
  ];
  return rehashed({ ...doc, waves, notPlanned: [] });
}

beforeAll(() => {
  dir = tempDir();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each([
  ['hmac', () => hmac],
  ['ed25519', () => edPair('ed-main')],
])('plan signing (%s)', (kind, signingOf) => {
  let signing: unknown;
  beforeAll(() => {
    signing = kind === 'hmac' ? signingOf() : { type: 'ed25519', ...signingOf() };
  });

  it('signs the hash; apply reads it back and reports the signer and key id', () => {
    const plan = signedWith(signing);
    expect(plan.signature).toMatchObject({
      type: kind === 'hmac' ? 'hmac-sha256' : 'ed25519',
      signer: 'alice',
      keyId: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    const file = writePlan(dir, `${kind}-ok.json`, serializePlan(plan));
    const r = readPlanForApply(file, configWith(signing), env);
    expect(r.plan.hash).toBe(plan.hash);
    expect(r.signer).toEqual({ type: plan.signature!.type, keyId: plan.signature!.keyId, signer: 'alice' });
  });

  it('refuses a refused table moved into a wave and re-hashed with plain sha256', () => {
    const file = writePlan(dir, `${kind}-forged.json`, forge(signedWith(signing)));
    // Without signing the forgery parses (the hash alone cannot stop it); with signing it is refused.
    expect(readPlanForApply(file, configWith(), env).plan.waves.map((w) => w.tables.map((t) => t.id))).toEqual([
      ['s.a'],
      ['s.v'],
      ['s.gone'],
    ]);
    expect(errorOf(() => readPlanForApply(file, configWith(signing), env)).code).toBe('PLAN_SIGNATURE_INVALID');
  });

  it('refuses a table whose conversion pin was added or edited after signing, re-hashed with plain sha256', () => {
    const doc = JSON.parse(serializePlan(signedWith(signing))) as Record<string, unknown> & PlanFile;
    const pin = { ...PIN, columns: [{ name: 'id', type: 'string' }] };
    const w0 = doc.waves[0]!;
    for (const [name, entryPin] of [
      ['pinned', PIN],
      ['re-pinned', pin],
    ] as const) {
      const waves = [{ ...w0, tables: [{ ...w0.tables[0]!, pin: entryPin }] }, ...doc.waves.slice(1)];
      const file = writePlan(dir, `${kind}-${name}.json`, rehashed({ ...doc, waves }));
      expect(readPlanForApply(file, configWith(), env).plan.waves[0]?.tables[0]?.pin).toEqual(entryPin);
      expect(errorOf(() => readPlanForApply(file, configWith(signing), env)).code).toBe('PLAN_SIGNATURE_INVALID');
    }
  });

  it('refuses an unsigned plan with PLAN_UNSIGNED', () => {
    const file = writePlan(dir, `${kind}-unsigned.json`, serializePlan(makePlan()));
    const e = errorOf(() => readPlanForApply(file, configWith(signing), env));
    expect([e.code, e.context['paths']]).toEqual(['PLAN_UNSIGNED', ['signature']]);
  });

  it('refuses a plan whose signer was edited', () => {
    const plan = signedWith(signing);
    const file = writePlan(dir, `${kind}-signer.json`, serializePlan({ ...plan, signature: { ...plan.signature!, signer: 'mallory' } }));
    expect(errorOf(() => readPlanForApply(file, configWith(signing), env)).code).toBe('PLAN_SIGNATURE_INVALID');
  });
});

describe('plan signing: keys', () => {
  it('refuses a plan signed with another HMAC key, and accepts it once that key is a previous key', () => {
    const plan = signedWith({ type: 'hmac', keyEnv: 'OTHER_KEY' });
    const file = writePlan(dir, 'other-key.json', serializePlan(plan));
    const e = errorOf(() => readPlanForApply(file, configWith(hmac), env));
    expect([e.code, e.message]).toEqual(['PLAN_SIGNATURE_INVALID', expect.stringMatching(/which plan.signing does not hold/)]);
    const rotated = configWith({ ...hmac, previousKeyEnvs: ['OTHER_KEY'] });
    expect(readPlanForApply(file, rotated, env).signer?.keyId).toBe(plan.signature!.keyId);
  });

  it('refuses an Ed25519 plan signed by another key pair and a signature forged under the right key id', () => {
    const main = edPair('ed-a');
    const other = edPair('ed-b');
    const byOther = signedWith({ type: 'ed25519', ...other });
    const cfg = configWith({ type: 'ed25519', publicKeyFile: main.publicKeyFile });
    expect(errorOf(() => readPlanForApply(writePlan(dir, 'ed-other.json', serializePlan(byOther)), cfg, env)).code).toBe(
      'PLAN_SIGNATURE_INVALID',
    );
    const good = signedWith({ type: 'ed25519', ...main });
    const stolenId = { ...byOther, signature: { ...byOther.signature!, keyId: good.signature!.keyId } };
    expect(errorOf(() => readPlanForApply(writePlan(dir, 'ed-stolen.json', serializePlan(stolenId)), cfg, env)).message).toMatch(
      /does not verify/,
    );
  });

  it("refuses an HMAC-signed plan when Ed25519 is configured (algorithm is not the signer's choice)", () => {
    const plan = signedWith(hmac);
    const cfg = configWith({ type: 'ed25519', publicKeyFile: edPair('ed-c').publicKeyFile });
    expect(errorOf(() => readPlanForApply(writePlan(dir, 'alg.json', serializePlan(plan)), cfg, env)).message).toMatch(
      /signed with hmac-sha256, but plan.signing expects ed25519/,
    );
  });

  it('binds the hash, type, key id and signer into the signed message', () => {
    expect(signingMessage('ab', { type: 'ed25519', keyId: '0123456789abcdef', signer: 'x' })).toBe(
      'hms-iceberg-migrator plan signature v1\nab\ned25519\n0123456789abcdef\nx',
    );
  });

  it.each([
    ['an unset key variable', hmac, {}, 'plan.signing.keyEnv', /MIGRATE_PLAN_KEY is not set/],
    ['a short HMAC key', hmac, { MIGRATE_PLAN_KEY: 'short' }, 'plan.signing.keyEnv', /shorter than 32/],
    ['an unset previous key', { ...hmac, previousKeyEnvs: ['GONE'] }, env, 'plan.signing.previousKeyEnvs[0]', /GONE is not set/],
  ])('refuses %s with CONFIG_INVALID naming the path', (_what, signing, e, p, msg) => {
    const err = errorOf(() => openPlanSigning(configWith(signing).plan!.signing!, e));
    expect([err.code, err.context['paths'], err.message]).toEqual(['CONFIG_INVALID', [p], expect.stringMatching(msg)]);
  });

  it('refuses unreadable, non-Ed25519 and mismatched Ed25519 key files, and a missing private key when signing', () => {
    const a = edPair('ed-d');
    const b = edPair('ed-e');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' });
    const rsaFile = writePlan(dir, 'rsa.pub.pem', rsa);
    const open = (s: object) => errorOf(() => planSigningKey(configWith({ type: 'ed25519', ...s }), env));
    expect(open({ publicKeyFile: path.join(dir, 'nope.pem') }).message).toMatch(/plan.signing.publicKeyFile: cannot read/);
    expect(open({ publicKeyFile: rsaFile }).message).toMatch(/holds a rsa key, not ed25519/);
    expect(open({ publicKeyFile: a.publicKeyFile, privateKeyFile: b.privateKeyFile }).message).toMatch(
      /is not the private key of publicKeyFile/,
    );
    expect(open({ publicKeyFile: a.publicKeyFile }).context['paths']).toEqual(['plan.signing.privateKeyFile']);
    // Apply needs only the public key.
    const plan = signedWith({ type: 'ed25519', ...a });
    expect(
      readPlanForApply(
        writePlan(dir, 'pub-only.json', serializePlan(plan)),
        configWith({ type: 'ed25519', publicKeyFile: a.publicKeyFile }),
        env,
      ).signer?.signer,
    ).toBe('alice');
  });
});
