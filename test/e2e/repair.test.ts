// `bin/migrate repair` end to end: two tables left by a terminated apply (one `written`, one
// `registered`, taken there by the real activities), the stack's Temporal, REST catalog, S3 and a
// state database of its own. A table whose workflow Temporal still shows RUNNING (started on a
// task queue no worker polls) is left alone until it ends; listing exits 1 while orphans exist,
// --apply removes them (exit 0), a second run finds nothing (exit 0); data files unchanged; the
// audit chain verifies; an unknown plan id is a usage error (exit 2).
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { targetOf } from '../../core/convert/plan-conversion';
import { tableWorkflowId } from '../../core/plan/ids';
import type { Run } from '../helpers/cli';
import { ROOT, run } from '../helpers/cli';
import type { RepairFixture } from '../helpers/repair-fixture';
import { setupRepairFixture } from '../helpers/repair-fixture';
import { testStack } from '../helpers/stack-env';

let fx: RepairFixture;
let connection: Connection;
let written = '';
let registered = '';
const migrate = (args: string[]): Promise<Run> =>
  run(path.join(ROOT, 'bin', 'migrate'), [...args, '--config', fx.cfgFile], 120_000, { MIGRATE_ACTOR: 'bob' });
const ref = (tableId: string) => ({ planHash: fx.plan.hash, tableId });

beforeAll(async () => {
  fx = await setupRepairFixture(2);
  [written, registered] = fx.tables as [string, string];
  await fx.activity(() => fx.acts.saveOriginalAndWrite(ref(written)));
  await fx.activity(() => fx.acts.saveOriginalAndWrite(ref(registered)));
  await fx.acts.registerTable(ref(registered));
  connection = await Connection.connect({ address: testStack().HIM_TEMPORAL_ADDRESS as string });
}, 600_000);

afterAll(async () => {
  await connection?.close();
  await fx?.close();
}, 300_000);

test('migrate repair lists, leaves a running table alone, removes the orphans, and finds nothing after', async () => {
  const id = fx.plan.hash.slice(0, 12);
  const shas = await fx.dataShas();
  // The registered table's workflow is still running: Temporal holds it open (no worker polls its queue).
  const client = new Client({ connection });
  const wid = tableWorkflowId(fx.plan.hash, (await fx.state.getTable(fx.plan.hash, registered)).wave, registered);
  const handle = await client.workflow.start('tableWorkflow', {
    taskQueue: `${fx.prefix}-nobody-polls`,
    workflowId: wid,
    args: [ref(registered)],
  });
  try {
    const list = await migrate(['repair', id, '--json']);
    expect(list.code).toBe(1);
    const lj = JSON.parse(list.stdout) as {
      ok: boolean;
      orphans: number;
      tables: { tableId: string; orphan: boolean; running: boolean; files: string[] }[];
    };
    expect(lj).toMatchObject({ ok: false, orphans: 1 });
    expect(lj.tables.map((t) => [t.tableId, t.orphan, t.running]).sort()).toEqual(
      [
        [registered, false, true],
        [written, true, false],
      ].sort(),
    );
    expect([...(lj.tables.find((t) => t.tableId === written)?.files ?? [])].sort()).toEqual(await fx.metadataObjects(written));

    const apply = await migrate(['repair', id, '--apply', '--json']);
    expect(apply.code).toBe(0);
    const aj = JSON.parse(apply.stdout) as {
      ok: boolean;
      repaired: { tableId: string; ok: boolean; removed: { files: string[] } }[];
      running: string[];
    };
    expect(aj.ok).toBe(true);
    expect(aj.repaired.map((x) => [x.tableId, x.ok])).toEqual([[written, true]]);
    expect(aj.running).toEqual([registered]);
    expect(await fx.metadataObjects(written)).toEqual([]);
    expect((await fx.metadataObjects(registered)).length).toBeGreaterThanOrEqual(3);
    expect(await fx.catalog.tableExists(targetOf(registered, fx.nsPrefix))).toBe(true);
  } finally {
    await handle.terminate('test: the apply was terminated');
  }

  // Now it no longer runs: an orphan (text output names it and the next command).
  const text = await migrate(['repair', id]);
  expect(text.code).toBe(1);
  expect(text.stdout).toContain(`${registered} (registered)`);
  // The hint repeats the --config this command was given: copied as printed, it runs.
  expect(text.stdout).toContain(`next: migrate repair ${id} --apply -c ${fx.cfgFile}`);
  const applied = await migrate(['repair', id, '--apply']);
  expect(applied.code).toBe(0);
  expect(applied.stdout).toMatch(new RegExp(`${registered.replace('.', '\\.')}: \\d+ metadata file\\(s\\) deleted, unregistered`));
  expect(await fx.metadataObjects(registered)).toEqual([]);
  expect(await fx.catalog.tableExists(targetOf(registered, fx.nsPrefix))).toBe(false);

  const again = await migrate(['repair', id, '--json']);
  expect(again.code).toBe(0);
  expect(JSON.parse(again.stdout)).toMatchObject({ ok: true, orphans: 0, tables: [] });
  expect(await fx.dataShas()).toEqual(shas);
  const verify = await migrate(['audit', 'verify', '--json']);
  expect(verify.code).toBe(0);
  expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true });
  const actors = [];
  for await (const e of fx.state.readAudit()) if (e.action === 'table.repaired') actors.push([e.object, e.actor]);
  expect(actors.sort()).toEqual(
    [
      [`hms:${registered}`, 'bob'],
      [`hms:${written}`, 'bob'],
    ].sort(),
  );
}, 300_000);

test('an unknown plan id is a usage error (exit 2, coded in --json)', async () => {
  const r = await migrate(['repair', 'ffffffffffff', '--json']);
  expect(r.code).toBe(2);
  expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, error: { code: 'USAGE' } });
});
