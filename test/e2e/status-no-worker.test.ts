// `migrate status` when no worker answers the status query: a running plan → TEMPORAL_NO_WORKER
// naming the task queue (not an internal error, not a hang); a plan workflow that ended without a
// result → TEMPORAL_WORKFLOW_ENDED with how it ended. `migrate apply --wait` whose plan workflow is
// terminated while it waits → the same coded error, exit 1 (it was an internal error, exit 70).
// Real Temporal dev server; the workflows run on task queues nobody polls.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { buildGraph } from '../../core/plan/graph';
import { buildPlan, serializePlan } from '../../core/plan/plan-file';
import { planWaves } from '../../core/plan/waves';
import { planId } from '../../workflows/index';
import { MIGRATE, run } from '../helpers/cli';
import { testStack } from '../helpers/stack-env';
import { baseOptions, table } from '../unit/plan/fixtures';

const env = testStack();
const cfg = path.join(env.HIM_STATE_DIR as string, 'migrate.yaml');
let connection: Connection;
let client: Client;

beforeAll(async () => {
  connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
  client = new Client({ connection });
});
afterAll(async () => connection.close());

test('running without a worker → TEMPORAL_NO_WORKER; terminated → TEMPORAL_WORKFLOW_ENDED', async () => {
  const id = randomBytes(6).toString('hex');
  const taskQueue = `nobody-polls-${id}`;
  const h = await client.workflow.start('migrationWorkflow', {
    taskQueue,
    workflowId: `migrate/${id}`,
    args: [{ planHash: `${id}${'0'.repeat(52)}`, autoApprove: false }],
  });
  try {
    const t0 = Date.now();
    const r = await run(MIGRATE, ['status', id, '--json', '--config', cfg], 120_000);
    expect(Date.now() - t0).toBeLessThan(60_000);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { ok: boolean; error: { code: string; message: string } };
    expect(out.error.code).toBe('TEMPORAL_NO_WORKER');
    expect(out.error.message).toContain(taskQueue);
  } finally {
    await h.terminate('test');
  }
  const r2 = await run(MIGRATE, ['status', id, '--config', cfg], 120_000);
  expect(r2.code).toBe(1);
  expect(r2.stderr).toContain('[TEMPORAL_WORKFLOW_ENDED]');
  expect(r2.stderr).toContain('ended terminated');
}, 180_000);

test('apply --wait: a plan workflow terminated while waiting → TEMPORAL_WORKFLOW_ENDED, exit 1', async () => {
  const id = randomBytes(6).toString('hex');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'him-ended-'));
  try {
    // Tables that need not exist: no worker polls this task queue, so nothing touches them.
    const plan = buildPlan(
      {
        createdAt: new Date().toISOString(),
        toolVersion: '0.1.0',
        source: { uri: env.HIM_HMS_PG_URI as string, label: `ended-${id}` },
        targetCatalog: 'lake',
        throughput: { filesPerSecond: 100, bytesPerSecond: 1e6, perTableOverheadSeconds: 1 },
      },
      planWaves(buildGraph([table(`ended_${id}.a`), table(`ended_${id}.b`)], []), baseOptions),
    );
    const planFile = path.join(dir, 'plan.json');
    writeFileSync(planFile, serializePlan(plan));
    const cfgFile = path.join(dir, 'migrate.yaml');
    writeFileSync(cfgFile, readFileSync(cfg, 'utf8').replace(/namespace: default/, `namespace: default\n  taskQueue: nobody-polls-${id}`));
    // --accept-stale: the tables need not exist (the stale check would refuse them before anything starts).
    const apply = run(MIGRATE, ['apply', planFile, '--wait', '--json', '--accept-stale', '--config', cfgFile], 120_000);
    const h = client.workflow.getHandle(`migrate/${planId(plan.hash)}`);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const started = await h.describe().then(
        () => true,
        () => false,
      );
      if (started) break;
      if (Date.now() > deadline) throw new Error(`apply never started its workflow: ${JSON.stringify(await apply)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    await h.terminate('operator stopped it');
    const r = await apply;
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('internal error');
    const out = JSON.parse(r.stdout) as { ok: boolean; error: { code: string; message: string; context: { status: string } } };
    expect(out.ok).toBe(false);
    expect(out.error.code).toBe('TEMPORAL_WORKFLOW_ENDED');
    expect(out.error.context.status).toBe('TERMINATED');
    expect(out.error.message).toContain('ended terminated: operator stopped it');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 180_000);
