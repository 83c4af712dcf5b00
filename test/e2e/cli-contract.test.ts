// The exit-code contract of `migrate` (docs/exit-codes.md), through bin/migrate against the local
// stack: 0 ok; 1 a check or operation failed (any failed table, unless --max-failed allowed it and
// says so); 2 usage, configuration or input file; never 70 for an operator's mistake. A real
// `migrate worker` on a task queue of this test only runs plans whose tables do not exist in HMS
// (each fails HMS_NOT_FOUND; applied with --accept-stale past the stale-plan pre-check), so every
// outcome is reached without touching a real table.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { buildGraph } from '../../core/plan/graph';
import { buildPlan, serializePlan } from '../../core/plan/plan-file';
import type { PlanFile } from '../../core/plan/plan-file';
import { planWaves } from '../../core/plan/waves';
import { MIGRATE, ROOT, run } from '../helpers/cli';
import type { Run } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';
import { baseOptions, table } from '../unit/plan/fixtures';

const env = testStack();
const stackCfg = path.join(env.HIM_STATE_DIR as string, 'migrate.yaml');
const taskQueue = uniqueName('him-cli-contract');
let dir = '';
let cfg = '';
let worker: ChildProcess | undefined;
let workerLog = '';
let connection: Connection;
let client: Client;

type ErrorJson = { ok: false; error: { code: string; message: string; context: Record<string, unknown> } };
const migrate = (args: string[], extraEnv: Record<string, string> = {}): Promise<Run> =>
  run(MIGRATE, [...args, '--config', cfg], 180_000, extraEnv);
const errorOf = (r: Run): ErrorJson['error'] => (JSON.parse(r.stdout) as ErrorJson).error;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A plan of `waves` waves, one table each, in a database HMS does not have. */
function writePlan(name: string, waves: number): PlanFile {
  const db = uniqueName('gone').toLowerCase();
  const tables = Array.from({ length: waves }, (_, i) => table(`${db}.t${i}`));
  const plan = buildPlan(
    {
      createdAt: new Date().toISOString(),
      toolVersion: '0.1.0',
      source: { uri: env.HIM_HMS_PG_URI as string, label: db },
      targetCatalog: 'lake',
      throughput: { filesPerSecond: 100, bytesPerSecond: 1e6, perTableOverheadSeconds: 1 },
    },
    planWaves(buildGraph(tables, []), { ...baseOptions, maxTablesPerWave: 1 }),
  );
  writeFileSync(path.join(dir, name), serializePlan(plan));
  return plan;
}

async function waitUntil<T>(what: string, fn: () => Promise<T | undefined>, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what} did not happen in ${ms / 1000} s; worker:\n${workerLog.slice(-3000)}`);
    await sleep(500);
  }
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-contract-'));
  cfg = path.join(dir, 'migrate.yaml');
  writeFileSync(
    cfg,
    readFileSync(stackCfg, 'utf8')
      .replace(/taskQueue:.*\n/, '')
      .replace(/namespace: default/, `namespace: default\n  taskQueue: ${taskQueue}`),
  );
  connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
  client = new Client({ connection });
});

afterAll(async () => {
  worker?.kill('SIGTERM');
  await sleep(500);
  if (worker && worker.exitCode === null) worker.kill('SIGKILL');
  await connection?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('usage and configuration: exit 2, coded, before anything runs', () => {
  it('every command with a numeric flag refuses abc through bin/migrate', async () => {
    for (const argv of [
      ['doctor', '--timeout', 'abc'],
      ['inventory', '--calls-per-second', '-1'],
      ['table', 'a.b', '--footer-concurrency', '0'],
      ['worker', '--concurrency', '0'],
      ['apply', 'p.json', '--concurrency', 'abc'],
      ['apply', 'p.json', '--step-timeout', 'abc'],
      ['apply', 'p.json', '--max-failed', '-1'],
      ['approve', 'abcdef123456', '--wave', 'abc'],
      ['rollback', 'abcdef123456', '--wave', 'abc'],
      ['validate', 'abcdef123456', '--concurrency', '0'],
      ['schedule', 'create', 'abcdef123456', '--concurrency', String(2 ** 31)],
    ]) {
      const r = await migrate([...argv, '--json']);
      expect([argv.join(' '), r.code]).toEqual([argv.join(' '), 2]);
      expect(errorOf(r).code).toBe('USAGE');
      expect(errorOf(r).message).toContain(`${argv[argv.length - 2]} must be an integer`);
    }
  }, 300_000);

  it('-c <a directory> → CONFIG_INVALID, exit 2', async () => {
    const r = await run(MIGRATE, ['status', 'abcdef123456', '-c', dir, '--json']);
    expect(r.code).toBe(2);
    expect(errorOf(r).code).toBe('CONFIG_INVALID');
    expect(errorOf(r).message).toContain('is a directory');
  });

  it('a mistyped MIGRATE__SECTION__KEY is blamed on the environment variable, not the file', async () => {
    const r = await migrate(['doctor', '--json'], { MIGRATE__TEMPORAL__ADRESS: '127.0.0.1:7233' });
    expect(r.code).toBe(2);
    expect(errorOf(r).code).toBe('CONFIG_INVALID');
    expect(errorOf(r).message).toContain('temporal: unknown key "ADRESS" (from environment MIGRATE__TEMPORAL__ADRESS)');
    expect(errorOf(r).message).not.toContain(cfg);
  });

  it('plan-file errors exit 2: not JSON, edited after planning, unknown version', async () => {
    const plan = writePlan('good.json', 1);
    const text = readFileSync(path.join(dir, 'good.json'), 'utf8');
    writeFileSync(path.join(dir, 'garbage.json'), '{ not json');
    writeFileSync(path.join(dir, 'edited.json'), text.replace(`"targetCatalog":"lake"`, `"targetCatalog":"other"`));
    writeFileSync(path.join(dir, 'future.json'), text.replace(/"version":\d+/, '"version":99'));
    expect(text).toContain('"targetCatalog":"lake"');
    for (const [file, code] of [
      ['garbage.json', 'PLAN_INVALID'],
      ['edited.json', 'PLAN_HASH_MISMATCH'],
      ['future.json', 'PLAN_VERSION_UNSUPPORTED'],
      ['missing.json', 'USAGE'],
    ] as const) {
      const r = await migrate(['apply', path.join(dir, file), '--json']);
      expect([file, r.code, errorOf(r).code]).toEqual([file, 2, code]);
    }
    const t = await migrate(['apply', path.join(dir, 'edited.json')]);
    expect(t.stderr).toContain('[PLAN_HASH_MISMATCH]');
    expect(t.stderr).not.toContain('internal error');
    // Nothing started.
    await expect(client.workflow.getHandle(`migrate/${plan.hash.slice(0, 12)}`).describe()).rejects.toThrow();
  });

  it('a plan never applied: approve, pause, status → USAGE exit 2; rollback, validate, schedule create → PLAN_INVALID exit 2', async () => {
    for (const argv of [
      ['approve', 'abcdef123456', '--wave', '1'],
      ['pause', 'abcdef123456'],
      ['resume', 'abcdef123456'],
      ['cancel', 'abcdef123456'],
      ['status', 'abcdef123456'],
    ]) {
      const r = await migrate([...argv, '--json']);
      expect([argv[0], r.code, errorOf(r).code]).toEqual([argv[0], 2, 'USAGE']);
      expect(errorOf(r).message).toContain('run migrate apply first');
    }
    for (const argv of [
      ['rollback', 'abcdef123456', '--wave', '1'],
      ['rollback', 'abcdef123456', '--wave', '1', '--dry-run'],
      ['validate', 'abcdef123456'],
      ['schedule', 'create', 'abcdef123456'],
    ]) {
      const r = await migrate([...argv, '--json']);
      expect([argv[0], r.code, errorOf(r).code]).toEqual([argv[0], 2, 'PLAN_INVALID']);
    }
  });
});

describe('unreachable endpoints stay coded: exit 1, never 70', () => {
  it('Temporal refused → TEMPORAL_UNREACHABLE; state DB refused → STATE_DB_UNREACHABLE', async () => {
    const t = await migrate(['approve', 'abcdef123456', '--wave', '1', '--set', 'temporal.address=127.0.0.1:1', '--json']);
    expect([t.code, errorOf(t).code]).toEqual([1, 'TEMPORAL_UNREACHABLE']);
    const t0 = Date.now();
    const w = await migrate(['worker', '--role', 'workflows', '--set', 'temporal.address=127.0.0.1:1', '--json']);
    expect([w.code, errorOf(w).code]).toEqual([1, 'TEMPORAL_UNREACHABLE']);
    // The TCP pre-check reports the refusal itself, not the gRPC deadline 10 s later.
    expect(errorOf(w).message).toContain('ECONNREFUSED');
    expect(Date.now() - t0).toBeLessThan(9_000);
    const s = await migrate(['rollback', 'abcdef123456', '--wave', '1', '--set', 'state.url=postgres://u:p@127.0.0.1:1/state', '--json']);
    expect([s.code, errorOf(s).code]).toEqual([1, 'STATE_DB_UNREACHABLE']);
  }, 120_000);
});

describe('plans on a worker: approve, status, apply --wait, rollback', () => {
  beforeAll(async () => {
    worker = spawn(MIGRATE, ['worker', '--config', cfg], { env: { ...process.env, ...env }, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    worker.stdout?.on('data', (d: Buffer) => (workerLog += d.toString()));
    worker.stderr?.on('data', (d: Buffer) => (workerLog += d.toString()));
    await waitUntil('worker start', async () => (workerLog.includes('polling') ? true : undefined));
  }, 180_000);

  it('approve: early is a pre-approval, twice is "already approved" (exit 0, also after the plan ended), wave 99 is WAVE_UNKNOWN; pause/cancel of a finished plan is PLAN_FINISHED', async () => {
    const plan = writePlan('approve.json', 2);
    const id = plan.hash.slice(0, 12);
    expect((await migrate(['apply', path.join(dir, 'approve.json'), '--accept-stale'])).code).toBe(0);
    await waitUntil('waiting for approval', async () => {
      const s = await migrate(['status', id, '--json']);
      return s.code === 0 && (JSON.parse(s.stdout) as { state: string }).state === 'waiting-approval' ? true : undefined;
    });
    const early = await migrate(['approve', id, '--wave', '2', '--json']);
    expect(early.code).toBe(0);
    expect(JSON.parse(early.stdout)).toMatchObject({ ok: true, wave: 2, approved: [2], already: false, preApproval: true });
    const again = await migrate(['approve', id, '--wave', '2']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('wave 2 of plan');
    expect(again.stdout).toContain('already approved');
    const unknown = await migrate(['approve', id, '--wave', '99', '--json']);
    expect([unknown.code, errorOf(unknown).code]).toEqual([2, 'WAVE_UNKNOWN']);
    expect(errorOf(unknown).message).toContain(`plan ${id} has no wave 99`);
    const rb = await migrate(['rollback', id, '--wave', '99', '--json']);
    expect([rb.code, errorOf(rb).code]).toEqual([2, 'WAVE_UNKNOWN']);
    expect(errorOf(rb).message).toContain('has no wave 99 (its waves: 1, 2)');

    expect((await migrate(['approve', id, '--wave', '1'])).code).toBe(0);
    // Wave 1's table is not in HMS: it fails, and with --max-failed 0 the plan fails.
    const end = await waitUntil('the plan ends', async () => {
      const s = await migrate(['status', id, '--json']);
      const st = JSON.parse(s.stdout) as { state: string; ok: boolean; failedTables: number };
      return ['succeeded', 'failed', 'cancelled'].includes(st.state) ? { code: s.code, st } : undefined;
    });
    expect(end.code).toBe(1);
    expect(end.st).toMatchObject({ state: 'failed', ok: false, failedTables: 1 });
    const text = await migrate(['status', id]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('1 table failed');
    for (const argv of [
      ['pause', id],
      ['cancel', id],
    ]) {
      const r = await migrate([...argv, '--json']);
      expect([argv[0], r.code, errorOf(r).code]).toEqual([argv[0], 2, 'PLAN_FINISHED']);
    }
    // Wave 2 was pre-approved before the plan ended: approving it again is idempotent.
    const late = await migrate(['approve', id, '--wave', '2', '--json']);
    expect(late.code).toBe(0);
    expect(JSON.parse(late.stdout)).toMatchObject({ ok: true, wave: 2, already: true });
    // A wave that exists rolls back (its table failed; what the rollback does with it is the workflow's).
    const rb1 = await migrate(['rollback', id, '--wave', '1', '--json']);
    expect(rb1.code).toBe(0);
    expect(JSON.parse(rb1.stdout)).toMatchObject({ ok: true, wave: 1, refused: [] });
  }, 600_000);

  it('apply --wait: failed tables → exit 1; allowed by --max-failed → exit 0 and says so, and so does status', async () => {
    writePlan('strict.json', 1);
    const strict = await migrate(['apply', path.join(dir, 'strict.json'), '--accept-stale', '--auto-approve', '--wait', '--json']);
    expect(strict.code).toBe(1);
    expect(JSON.parse(strict.stdout)).toMatchObject({ ok: false, failedTables: 1, result: { state: 'failed' } });

    const plan = writePlan('lenient.json', 2);
    const lenient = await migrate([
      'apply',
      path.join(dir, 'lenient.json'),
      '--accept-stale',
      '--auto-approve',
      '--wait',
      '--max-failed',
      '1',
    ]);
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toContain('succeeded');
    expect(lenient.stdout).toContain('2 tables failed (allowed by --max-failed 1)');
    // status knows the plan's own --max-failed (from its workflow's input).
    const s = await migrate(['status', plan.hash.slice(0, 12), '--json']);
    expect(s.code).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({
      state: 'succeeded',
      ok: true,
      failedTables: 2,
      note: '2 tables failed (allowed by --max-failed 1)',
    });
  }, 600_000);

  it('status reports a plan workflow that failed, was cancelled or timed out as such: exit 1 (a worker would answer "running")', async () => {
    // Failed: a plan hash the state store never saw; the workflow's first activity refuses it.
    const failedId = randomBytes(6).toString('hex');
    const hf = await client.workflow.start('migrationWorkflow', {
      taskQueue,
      workflowId: `migrate/${failedId}`,
      args: [{ planHash: `${failedId}${'0'.repeat(52)}`, autoApprove: false }],
    });
    await waitUntil('the workflow fails', async () => ((await hf.describe()).status.name === 'FAILED' ? true : undefined));
    // Cancelled: a plan waiting for approval, cancelled through Temporal.
    const plan = writePlan('cancel.json', 1);
    const cancelId = plan.hash.slice(0, 12);
    expect((await migrate(['apply', path.join(dir, 'cancel.json'), '--accept-stale'])).code).toBe(0);
    await waitUntil('waiting for approval', async () =>
      (await migrate(['status', cancelId])).stdout.includes('waiting-approval') ? true : undefined,
    );
    await client.workflow.getHandle(`migrate/${cancelId}`).cancel();
    // Timed out: an execution timeout of 1 s on a queue nobody polls.
    const timedId = randomBytes(6).toString('hex');
    await client.workflow.start('migrationWorkflow', {
      taskQueue: `${taskQueue}-nobody`,
      workflowId: `migrate/${timedId}`,
      workflowExecutionTimeout: '1s',
      args: [{ planHash: `${timedId}${'0'.repeat(52)}`, autoApprove: false }],
    });
    await sleep(3000);
    for (const [id, status] of [
      [failedId, 'FAILED'],
      [cancelId, 'CANCELLED'],
      [timedId, 'TIMED_OUT'],
    ] as const) {
      const r = await waitUntil(`status of ${status}`, async () => {
        const x = await migrate(['status', id, '--json']);
        return x.code === 1 && errorOf(x).context.status === status ? x : undefined;
      });
      expect(errorOf(r).code).toBe('TEMPORAL_WORKFLOW_ENDED');
      expect(errorOf(r).message).toContain(`ended ${status.toLowerCase().replace('_', ' ')}`);
    }
    // The cancelled plan never approved its wave: approving it now is PLAN_FINISHED, exit 2.
    const ap = await migrate(['approve', cancelId, '--wave', '1', '--json']);
    expect([ap.code, errorOf(ap).code]).toEqual([2, 'PLAN_FINISHED']);
  }, 600_000);
});
