// What an owner sees in the Temporal UI, on the stack: Temporal's own visibility store (the list
// the UI shows) is asked with the queries docs/migrating.md "What the Temporal UI shows" gives, after
// four plans through a real `migrate worker` (REST catalog, HMS, S3): plan A (two tables of two
// teams) succeeds, is cut over and rolled back; plan B has a table that fails (a column added in HMS
// between plan and apply: SOURCE_CHANGED), so the plan fails; plan C waits for approval and is
// cancelled; plan D is cancelled while its table is being written (the worker frozen at the
// failpoint after the write), so the table compensates and ends `cancelled`. Every closed
// workflow of the four plans carries its final MigrationStatus (none says `running`), a team's
// filter lists its table workflows with MigrationTable and how each ended, the plan and wave
// workflows carry the plan's teams, and the cutover/rollback workflows the teams of their tables.
// Visibility is eventually consistent: every query is polled against a deadline. Last, the UI itself
// (a headless Chromium) renders the four plans' list: a PNG kept as an artefact, and its text shows
// every workflow with its final status.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { Client, Connection } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { ThriftHmsWriter } from '../../adapters/hms/thrift/writer';
import { cutoverWorkflowId, planWorkflowId, rollbackWorkflowId, tableWorkflowId, waveWorkflowId } from '../../core/plan/ids';
import type { SupervisedWorker } from '../helpers/e2e-suite';
import { dropNamespace, dropSeed, migrateWith, suiteConfig, superviseWorker } from '../helpers/e2e-suite';
import { createContext } from '../../dev/stack/manifest';
import { listedStatuses } from '../../dev/tools/ui-screenshot';
import { ROOT, TSX, run } from '../helpers/cli';
import { seedWarehouse } from '../helpers/live-tables';
import { testStack, uniqueName } from '../helpers/stack-env';

const env = testStack();
const prefix = uniqueName('himui').toLowerCase();
const nsPrefix = `${prefix}_`;
const sales = `${prefix}_sales`;
const misc = `${prefix}_misc`;
const queue = `him-ui-${prefix}`;
// Teams of this run only: a plain team filter finds nothing of other runs.
const payments = `${prefix}-payments`;
const crm = `${prefix}-crm`;
const ops = `${prefix}-ops`;
const SA = {
  plan: defineSearchAttributeKey('MigrationPlan', SearchAttributeType.KEYWORD),
  wave: defineSearchAttributeKey('MigrationWave', SearchAttributeType.INT),
  team: defineSearchAttributeKey('MigrationTeam', SearchAttributeType.KEYWORD_LIST),
  status: defineSearchAttributeKey('MigrationStatus', SearchAttributeType.KEYWORD),
  table: defineSearchAttributeKey('MigrationTable', SearchAttributeType.KEYWORD),
};
let dir = '';
let worker: SupervisedWorker | undefined;
let connection: Connection | undefined;
let client: Client;

/** A plan of `tables` (db.table → team) in one wave, with its own config in `<dir>/<name>/`. */
async function plan(name: string, db: string, tables: Record<string, string>): Promise<{ hash: string; file: string; cfg: string }> {
  const sub = path.join(dir, name);
  mkdirSync(sub);
  const include = `^${db}\\.(${Object.keys(tables).join('|')})$`;
  const owners = Object.entries(tables)
    .map(([t, team]) => `      ${db}.${t}: ${team}\n`)
    .join('');
  const cfg = suiteConfig({
    dir: sub,
    queue,
    nsPrefix,
    databases: [db],
    planYaml: `  waves:\n    maxTablesPerWave: 10\n    scope:\n      include: ['${include}']\n  ownership:\n    tables:\n${owners}`,
  });
  const file = path.join(sub, 'plan.json');
  const p = await migrateWith(cfg)(['plan', '--out', file]);
  if (p.code !== 0) throw new Error(`plan ${name} failed (${p.code}): ${p.stdout}\n${p.stderr}`);
  const planned = JSON.parse(readFileSync(file, 'utf8')) as { hash: string; waves: { tables: { id: string }[] }[] };
  expect(planned.waves.flatMap((w) => w.tables.map((t) => t.id)).sort()).toEqual(
    Object.keys(tables)
      .map((t) => `${db}.${t}`)
      .sort(),
  );
  return { hash: planned.hash, file, cfg };
}

/** A column added to `db.table` in HMS after its plan: the table no longer converts as planned. */
async function addColumn(db: string, table: string, column: string): Promise<void> {
  const hms = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string });
  const writer = new ThriftHmsWriter({ uri: env.HIM_HMS_PG_URI as string });
  try {
    const [t] = await hms.getTables(db, [table]);
    if (t === undefined) throw new Error(`${db}.${table} not in HMS`);
    const columns = [...t.table.sd.columns, { name: column, type: 'string', comment: null }];
    await writer.alterTable(db, table, { ...t.table, sd: { ...t.table.sd, columns } });
  } finally {
    await hms.close();
    await writer.close();
  }
}

interface Seen {
  readonly id: string;
  readonly type: string;
  readonly closed: boolean;
  readonly status?: string;
  readonly wave?: number;
  readonly teams?: readonly string[];
  readonly table?: string;
}

const seen = (w: WorkflowExecutionInfo): Seen => {
  const sa = w.typedSearchAttributes;
  return {
    id: w.workflowId,
    type: w.type,
    closed: w.status.name !== 'RUNNING',
    status: sa.get(SA.status),
    wave: sa.get(SA.wave),
    teams: sa.get(SA.team),
    table: sa.get(SA.table),
  };
};

async function list(query: string): Promise<Seen[]> {
  const out: Seen[] = [];
  for await (const w of client.workflow.list({ query })) out.push(seen(w));
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

/** `query`'s answer once `ok` holds for it (visibility catches up), or a failure showing the last answer. */
async function listUntil(query: string, ok: (r: Seen[]) => boolean, ms = 60_000): Promise<Seen[]> {
  const deadline = Date.now() + ms;
  let last: Seen[] = [];
  while (Date.now() < deadline) {
    last = await list(query);
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`visibility never answered as expected within ${ms} ms: ${query}\n${JSON.stringify(last, null, 1)}`);
}

const byId = (r: Seen[]): Record<string, string | undefined> => Object.fromEntries(r.map((s) => [s.id, s.status]));

describe('the Temporal UI tells the truth: MigrationStatus, MigrationTeam and MigrationTable on every workflow of a plan', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-ui-'));
    await seedWarehouse(prefix, dir);
    connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
    client = new Client({ connection });
  }, 600_000);

  afterAll(async () => {
    await worker?.stop();
    await connection?.close();
    await dropNamespace(`${nsPrefix}${sales}`);
    await dropNamespace(`${nsPrefix}${misc}`);
    await dropSeed(prefix);
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('succeeded, cut over, rolled back, failed, cancelled while waiting and cancelled in flight: every closed workflow carries its final status, a team filter lists its tables', async () => {
    const a = await plan('a', sales, { orders: payments, customers: crm });
    const b = await plan('b', misc, { metrics_orc: payments, empty_pq: crm });
    const c = await plan('c', misc, { events_avro: crm });
    const d = await plan('d', sales, { all_types: ops });
    const [ida, idb, idc, idd] = [a.hash, b.hash, c.hash, d.hash].map((h) => h.slice(0, 12)) as [string, string, string, string];
    const inPlans = `MigrationPlan IN ('${ida}', '${idb}', '${idc}', '${idd}')`;

    // D: cancelled while its one table is in flight (the worker frozen right after the write step).
    const failpoints = path.join(dir, 'failpoints');
    mkdirSync(failpoints);
    worker = superviseWorker(a.cfg, { HIM_FAILPOINTS: 'stop:after-write', HIM_FAILPOINT_DIR: failpoints });
    expect((await migrateWith(d.cfg)(['apply', d.file, '--auto-approve', '--json'])).code).toBe(0);
    const marker = path.join(failpoints, `after-write--${sales}.all_types`);
    const frozenBy = Date.now() + 120_000;
    while (!existsSync(marker) && Date.now() < frozenBy) await new Promise((r) => setTimeout(r, 200));
    const frozen = Number(readFileSync(marker, 'utf8').trim());
    const cancelD = await migrateWith(d.cfg)(['cancel', idd, '--json']);
    process.kill(frozen, 'SIGCONT');
    expect(cancelD.code).toBe(0);
    await listUntil(`MigrationPlan = '${idd}' AND ExecutionStatus != 'Running'`, (r) => r.length === 3, 120_000);
    await worker.stop();
    worker = superviseWorker(a.cfg);

    // C: waits for the approval of its wave; the plan workflow says so, then is cancelled.
    const ac = await migrateWith(c.cfg)(['apply', c.file, '--json']);
    expect(ac.code).toBe(0);
    const waiting = await listUntil(`MigrationPlan = '${idc}' AND MigrationStatus = 'waiting-approval'`, (r) => r.length === 1);
    expect(waiting.map((s) => [s.id, s.closed, s.wave, s.teams])).toEqual([[planWorkflowId(c.hash), false, 1, [crm]]]);
    expect((await migrateWith(c.cfg)(['cancel', idc, '--json'])).code).toBe(0);

    // A: succeeds, is cut over, then rolled back (the rollback unfences first).
    const aa = await migrateWith(a.cfg)(['apply', a.file, '--auto-approve', '--wait', '--json'], 600_000);
    if (aa.code !== 0) throw new Error(`apply A failed (${aa.code}): ${aa.stdout}\n${aa.stderr}\n${worker.log().slice(-4000)}`);
    const cut = await migrateWith(a.cfg)(['cutover', ida, '--wave', '1', '--wait', '--json'], 600_000);
    if (cut.code !== 0) throw new Error(`cutover failed (${cut.code}): ${cut.stdout}\n${cut.stderr}\n${worker.log().slice(-4000)}`);
    const rb = await migrateWith(a.cfg)(['rollback', ida, '--wave', '1', '--json'], 600_000);
    if (rb.code !== 0) throw new Error(`rollback failed (${rb.code}): ${rb.stdout}\n${rb.stderr}\n${worker.log().slice(-4000)}`);

    // B: metrics_orc gains a column after the plan (SOURCE_CHANGED): the table, its wave and the plan fail.
    await addColumn(misc, 'metrics_orc', 'late_column');
    const ab = await migrateWith(b.cfg)(['apply', b.file, '--accept-stale', '--auto-approve', '--wait', '--json'], 600_000);
    const rb2 = JSON.parse(ab.stdout) as { result?: { state: string; waves: { failed: { tableId: string; code: string }[] }[] } };
    expect([ab.code, rb2.result?.state, rb2.result?.waves.flatMap((w) => w.failed)]).toEqual([
      1,
      'failed',
      [{ tableId: `${misc}.metrics_orc`, code: 'SOURCE_CHANGED' }],
    ]);

    // Every workflow of the four plans, as the UI lists them: closed, each with its final status.
    const expected: Record<string, string> = {
      [planWorkflowId(a.hash)]: 'succeeded',
      [waveWorkflowId(a.hash, 1)]: 'succeeded',
      [tableWorkflowId(a.hash, 1, `${sales}.orders`)]: 'succeeded',
      [tableWorkflowId(a.hash, 1, `${sales}.customers`)]: 'succeeded',
      [cutoverWorkflowId(a.hash, 1)]: 'cutover',
      [rollbackWorkflowId(a.hash, 1)]: 'rolled-back',
      [planWorkflowId(b.hash)]: 'failed',
      [waveWorkflowId(b.hash, 1)]: 'failed',
      [tableWorkflowId(b.hash, 1, `${misc}.metrics_orc`)]: 'failed',
      [tableWorkflowId(b.hash, 1, `${misc}.empty_pq`)]: 'succeeded',
      [planWorkflowId(c.hash)]: 'cancelled',
      [planWorkflowId(d.hash)]: 'cancelled',
      [waveWorkflowId(d.hash, 1)]: 'cancelled',
      [tableWorkflowId(d.hash, 1, `${sales}.all_types`)]: 'cancelled',
    };
    const want = JSON.stringify(Object.entries(expected).sort(([x], [y]) => x.localeCompare(y)));
    const all = await listUntil(inPlans, (r) => JSON.stringify(Object.entries(byId(r))) === want);
    expect(all.every((s) => s.closed)).toBe(true);
    // Nothing closed still says running (asked once visibility has caught up with every close above).
    expect(await list(`${inPlans} AND MigrationStatus = 'running' AND ExecutionStatus != 'Running'`)).toEqual([]);

    // A team's table workflows, across plans, with the table's name and how it ended.
    const tables = await listUntil(`MigrationTeam = '${payments}' AND WorkflowType = 'tableWorkflow'`, (r) => r.length === 2);
    expect(tables.map((s) => [s.table, s.status, s.teams]).sort()).toEqual([
      [`${misc}.metrics_orc`, 'failed', [payments]],
      [`${sales}.orders`, 'succeeded', [payments]],
    ]);
    const failedOfTeam = await listUntil(`MigrationTeam = '${crm}' AND MigrationStatus = 'failed'`, (r) => r.length === 2);
    // crm owns empty_pq in plan B: the failed plan and wave list the team too, its own table did not fail.
    expect(failedOfTeam.map((s) => s.id)).toEqual([planWorkflowId(b.hash), waveWorkflowId(b.hash, 1)].sort());
    // Plan and wave workflows carry every team of the plan; cutover and rollback the teams of their tables.
    const ofA = Object.fromEntries(all.filter((s) => s.id.startsWith(planWorkflowId(a.hash))).map((s) => [s.id, s]));
    for (const id of [planWorkflowId(a.hash), waveWorkflowId(a.hash, 1), cutoverWorkflowId(a.hash, 1), rollbackWorkflowId(a.hash, 1)])
      expect([id, [...(ofA[id]?.teams ?? [])].sort(), ofA[id]?.wave]).toEqual([id, [crm, payments].sort(), 1]);
    expect(ofA[tableWorkflowId(a.hash, 1, `${sales}.customers`)]).toMatchObject({ table: `${sales}.customers`, teams: [crm], wave: 1 });
    // D's team: its plan, wave and table, all cancelled; the table named.
    const opsSeen = await listUntil(`MigrationTeam = '${ops}'`, (r) => r.length === 3);
    expect(opsSeen.map((s) => [s.type, s.status, s.table ?? null])).toEqual([
      ['migrationWorkflow', 'cancelled', null],
      ['waveWorkflow', 'cancelled', null],
      ['tableWorkflow', 'cancelled', `${sales}.all_types`],
    ]);
    const rolledBack = await list(`MigrationTeam = '${crm}' AND MigrationStatus = 'rolled-back'`);
    expect(rolledBack.map((s) => s.id)).toEqual([rollbackWorkflowId(a.hash, 1)]);

    // The plan's current details say where it ended; a table workflow's details name its team.
    const meta = (await client.workflow.getHandle(planWorkflowId(a.hash)).query('__temporal_workflow_metadata')) as {
      currentDetails?: string;
    };
    expect(meta.currentDetails).toBe(`Plan \`${ida}\` succeeded · 2 of 2 tables done, 0 failed`);
    const desc = await client.workflow.getHandle(tableWorkflowId(b.hash, 1, `${misc}.metrics_orc`)).describe();
    expect(await desc.staticDetails()).toContain(`(team \`${payments}\`)`);

    // What the owner sees: the UI's list filtered by the four plans, rendered by a headless browser
    // (the stack's `browser`). The PNG stays with the run's artefacts (<state dir>/artifacts/); the
    // text it rendered lists every workflow of the four plans with its final MigrationStatus.
    const shots = path.join(createContext().stateDir, 'artifacts');
    mkdirSync(shots, { recursive: true });
    const png = path.join(shots, `temporal-ui-${ida}.png`);
    const txt = path.join(dir, 'ui.txt');
    const shot = await run(TSX, [path.join(ROOT, 'dev/tools/ui-screenshot.ts'), inPlans, png, '--text', txt], 300_000, {
      NODE_OPTIONS: '--experimental-websocket',
    });
    expect({ code: shot.code, err: shot.code === 0 ? '' : shot.stderr.slice(-2000) }).toEqual({ code: 0, err: '' });
    const image = readFileSync(png);
    expect([image.subarray(1, 4).toString('latin1'), image.readUInt32BE(16), image.readUInt32BE(20)]).toEqual(['PNG', 1800, 900]);
    expect(image.length).toBeGreaterThan(20_000); // a rendered list, not a blank page
    expect(JSON.stringify(Object.entries(listedStatuses(readFileSync(txt, 'utf8'))).sort(([x], [y]) => x.localeCompare(y)))).toBe(want);
    expect(worker.kills()).toBe(0);
  }, 1_500_000);
});
