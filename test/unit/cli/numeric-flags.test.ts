// Every numeric flag of every command refuses abc, 0 and -1 (or, where 0 is allowed, a value above
// its maximum) with a coded USAGE error and exit 2, before any config is read or connection opened.
// The flags are discovered from the program itself (options taking <n>, <s> or <ms>), so a numeric
// flag added later is covered without editing this file.
import type { Command, Option } from 'commander';
import { buildProgram, runCli } from '../../../cli/main';
import { FLAG_RANGES } from '../../../cli/flags';

/** Flags whose range starts at 0 (0 = no limit / no failure allowed). */
const ZERO_OK = new Map([
  ['--max-failed', FLAG_RANGES.maxFailed.min],
  ['--calls-per-second', FLAG_RANGES.callsPerSecond.min],
]);

interface Case {
  readonly label: string;
  readonly argv: string[];
  readonly flag: string;
}

const NUMERIC = /<(n|s|ms)>$/;
const noop = { out: () => undefined, err: () => undefined, setExit: () => undefined };

/** The leaf commands with their path from the root. */
function leaves(cmd: Command, path: string[] = []): { path: string[]; cmd: Command }[] {
  if (cmd.commands.length === 0) return [{ path, cmd }];
  return cmd.commands.flatMap((c) => leaves(c, [...path, c.name()]));
}

/** A valid command line up to the flag under test: placeholders for arguments, other required options valid. */
function prefix(path: string[], cmd: Command, skip: Option): string[] {
  const args = cmd.registeredArguments.filter((a) => a.required).map(() => 'abcdef123456');
  const required = cmd.options.filter((o) => o.mandatory && o !== skip).flatMap((o) => [o.long as string, '1']);
  return [...path, ...args, ...required];
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const { path, cmd } of leaves(buildProgram(noop))) {
    for (const o of cmd.options.filter((x) => NUMERIC.test(x.flags))) {
      const flag = o.long as string;
      for (const bad of ['abc', '0', '-1', '1.5', String(2 ** 53)])
        out.push({ label: `${path.join(' ')} ${flag} ${bad}`, argv: [...prefix(path, cmd, o), flag, bad], flag });
    }
  }
  return out;
}

const all = cases();

describe('numeric flags', () => {
  it('are found on every command that takes one', () => {
    const commands = new Set(all.map((c) => c.label.split(' --')[0]));
    expect([...commands].sort()).toEqual([
      'apply',
      'approve',
      'cutover',
      'doctor',
      'inventory',
      'rollback',
      'schedule create',
      'status',
      'sync',
      'table',
      'validate',
      'worker',
    ]);
  });

  it.each(all.map((c) => [c.label, c] as const))('%s → USAGE, exit 2', async (_label, c) => {
    let out = '';
    const code = await runCli([...c.argv, '--json'], { out: (s) => void (out += s), err: () => undefined });
    const zeroAllowed = c.argv[c.argv.length - 1] === '0' && ZERO_OK.get(c.flag) === 0;
    if (zeroAllowed) {
      // 0 is in range here (no limit / no failure allowed): the flag is accepted and the command goes on.
      expect(out).not.toContain(`${c.flag} must be an integer`);
      return;
    }
    expect(code).toBe(2);
    const error = (JSON.parse(out) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('USAGE');
    expect(error.message).toContain(`${c.flag} must be an integer`);
  });
});
