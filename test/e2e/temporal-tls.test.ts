// The real CLI and a real `migrate worker` against the stack's secured Temporal endpoint
// (temporal-tls, its API key port: client certificates required and verified, and every call must
// carry the dev API key). The address comes from TEMPORAL_ADDRESS (envconfig), TLS from the
// config's temporal.tls keys, the API key from the variable temporal.apiKeyEnv names.
// `doctor` reports where each value came from, the auth method and the certificate's identity;
// worker, plan → apply → status → approve, and schedule create/list run over mTLS; the API key
// appears in no workflow history, plan file, audit event, worker log or command output. No
// certificate, another CA's and an expired one: doctor fails the TLS check with the code and its
// remedy, and status and worker exit 1 with the code, each in about a second (not a 10 s timeout);
// a certificate file that does not exist is a failed connection check naming the key; a wrong API
// key is TEMPORAL_AUTH_FAILED for doctor, status and worker.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { MIGRATE, TSX, run } from '../helpers/cli';
import type { Run } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';
import type { Check } from '../../app/doctor/doctor';

const env = testStack();
const prefix = uniqueName('himtls').toLowerCase();
const database = `${prefix}_scale_2x1x1`;
const taskQueue = `him-e2e-${prefix}`;
/** The key the endpoint's API key port requires (random per stack start). */
const API_KEY = readFileSync(env.HIM_TEMPORAL_TLS_API_KEY_FILE as string, 'utf8').trim();
const ADDRESS = env.HIM_TEMPORAL_TLS_APIKEY_ADDRESS as string;
/** Every migrate process: the address from Temporal's own variable, the API key in the variable the config names. */
const tlsEnv = { TEMPORAL_ADDRESS: ADDRESS, HIM_E2E_TEMPORAL_KEY: API_KEY };
let dir = '';
let worker: ChildProcess | undefined;
let workerLog = '';
/** Everything the commands printed (scanned for the API key at the end). */
const outputs: string[] = [];

/** The stack's config with a temporal section over mTLS (no address: TEMPORAL_ADDRESS gives it). */
function config(name: string, cert: string, key: string | undefined): string {
  const stack = readFileSync(path.join(env.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8');
  const client = key === undefined ? '' : `\n    clientCertFile: ${cert}\n    clientKeyFile: ${key}`;
  const temporal = `temporal:\n  namespace: default\n  taskQueue: ${taskQueue}\n  apiKeyEnv: HIM_E2E_TEMPORAL_KEY\n  tls:\n    serverCaFile: ${env.HIM_TEMPORAL_TLS_CA}\n    serverName: localhost${client}\n`;
  const out = stack.replace(/temporal:\n(\s+.*\n)+?(?=\S)/, temporal);
  if (out === stack) throw new Error('no temporal section in the stack config');
  const file = path.join(dir, name);
  writeFileSync(file, `${out}\nplan:\n  databases: [${database}]\n  waves:\n    maxTablesPerWave: 1\n`);
  return file;
}

let good = '';
const migrate = async (args: string[], cfg = good, timeout = 300_000, extra: Record<string, string> = {}): Promise<Run> => {
  const r = await run(MIGRATE, [...args, '--config', cfg], timeout, { ...tlsEnv, ...extra });
  outputs.push(r.stdout, r.stderr);
  return r;
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const json = <T>(r: Run): T => JSON.parse(r.stdout) as T;

describe('Temporal over mTLS with an API key: worker, apply, status, approve, schedules, doctor (real CLI)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-tls-'));
    good = config('good.yaml', env.HIM_TEMPORAL_TLS_CLIENT_CERT as string, env.HIM_TEMPORAL_TLS_CLIENT_KEY);
    const s = await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--scale', '2,1,1']);
    if (s.code !== 0) throw new Error(`seeding failed: ${s.stderr}`);
    worker = spawn(MIGRATE, ['worker', '--config', good], {
      env: { ...process.env, ...env, ...tlsEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker.stdout?.on('data', (d: Buffer) => (workerLog += d.toString()));
    worker.stderr?.on('data', (d: Buffer) => (workerLog += d.toString()));
  }, 600_000);

  afterAll(async () => {
    worker?.kill('SIGTERM');
    await sleep(500);
    if (worker && worker.exitCode === null) worker.kill('SIGKILL');
    await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--scale', '2,1,1', '--drop']);
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('doctor: each value with its source, the auth method and the certificate identity; the worker polls over mTLS', async () => {
    let checks: Check[] = [];
    for (const until = Date.now() + 60_000; Date.now() < until; await sleep(1000)) {
      const d = await migrate(['doctor', '--json']);
      checks = json<{ checks: Check[] }>(d).checks.filter((c) => c.component === 'temporal');
      if (checks.find((c) => c.check === 'workers')?.status === 'ok') break;
    }
    const by = (name: string): Check | undefined => checks.find((c) => c.check === name);
    expect(checks.map((c) => [c.check, c.status])).toEqual([
      ['connection', 'ok'],
      ['auth', 'ok'],
      ['tls', 'ok'],
      ['reachable', 'ok'],
      ['search attributes', 'ok'],
      ['workers', 'ok'],
    ]);
    expect(by('connection')?.detail).toContain(`address ${ADDRESS} (env TEMPORAL_ADDRESS)`);
    expect(by('connection')?.detail).toContain('namespace default (config temporal.namespace)');
    expect(by('connection')?.detail).toContain('server name localhost (config temporal.tls.serverName)');
    expect(by('auth')?.detail).toMatch(
      /mTLS client certificate O=hms-iceberg-migrator dev, CN=him-dev-worker \(issuer O=hms-iceberg-migrator dev, CN=him-dev-ca; valid \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d\) from config temporal.tls.clientCertFile/,
    );
    expect(by('auth')?.detail).toContain(
      `API key from env HIM_E2E_TEMPORAL_KEY (config temporal.apiKeyEnv) (${API_KEY.length} characters)`,
    );
    expect(by('tls')?.detail).toMatch(/^TLSv1\.3, ALPN h2, server certificate O=hms-iceberg-migrator dev, CN=localhost/);
  }, 120_000);

  it('plan → apply → status → approve each wave → succeeded, schedule create/list, all over mTLS; the API key leaks nowhere', async () => {
    const planFile = path.join(dir, 'plan.json');
    expect((await migrate(['plan', '--out', planFile])).code).toBe(0);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string; waves: { number: number }[] };
    expect(plan.waves.length).toBe(2);
    const id = plan.hash.slice(0, 12);
    const a = await migrate(['apply', planFile, '--json']);
    expect([a.code, json<{ ok: boolean }>(a).ok]).toEqual([0, true]);

    const approvals: number[] = [];
    let state = '';
    for (const until = Date.now() + 240_000; Date.now() < until; await sleep(1000)) {
      const s = json<{ state: string; currentWave: number | null }>(await migrate(['status', id, '--json']));
      state = s.state;
      if (['succeeded', 'failed', 'cancelled'].includes(state)) break;
      if (state === 'waiting-approval' && s.currentWave !== null && !approvals.includes(s.currentWave)) {
        expect((await migrate(['approve', id, '--wave', String(s.currentWave)])).code).toBe(0);
        approvals.push(s.currentWave);
      }
    }
    if (state !== 'succeeded') throw new Error(`plan ended ${state}\nworker:\n${workerLog.slice(-4000)}`);
    expect(approvals).toEqual([1, 2]);

    const c = await migrate(['schedule', 'create', id, '--every', '1h', '--paused', '--json']);
    expect([c.code, json<{ scheduleId: string }>(c).scheduleId]).toEqual([0, `validate/${id}`]);
    let listed: { id: string; paused: boolean }[] = [];
    for (const until = Date.now() + 30_000; Date.now() < until && !listed.some((x) => x.id === `validate/${id}`); await sleep(500))
      listed = json<{ id: string; paused: boolean }[]>(await migrate(['schedule', 'list', '--json']));
    expect(listed).toContainEqual(expect.objectContaining({ id: `validate/${id}`, paused: true }));
    expect((await migrate(['schedule', 'delete', id])).code).toBe(0);

    await expectNoKeyAnywhere(id, plan.hash, readFileSync(planFile, 'utf8'));
  }, 420_000);

  it('no certificate, another CA, an expired certificate: doctor, status and worker fail at once with the code and its remedy', async () => {
    const cases: [string, string, string | undefined, string][] = [
      ['none', '', undefined, 'TEMPORAL_TLS_CLIENT_CERT_REQUIRED'],
      ['other-ca', env.HIM_TEMPORAL_TLS_OTHER_CERT as string, env.HIM_TEMPORAL_TLS_OTHER_KEY, 'TEMPORAL_TLS_CLIENT_CERT_REJECTED'],
      ['expired', env.HIM_TEMPORAL_TLS_EXPIRED_CERT as string, env.HIM_TEMPORAL_TLS_EXPIRED_KEY, 'TEMPORAL_TLS_CLIENT_CERT_EXPIRED'],
    ];
    for (const [name, cert, key, code] of cases) {
      const cfg = config(`${name}.yaml`, cert, key);
      const d = await migrate(['doctor', '--json'], cfg);
      const tls = json<{ checks: Check[] }>(d).checks.find((c) => c.component === 'temporal' && c.check === 'tls');
      expect({ name, exit: d.code, status: tls?.status, code: tls?.code }).toEqual({ name, exit: 1, status: 'fail', code });
      expect(tls?.remedy).toMatch(/temporal\.tls\.clientCertFile|client certificate/);
      expect(tls?.latencyMs).toBeLessThan(2_000);
      for (const args of [['status', '0123456789ab', '--json'], ['worker']]) {
        const t0 = Date.now();
        const r = await migrate(args, cfg, 60_000);
        const ms = Date.now() - t0;
        expect({ name, args, exit: r.code, code: `${r.stdout}${r.stderr}`.includes(code) }).toEqual({ name, args, exit: 1, code: true });
        // Process start included (about 0.5–0.9 s here; slack for a loaded machine); the gRPC connect alone would wait out its 10 s deadline.
        expect(ms).toBeLessThan(8_000);
      }
    }
    // A file the config names is missing: a failed connection check naming the key (CONFIG_INVALID), nothing dialled.
    const missing = config('missing.yaml', `${dir}/no-such-cert.pem`, `${dir}/no-such.key`);
    const d = await migrate(['doctor', '--json'], missing);
    const conn = json<{ checks: Check[] }>(d).checks.filter((c) => c.component === 'temporal');
    expect(conn.map((c) => [c.check, c.status, c.code])).toEqual([['connection', 'fail', 'CONFIG_INVALID']]);
    expect(conn[0]?.detail).toMatch(/^temporal\.tls\.clientCertFile: cannot read .*no-such-cert\.pem: ENOENT$/);
  }, 180_000);

  it('a wrong API key: doctor fails reachable with TEMPORAL_AUTH_FAILED and its remedy, status and worker exit 1 with it; the key is in no output', async () => {
    const wrongKey = `him-e2e-wrong-${prefix}`;
    const wrong = { HIM_E2E_TEMPORAL_KEY: wrongKey };
    const d = await migrate(['doctor', '--json'], good, 60_000, wrong);
    const checks = json<{ checks: Check[] }>(d).checks.filter((c) => c.component === 'temporal');
    expect(checks.map((c) => [c.check, c.status, c.code ?? ''])).toEqual([
      ['connection', 'ok', ''],
      ['auth', 'ok', ''],
      ['tls', 'ok', ''],
      ['reachable', 'fail', 'TEMPORAL_AUTH_FAILED'],
    ]);
    expect(checks[3]?.remedy).toContain('temporal.apiKeyEnv');
    expect(d.code).toBe(1);
    for (const args of [['status', '0123456789ab', '--json'], ['worker']]) {
      const r = await migrate(args, good, 60_000, wrong);
      expect({ args, exit: r.code, code: `${r.stdout}${r.stderr}`.includes('TEMPORAL_AUTH_FAILED') }).toEqual({
        args,
        exit: 1,
        code: true,
      });
      expect(`${r.stdout}${r.stderr}`).not.toContain(wrongKey);
    }
    expect(`${d.stdout}${d.stderr}`).not.toContain(wrongKey);
  }, 120_000);
});

/** The API key in no workflow history (plan, waves, tables), the plan file, the audit log, the worker's log or any output. */
async function expectNoKeyAnywhere(id: string, hash: string, planText: string): Promise<void> {
  const pki = path.dirname(env.HIM_TEMPORAL_TLS_CA as string);
  const connection = await Connection.connect({
    address: ADDRESS,
    apiKey: API_KEY,
    tls: {
      serverNameOverride: 'localhost',
      serverRootCACertificate: readFileSync(env.HIM_TEMPORAL_TLS_CA as string),
      clientCertPair: { crt: readFileSync(path.join(pki, 'client.pem')), key: readFileSync(path.join(pki, 'client.key')) },
    },
  });
  try {
    const client = new Client({ connection });
    let histories = 0;
    for await (const w of client.workflow.list({ query: `WorkflowId STARTS_WITH 'migrate/${id}'` })) {
      const h = await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
      expect(JSON.stringify(h)).not.toContain(API_KEY);
      histories++;
    }
    expect(histories).toBeGreaterThanOrEqual(5); // plan, 2 waves, 2 tables
  } finally {
    await connection.close();
  }
  const pg = new PgClient({ connectionString: env.HIM_POSTGRES_URL });
  await pg.connect();
  try {
    const audit = await pg.query<{ row: string }>('SELECT row_to_json(a)::text AS row FROM him_audit a WHERE plan_hash = $1', [hash]);
    expect(audit.rows.length).toBeGreaterThan(0);
    const plans = await pg.query<{ row: string }>('SELECT row_to_json(p)::text AS row FROM him_plans p WHERE p.plan_hash = $1', [hash]);
    for (const r of [...audit.rows, ...plans.rows]) expect(r.row).not.toContain(API_KEY);
  } finally {
    await pg.end();
  }
  expect(planText).not.toContain(API_KEY);
  expect(workerLog).not.toContain(API_KEY);
  for (const o of outputs) expect(o).not.toContain(API_KEY);
}
