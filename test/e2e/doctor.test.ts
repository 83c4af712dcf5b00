// `migrate doctor` end to end: the real CLI binary against the real local stack.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Run } from '../helpers/cli';
import { MIGRATE, run } from '../helpers/cli';
import { testStack } from '../helpers/stack-env';
import type { Check } from '../../app/doctor/doctor';

const env = testStack();

const migrate = (args: string[]): Promise<Run> => run(MIGRATE, args);

describe('migrate doctor', () => {
  const cfg = path.join(env.HIM_STATE_DIR as string, 'migrate.yaml');

  it('the stack writes a config that names every component', () => {
    const text = readFileSync(cfg, 'utf8');
    for (const v of [env.HIM_HMS_PG_URI, env.HIM_ICEBERG_REST_URI, env.HIM_S3_ENDPOINT, env.HIM_TEMPORAL_ADDRESS, env.HIM_POSTGRES_URL])
      expect(text).toContain(v);
  });

  it('checks all five endpoints of the stack and its audit anchor location: ok, with versions and latencies, exit 0', async () => {
    const r = await migrate(['doctor', '--config', cfg, '--json']);
    const out = JSON.parse(r.stdout) as { ok: boolean; warnings: number; checks: Check[] };
    expect(out.checks.map((c) => `${c.component} ${c.check}`).sort()).toEqual([
      'audit audit anchor',
      'catalog reachable',
      'hms reachable',
      'state reachable',
      'state writable',
      'storage auth',
      'storage reachable',
      'temporal reachable',
      'temporal search attributes',
      'temporal workers',
    ]);
    for (const c of out.checks) {
      // Whether a worker polls the shared stack's queue right now depends on other tests: that check may warn.
      const expected = c.check === 'workers' ? c.status : 'ok';
      expect({ component: c.component, check: c.check, status: c.status, detail: c.detail }).toEqual({
        component: c.component,
        check: c.check,
        status: expected,
        detail: c.detail,
      });
      if (c.check === 'reachable') expect(c.latencyMs).toBeGreaterThanOrEqual(0);
    }
    expect(out.checks.find((c) => c.component === 'temporal')?.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(out.checks.find((c) => c.component === 'state')?.version).toMatch(/^15\./);
    expect(r.code).toBe(0);
    expect(out.ok).toBe(true);
  });

  it('a dead endpoint fails its check with a code and a remedy, the others stay ok, exit 1', async () => {
    const r = await migrate(['doctor', '--config', cfg, '--set', 'temporal.address=127.0.0.1:1', '--timeout', '2000']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL\s+temporal\s+reachable\s+127\.0\.0\.1:1/m);
    expect(r.stdout).toContain('[TEMPORAL_UNREACHABLE]');
    expect(r.stdout).toContain('fix: Check that a Temporal frontend listens on 127.0.0.1:1');
    expect(r.stdout).toMatch(/^ok\s+hms\s/m);
    expect(r.stdout).toContain('1 of 8 checks failed'); // storage: auth + reachable; the audit anchor location
  });

  it('a bad config value is a usage error naming the path, exit 2', async () => {
    const r = await migrate(['doctor', '--config', cfg, '--set', 'hms.thrift.uri=http://nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error [CONFIG_INVALID]');
    expect(r.stderr).toContain('hms.thrift.uri: expected thrift://host:port (from --set hms.thrift.uri)');
  });

  it('--help lists every command and the migration step by step; each command has examples', async () => {
    const top = await migrate(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/doctor \[options\]/);
    for (const c of [
      'inventory',
      'assess',
      'plan',
      'table',
      'worker',
      'apply',
      'approve',
      'status',
      'rollback',
      'audit',
      'validate',
      'schedule',
    ])
      expect(top.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
    expect(top.stdout).not.toContain('Planned commands');
    expect(top.stdout).toMatch(/A migration, step by step[\s\S]*migrate plan[\s\S]*migrate apply[\s\S]*migrate rollback/);
    for (const c of ['doctor', 'plan', 'table', 'apply', 'approve', 'rollback', 'validate'])
      expect((await migrate([c, '--help'])).stdout).toContain('Examples:');
  });
});
