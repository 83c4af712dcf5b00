// The nightly validation reports orphans: on real components (hms-pg, S3, the REST
// catalog, a state database of its own, the stack's Temporal for "is its workflow running"), one
// table is taken to `written` by the real activities and then left (a terminated run), another is
// fully migrated. The published run's report lists the orphan with `migrate repair`, its audit
// event counts it, and the migrated table is not one. Without a Temporal client the scan cannot
// ask whether a table still runs: the run still publishes, saying the orphans were not checked.
import { Client, Connection } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { RepairFixture } from '../../helpers/repair-fixture';
import { setupRepairFixture } from '../../helpers/repair-fixture';
import { testStack } from '../../helpers/stack-env';

let fx: RepairFixture;
let connection: Connection;
let client: Client;
let orphan = '';
let migrated = '';

const ref = (tableId: string) => ({ planHash: fx.plan.hash, tableId });
type Published = Awaited<ReturnType<RepairFixture['acts']['publishValidationRun']>>;

beforeAll(async () => {
  fx = await setupRepairFixture(2);
  [orphan, migrated] = fx.tables as [string, string];
  await fx.activity(() => fx.acts.saveOriginalAndWrite(ref(orphan)));
  await fx.activity(() => fx.acts.saveOriginalAndWrite(ref(migrated)));
  await fx.acts.registerTable(ref(migrated));
  await fx.acts.validateTable(ref(migrated));
  connection = await Connection.connect({ address: testStack().HIM_TEMPORAL_ADDRESS as string });
  client = new Client({ connection });
}, 600_000);

afterAll(async () => {
  await connection?.close();
  await fx?.close();
}, 300_000);

test('the published run lists the orphan (not the migrated table) in its report and counts it in its audit event', async () => {
  expect((await fx.state.getTable(fx.plan.hash, migrated)).status).toBe('migrated');
  const runId = `${fx.plan.hash.slice(0, 12)}-orphans-${Date.now()}`;
  await fx.acts.startValidationRun(fx.plan.hash, runId);
  const published = (await new MockActivityEnvironment(undefined, { client }).run(() =>
    fx.acts.publishValidationRun(fx.plan.hash, runId, null),
  )) as Published;
  expect(published.orphans).toBe(1);
  expect(published.summary).toContain('Orphans: 1 table(s)');
  expect(published.summary).toContain(`\`${orphan}\``);
  expect(published.summary).not.toContain(`\`${migrated}\``);
  expect(published.summary).toContain(`migrate repair ${fx.plan.hash.slice(0, 12)} --apply`);
  const events = [];
  for await (const e of fx.state.readAudit()) if (e.action === 'validation.run') events.push(e);
  expect(events.at(-1)?.details).toMatchObject({ runId, orphans: 1 });
  expect((await fx.auditVerdict()).ok).toBe(true);
}, 300_000);

test('without a way to ask Temporal, the run still publishes and says the orphans were not checked', async () => {
  const runId = `${fx.plan.hash.slice(0, 12)}-noclient-${Date.now()}`;
  await fx.acts.startValidationRun(fx.plan.hash, runId);
  const published = (await new MockActivityEnvironment().run(() => fx.acts.publishValidationRun(fx.plan.hash, runId, null))) as Published;
  expect(published.orphans).toBeNull();
  expect(published.summary).toContain('Orphans: not checked');
}, 300_000);
