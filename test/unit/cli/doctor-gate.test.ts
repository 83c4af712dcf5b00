// `migrate doctor` as a deployment gate, without the stack: nothing to check is a usage error (exit
// 2), `--role` narrows the checks to what one process needs, and the audit anchor and validation
// results locations are proven writable with a real probe object (local directories here; the S3
// cases, a missing bucket among them, run against the stack in test/e2e/doctor-checks.test.ts).
// Every network endpoint is a port nothing listens on.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../../cli/main';

let dir = '';
let cfg = '';
let anchors = '';
let results = '';
const configBefore = process.env.MIGRATE_CONFIG;

beforeAll(() => {
  delete process.env.MIGRATE_CONFIG;
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-doctor-gate-'));
  anchors = path.join(dir, 'anchors');
  results = path.join(dir, 'results');
  mkdirSync(anchors);
  cfg = path.join(dir, 'migrate.yaml');
  writeFileSync(
    cfg,
    [
      'hms: { thrift: { uri: "thrift://127.0.0.1:1", connectTimeoutMs: 500, callTimeoutMs: 500 } }',
      'temporal: { address: "127.0.0.1:1" }',
      'state: { url: "postgres://him@127.0.0.1:1/state" }',
      `audit: { anchorLocation: "${anchors}" }`,
      `validation: { resultsLocation: "${results}" }`,
      '',
    ].join('\n'),
  );
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  if (configBefore !== undefined) process.env.MIGRATE_CONFIG = configBefore;
});

interface Doctor {
  readonly ok: boolean;
  readonly checks: { component: string; check: string; status: string; code?: string; detail: string }[];
  readonly error?: { code: string; message: string };
}

async function doctor(args: string[], cwd = dir): Promise<{ code: number; body: Doctor }> {
  let out = '';
  const before = process.cwd();
  process.chdir(cwd);
  try {
    const code = await runCli(['doctor', '--json', '--timeout', '1500', ...args], { out: (s) => void (out += s), err: () => undefined });
    return { code, body: JSON.parse(out) as Doctor };
  } finally {
    process.chdir(before);
  }
}

describe('migrate doctor as a deployment gate', () => {
  it('no configuration: exit 2 (USAGE), not a pass', async () => {
    const empty = mkdtempSync(path.join(dir, 'empty-'));
    const r = await doctor([], empty);
    expect([r.code, r.body.error?.code]).toEqual([2, 'USAGE']);
    expect(r.body.error?.message).toMatch(/nothing to check.*--config/);
  });

  it('--role workflows checks Temporal only; a config without temporal is then nothing to check (exit 2)', async () => {
    const r = await doctor(['-c', cfg, '--role', 'workflows']);
    expect([...new Set(r.body.checks.map((c) => c.component))]).toEqual(['temporal']);
    expect(r.code).toBe(1); // the refused Temporal port fails it
    const noTemporal = path.join(dir, 'no-temporal.yaml');
    writeFileSync(noTemporal, `state: { url: "postgres://him@127.0.0.1:1/state" }\n`);
    const n = await doctor(['-c', noTemporal, '--role', 'workflows']);
    expect([n.code, n.body.error?.code]).toEqual([2, 'USAGE']);
    expect(n.body.error?.message).toContain('--role workflows');
  });

  it('an unknown role is a usage error', async () => {
    const code = await runCli(['doctor', '-c', cfg, '--role', 'nightly', '--json'], { out: () => undefined, err: () => undefined });
    expect(code).toBe(2);
  });

  it('writable locations: a probe object created and deleted in each, nothing left behind', async () => {
    const r = await doctor(['-c', cfg]);
    const loc = r.body.checks.filter((c) => c.component === 'audit' || c.component === 'validation');
    expect(loc.map((c) => [c.component, c.check, c.status])).toEqual([
      ['audit', 'audit anchor', 'ok'],
      ['validation', 'validation results', 'ok'],
    ]);
    expect(loc[0]?.detail).toContain('created and deleted a probe object');
    expect(readdirSync(path.join(anchors, 'doctor-probe'))).toEqual([]);
    expect(existsSync(path.join(results, 'doctor-probe'))).toBe(true); // created on demand, as results are
    expect(readdirSync(path.join(results, 'doctor-probe'))).toEqual([]);
  });

  it('--role client probes the anchor but not the results location; --role activities both', async () => {
    const client = await doctor(['-c', cfg, '--role', 'client']);
    expect(client.body.checks.map((c) => c.component)).toContain('audit');
    expect(client.body.checks.map((c) => c.component)).not.toContain('validation');
    const activities = await doctor(['-c', cfg, '--role', 'activities']);
    expect(activities.body.checks.map((c) => c.component)).toEqual(
      expect.arrayContaining(['hms', 'temporal', 'state', 'audit', 'validation']),
    );
  });

  it('a location that cannot be written fails with a code and the config key to fix', async () => {
    const blocked = path.join(dir, 'blocked.yaml');
    // As root a mode does not stop a write: a regular file where the directory should be does.
    writeFileSync(path.join(dir, 'a-file'), 'not a directory\n');
    writeFileSync(blocked, `temporal: { address: "127.0.0.1:1" }\naudit: { anchorLocation: "${path.join(dir, 'a-file', 'anchors')}" }\n`);
    const r = await doctor(['-c', blocked, '--role', 'client']);
    const a = r.body.checks.find((c) => c.component === 'audit');
    expect(a).toMatchObject({ status: 'fail' });
    expect(a?.code).toMatch(/^STORAGE_/);
    expect(r.code).toBe(1);
  });
});
