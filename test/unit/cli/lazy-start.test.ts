// `migrate --help`, a usage error and `--version` start fast because commands import their
// application module only when they run (cli/main.ts; bench/startup measures it). This holds the
// line: in a fresh process running the CLI from the sources, none of the heavy libraries is loaded.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const HEAVY = ['@temporalio/', '@aws-sdk/', 'node-sql-parser', 'zod', 'yaml', 'pg', 'mysql2', 'thrift', 'avsc', 'hyparquet'];

/** node_modules files in require.cache after `migrate <argv>` (and `extra` required first, if given). */
function loadedBy(argv: string[], extra?: string): string[] {
  const script = `${extra ? `require(${JSON.stringify(extra)});` : ''}require('./cli/main').runCli(${JSON.stringify(argv)}, { out() {}, err() {} })
    .then(() => process.stdout.write(JSON.stringify(Object.keys(require.cache))));`;
  const out = execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  return (JSON.parse(out) as string[]).filter((f) => f.includes(`${path.sep}node_modules${path.sep}`));
}

const heavyIn = (files: string[]): string[] =>
  HEAVY.filter((h) => files.some((f) => f.includes(`${path.sep}node_modules${path.sep}${h.replace('/', path.sep)}`)));

test.each([[['--help']], [['no-such-command']], [['--version']]])('migrate %j loads none of the heavy libraries', (argv) => {
  const files = loadedBy(argv);
  expect(files.some((f) => f.includes(`${path.sep}commander${path.sep}`))).toBe(true);
  expect(heavyIn(files)).toEqual([]);
});

test('the check sees a heavy library when one is loaded (it can fail)', () => {
  // cli/config.ts is what a running command imports first (yaml, and zod through the schema).
  expect(heavyIn(loadedBy(['--help'], './cli/config'))).toEqual(expect.arrayContaining(['zod', 'yaml']));
});
