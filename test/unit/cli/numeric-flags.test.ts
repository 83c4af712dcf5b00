// Every numeric flag of every command, through the real command line (runCli, the one exit
// point): a bad value is USAGE, exit 2, as one JSON error naming the flag, found while the command
// line is parsed. The config points every endpoint at a closed port, so a command that got as far
// as connecting would fail with an *_UNREACHABLE code instead.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../../cli/main';
import { FLAG_RANGES } from '../../../cli/flags';

const dir = mkdtempSync(path.join(os.tmpdir(), 'him-flags-'));
const cfg = path.join(dir, 'migrate.yaml');
writeFileSync(cfg, [
  'hms:', '  thrift:', '    uri: thrift://127.0.0.1:1',
  'catalog:', '  type: rest', '  name: lake', '  uri: http://127.0.0.1:1',
  'temporal:', '  address: 127.0.0.1:1',
  'state:', '  url: postgres://u:p@127.0.0.1:1/state', '',
].join('\n'));

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli([...argv, '--config', cfg], { out: (s) => void (stdout += s), err: (s) => void (stderr += s) });
  return { code, stdout, stderr };
}

const PLAN = 'abcdef123456';
/** [command line before the flag, flag, smallest valid value, largest valid value] */
const FLAGS: [string[], string, number, number][] = [
  [['doctor'], '--timeout', FLAG_RANGES.doctorTimeoutMs.min, FLAG_RANGES.doctorTimeoutMs.max],
  [['inventory'], '--calls-per-second', FLAG_RANGES.callsPerSecond.min, FLAG_RANGES.callsPerSecond.max],
  [['table', 'db.t'], '--footer-concurrency', 1, FLAG_RANGES.footerConcurrency.max],
  [['worker'], '--concurrency', 1, FLAG_RANGES.workerConcurrency.max],
  [['apply', 'plan.json'], '--concurrency', 1, FLAG_RANGES.tableConcurrency.max],
  [['apply', 'plan.json'], '--max-failed', 0, FLAG_RANGES.maxFailed.max],
  [['apply', 'plan.json'], '--step-timeout', 1, FLAG_RANGES.timeoutSeconds.max],
  [['apply', 'plan.json'], '--heartbeat-timeout', 1, FLAG_RANGES.timeoutSeconds.max],
  [['approve', PLAN], '--wave', 1, FLAG_RANGES.wave.max],
  [['rollback', PLAN], '--wave', 1, FLAG_RANGES.wave.max],
  [['rollback', PLAN, '--wave', '1'], '--max-wait', 1, FLAG_RANGES.timeoutSeconds.max],
  [['validate', PLAN], '--wave', 1, FLAG_RANGES.wave.max],
  [['validate', PLAN], '--concurrency', 1, FLAG_RANGES.validateConcurrency.max],
  [['schedule', 'create', PLAN], '--concurrency', 1, FLAG_RANGES.validateConcurrency.max],
];

const cases = FLAGS.flatMap(([cmd, flag, min, max]) => {
  const bad = ['abc', '1.5', '-1', String(max + 1), String(2 ** 31)];
  if (min > 0) bad.push(String(min - 1));
  if (min > 1) bad.push('0');
  return bad.map((v) => [cmd.join(' '), flag, v, cmd, min, max] as const);
});

describe('numeric flags: checked before anything connects', () => {
  it.each(cases)('%s %s %s → USAGE, exit 2', async (_name, flag, value, cmd, min, max) => {
    const r = await cli([...cmd, flag, value, '--json']);
    expect(r.code).toBe(2);
    const out = JSON.parse(r.stdout) as { ok: boolean; error: { code: string; message: string; context: Record<string, unknown> } };
    expect(out).toEqual({ ok: false, error: { code: 'USAGE', message: `${flag} must be an integer from ${min} to ${max}, got '${value}'`, context: { flag, value, min, max } } });
  });

  it('the same error as text on stderr without --json', async () => {
    const r = await cli(['worker', '--concurrency', 'abc']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error [USAGE]: --concurrency must be an integer from 1 to ${FLAG_RANGES.workerConcurrency.max}, got 'abc'\n`);
  });

  it('a repeated flag checks every value (validate --wave 1 --wave abc)', async () => {
    const r = await cli(['validate', PLAN, '--wave', '1', '--wave', 'abc', '--json']);
    expect(r.code).toBe(2);
    expect((JSON.parse(r.stdout) as { error: { context: { value: string } } }).error.context.value).toBe('abc');
  });

  it('a valid value gets past parsing: the closed port is then a coded failure (exit 1), not a usage error', async () => {
    const r = await cli(['status', PLAN, '--json']);
    expect(r.code).toBe(1);
    expect((JSON.parse(r.stdout) as { error: { code: string } }).error.code).toBe('TEMPORAL_UNREACHABLE');
  }, 60_000);
});

describe('command-line errors found by commander, and --json everywhere', () => {
  it('an unknown command or option, a missing argument: USAGE, exit 2, as JSON with --json', async () => {
    for (const argv of [['bogus'], ['status'], ['apply', 'p.json', '--no-such-flag'], ['approve', PLAN]]) {
      const r = await cli([...argv, '--json']);
      expect(r.code).toBe(2);
      expect((JSON.parse(r.stdout) as { ok: boolean; error: { code: string } }).error.code).toBe('USAGE');
    }
  });

  it('every command and sub-command takes --json', async () => {
    const missing: string[] = [];
    const { buildProgram } = await import('../../../cli/main');
    const walk = (c: ReturnType<typeof buildProgram>, prefix: string): void => {
      for (const sub of c.commands) {
        const name = `${prefix}${sub.name()}`;
        if (sub.commands.length > 0) walk(sub, `${name} `);
        else if (!sub.options.some((o) => o.long === '--json')) missing.push(name);
      }
    };
    walk(buildProgram({ out: () => undefined, err: () => undefined, setExit: () => undefined }), '');
    expect(missing).toEqual([]);
  });

  it('every command says its exit codes in --help', async () => {
    const { buildProgram } = await import('../../../cli/main');
    const without: string[] = [];
    const walk = (c: ReturnType<typeof buildProgram>, prefix: string): void => {
      for (const sub of c.commands) {
        const name = `${prefix}${sub.name()}`;
        if (sub.commands.length > 0) walk(sub, `${name} `);
        else if (!/Exit codes?:? [0-9]/.test(helpOf(sub))) without.push(name);
      }
    };
    walk(buildProgram({ out: () => undefined, err: () => undefined, setExit: () => undefined }), '');
    expect(without).toEqual([]);
  });
});

function helpOf(cmd: { outputHelp: () => void; configureOutput: (o: { writeOut: (s: string) => void }) => unknown }): string {
  let text = '';
  cmd.configureOutput({ writeOut: (s) => void (text += s) });
  cmd.outputHelp();
  return text;
}
