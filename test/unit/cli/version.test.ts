// `migrate --version`: the tool (package.json), Node, Temporal SDK (the installed @temporalio/client)
// and HMS IDL versions, as text or JSON; exit 0 wherever the flag stands (it is a global option).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../../../cli/main';
import { HMS_IDL_VERSION } from '../../../adapters/hms/thrift/idl-version';

const root = path.join(__dirname, '..', '..', '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
const sdk = (JSON.parse(readFileSync(require.resolve('@temporalio/client/package.json'), 'utf8')) as { version: string }).version;

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

test('--version and -V print the four versions and exit 0', async () => {
  const want = `migrate ${pkg.version}\nnode ${process.versions.node}\ntemporal-sdk ${sdk}\nhms-idl ${HMS_IDL_VERSION} (Hive Metastore Thrift IDL)\n`;
  expect(sdk).toBe(pkg.dependencies['@temporalio/client']);
  expect(await cli(['--version'])).toEqual({ code: 0, out: want, err: '' });
  expect(await cli(['-c', 'nowhere.yaml', '-V'])).toEqual({ code: 0, out: want, err: '' });
});

test('--version --json is one JSON object', async () => {
  const r = await cli(['--version', '--json']);
  expect(r.code).toBe(0);
  expect(JSON.parse(r.out)).toEqual({
    ok: true,
    tool: pkg.version,
    node: process.versions.node,
    temporalSdk: sdk,
    hmsIdl: HMS_IDL_VERSION,
  });
});

test('--version is a global option: after a command it prints the versions and the command does not run', async () => {
  const r = await cli(['doctor', '--config', 'nowhere.yaml', '--version']);
  expect(r).toMatchObject({ code: 0, err: '' });
  expect(r.out).toMatch(/^migrate \S+\nnode /);
});
