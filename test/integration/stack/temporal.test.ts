// The stack's Temporal dev server runs a real workflow (worker + activity) and indexes our custom
// search attributes for list queries. Needs the running stack (global setup); never starts a server.
import { Client, Connection } from '@temporalio/client';
import type { WorkflowExecutionStatusName } from '@temporalio/client';
import { DefaultLogger, IllegalStateError, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { testStack, uniqueName } from '../../helpers/stack-env';
import type { SmokeActivities } from '../../fixtures/workflows/smoke';
import { MigrationPlan, MigrationStatus, MigrationTeam, MigrationWave, smokeWorkflow } from '../../fixtures/workflows/smoke';

const NAMESPACE = 'default';
/** Visibility is eventually consistent: how long a list query may take to show a closed run. */
const VISIBILITY_WAIT_MS = 20_000;

const in10s = (): number => Date.now() + 10_000;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Worker INFO lines (state changes, bundle size) drown the test report; keep warnings. */
function quietWorkerLogs(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch (e) {
    // The Runtime is per process: another suite in this jest worker created it first. Keep theirs.
    if (!(e instanceof IllegalStateError)) throw e;
  }
}

describe('temporal (stack)', () => {
  let connection: Connection;
  let nativeConnection: NativeConnection;
  let client: Client;

  beforeAll(async () => {
    quietWorkerLogs();
    const address = testStack().HIM_TEMPORAL_ADDRESS;
    if (!address) throw new Error('HIM_TEMPORAL_ADDRESS missing from the stack env');
    connection = await Connection.connect({ address, connectTimeout: 10_000 });
    client = new Client({ connection, namespace: NAMESPACE });
    nativeConnection = await NativeConnection.connect({ address });
  });

  afterAll(async () => {
    await nativeConnection?.close();
    await connection?.close();
  });

  it('reports the server version through a client round trip', async () => {
    const info = await connection.withDeadline(in10s(), () => connection.workflowService.getSystemInfo({}));
    expect(info.serverVersion).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('runs a workflow with an activity and finds it by search attributes', async () => {
    const plan = uniqueName('smoke');
    const taskQueue = uniqueName('smoke-tq');
    const workflowId = `migrate/${plan}/wave-1`;
    const activities: SmokeActivities = { echo: async (text) => `echo(${text})` };
    const worker = await Worker.create({
      connection: nativeConnection,
      namespace: NAMESPACE,
      taskQueue,
      workflowsPath: require.resolve('../../fixtures/workflows/smoke'),
      activities,
    });

    const result = await worker.runUntil(
      client.withDeadline(Date.now() + 60_000, () =>
        client.workflow.execute(smokeWorkflow, {
          taskQueue,
          workflowId,
          args: [{ plan, wave: 1, team: 'payments' }],
          workflowExecutionTimeout: '60 seconds',
        }),
      ),
    );
    expect(result).toBe(`smoke ok: echo(${plan}/wave-1)`);

    const described = await client.withDeadline(in10s(), () => client.workflow.getHandle(workflowId).describe());
    const sa = described.typedSearchAttributes;
    expect([sa.get(MigrationPlan), sa.get(MigrationWave), sa.get(MigrationTeam), sa.get(MigrationStatus)]).toEqual([
      plan,
      1,
      ['payments'],
      'done',
    ]);

    const query = `MigrationPlan='${plan}' AND MigrationWave=1 AND MigrationTeam='payments'`;
    const found = await listUntil(query, (rows) => rows.some((r) => r.status === 'COMPLETED'));
    expect(found).toEqual([{ workflowId, status: 'COMPLETED' }]);
    // The same plan in another wave matches nothing: the Int attribute is really indexed.
    const otherWave = await listOnce(`MigrationPlan='${plan}' AND MigrationWave=2`);
    expect(otherWave).toEqual([]);
  });

  type Row = { workflowId: string; status: WorkflowExecutionStatusName };

  async function listOnce(query: string): Promise<Row[]> {
    return client.withDeadline(in10s(), async () => {
      const rows: Row[] = [];
      for await (const wf of client.workflow.list({ query })) rows.push({ workflowId: wf.workflowId, status: wf.status.name });
      return rows;
    });
  }

  async function listUntil(query: string, done: (rows: Row[]) => boolean): Promise<Row[]> {
    const until = Date.now() + VISIBILITY_WAIT_MS;
    for (;;) {
      const rows = await listOnce(query);
      if (done(rows) || Date.now() > until) return rows;
      await sleep(250);
    }
  }
});
