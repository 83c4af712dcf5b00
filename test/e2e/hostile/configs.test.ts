// Hostile corpus, configuration files: YAML syntax errors, unknown keys, wrong
// types, a typo in an environment override, an empty file and a binary file are each CONFIG_INVALID
// (exit 2), named precisely, before any connection (every endpoint of the base config is dead).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Run } from '../../helpers/cli';
import { deadConfigYaml, migrate, outcome, prefetch, writeFile } from '../../helpers/hostile';

let dir = '';
let runs: Record<string, Promise<Run>> = {};
const binary = (): Uint8Array => Uint8Array.from({ length: 4096 }, (_v, i) => (i * 131 + 7) % 256);

/** `migrate doctor --json` on a config file with this content (and extra environment). */
async function doctorWith(name: string, content: string | Uint8Array, extraEnv: Record<string, string> = {}) {
  const file = writeFile(dir, name, content);
  return migrate(['doctor', '--json', '--timeout', '1000', '-c', file], 60_000, extraEnv);
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-hostile-cfg-'));
  runs = prefetch({
    syntax: () => doctorWith('syntax.yaml', `${deadConfigYaml()}temporal: [unclosed\n  - : :\n`),
    unknownKey: () => doctorWith('unknown-key.yaml', deadConfigYaml().replace('temporal:\n', 'temporal:\n  retries: 3\n')),
    wrongType: () => doctorWith('wrong-type.yaml', deadConfigYaml().replace('connectTimeoutMs: 1000', 'connectTimeoutMs: soon')),
    envTypo: () => doctorWith('env-typo.yaml', deadConfigYaml(), { MIGRATE__TEMPORAL__ADRESS: '127.0.0.1:7233' }),
    empty: () => doctorWith('empty.yaml', ''),
    binary: () => doctorWith('binary.yaml', binary()),
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const message = (stdout: string): string => {
  try {
    return (JSON.parse(stdout) as { error?: { message?: string } }).error?.message ?? '';
  } catch {
    return '';
  }
};

describe('hostile configs: CONFIG_INVALID, exit 2, naming what is wrong', () => {
  it('YAML syntax error → CONFIG_INVALID with the line', async () => {
    const r = await (runs.syntax as Promise<Run>);
    expect(outcome(r)).toEqual({ exit: 2, code: 'CONFIG_INVALID' });
    expect(message(r.stdout)).toMatch(/:\d+:\d+/);
  });

  it('unknown key → CONFIG_INVALID naming the key', async () => {
    const r = await (runs.unknownKey as Promise<Run>);
    expect(outcome(r)).toEqual({ exit: 2, code: 'CONFIG_INVALID' });
    expect(message(r.stdout)).toContain('retries');
  });

  it('wrong type → CONFIG_INVALID naming the path', async () => {
    const r = await (runs.wrongType as Promise<Run>);
    expect(outcome(r)).toEqual({ exit: 2, code: 'CONFIG_INVALID' });
    expect(message(r.stdout)).toContain('hms.thrift.connectTimeoutMs');
  });

  it('env override typo MIGRATE__TEMPORAL__ADRESS → CONFIG_INVALID naming the variable, not the file', async () => {
    const r = await (runs.envTypo as Promise<Run>);
    expect(outcome(r)).toEqual({ exit: 2, code: 'CONFIG_INVALID' });
    expect(message(r.stdout)).toContain('MIGRATE__TEMPORAL__ADRESS');
  });

  it('empty file → CONFIG_INVALID (a config that configures nothing is a mistake)', async () => {
    const r = await (runs.empty as Promise<Run>);
    expect(outcome(r)).toEqual({ exit: 2, code: 'CONFIG_INVALID' });
  });

  it('binary file → CONFIG_INVALID (not an internal error)', async () => {
    const r = await (runs.binary as Promise<Run>);
    expect(outcome(r)).toEqual({ exit: 2, code: 'CONFIG_INVALID' });
  });
});
