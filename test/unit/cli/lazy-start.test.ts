// `migrate --help`, a usage error and `--version` start fast because commands import their
// application module only when they run (cli/main.ts; bench/startup measures it). This holds the
// line: in a fresh process running the CLI from the sources, none of the heavy libraries is loaded.
// A command that runs loads what it uses: `migrate plan` (HMS and catalog) not the Temporal SDK nor
// the database drivers (app/runtime/runtime.ts imports those when a command opens them).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const HEAVY = ['@temporalio/', '@aws-sdk/', 'node-sql-parser', 'zod', 'yaml', 'pg', 'mysql2', 'thrift', 'avsc', 'hyparquet'];

/** node_modules files in require.cache after `migrate <argv>` (and `extra` required first, if given). */
function loadedBy(argv: string[], extra?: string): string[] {
  const script = `${extra ? `require(${JSON.stringify(extra)});` : ''}require('./cli/main').runCli(${JSON.stringify(argv)}, { out() {}, err() {} })
    .then(() => process.stdout.write(JSON.stringify(Object.keys(require.cache))));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8' });
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

/** Runs `fn` with a config whose every endpoint refuses at once (port 1), plus `extra` YAML lines:
 * a command fails at its first connection, after its modules loaded. */
function withRefusedConfig(extra: readonly string[], fn: (cfg: string, dir: string) => void): void {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'him-lazy-start-'));
  try {
    const cfg = path.join(dir, 'refused.yaml');
    writeFileSync(
      cfg,
      [
        'hms: { thrift: { uri: "thrift://127.0.0.1:1", connectTimeoutMs: 2000 } }',
        'catalog: { name: lake, type: rest, uri: "http://127.0.0.1:1" }',
        'temporal: { address: "127.0.0.1:1" }',
        'state: { url: "postgres://nobody@127.0.0.1:1/nothing" }',
        ...extra,
        '',
      ].join('\n'),
    );
    fn(cfg, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('migrate plan loads neither the Temporal SDK nor the database drivers; migrate plans (state, Temporal) does', () => {
  withRefusedConfig([], (cfg, dir) => {
    const plan = heavyIn(loadedBy(['plan', '--config', cfg, '--out', path.join(dir, 'plan.json'), '--json']));
    expect(plan).toEqual(expect.arrayContaining(['thrift', 'zod']));
    expect(plan.filter((h) => ['@temporalio/', 'pg', 'mysql2'].includes(h))).toEqual([]);
    expect(heavyIn(loadedBy(['plans', '--config', cfg, '--json']))).toEqual(expect.arrayContaining(['pg']));
  });
}, 60_000);

test('migrate status and approve (state, Temporal) load neither the S3 SDK nor Thrift nor the Avro reader, even with an audit anchor in S3', () => {
  const anchored = [
    'storage: { s3: { endpoint: "http://127.0.0.1:1", region: us-east-1, forcePathStyle: true } }',
    'audit: { anchorLocation: "s3://results/audit-anchors/" }',
  ];
  withRefusedConfig(anchored, (cfg) => {
    for (const argv of [
      ['status', '0123456789ab', '--config', cfg, '--json'],
      ['approve', '0123456789ab', '--wave', '1', '--config', cfg, '--json'],
      ['plans', '--config', cfg, '--json'],
    ]) {
      const heavy = heavyIn(loadedBy(argv));
      // What they do load (so the check sees the command's own modules) and what they must not.
      expect({ argv: argv[0], temporal: heavy.includes('@temporalio/') }).toEqual({ argv: argv[0], temporal: true });
      expect({ argv: argv[0], never: heavy.filter((h) => ['@aws-sdk/', 'thrift', 'avsc'].includes(h)) }).toEqual({
        argv: argv[0],
        never: [],
      });
    }
  });
}, 60_000);
