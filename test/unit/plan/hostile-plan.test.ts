// Hostile plan files through readPlanForApply (and `migrate plan --diff`, the CLI path that reads
// plan files today): each ends with its coded error — never a crash, an overflow or a hang — and
// the CLI exits 2 with that code in its JSON. Forged documents are re-hashed, so they reach the
// checks behind the hash.
import { closeSync, openSync, ftruncateSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { main } from '../../../cli/main';
import { readPlanForApply } from '../../../app/plan/plan-input';
import { serializePlan } from '../../../core/plan/plan-file';
import type { PlanFile } from '../../../core/plan/plan-file';
import { MAX_PLAN_BYTES, MAX_WAVE_NUMBER } from '../../../core/plan/plan-limits';
import { FLAG_RANGES, parseIntFlag } from '../../../cli/flags';
import { prng } from './fixtures';
import { configWith, errorOf, makePlan, rehashed, tempDir, writePlan } from './plan-input-helpers';

type Doc = Record<string, unknown> & PlanFile;
let dir = '';
const base = (): Doc => JSON.parse(serializePlan(makePlan())) as Doc;
const wave0 = (d: Doc) => d.waves[0]!;
const withTable = (d: Doc, over: Record<string, unknown>): Doc => ({
  ...d,
  waves: [{ ...wave0(d), tables: [{ ...wave0(d).tables[0]!, ...over }] }, ...d.waves.slice(1)],
});
const text = (d: Record<string, unknown>): string => JSON.stringify(rehashed(d));

function sparse(name: string, bytes: number): string {
  const file = path.join(dir, name);
  const fd = openSync(file, 'w');
  ftruncateSync(fd, bytes);
  closeSync(fd);
  return file;
}

function garbage(n: number): Buffer {
  const r = prng(42);
  return Buffer.from(Array.from({ length: n }, () => Math.floor(r() * 256)));
}

/** [name, code, message pattern, file content (or a function making the file)]. */
const CASES: [string, string, RegExp, () => string | Buffer | ((name: string) => string)][] = [
  ['truncated JSON', 'PLAN_INVALID', /not JSON/, () => serializePlan(makePlan()).slice(0, 300)],
  ['an empty file', 'PLAN_INVALID', /not JSON/, () => ''],
  ['a 200 MB file', 'PLAN_TOO_LARGE', /at most 67108864 bytes/, () => (name) => sparse(name, 200 * 2 ** 20)],
  ['a file one byte over the limit', 'PLAN_TOO_LARGE', /67108865 bytes/, () => (name) => sparse(name, MAX_PLAN_BYTES + 1)],
  ['binary garbage', 'PLAN_INVALID', /not UTF-8/, () => garbage(4096)],
  ['UTF-8 garbage with NULs', 'PLAN_INVALID', /not JSON/, () => '\u0000\u0001\u00ff'.repeat(100)],
  ['a JSON array', 'PLAN_INVALID', /a plan file is a JSON object/, () => '[1,2]'],
  ['JSON null', 'PLAN_INVALID', /a plan file is a JSON object/, () => 'null'],
  [
    'a wave number of 2^31',
    'PLAN_INVALID',
    /waves\[0\]\.number/,
    () => text({ ...base(), waves: [{ ...wave0(base()), number: 2 ** 31 }] }),
  ],
  [
    'a wave number of 2^53 + 2',
    'PLAN_INVALID',
    /waves\[0\]\.number/,
    () => text({ ...base(), waves: [{ ...wave0(base()), number: 2 ** 53 + 2 }] }),
  ],
  ['a wave number of 0', 'PLAN_INVALID', /waves\[0\]\.number/, () => text({ ...base(), waves: [{ ...wave0(base()), number: 0 }] })],
  [
    'an empty wave',
    'PLAN_INVALID',
    /waves\[0\]\.tables: a wave has at least one table/,
    () => text({ ...base(), waves: [{ ...wave0(base()), tables: [] }, ...base().waves.slice(1)] }),
  ],
  ['a plan with no waves', 'PLAN_EMPTY', /nothing to apply/, () => text({ ...base(), waves: [] })],
  [
    'a table in a wave and in notPlanned',
    'PLAN_INVALID',
    /s\.a is both in a wave and not planned/,
    () => text({ ...base(), notPlanned: [{ id: 's.a', reason: 'CLASS_SKIP' }] }),
  ],
  [
    'a table in two waves',
    'PLAN_INVALID',
    /s\.a appears twice/,
    () => text({ ...base(), waves: [wave0(base()), { ...base().waves[1]!, tables: [wave0(base()).tables[0]!] }] }),
  ],
  [
    'a table twice in notPlanned',
    'PLAN_INVALID',
    /notPlanned\[1\]\.id: s\.gone appears twice/,
    () => text({ ...base(), notPlanned: [...base().notPlanned, ...base().notPlanned] }),
  ],
  [
    'an id without a dot',
    'PLAN_INVALID',
    /waves\[0\]\.tables\[0\]\.id: expected db\.table/,
    () => text(withTable(base(), { id: 'orders' })),
  ],
  ['an id with two dots', 'PLAN_INVALID', /expected db\.table/, () => text(withTable(base(), { id: 'a.b.c' }))],
  ['an id with a newline', 'PLAN_INVALID', /expected db\.table/, () => text(withTable(base(), { id: 's.a\nb' }))],
  [
    'a notPlanned id that is not db.table',
    'PLAN_INVALID',
    /notPlanned\[0\]\.id: expected db\.table/,
    () => text({ ...base(), notPlanned: [{ id: '', reason: 'CLASS_SKIP' }] }),
  ],
  ['a NaN count', 'PLAN_INVALID', /not JSON/, () => text(base()).replace('"files":10', '"files":NaN')],
  ['a negative count', 'PLAN_INVALID', /waves\[0\]\.tables\[0\]\.files/, () => text(withTable(base(), { files: -1 }))],
  ['a fractional count', 'PLAN_INVALID', /waves\[0\]\.tables\[0\]\.bytes/, () => text(withTable(base(), { bytes: 1.5 }))],
  ['a count beyond 2^53', 'PLAN_INVALID', /waves\[0\]\.tables\[0\]\.bytes/, () => text(withTable(base(), { bytes: 2 ** 60 }))],
  [
    'a count of 1e400 (Infinity)',
    'PLAN_INVALID',
    /waves\[0\]\.\S+: Infinity is not a finite number/,
    () => text(base()).replace('"files":10', '"files":1e400'),
  ],
  [
    'a __proto__ member at the top',
    'PLAN_INVALID',
    /"__proto__" is not allowed/,
    () => text(base()).replace('{', '{"__proto__":{"polluted":true},'),
  ],
  ['a __proto__ pin', 'PLAN_INVALID', /options\.pins\.__proto__/, () => text(base()).replace('"pins":{}', '"pins":{"__proto__":1}')],
  [
    'a constructor member in a table',
    'PLAN_INVALID',
    /"constructor" is not allowed/,
    () => text(base()).replace('"id":"s.a"', '"id":"s.a","constructor":{"prototype":{"x":1}}'),
  ],
  ['JSON nested a million deep', 'PLAN_INVALID', /deeper than 32/, () => `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`],
  [
    'a member nested 40 deep',
    'PLAN_INVALID',
    /deeper than 32/,
    () => text(base()).replace('"pins":{}', `"pins":${'{"a":'.repeat(40)}1${'}'.repeat(40)}`),
  ],
  ['a future version', 'PLAN_VERSION_UNSUPPORTED', /newer than this build/, () => text({ ...base(), version: 4 })],
  [
    'an edit without re-hashing',
    'PLAN_HASH_MISMATCH',
    /changed after planning/,
    () => serializePlan(makePlan()).replace('"files":10', '"files":11'),
  ],
];

function fileFor(name: string, make: () => string | Buffer | ((name: string) => string)): string {
  const content = make();
  const fname = `${name.replace(/\W+/g, '-')}.json`;
  return typeof content === 'function' ? content(fname) : writePlan(dir, fname, content);
}

beforeAll(() => {
  dir = tempDir();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hostile plan files through readPlanForApply', () => {
  it.each(CASES)('%s → %s', (name, code, message, make) => {
    const file = fileFor(name, make);
    const e = errorOf(() => readPlanForApply(file, configWith(), {}));
    expect([e.code, e.message]).toEqual([code, expect.stringMatching(message)]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('accepts the largest wave number a --wave flag addresses (1,000,000), and refuses one more', () => {
    const file = writePlan(
      dir,
      'max-wave.json',
      text({
        ...base(),
        waves: [
          { ...wave0(base()), number: MAX_WAVE_NUMBER - 1 },
          { ...base().waves[1]!, number: MAX_WAVE_NUMBER },
        ],
      }),
    );
    expect(readPlanForApply(file, configWith(), {}).plan.waves.map((w) => w.number)).toEqual([999_999, 1_000_000]);
    expect(parseIntFlag('--wave', String(MAX_WAVE_NUMBER), FLAG_RANGES.wave)).toBe(MAX_WAVE_NUMBER);
    const over = writePlan(
      dir,
      'over-wave.json',
      text({ ...base(), waves: [wave0(base()), { ...base().waves[1]!, number: 2 ** 31 - 1 }] }),
    );
    expect(() => readPlanForApply(over, configWith(), {})).toThrow(expect.objectContaining({ code: 'PLAN_INVALID' }));
  });

  it.each([
    ['a missing file', () => path.join(dir, 'nope.json'), /ENOENT/],
    [
      'a directory',
      () => {
        const d = path.join(dir, 'a-dir');
        mkdirSync(d, { recursive: true });
        return d;
      },
      /not a regular file|EISDIR/,
    ],
    ['/dev/zero (endless, stat size 0)', () => '/dev/zero', /not a regular file/],
  ])('refuses %s with USAGE', (_name, where, message) => {
    const e = errorOf(() => readPlanForApply(where(), configWith(), {}));
    expect([e.code, e.message]).toEqual(['USAGE', expect.stringMatching(message)]);
  });
});

describe('hostile plan files through the CLI (migrate plan --diff)', () => {
  it('exits 2 with the coded error in --json for every case, never 1 or 70', async () => {
    const good = writePlan(dir, 'good.json', serializePlan(makePlan()));
    const cfg = writePlan(dir, 'empty.yaml', 'plan: {}\n');
    const out: string[] = [];
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => (out.push(String(s)), true));
    const errSpy = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      for (const [name, code, , make] of CASES.filter(([, c]) => c !== 'PLAN_EMPTY')) {
        out.length = 0;
        const exit = await main(['plan', '-c', cfg, '--diff', fileFor(`cli ${name}`, make), good, '--json']);
        const body = JSON.parse(out.join('')) as { ok: boolean; error: { code: string } };
        expect([name, exit, body.ok, body.error.code]).toEqual([name, 2, false, code]);
      }
    } finally {
      spy.mockRestore();
      errSpy.mockRestore();
    }
  });
});

describe('table ids in canonical case', () => {
  it('an edited plan naming SEED_SALES.ORDERS is PLAN_INVALID (HMS names are lower case), before anything is stored', () => {
    const dir2 = tempDir();
    try {
      const b = base();
      const upper = {
        ...b,
        waves: [
          { ...wave0(b), tables: wave0(b).tables.map((t, i) => (i === 0 ? { ...t, id: t.id.toUpperCase() } : t)) },
          ...b.waves.slice(1),
        ],
      };
      const file = writePlan(dir2, 'upper.json', text(upper));
      expect(() => readPlanForApply(file, configWith(), {})).toThrow(
        expect.objectContaining({ code: 'PLAN_INVALID', message: expect.stringMatching(/lower case/) }),
      );
    } finally {
      rmSync(dir2, { recursive: true, force: true });
    }
  });
});
