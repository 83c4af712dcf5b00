// Credentials in a URI are never printed. The real binary against the real stack: a jdbc
// catalog.uri and a state.url carrying a password in user-info and in `?password=` (the stack's
// Postgres trusts local connections, so both are used: the state database connects, the catalog's
// database does not exist), an S3 endpoint with user-info — `doctor` (human and --json) reports each
// endpoint masked and fails on the catalog; `status` and `worker` fail on it too (CATALOG_SERVER_ERROR).
// The secret appears nowhere on stdout or stderr.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Run } from '../../helpers/cli';
import { env, migrate, stackConfigYaml, writeFile } from '../../helpers/hostile';

const SECRET = 'Wr0ng-Pa55-Zq9';
let dir = '';
let cfg = '';
const runs: Record<string, Run> = {};

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-hostile-secrets-'));
  const pg = new URL(env.HIM_POSTGRES_URL as string);
  const base = stackConfigYaml('him-hostile-secrets', 'sec_')
    .replace(
      /catalog:\n(?: {2}.*\n)+/,
      `catalog:\n  name: lake\n  type: jdbc\n  uri: postgres://postgres:${SECRET}@${pg.host}/nocat?password=${SECRET}\n`,
    )
    .replace(/ {2}url: .*\n/, `  url: postgres://postgres:${SECRET}@${pg.host}/migrator?password=${SECRET}\n`)
    .replace(/endpoint: http:\/\/([^\n]+)/, `endpoint: http://AKIA:${SECRET}@$1`);
  if (!base.includes('type: jdbc') || !base.includes(`AKIA:${SECRET}@`))
    throw new Error(`the stack config changed shape; edit this test:\n${base}`);
  cfg = writeFile(dir, 'migrate.yaml', base);
  runs.doctor = await migrate(['doctor', '--timeout', '3000', '-c', cfg], 60_000);
  runs.doctorJson = await migrate(['doctor', '--json', '--timeout', '3000', '-c', cfg], 60_000);
  runs.status = await migrate(['status', '--json', '-c', cfg], 60_000);
  runs.worker = await migrate(['worker', '-c', cfg], 60_000);
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('no URI secret is printed (real binary, real stack)', () => {
  it.each(['doctor', 'doctorJson', 'status', 'worker'])('%s: fails, prints what it tried, never the secret', (name) => {
    const r = runs[name] as Run;
    expect(r.code).not.toBe(0);
    expect(r.stdout.length + r.stderr.length).toBeGreaterThan(0);
    expect(`${r.stdout}\n${r.stderr}`).not.toContain(SECRET);
  });

  it('doctor --json names the masked jdbc catalog and state URLs', () => {
    const out = (runs.doctorJson as Run).stdout;
    expect(out).toContain('/nocat?password=***');
    expect(out).toContain('postgres://postgres:***@');
  });
});
