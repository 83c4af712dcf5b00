// `migrate doctor` checks what apply needs, each proven against the real stack with what the test
// creates itself: a Temporal namespace without the search attributes (then with them, registered by
// the command the remedy prints), a task queue nobody polls (warning, exit 0) and one a poller visited,
// a refused Temporal port (fails in well under the timeout, with the cause), a missing state database
// (STATE_DB_NOT_FOUND naming createdb, in doctor and in any other command), a role that may not write
// (STATE_DB_NOT_WRITABLE), an unset catalog token variable.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import type { Run } from '../helpers/cli';
import { MIGRATE, run } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';
import type { Check } from '../../app/doctor/doctor';

const env = testStack();
const cfg = path.join(env.HIM_STATE_DIR as string, 'migrate.yaml');
const temporalCli = (args: string[]): Promise<unknown> =>
  promisify(execFile)(env.HIM_TEMPORAL_BIN as string, [...args, '--address', env.HIM_TEMPORAL_ADDRESS as string]);

interface Report {
  ok: boolean;
  warnings: number;
  checks: Check[];
}

const doctor = (sets: string[], extraEnv: Record<string, string> = {}): Promise<Run> =>
  run(MIGRATE, ['doctor', '--config', cfg, '--json', ...sets.flatMap((s) => ['--set', s])], 120_000, extraEnv);
const report = (r: Run): Report => JSON.parse(r.stdout) as Report;
const find = (r: Report, component: string, check: string): Check | undefined =>
  r.checks.find((c) => c.component === component && c.check === check);

describe('doctor: Temporal', () => {
  const namespace = uniqueName('him-doctor').replace(/_/g, '-');

  beforeAll(async () => {
    await temporalCli(['operator', 'namespace', 'create', '--namespace', namespace]);
  });
  afterAll(async () => {
    await temporalCli(['operator', 'namespace', 'delete', '--namespace', namespace, '--yes']).catch(() => undefined);
  });

  it('a namespace without the search attributes fails with the command that registers them; after it, the check passes', async () => {
    const before = await doctor([`temporal.namespace=${namespace}`]);
    expect(before.code).toBe(1);
    const sa = find(report(before), 'temporal', 'search attributes');
    expect(sa).toMatchObject({ status: 'fail', ok: false, code: 'TEMPORAL_SEARCH_ATTRIBUTES_MISSING' });
    for (const name of ['MigrationPlan', 'MigrationWave', 'MigrationTeam', 'MigrationStatus', 'MigrationTable'])
      expect(sa?.detail).toContain(`${name} missing`);
    // The remedy is a command line: run it as printed (the address comes from the stack).
    const cmd = /temporal (operator search-attribute create .*?) \(/.exec(sa?.remedy ?? '')?.[1];
    expect(cmd).toContain(`--namespace ${namespace}`);
    await temporalCli((cmd as string).split(' '));
    const after = await doctor([`temporal.namespace=${namespace}`]);
    expect(find(report(after), 'temporal', 'search attributes')).toMatchObject({ status: 'ok' });
  });

  it('a task queue nobody polls is a warning (exit 0, "warnings": 1); once a poller came by, it is ok', async () => {
    const queue = uniqueName('him-doctor-queue');
    const lonely = await doctor([`temporal.taskQueue=${queue}`]);
    const w = find(report(lonely), 'temporal', 'workers');
    expect(w).toMatchObject({ status: 'warn', ok: true, code: 'TEMPORAL_NO_WORKER' });
    expect(w?.detail).toContain('no workflow or activity poller');
    expect(w?.remedy).toContain('migrate worker');
    expect(report(lonely).warnings).toBe(1);
    expect(lonely.code).toBe(0);
    const text = await run(MIGRATE, ['doctor', '--config', cfg, '--set', `temporal.taskQueue=${queue}`], 120_000);
    expect(text.stdout).toMatch(/^warn\s+temporal\s+workers\s/m);
    expect(text.stdout).toContain('all 10 checks passed, 1 warning'); // storage: auth + reachable; the audit anchor location

    // One long poll of each task type (what a worker does), ended by its deadline.
    const c = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
    try {
      const taskQueue = { name: queue, kind: 1 };
      await Promise.all([
        c.withDeadline(Date.now() + 3000, () =>
          c.workflowService.pollWorkflowTaskQueue({ namespace: 'default', taskQueue, identity: 'doctor-test' }),
        ),
        c.withDeadline(Date.now() + 3000, () =>
          c.workflowService.pollActivityTaskQueue({ namespace: 'default', taskQueue, identity: 'doctor-test' }),
        ),
      ]);
    } finally {
      await c.close();
    }
    const polled = await doctor([`temporal.taskQueue=${queue}`]);
    expect(find(report(polled), 'temporal', 'workers')).toMatchObject({
      status: 'ok',
      detail: `task queue ${queue}: 1 workflow and 1 activity pollers`,
    });
    expect(report(polled).warnings).toBe(0);
  });

  it('a refused port fails at the TCP connect with its cause, long before the timeout', async () => {
    const t0 = performance.now();
    const r = await doctor(['temporal.address=127.0.0.1:1'], {});
    const seconds = (performance.now() - t0) / 1000;
    const t = find(report(r), 'temporal', 'reachable');
    expect(t).toMatchObject({ status: 'fail', code: 'TEMPORAL_UNREACHABLE' });
    expect(t?.detail).toContain('TCP connect: connect ECONNREFUSED 127.0.0.1:1');
    expect(r.code).toBe(1);
    // --timeout is 10 s by default; the whole process (tsx start included) ends in a few.
    expect(seconds).toBeLessThan(6);
  });
});

describe('doctor: state database and catalog token', () => {
  const admin = new PgClient({ connectionString: env.HIM_POSTGRES_URL as string });
  const db = uniqueName('him_doctor_ro');
  const role = uniqueName('him_doctor_role');
  const base = new URL(env.HIM_POSTGRES_URL as string);
  const urlOf = (user: string, database: string): string => `postgres://${user}@${base.host}/${database}`;

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${db}`);
    await admin.query(`CREATE ROLE ${role} LOGIN`);
  });
  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => undefined);
    await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
    await admin.end();
  });

  it('a missing database is STATE_DB_NOT_FOUND with the createdb line, in doctor and in any command that opens the store', async () => {
    const missing = uniqueName('him_doctor_missing');
    const r = await doctor([`state.url=${urlOf('postgres', missing)}`]);
    const s = find(report(r), 'state', 'reachable');
    expect(s).toMatchObject({ status: 'fail', code: 'STATE_DB_NOT_FOUND' });
    expect(s?.detail).toContain(`${missing} does not exist`);
    expect(s?.remedy).toContain(`createdb -h ${base.hostname} -p ${base.port} -U postgres ${missing}`);
    expect(r.code).toBe(1);
    const audit = await run(MIGRATE, ['audit', 'verify', '--config', cfg, '--set', `state.url=${urlOf('postgres', missing)}`], 60_000);
    expect(audit.stderr).toContain('error [STATE_DB_NOT_FOUND]');
    expect(audit.stderr).not.toContain('INTERNAL');
    expect(audit.code).toBe(1);
  });

  it('a role that may connect but not create or write is STATE_DB_NOT_WRITABLE (and the rolled-back probe leaves nothing)', async () => {
    const ro = await doctor([`state.url=${urlOf(role, db)}`]);
    expect(find(report(ro), 'state', 'reachable')).toBeUndefined();
    const w = find(report(ro), 'state', 'writable');
    expect(w).toMatchObject({ status: 'fail', code: 'STATE_DB_NOT_WRITABLE' });
    expect(w?.detail).toContain('permission denied');
    expect(ro.code).toBe(1);
    const owner = await doctor([`state.url=${urlOf('postgres', db)}`]);
    expect(find(report(owner), 'state', 'writable')).toMatchObject({ status: 'ok' });
    const c = new PgClient({ connectionString: urlOf('postgres', db) });
    await c.connect();
    try {
      expect((await c.query("SELECT count(*)::int AS n FROM pg_tables WHERE tablename LIKE 'him_%'")).rows[0]).toEqual({ n: 0 });
    } finally {
      await c.end();
    }
  });

  it('catalog.tokenEnv naming an unset variable fails the token check with the remedy', async () => {
    const r = await doctor(['catalog.tokenEnv=HIM_DOCTOR_TOKEN_NEVER_SET']);
    expect(find(report(r), 'catalog', 'token')).toMatchObject({ status: 'fail', code: 'CONFIG_INVALID' });
    expect(find(report(r), 'catalog', 'token')?.remedy).toContain('Export HIM_DOCTOR_TOKEN_NEVER_SET=');
    expect(r.code).toBe(1);
    const set = await doctor(['catalog.tokenEnv=HIM_DOCTOR_TOKEN'], { HIM_DOCTOR_TOKEN: 'anything' });
    expect(find(report(set), 'catalog', 'token')).toMatchObject({ status: 'ok', detail: 'HIM_DOCTOR_TOKEN is set' });
  });
});

describe('doctor: the locations it writes besides tables, and --role', () => {
  const NO_S3_CREDENTIALS = {
    AWS_ACCESS_KEY_ID: '',
    AWS_SECRET_ACCESS_KEY: '',
    AWS_SESSION_TOKEN: '',
    AWS_PROFILE: '',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials',
    AWS_CONFIG_FILE: '/nonexistent/config',
    AWS_CONTAINER_CREDENTIALS_FULL_URI: '',
    AWS_EC2_METADATA_DISABLED: 'true',
  };

  it('the stack anchor location passes with a probe object created and deleted; a missing bucket fails coded', async () => {
    const good = await doctor([]);
    expect(find(report(good), 'audit', 'audit anchor')).toMatchObject({ status: 'ok' });
    expect(find(report(good), 'audit', 'audit anchor')?.detail).toContain('created and deleted a probe object');
    const bucket = uniqueName('him-no-bucket').replace(/_/g, '-');
    const missing = await doctor([`audit.anchorLocation=s3://${bucket}/anchors/`]);
    const a = find(report(missing), 'audit', 'audit anchor');
    expect(a).toMatchObject({ status: 'fail', code: 'STORAGE_NOT_FOUND' });
    expect(a?.remedy).toContain('audit.anchorLocation');
    // Everything else in the report still passes: the bucket is what fails the gate.
    expect(
      report(missing)
        .checks.filter((c) => c.status === 'fail')
        .map((c) => c.component),
    ).toEqual(['audit']);
    expect(missing.code).toBe(1);
    const results = await doctor([`validation.resultsLocation=s3://${bucket}/results/`]);
    expect(find(report(results), 'validation', 'validation results')).toMatchObject({ status: 'fail', code: 'STORAGE_NOT_FOUND' });
  });

  it('--role workflows passes without S3 credentials (Temporal only); the same environment fails the full check', async () => {
    const wf = await run(MIGRATE, ['doctor', '--config', cfg, '--json', '--role', 'workflows'], 120_000, NO_S3_CREDENTIALS);
    expect([...new Set(report(wf).checks.map((c) => c.component))]).toEqual(['temporal']);
    expect(wf.code).toBe(0);
    const all = await run(MIGRATE, ['doctor', '--config', cfg, '--json'], 120_000, NO_S3_CREDENTIALS);
    expect(find(report(all), 'storage', 'auth')).toMatchObject({ status: 'fail' });
    expect(all.code).toBe(1);
  });
});
