// Hostile corpus (issue 18 point 8), plan files given to `migrate apply`: missing, truncated, binary,
// empty, edited (with and without re-hashing), unsigned while signing is configured, from the
// future, with an overflowing wave number, no waves, a duplicate table, a `__proto__` key, 100 MB.
// Each is a coded error with exit 2, found before any connection (every endpoint is dead).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serializePlan } from '../../../core/plan/plan-file';
import { deadConfigYaml, migrate, outcome, rehash, syntheticPlan, writeFile } from '../../helpers/hostile';

let dir = '';
let cfg = '';
let signingCfg = '';
let good = '';

/** The synthetic plan as a plain object (what an editor of the JSON works on). */
const doc = (): Record<string, unknown> => JSON.parse(good) as Record<string, unknown>;
const applyFile = (name: string, text: string | Uint8Array, config = cfg, extraEnv: Record<string, string> = {}) =>
  migrate(['apply', writeFile(dir, name, text), '--json', '-c', config], 120_000, extraEnv);

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-hostile-plans-'));
  cfg = writeFile(dir, 'dead.yaml', deadConfigYaml());
  signingCfg = writeFile(dir, 'dead-signing.yaml', deadConfigYaml('plan:\n  signing:\n    type: hmac\n    keyEnv: MIGRATE_PLAN_KEY\n'));
  good = serializePlan(syntheticPlan());
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hostile plan files: coded, exit 2, nothing attempted', () => {
  it('missing file → USAGE', async () => {
    const r = await migrate(['apply', path.join(dir, 'no-such-plan.json'), '--json', '-c', cfg]);
    expect(outcome(r)).toEqual({ exit: 2, code: 'USAGE' });
  });

  it('truncated JSON → PLAN_INVALID', async () => {
    expect(outcome(await applyFile('truncated.json', good.slice(0, Math.floor(good.length / 2))))).toEqual({ exit: 2, code: 'PLAN_INVALID' });
  });

  it('binary garbage → PLAN_INVALID', async () => {
    const bytes = new Uint8Array(8192);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 197 + 13) % 256;
    expect(outcome(await applyFile('garbage.json', bytes))).toEqual({ exit: 2, code: 'PLAN_INVALID' });
  });

  it('empty object → PLAN_INVALID (or PLAN_VERSION_UNSUPPORTED: no version), exit 2', async () => {
    const r = await applyFile('empty-object.json', '{}');
    expect(r.code).toBe(2);
    expect(['PLAN_INVALID', 'PLAN_VERSION_UNSUPPORTED']).toContain(outcome(r).code);
  });

  it('edited content without re-hashing → PLAN_HASH_MISMATCH', async () => {
    const d = doc();
    d.targetCatalog = 'someone-elses';
    expect(outcome(await applyFile('edited.json', JSON.stringify(d)))).toEqual({ exit: 2, code: 'PLAN_HASH_MISMATCH' });
  });

  it('an unsigned plan while plan signing is configured → PLAN_UNSIGNED', async () => {
    const r = await applyFile('unsigned.json', good, signingCfg, { MIGRATE_PLAN_KEY: 'hostile-corpus-key-0123456789abcdef' });
    expect(outcome(r)).toEqual({ exit: 2, code: 'PLAN_UNSIGNED' });
  });

  it('version 99 → PLAN_VERSION_UNSUPPORTED', async () => {
    expect(outcome(await applyFile('v99.json', rehash({ ...doc(), version: 99 })))).toEqual({ exit: 2, code: 'PLAN_VERSION_UNSUPPORTED' });
  });

  it('wave number 2147483648 (re-hashed) → PLAN_INVALID', async () => {
    const d = doc() as { waves: { number: number }[] };
    (d.waves[0] as { number: number }).number = 2147483648;
    expect(outcome(await applyFile('wave-2-31.json', rehash(d as unknown as Record<string, unknown>)))).toEqual({ exit: 2, code: 'PLAN_INVALID' });
  });

  it('an empty waves list (re-hashed) → a coded refusal, exit 2 (PLAN_INVALID or "nothing to apply")', async () => {
    const r = await applyFile('no-waves.json', rehash({ ...doc(), waves: [] }));
    expect(r.code).toBe(2);
    expect(outcome(r).code).toMatch(/^PLAN_/);
  });

  it('a table id twice (re-hashed) → PLAN_INVALID', async () => {
    const d = doc() as { waves: { tables: { id: string }[] }[] };
    const w = d.waves[0] as { tables: { id: string }[] };
    w.tables.push({ ...(w.tables[0] as { id: string }) });
    expect(outcome(await applyFile('dup.json', rehash(d as unknown as Record<string, unknown>)))).toEqual({ exit: 2, code: 'PLAN_INVALID' });
  });

  it('a `__proto__` key (re-hashed) → PLAN_INVALID', async () => {
    const text = rehash(doc()).replace(/^\{/, '{"__proto__":{"polluted":true,"waves":[]},');
    const r = await applyFile('proto.json', text);
    expect(outcome(r)).toEqual({ exit: 2, code: 'PLAN_INVALID' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a 100 MB plan file → coded, exit 2 (no out-of-memory, no internal error)', async () => {
    const d = doc() as { findings: unknown[] };
    d.findings = [{ code: 'CYCLE', severity: 'warning', message: 'x'.repeat(100 * 1024 * 1024), tables: [] }];
    const file = path.join(dir, 'huge.json');
    writeFileSync(file, rehash(d as unknown as Record<string, unknown>));
    try {
      const r = await migrate(['apply', file, '--json', '-c', cfg], 180_000);
      expect(r.code).toBe(2);
      expect(outcome(r).code).toMatch(/^PLAN_/);
    } finally {
      rmSync(file, { force: true });
    }
  }, 240_000);
});
