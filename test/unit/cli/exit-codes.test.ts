// Exit codes: what every command's --help states is what the program does. For each command (found
// in the program itself, so a new one must be added here), its --help lists 0, 1, 2 (3 for
// validate) and 70; then the outcomes are run through runCli: a configuration that does not exist →
// CONFIG_NOT_FOUND, 2; an unknown flag → 2; every endpoint refused (127.0.0.1:1) → a coded
// *_UNREACHABLE, 1; a plan file edited after planning, an unreadable one → 2. Each run's code is
// checked against the line of its own --help that describes that outcome. No stack: the refusals
// are immediate.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { buildGraph } from '../../../core/plan/graph';
import { buildPlan, serializePlan } from '../../../core/plan/plan-file';
import { planWaves } from '../../../core/plan/waves';
import { buildProgram, runCli } from '../../../cli/main';
import { baseOptions, table } from '../plan/fixtures';

const noop = { out: () => undefined, err: () => undefined, setExit: () => undefined };

function leaves(cmd: Command, p: string[] = []): { path: string[]; cmd: Command }[] {
  if (cmd.commands.length === 0) return [{ path: p, cmd }];
  return cmd.commands.flatMap((c) => leaves(c, [...p, c.name()]));
}

const COMMANDS = leaves(buildProgram(noop));

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (s) => void (out += s), err: (s) => void (err += s) });
  return { code, out, err };
}

/** The --help of a command as code → its text (continuation lines joined). */
async function helpExits(cmdPath: string[]): Promise<Map<number, string>> {
  const { out } = await cli([...cmdPath, '--help']);
  const block = out.split('Exit codes (docs/exit-codes.md):\n')[1] ?? '';
  const map = new Map<number, string>();
  let last = -1;
  for (const line of block.split('\n')) {
    const m = /^ {2}(\d+)\s+(.*)$/.exec(line);
    if (m) map.set((last = Number(m[1])), m[2] as string);
    else if (/^ {5}\S/.test(line) && last >= 0) map.set(last, `${map.get(last)} ${line.trim()}`);
    else if (line.trim() === '' || !line.startsWith(' ')) break;
  }
  return map;
}

/** Placeholder arguments that get a command past its own parsing (plan id, wave, table, plan file). */
function argsFor(p: string[], cmd: Command, planFile: string): string[] {
  const args = cmd.registeredArguments.filter((a) => a.required).map((a) => (a.name() === 'table' ? 'db.tbl' : 'abcdef123456'));
  const required = cmd.options.filter((o) => o.mandatory).flatMap((o) => [o.long as string, '1']);
  if (p[0] === 'apply') return [...p, planFile];
  if (p[0] === 'plan') return [...p, '--out', path.join(path.dirname(planFile), 'out.json')];
  return [...p, ...args, ...required];
}

let dir = '';
let refusedCfg = '';
let goodPlan = '';
let editedPlan = '';

const threadsBefore = process.env.HIM_FOOTER_THREADS;

beforeAll(() => {
  // `table` and `worker` start the footer-thread pool before they connect: no threads in this test process.
  process.env.HIM_FOOTER_THREADS = '0';
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-exit-codes-'));
  refusedCfg = path.join(dir, 'refused.yaml');
  // Every endpoint on a port nothing listens on: each command fails at its first connection.
  writeFileSync(
    refusedCfg,
    [
      'hms: { thrift: { uri: "thrift://127.0.0.1:1", connectTimeoutMs: 2000 } }',
      'catalog: { name: lake, type: rest, uri: "http://127.0.0.1:1" }',
      'storage: { s3: { endpoint: "http://127.0.0.1:1", forcePathStyle: true } }',
      'temporal: { address: "127.0.0.1:1" }',
      'state: { url: "postgres://nobody@127.0.0.1:1/nothing" }',
      '',
    ].join('\n'),
  );
  const plan = buildPlan(
    {
      createdAt: '2026-01-01T00:00:00.000Z',
      toolVersion: '0.1.0',
      source: { uri: 'thrift://127.0.0.1:1', label: 'exit-codes' },
      targetCatalog: 'lake',
      throughput: { filesPerSecond: 100, bytesPerSecond: 1e6, perTableOverheadSeconds: 1 },
    },
    planWaves(buildGraph([table('sales.orders')], []), baseOptions),
  );
  const text = serializePlan(plan);
  goodPlan = path.join(dir, 'good.json');
  editedPlan = path.join(dir, 'edited.json');
  writeFileSync(goodPlan, text);
  writeFileSync(editedPlan, text.replace('"targetCatalog":"lake"', '"targetCatalog":"other"'));
  if (!text.includes('"targetCatalog":"lake"')) throw new Error('the plan file no longer carries "targetCatalog":"lake"; edit this test');
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  if (threadsBefore === undefined) delete process.env.HIM_FOOTER_THREADS;
  else process.env.HIM_FOOTER_THREADS = threadsBefore;
});

describe.each(COMMANDS.map((c) => [c.path.join(' '), c] as const))('%s', (name, { path: p, cmd }) => {
  it('--help lists exit codes 0, 1, 2 and 70 (3 for validate only)', async () => {
    const exits = await helpExits(p);
    expect([...exits.keys()].sort((a, b) => a - b)).toEqual(name === 'validate' ? [0, 1, 2, 3, 70] : [0, 1, 2, 70]);
    for (const text of exits.values()) expect(text.length).toBeGreaterThan(3);
  });

  it('a configuration file that does not exist → CONFIG_NOT_FOUND, exit 2, as --help says for bad configuration', async () => {
    const r = await cli([...argsFor(p, cmd, goodPlan), '--config', path.join(dir, 'missing.yaml'), '--json']);
    expect((JSON.parse(r.out) as { error: { code: string } }).error.code).toBe('CONFIG_NOT_FOUND');
    expect(r.code).toBe(2);
    expect((await helpExits(p)).get(2)).toMatch(/configuration/);
  });

  it('an unknown flag → USAGE, exit 2', async () => {
    const r = await cli([...argsFor(p, cmd, goodPlan), '--no-such-flag', '--json']);
    expect((JSON.parse(r.out) as { error: { code: string } }).error.code).toBe('USAGE');
    expect(r.code).toBe(2);
    expect((await helpExits(p)).get(2)).toMatch(/bad (flag|configuration)|configuration/);
  });

  it('every endpoint refused → a coded *_UNREACHABLE (or a failed check), exit 1, as its --help line 1 says', async () => {
    // activate-key needs a key configured before it connects anywhere (without one: CONFIG_INVALID, exit 2).
    const keyed = name === 'audit activate-key' ? ['--set', 'audit.keyEnv=HIM_EXIT_CODES_AUDIT_KEY'] : [];
    process.env.HIM_EXIT_CODES_AUDIT_KEY = 'k'.repeat(40);
    const r = await cli([...argsFor(p, cmd, goodPlan), '--config', refusedCfg, ...keyed, '--json']);
    delete process.env.HIM_EXIT_CODES_AUDIT_KEY;
    const body = JSON.parse(r.out) as { ok: boolean; error?: { code: string }; checks?: unknown[] };
    const line1 = (await helpExits(p)).get(1) ?? '';
    if (name === 'doctor') {
      expect(body.ok).toBe(false);
      expect(line1).toMatch(/a check failed/);
    } else {
      expect(body.error?.code).toMatch(/^(HMS|TEMPORAL|STATE_DB|CATALOG|STORAGE)_UNREACHABLE$/);
      // The line names the endpoint class the command needs, or says "an endpoint".
      expect(line1).toMatch(/unreachable|cannot be (read|reached)/);
    }
    expect(r.code).toBe(1);
  });
});

describe('plan files given to apply and plan --diff', () => {
  it.each([
    ['apply, edited after planning', (): string[] => ['apply', editedPlan], 'PLAN_HASH_MISMATCH', /hash/],
    ['apply, unreadable', (): string[] => ['apply', path.join(dir, 'nope.json')], 'USAGE', /unreadable/],
    ['plan --diff, edited after planning', (): string[] => ['plan', '--diff', goodPlan, editedPlan], 'PLAN_HASH_MISMATCH', /hash/],
  ])('%s → exit 2, the code its --help gives', async (_label, argv, code, phrase) => {
    const args = argv();
    const r = await cli([...args, '--config', refusedCfg, '--json']);
    expect((JSON.parse(r.out) as { error: { code: string } }).error.code).toBe(code);
    expect(r.code).toBe(2);
    expect((await helpExits([args[0] as string])).get(2)).toMatch(phrase);
  });
});
