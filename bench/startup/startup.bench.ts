// Start-up time of `migrate`: wall-clock median of N runs each of `--help`, a usage error
// (an unknown command, exit 2) and `--version`, next to `node -e 0` measured in the same rounds, for
// each launcher given. Runs are interleaved (one of each per round), so load on a shared machine
// falls on all of them alike. Output goes to /dev/null; the child's exit code is checked.
//
//   npx tsx bench/startup/startup.bench.ts [--runs 10] [--before <checkout>] [--launcher name=cmd ...]
//
// Default launchers: `bin/migrate` of this checkout (compiled dist/, with the launcher's
// staleness check) and `node dist/cli/main.js` (what an installed `migrate` runs). `--before <dir>`
// adds `<dir>/bin/migrate` (e.g. an extracted copy of the previous commit, its node_modules linked).
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

interface Case {
  readonly name: string;
  readonly args: readonly string[];
  /** Exit codes that count as the expected outcome. */
  readonly codes: readonly number[];
}

const CASES: readonly Case[] = [
  { name: '--help', args: ['--help'], codes: [0] },
  { name: 'usage error', args: ['no-such-command'], codes: [2] },
  // A build without --version treats it as an unknown option (exit 2), so this bench also runs on older builds.
  { name: '--version', args: ['--version'], codes: [0, 2] },
];

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i > 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : fallback;
}

function launchers(): [string, string[]][] {
  const out: [string, string[]][] = [];
  const before = arg('--before', '');
  if (before !== '') out.push(['before: bin/migrate (tsx)', [path.join(path.resolve(before), 'bin', 'migrate')]]);
  out.push(['after: bin/migrate', [path.join(ROOT, 'bin', 'migrate')]]);
  out.push(['after: node dist/cli/main.js', [process.execPath, path.join(ROOT, 'dist', 'cli', 'main.js')]]);
  process.argv.forEach((a, i) => {
    if (a !== '--launcher') return;
    const [name, cmd] = (process.argv[i + 1] ?? '').split('=', 2);
    if (name && cmd) out.push([name, cmd.split(' ')]);
  });
  return out;
}

function timeOnce(cmd: readonly string[], args: readonly string[], codes: readonly number[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd[0] as string, [...cmd.slice(1), ...args], { stdio: 'ignore', cwd: ROOT });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status === null || !codes.includes(r.status)) throw new Error(`${cmd.join(' ')} ${args.join(' ')}: exit ${r.status}`);
  return ms;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

function main(): void {
  const runs = Number(arg('--runs', '10'));
  const ls = launchers();
  const rows = new Map<string, number[]>();
  const add = (key: string, ms: number): void => void rows.set(key, [...(rows.get(key) ?? []), ms]);
  // One warm-up of each (a stale dist/ is built here, not inside a measured run).
  for (const [, cmd] of ls) for (const c of CASES) timeOnce(cmd, c.args, c.codes);
  for (let r = 0; r < runs; r++) {
    add('node -e 0', timeOnce([process.execPath], ['-e', '0'], [0]));
    for (const [name, cmd] of ls) for (const c of CASES) add(`${name} ${c.name}`, timeOnce(cmd, c.args, c.codes));
  }
  const base = median(rows.get('node -e 0') ?? []);
  console.log(`node ${process.version}, ${runs} runs each, interleaved; median (min–max) wall ms; minus node -e 0`);
  for (const [key, xs] of rows) {
    const m = median(xs);
    const extra = key === 'node -e 0' ? '' : `  (+${(m - base).toFixed(0)})`;
    console.log(`${key.padEnd(50)} ${m.toFixed(0).padStart(6)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})${extra}`);
  }
}

main();
