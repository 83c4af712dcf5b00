// Hostile corpus, inputs: every file the CLI reads is opened only when it is a regular file below a
// size cap (a FIFO with no writer, /dev/zero and a directory are refused at once, not read for ever),
// YAML alias bombs are a coded error, plan outputs into a missing directory or onto a directory are
// refused before any work, and a reader that closes the pipe ends the output quietly. Each case
// asserts the exit code, the error code, and that nothing was written. Every endpoint of the
// config is dead: a case that got past its input check would fail differently (or hang).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Run } from '../../helpers/cli';
import { MIGRATE } from '../../helpers/cli';
import { deadConfigYaml, migrate, outcome, prefetch, writeFile } from '../../helpers/hostile';

let dir = '';
let fifo = '';
let cfg = '';
let runs: Record<string, Promise<Run>> = {};

/** Ten levels of ten aliases: 10^7 values if expanded. */
const aliasBomb = (top: string): string => {
  const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i <= 7; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]`);
  return `${top}${lines.join('\n')}\n`;
};

/** A run bounded by 30 s: a hang (the bug) fails the case with code -1 instead of blocking the suite. */
const cli = (args: readonly string[]): Promise<Run> => migrate(args, 30_000);

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-hostile-inputs-'));
  fifo = path.join(dir, 'pipe');
  execFileSync('mkfifo', [fifo]);
  cfg = writeFile(dir, 'migrate.yaml', deadConfigYaml());
  const ed = (file: string): string =>
    writeFile(
      dir,
      `signing-${path.basename(file)}.yaml`,
      deadConfigYaml(`plan:\n  signing:\n    type: ed25519\n    privateKeyFile: ${file}\n    publicKeyFile: ${file}\n`),
    );
  mkdirSync(path.join(dir, 'out-dir'));
  mkdirSync(path.join(dir, 'out-dir.md'));
  runs = prefetch({
    configFifo: () => cli(['doctor', '--json', '-c', fifo]),
    configZero: () => cli(['doctor', '--json', '-c', '/dev/zero']),
    configDir: () => cli(['doctor', '--json', '-c', dir]),
    configHuge: () => cli(['doctor', '--json', '-c', writeFile(dir, 'huge.yaml', `${deadConfigYaml()}# ${'x'.repeat(2 << 20)}\n`)]),
    configBomb: () => cli(['doctor', '--json', '-c', writeFile(dir, 'bomb.yaml', aliasBomb(deadConfigYaml()))]),
    applyFifo: () => cli(['apply', fifo, '--json', '-c', cfg]),
    applyZero: () => cli(['apply', '/dev/zero', '--json', '-c', cfg]),
    diffFifo: () => cli(['plan', '--diff', fifo, fifo, '--json', '-c', cfg]),
    lineageFlagFifo: () => cli(['plan', '--out', path.join(dir, 'p1.json'), '--lineage', fifo, '--json', '-c', cfg]),
    lineageKeyFifo: () =>
      cli([
        'plan',
        '--out',
        path.join(dir, 'p2.json'),
        '--json',
        '-c',
        writeFile(dir, 'lin.yaml', deadConfigYaml(`plan:\n  lineage: ${fifo}\n`)),
      ]),
    lineageBomb: () =>
      cli([
        'plan',
        '--out',
        path.join(dir, 'p3.json'),
        '--lineage',
        writeFile(dir, 'bomb-lineage.yaml', aliasBomb('')),
        '--json',
        '-c',
        cfg,
      ]),
    signingFifo: () => cli(['plan', '--out', path.join(dir, 'p4.json'), '--json', '-c', ed(fifo)]),
    signingZero: () => cli(['plan', '--out', path.join(dir, 'p5.json'), '--json', '-c', ed('/dev/zero')]),
    outMissingDir: () => cli(['plan', '--out', path.join(dir, 'no-such-dir', 'plan.json'), '--json', '-c', cfg]),
    outOnDir: () => cli(['plan', '--out', path.join(dir, 'out-dir'), '--json', '-c', cfg]),
    reportOnDir: () => cli(['plan', '--out', path.join(dir, 'p6.json'), '--report', path.join(dir, 'out-dir.md'), '--json', '-c', cfg]),
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const message = (r: Run): string => {
  try {
    return (JSON.parse(r.stdout) as { error?: { message?: string } }).error?.message ?? '';
  } catch {
    return r.stderr;
  }
};

describe('hostile inputs: regular files only, bounded, coded', () => {
  it.each([
    ['configFifo', 'CONFIG_INVALID', /FIFO/],
    ['configZero', 'CONFIG_INVALID', /device/],
    ['configDir', 'CONFIG_INVALID', /directory/],
    ['configHuge', 'CONFIG_INVALID', /at most 1048576 bytes/],
    ['configBomb', 'CONFIG_INVALID', /aliases expand past 100/],
    ['applyFifo', 'USAGE', /FIFO/],
    ['applyZero', 'USAGE', /device/],
    ['diffFifo', 'USAGE', /FIFO/],
    ['lineageFlagFifo', 'LINEAGE_INVALID', /FIFO/],
    ['lineageKeyFifo', 'LINEAGE_INVALID', /FIFO/],
    ['lineageBomb', 'LINEAGE_INVALID', /aliases expand past 100/],
    ['signingFifo', 'CONFIG_INVALID', /FIFO/],
    ['signingZero', 'CONFIG_INVALID', /device/],
    ['outMissingDir', 'USAGE', /does not exist; create it first/],
    ['outOnDir', 'USAGE', /is a directory/],
    ['reportOnDir', 'USAGE', /is a directory/],
  ] as const)('%s → exit 2, %s, nothing written', async (name, code, text) => {
    const r = (await runs[name]) as Run;
    expect(outcome(r)).toEqual({ exit: 2, code });
    expect(message(r)).toMatch(text);
    // No plan output, and no temporary file, was left beside the inputs.
    expect(readdirSync(dir).filter((f) => /^p\d\.json|\.tmp-/.test(f))).toEqual([]);
  });

  it('a reader that closes the pipe early (| head -1) ends the output quietly: exit 0, nothing on stderr', () => {
    for (const args of [['--help'], ['plan', '--help']]) {
      const r = spawnSync('bash', ['-c', `set -o pipefail; "${MIGRATE}" ${args.join(' ')} | head -1`], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect({ status: r.status, stdout: r.stdout.split('\n').length, stderr: r.stderr }).toEqual({ status: 0, stdout: 2, stderr: '' });
    }
  });
});
