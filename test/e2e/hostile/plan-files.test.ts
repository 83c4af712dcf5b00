// Hostile corpus, plan files given to `migrate apply`: missing, truncated, binary,
// empty, edited (with and without re-hashing), unsigned while signing is configured, from the
// future, with an overflowing wave number, no waves, a duplicate table, a `__proto__` key, 100 MB.
// Each is a coded error with exit 2, found before any connection (every endpoint is dead).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { planHash, serializePlan } from '../../../core/plan/plan-file';
import type { Run } from '../../helpers/cli';
import { deadConfigYaml, migrate, outcome, prefetch, rehash, syntheticPlan, writeFile } from '../../helpers/hostile';

let dir = '';
let cfg = '';
let signingCfg = '';
let good = '';
let runs: Record<string, Promise<Run>> = {};
const KEY = { MIGRATE_PLAN_KEY: 'hostile-corpus-key-0123456789abcdef' };

/** The synthetic plan as a plain object (what an editor of the JSON works on). */
const doc = (): Record<string, unknown> => JSON.parse(good) as Record<string, unknown>;
const applyFile = (
  name: string,
  text: string | Uint8Array,
  config = cfg,
  extraEnv: Record<string, string> = {},
  timeout = 120_000,
): Promise<Run> => migrate(['apply', writeFile(dir, name, text), '--json', '-c', config], timeout, extraEnv);

/** Edits of the synthetic plan, each re-hashed with the project's own function unless said otherwise. */
type Edit = 'truncated' | 'noRehash' | 'v99' | 'wave231' | 'noWaves' | 'dup' | 'proto' | 'huge';
function edited(): Record<Edit, () => string> {
  return {
    truncated: () => good.slice(0, Math.floor(good.length / 2)),
    noRehash: () => JSON.stringify({ ...doc(), targetCatalog: 'someone-elses' }),
    v99: () => rehash({ ...doc(), version: 99 }),
    wave231: () => {
      const d = doc() as { waves: { number: number }[] };
      (d.waves[0] as { number: number }).number = 2147483648;
      return rehash(d as unknown as Record<string, unknown>);
    },
    noWaves: () => rehash({ ...doc(), waves: [] }),
    dup: () => {
      const d = doc() as { waves: { tables: { id: string }[] }[] };
      const w = d.waves[0] as { tables: { id: string }[] };
      w.tables.push({ ...(w.tables[0] as { id: string }) });
      return rehash(d as unknown as Record<string, unknown>);
    },
    proto: () => {
      // JSON.parse keeps "__proto__" as an own key, so the forger's hash covers it.
      const text = good.replace(/^\{/, '{"__proto__":{"polluted":true,"waves":[]},');
      return text.replace(/"hash":"[0-9a-f]{64}"/, `"hash":"${planHash(JSON.parse(text) as Parameters<typeof planHash>[0])}"`);
    },
    huge: () => {
      const d = doc() as { findings: unknown[] };
      d.findings = [{ code: 'CYCLE', severity: 'warning', message: 'x'.repeat(100 * 1024 * 1024), tables: [] }];
      return rehash(d as unknown as Record<string, unknown>);
    },
  };
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-hostile-plans-'));
  cfg = writeFile(dir, 'dead.yaml', deadConfigYaml());
  signingCfg = writeFile(dir, 'dead-signing.yaml', deadConfigYaml('plan:\n  signing:\n    type: hmac\n    keyEnv: MIGRATE_PLAN_KEY\n'));
  good = serializePlan(syntheticPlan());
  const e = edited();
  runs = prefetch({
    missing: () => migrate(['apply', path.join(dir, 'no-such-plan.json'), '--json', '-c', cfg]),
    truncated: () => applyFile('truncated.json', e.truncated()),
    garbage: () =>
      applyFile(
        'garbage.json',
        Uint8Array.from({ length: 8192 }, (_v, i) => (i * 197 + 13) % 256),
      ),
    emptyObject: () => applyFile('empty-object.json', '{}'),
    noRehash: () => applyFile('edited.json', e.noRehash()),
    unsigned: () => applyFile('unsigned.json', good, signingCfg, KEY),
    v99: () => applyFile('v99.json', e.v99()),
    wave231: () => applyFile('wave-2-31.json', e.wave231()),
    noWaves: () => applyFile('no-waves.json', e.noWaves()),
    dup: () => applyFile('dup.json', e.dup()),
    proto: () => applyFile('proto.json', e.proto()),
    huge: async () => {
      const file = path.join(dir, 'huge.json');
      writeFileSync(file, e.huge());
      try {
        return await migrate(['apply', file, '--json', '-c', cfg], 180_000);
      } finally {
        rmSync(file, { force: true });
      }
    },
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const result = (k: string): Promise<Run> => runs[k] as Promise<Run>;

describe('hostile plan files: coded, exit 2, nothing attempted', () => {
  it('missing file → USAGE', async () => {
    expect(outcome(await result('missing'))).toEqual({ exit: 2, code: 'USAGE' });
  });

  it('truncated JSON → PLAN_INVALID', async () => {
    expect(outcome(await result('truncated'))).toEqual({ exit: 2, code: 'PLAN_INVALID' });
  });

  it('binary garbage → PLAN_INVALID', async () => {
    expect(outcome(await result('garbage'))).toEqual({ exit: 2, code: 'PLAN_INVALID' });
  });

  it('empty object → PLAN_INVALID (or PLAN_VERSION_UNSUPPORTED: no version), exit 2', async () => {
    const r = await result('emptyObject');
    expect(r.code).toBe(2);
    expect(['PLAN_INVALID', 'PLAN_VERSION_UNSUPPORTED']).toContain(outcome(r).code);
  });

  it('edited content without re-hashing → PLAN_HASH_MISMATCH', async () => {
    expect(outcome(await result('noRehash'))).toEqual({ exit: 2, code: 'PLAN_HASH_MISMATCH' });
  });

  it('an unsigned plan while plan signing is configured → PLAN_UNSIGNED', async () => {
    expect(outcome(await result('unsigned'))).toEqual({ exit: 2, code: 'PLAN_UNSIGNED' });
  });

  it('version 99 → PLAN_VERSION_UNSUPPORTED', async () => {
    expect(outcome(await result('v99'))).toEqual({ exit: 2, code: 'PLAN_VERSION_UNSUPPORTED' });
  });

  it('wave number 2147483648 (re-hashed) → PLAN_INVALID', async () => {
    expect(outcome(await result('wave231'))).toEqual({ exit: 2, code: 'PLAN_INVALID' });
  });

  it('an empty waves list (re-hashed) → a coded refusal, exit 2 (PLAN_INVALID or "nothing to apply")', async () => {
    const r = await result('noWaves');
    expect(r.code).toBe(2);
    expect(outcome(r).code).toMatch(/^PLAN_/);
  });

  it('a table id twice (re-hashed) → PLAN_INVALID', async () => {
    expect(outcome(await result('dup'))).toEqual({ exit: 2, code: 'PLAN_INVALID' });
  });

  it('a `__proto__` key (re-hashed) → PLAN_INVALID', async () => {
    expect(outcome(await result('proto'))).toEqual({ exit: 2, code: 'PLAN_INVALID' });
  });

  it('a 100 MB plan file → coded, exit 2 (no out-of-memory, no internal error)', async () => {
    const r = await result('huge');
    expect(r.code).toBe(2);
    expect(outcome(r).code).toMatch(/^PLAN_/);
  }, 240_000);
});
