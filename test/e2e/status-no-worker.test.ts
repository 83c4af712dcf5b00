// `migrate status` when no worker answers the status query: a running plan → TEMPORAL_NO_WORKER
// naming the task queue (not an internal error, not a hang); a plan workflow that ended without a
// result → TEMPORAL_WORKFLOW_ENDED with how it ended. Real Temporal dev server; the workflow is
// started by type name on a task queue nobody polls.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { MIGRATE, run } from '../helpers/cli';
import { testStack } from '../helpers/stack-env';

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
  const h = await client.workflow.start('migrationWorkflow', { taskQueue, workflowId: `migrate/${id}`, args: [{ planHash: `${id}${'0'.repeat(52)}`, autoApprove: false }] });
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
