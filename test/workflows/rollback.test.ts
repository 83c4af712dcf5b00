// rollbackWaveWorkflow (workflows/rollback.ts) over a wave bigger than one run's budget, in the
// time-skipping test environment on in-memory activities: continue-as-new after `tablesPerRun`
// tables (or when Temporal suggests it) carries the tables still to do in rollback order and the
// results so far; every table is rolled back exactly once, dependents first across every run
// boundary; a refusal is reported and the others still roll back; dependent views go first; a
// cancelled rollback returns what it did, the tables it did not finish coded ROLLBACK_CANCELLED; the
// carried input and the result stay bounded
// (workflows/rollback-tally.ts). HIM_RECORD_HISTORIES=<dir> keeps a continued rollback's three runs as
// replay fixtures (test/workflows/replay.test.ts).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { CutoverStep } from '../../activities/index';
import { SA } from '../../workflows/common';
import type { RollbackInput, RollbackResult } from '../../workflows/rollback';
import { ROLLBACK_CONTINUE_AS_NEW_PATCH, rollbackWaveWorkflow } from '../../workflows/rollback';
import { addRefused, addRolledBack, emptyTally, LIST_BUDGET } from '../../workflows/rollback-tally';
import { coded, Fakes, PLAN } from './helpers/fake-activities';
import { timeSkippingEnv, withWorker } from './helpers/env';
import { SUGGEST_AT_MEMO } from './helpers/suggest-continue-as-new';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** `n` table ids of plan order; `long` gives each a realistic 52-character name. */
const ids = (n: number, long = false): string[] =>
  Array.from({ length: n }, (_, i) =>
    long ? `warehouse_sales_eu_${String(i % 50).padStart(3, '0')}.fact_order_lines_daily_${String(i).padStart(6, '0')}` : `db.t${i + 1}`,
  );

const fakes = (tables: readonly string[], over: ConstructorParameters<typeof Fakes>[1] = {}) =>
  new Fakes(
    { waves: [{ number: 1, tables: tables.map((id) => ({ id, team: 'crm' })) }] },
    {
      migratedTables: async () => [...tables],
      rollbackOrder: async () => [],
      unfenceTable: async () => ({ done: 'now', detail: 'not fenced' }) as CutoverStep,
      rollbackTable: async () => ({ status: 'rolled-back' }),
      ...over,
    },
  );

type History = Awaited<ReturnType<ReturnType<TestWorkflowEnvironment['client']['workflow']['getHandle']>['fetchHistory']>>;

interface Run {
  readonly runId: string;
  /** JSON of the run's input (the carried state after the first run), as the history holds it. */
  readonly inputBytes: number;
  readonly continued: boolean;
  /** The patch ids of the run's markers. */
  readonly patches: readonly string[];
  readonly events: number;
  readonly history: History;
}

/** The runs of one workflow id, first to last, along the continue-as-new chain. */
async function runsOf(workflowId: string, firstRunId: string): Promise<Run[]> {
  const runs: Run[] = [];
  for (let runId: string | undefined = firstRunId; runId !== undefined; ) {
    const history: History = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    const input = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
    const can = events[events.length - 1]?.workflowExecutionContinuedAsNewEventAttributes;
    const patches = events
      .flatMap((e) => e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads ?? [])
      .map((p) => (JSON.parse(Buffer.from(p.data ?? new Uint8Array()).toString('utf8')) as { id: string }).id);
    runs.push({ runId, inputBytes: input?.length ?? 0, continued: can != null, patches, events: events.length, history });
    runId = can?.newExecutionRunId ?? undefined;
  }
  return runs;
}

let n = 0;
async function rollback(f: Fakes, over: Partial<RollbackInput> = {}, memo?: Record<string, unknown>) {
  return withWorker(env, f.activities, async (taskQueue) => {
    const args: [RollbackInput] = [{ planHash: PLAN, wave: 1, force: false, by: 'alice', ...over }];
    const h = await env.client.workflow.start(rollbackWaveWorkflow, {
      taskQueue,
      workflowId: `rollback-${++n}`,
      args,
      ...(memo ? { memo } : {}),
    });
    const result: RollbackResult = await h.result();
    const desc = await h.describe();
    const runs = await runsOf(h.workflowId, h.firstExecutionRunId);
    return { result, runs, status: desc.typedSearchAttributes.get(SA.status), team: desc.typedSearchAttributes.get(SA.team) };
  });
}

const unfenceThenRollBack = (tables: readonly string[]) => tables.flatMap((t) => [`unfenceTable ${t}`, `rollbackTable ${t}`]);
const marked = (r: Run): boolean => r.patches.includes(ROLLBACK_CONTINUE_AS_NEW_PATCH);

describe('rollbackWaveWorkflow over more tables than one run rolls back', () => {
  it('25 tables, 10 a run: 3 runs, each table unfenced and rolled back exactly once, in reverse plan order across both boundaries', async () => {
    const tables = ids(25);
    const f = fakes(tables);
    const { result, runs, status, team } = await rollback(f, { tablesPerRun: 10 });
    const record = process.env.HIM_RECORD_HISTORIES;
    if (record !== undefined) {
      writeFileSync(path.join(record, 'v0.6-rollbackWaveWorkflow-continued-as-new.json'), historyToJSON(runs[0]!.history));
      writeFileSync(path.join(record, 'v0.6-rollbackWaveWorkflow-continued-again.json'), historyToJSON(runs[1]!.history));
      writeFileSync(path.join(record, 'v0.6-rollbackWaveWorkflow-continued.json'), historyToJSON(runs[2]!.history));
    }
    expect(runs.map((r) => r.continued)).toEqual([true, true, false]);
    // Dependents first, one table at a time, the order kept from run to run.
    expect(f.seq('unfenceTable', 'rollbackTable')).toEqual(unfenceThenRollBack([...tables].reverse()));
    // The wave's tables are read once, by the first run; later runs go on with what was carried.
    expect([f.of('migratedTables').length, f.of('rollbackOrder').length, f.of('waveMembers').length]).toEqual([1, 1, 1]);
    expect(result).toEqual({
      wave: 1,
      rolledBack: [...tables].reverse(),
      refused: [],
      putBack: [],
      counts: { tables: 25, rolledBack: 25, refused: 0, putBack: 0, runs: 3 },
    });
    // The patch marker is in the runs that continued as new (where the budget ran out), not in the last.
    expect(runs.map(marked)).toEqual([true, true, false]);
    // Search attributes carry over to the last run: the team set by the first, the final status by the last.
    expect([status, team]).toEqual(['rolled-back', ['crm']]);
  });

  it('a table refused in the middle of a run is reported with its code, the tables after it (and in the next runs) still roll back', async () => {
    const tables = ids(12);
    const f = fakes(tables, {
      rollbackTable: async (ref) => {
        if (ref.tableId === 'db.t6') throw coded('ROLLBACK_NOT_OURS', { message: 'db.t6 is not ours' });
        return { status: 'rolled-back' };
      },
    });
    const { result, runs, status } = await rollback(f, { tablesPerRun: 5 });
    expect(runs).toHaveLength(3);
    expect(f.seq('rollbackTable')).toEqual([...tables].reverse().map((t) => `rollbackTable ${t}`));
    expect(result.refused).toEqual([{ tableId: 'db.t6', code: 'ROLLBACK_NOT_OURS', message: 'db.t6 is not ours' }]);
    expect(result.rolledBack).toEqual([...tables].reverse().filter((t) => t !== 'db.t6'));
    expect(result.counts).toEqual({ tables: 12, rolledBack: 11, refused: 1, putBack: 0, runs: 3 });
    expect(status).toBe('rollback-incomplete');
  });

  it('put-backs are carried across runs with the table they belong to', async () => {
    const tables = ids(6);
    const putBack = { snapshots: ['7'], partitionsAdded: ['year=2026'], partitionsVisible: [], files: 2, records: 2 };
    const f = fakes(tables, {
      rollbackTable: async (ref) =>
        ref.tableId === 'db.t5' || ref.tableId === 'db.t2' ? { status: 'rolled-back', putBack } : { status: 'rolled-back' },
    });
    const { result, runs } = await rollback(f, { tablesPerRun: 2 });
    expect(runs).toHaveLength(3);
    expect(result.putBack).toEqual([
      { tableId: 'db.t5', ...putBack },
      { tableId: 'db.t2', ...putBack },
    ]);
    expect(result.counts?.putBack).toBe(2);
  });

  it('dependent views first (--with-dependent-views), across a boundary too, then the wave; a refused view keeps every table in place (ROLLBACK_ORDER)', async () => {
    const tables = ids(4);
    const views = ['db.v3', 'db.v2', 'db.v1'];
    const first = fakes(tables, { rollbackOrder: async (_p, _w, withViews) => (withViews ? views : []) });
    const a = await rollback(first, { tablesPerRun: 2, withDependentViews: true });
    expect(first.seq('rollbackTable')).toEqual([...views, ...[...tables].reverse()].map((t) => `rollbackTable ${t}`));
    // Views are not unfenced (they were never fenced); the tables are.
    expect(first.seq('unfenceTable')).toEqual([...tables].reverse().map((t) => `unfenceTable ${t}`));
    expect(a.runs).toHaveLength(4);
    expect(a.result).toMatchObject({ dependentViews: views, rolledBack: [...views, ...[...tables].reverse()], refused: [] });

    const refused = fakes(tables, {
      rollbackOrder: async () => views,
      rollbackTable: async (ref) => {
        if (ref.tableId === 'db.v2') throw coded('ROLLBACK_NOT_OURS', { message: 'db.v2 is not ours' });
        return { status: 'rolled-back' };
      },
    });
    const b = await rollback(refused, { tablesPerRun: 2, withDependentViews: true });
    // db.v1 after the refused db.v2 is still tried (as in one run); no table of the wave is touched.
    expect(refused.seq('rollbackTable', 'unfenceTable')).toEqual(views.map((t) => `rollbackTable ${t}`));
    expect(b.result.refused.map((r) => [r.tableId, r.code])).toEqual([
      ['db.v2', 'ROLLBACK_NOT_OURS'],
      ...[...tables].reverse().map((t) => [t, 'ROLLBACK_ORDER']),
    ]);
    expect(b.result.counts).toMatchObject({ rolledBack: 2, refused: 5 });
    expect(b.status).toBe('rollback-incomplete');
  });

  it('continues as new when Temporal suggests it, before the budget is spent: every table once, in order', async () => {
    const tables = ids(30);
    const f = fakes(tables);
    const { result, runs } = await rollback(f, {}, { [SUGGEST_AT_MEMO]: 60 });
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs.slice(0, -1).every(marked)).toBe(true);
    expect(f.seq('rollbackTable')).toEqual([...tables].reverse().map((t) => `rollbackTable ${t}`));
    expect(result.counts).toMatchObject({ rolledBack: 30, refused: 0, runs: runs.length });
  });

  it('cancelled in its second run: the step in flight is cancelled and waited for, nothing after it is rolled back, the result as in one run', async () => {
    const tables = ids(8);
    let stepped!: () => void;
    const inFlight = new Promise<void>((r) => (stepped = r));
    const f = fakes(tables, {
      rollbackTable: async (ref) => {
        if (ref.tableId !== 'db.t3') return { status: 'rolled-back' };
        const ctx = Context.current();
        stepped();
        for (;;) {
          ctx.heartbeat();
          await ctx.sleep(100);
        }
      },
    });
    const { outcome, runs } = await withWorker(env, f.activities, async (taskQueue) => {
      const h = await env.client.workflow.start(rollbackWaveWorkflow, {
        taskQueue,
        workflowId: `rollback-${++n}`,
        args: [{ planHash: PLAN, wave: 1, force: false, by: 'alice', tablesPerRun: 4, timeouts: { heartbeatSeconds: 2 } }],
      });
      await inFlight;
      await h.cancel();
      const o = await h.result().then(
        (r) => ({ ok: true as const, r }),
        (e: unknown) => ({ ok: false as const, e }),
      );
      return { outcome: o, runs: await runsOf(h.workflowId, h.firstExecutionRunId) };
    });
    expect(runs.map((r) => r.continued)).toEqual([true, false]);
    // db.t2 and db.t1 come after the cancel: never rolled back.
    expect(f.seq('rollbackTable')).toEqual(['db.t8', 'db.t7', 'db.t6', 'db.t5', 'db.t4', 'db.t3'].map((t) => `rollbackTable ${t}`));
    // As in one run (the same test against the code before continue-as-new gave the same result): the
    // tables done stay rolled back, the cancelled step and the tables after it are refused, the result returned;
    // coded ROLLBACK_CANCELLED (not INTERNAL: a cancel is no internal error, and the remedy is to run it again).
    expect(outcome).toEqual({
      ok: true,
      r: {
        wave: 1,
        rolledBack: ['db.t8', 'db.t7', 'db.t6', 'db.t5', 'db.t4'],
        refused: [
          {
            tableId: 'db.t3',
            code: 'ROLLBACK_CANCELLED',
            message: 'db.t3: not rolled back: the rollback was cancelled (Activity cancelled)',
          },
          {
            tableId: 'db.t2',
            code: 'ROLLBACK_CANCELLED',
            message: 'db.t2: not rolled back: the rollback was cancelled (Workflow cancelled)',
          },
          {
            tableId: 'db.t1',
            code: 'ROLLBACK_CANCELLED',
            message: 'db.t1: not rolled back: the rollback was cancelled (Workflow cancelled)',
          },
        ],
        putBack: [],
        counts: { tables: 8, rolledBack: 5, refused: 3, putBack: 0, runs: 2 },
      },
    });
  }, 120_000);
});

describe('the carried input and the result stay bounded at a wave of thousands of tables', () => {
  it('1,200 tables of 52-character names, at most 300 a run: every table once, in order; each run’s input and the result the names once plus under 20 kB', async () => {
    const tables = ids(1200, true);
    const names = JSON.stringify(tables).length;
    const f = fakes(tables);
    const started = Date.now();
    const { result, runs } = await rollback(f, { tablesPerRun: 300 });
    const seconds = (Date.now() - started) / 1000;
    // 300 a run at most.
    expect(runs.length).toBeGreaterThanOrEqual(4);
    expect(runs.slice(0, -1).every(marked)).toBe(true);
    expect(f.of('rollbackTable').map((c) => (c.args[0] as { tableId: string }).tableId)).toEqual([...tables].reverse());
    expect(result.counts).toEqual({ tables: 1200, rolledBack: 1200, refused: 0, putBack: 0, runs: runs.length });
    const resultBytes = JSON.stringify(result).length;
    // Tables still to do + tables done = the wave's names once, whichever the run: the carry never grows past them.
    const inputs = runs.map((r) => r.inputBytes);
    process.stdout.write(
      `rollback of 1,200 tables: ${seconds.toFixed(1)} s; names ${names} B; inputs ${inputs.join(', ')} B; result ${resultBytes} B; events per run ${runs.map((r) => r.events).join(', ')}\n`,
    );
    // Every run's history under Temporal's 10,240-event warning (12 events a table at most 300 tables a run).
    expect(Math.max(...runs.map((r) => r.events))).toBeLessThan(10_240);
    for (const b of inputs) expect(b).toBeLessThan(names + 20_000);
    expect(resultBytes).toBeLessThan(names + 20_000);
    expect(Math.max(...inputs, resultBytes)).toBeLessThan(100_000);
  }, 300_000);

  it('lists stop at their budget and count the rest: 40,000 rolled back and 20,000 refused with long messages stay under 2 MB', () => {
    const t = emptyTally();
    const many = ids(40_000, true);
    for (const id of many) addRolledBack(t, id);
    for (const id of many.slice(0, 20_000))
      addRefused(t, { tableId: id, code: 'ROLLBACK_ORDER', message: `${id}: not rolled back: ${'x'.repeat(200)}` });
    expect(t.counts).toEqual({ rolledBack: 40_000, refused: 20_000, putBack: 0 });
    expect(t.rolledBack.length + t.notListed.rolledBack).toBe(40_000);
    expect(t.refused.length + (t.notListed.refused.ROLLBACK_ORDER ?? 0)).toBe(20_000);
    // Listed in order, the first ones: a prefix of what happened.
    expect(t.rolledBack).toEqual(many.slice(0, t.rolledBack.length));
    expect(t.notListed.rolledBack).toBeGreaterThan(0);
    expect(JSON.stringify(t.rolledBack).length).toBeLessThanOrEqual(LIST_BUDGET.rolledBack + 2);
    expect(JSON.stringify(t.refused).length).toBeLessThanOrEqual(LIST_BUDGET.refused + 2);
    expect(JSON.stringify(t).length).toBeLessThan(2_000_000 - 100_000);
  });
});
