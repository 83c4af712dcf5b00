// The workflows that act on migrated tables, in the time-skipping test environment on in-memory
// activities: rollbackWaveWorkflow (workflows/rollback.ts: reverse order, unfence first, refusals
// that do not stop the others, dependent views first or ROLLBACK_ORDER), cutoverWorkflow
// (workflows/cutover.ts: the four steps per table in plan order, a refused table left where its
// step stopped) and nightlyValidationWorkflow (workflows/nightly.ts: counts, continue-as-new under
// one run id). Each ends on its MigrationStatus.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { CutoverStep } from '../../activities/index';
import { SA } from '../../workflows/common';
import { cutoverWorkflow } from '../../workflows/cutover';
import { nightlyValidationWorkflow } from '../../workflows/nightly';
import { rollbackWaveWorkflow } from '../../workflows/rollback';
import { coded, Fakes, PLAN } from './helpers/fake-activities';
import type { World } from './helpers/fake-activities';
import { timeSkippingEnv, withWorker } from './helpers/env';
import { SUGGEST_AT_MEMO } from './helpers/suggest-continue-as-new';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const world: World = {
  waves: [
    {
      number: 1,
      tables: [
        { id: 'db.r1', team: 'crm' },
        { id: 'db.r2', team: 'web' },
        { id: 'db.r3', team: 'crm' },
      ],
    },
  ],
};
const wave1 = world.waves[0]?.tables.map((t) => t.id) ?? [];
const step = (detail: string): CutoverStep => ({ done: 'now', detail }) as CutoverStep;
let n = 0;

/** Start `wf` with `args` on a worker with `f`'s activities; its result (or failure) and MigrationStatus. */
async function run<A extends unknown[], R>(f: Fakes, wf: (...a: A) => Promise<R>, args: A, memo?: Record<string, unknown>) {
  return withWorker(env, f.activities, async (taskQueue) => {
    const h = await env.client.workflow.start(wf, { taskQueue, workflowId: `after-${++n}`, args, ...(memo ? { memo } : {}) });
    let result: R | undefined;
    let failure: unknown;
    try {
      result = await h.result();
    } catch (e) {
      failure = e;
    }
    const desc = await h.describe();
    return { result, failure, h, status: desc.typedSearchAttributes.get(SA.status), team: desc.typedSearchAttributes.get(SA.team) };
  });
}

const rollbackFakes = (over: ConstructorParameters<typeof Fakes>[1] = {}) =>
  new Fakes(world, {
    migratedTables: async () => wave1,
    rollbackOrder: async () => [],
    unfenceTable: async () => step('not fenced'),
    rollbackTable: async () => ({ status: 'rolled-back' }),
    ...over,
  });

describe('rollbackWaveWorkflow in the time-skipping environment', () => {
  it('rolls back in reverse plan order, each table unfenced first; MigrationStatus rolled-back and the tables’ teams', async () => {
    const f = rollbackFakes();
    const { result, status, team } = await run(f, rollbackWaveWorkflow, [{ planHash: PLAN, wave: 1, force: false, by: 'alice' }]);
    expect(f.seq('unfenceTable', 'rollbackTable')).toEqual([
      'unfenceTable db.r3',
      'rollbackTable db.r3',
      'unfenceTable db.r2',
      'rollbackTable db.r2',
      'unfenceTable db.r1',
      'rollbackTable db.r1',
    ]);
    expect(result).toEqual({
      wave: 1,
      rolledBack: ['db.r3', 'db.r2', 'db.r1'],
      refused: [],
      putBack: [],
      counts: { tables: 3, rolledBack: 3, refused: 0, putBack: 0, runs: 1 },
    });
    expect(status).toBe('rolled-back');
    expect(team).toEqual(['crm', 'web']);
  });

  it('a refused table is reported with its code and the others are still rolled back (rollback-incomplete)', async () => {
    const f = rollbackFakes({
      rollbackTable: async (ref) => {
        if (ref.tableId === 'db.r2') throw coded('ROLLBACK_NOT_OURS', { message: 'db.r2 is not ours' });
        return { status: 'rolled-back' };
      },
    });
    const { result, status } = await run(f, rollbackWaveWorkflow, [{ planHash: PLAN, wave: 1, force: false, by: 'alice' }]);
    expect(result).toMatchObject({
      rolledBack: ['db.r3', 'db.r1'],
      refused: [{ tableId: 'db.r2', code: 'ROLLBACK_NOT_OURS', message: 'db.r2 is not ours' }],
    });
    expect(status).toBe('rollback-incomplete');
  });

  it('views of later waves that read the wave: rolled back first when asked; refused with ROLLBACK_ORDER before anything changes otherwise', async () => {
    const first = rollbackFakes({ rollbackOrder: async (_p, _w, withViews) => (withViews ? ['db.v9'] : []) });
    const { result } = await run(first, rollbackWaveWorkflow, [
      { planHash: PLAN, wave: 1, force: false, by: 'alice', withDependentViews: true },
    ]);
    expect(first.seq('rollbackTable')[0]).toBe('rollbackTable db.v9');
    expect(result).toMatchObject({ dependentViews: ['db.v9'], rolledBack: ['db.v9', 'db.r3', 'db.r2', 'db.r1'] });

    const refused = rollbackFakes({
      rollbackOrder: async () => {
        throw coded('ROLLBACK_ORDER', { message: 'db.v9 of wave 2 reads db.r1' });
      },
    });
    const { failure } = await run(refused, rollbackWaveWorkflow, [{ planHash: PLAN, wave: 1, force: false, by: 'alice' }]);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('ROLLBACK_ORDER');
    expect(refused.seq('rollbackTable', 'unfenceTable')).toEqual([]);
  });
});

describe('cutoverWorkflow in the time-skipping environment', () => {
  const cutFakes = (over: ConstructorParameters<typeof Fakes>[1] = {}) =>
    new Fakes(world, {
      cutoverScope: async (_p, _w, tables) => ({
        tables: wave1.filter((t) => tables.length === 0 || tables.includes(t)),
        refused: tables
          .filter((t) => !wave1.includes(t))
          .map((tableId) => ({ tableId, code: 'CUTOVER_NOT_MIGRATED', message: `${tableId} is not migrated` })),
      }),
      fenceTable: async () => step('fenced'),
      finalSync: async () => step('in sync'),
      finalValidation: async () => step('valid'),
      markCutOver: async () => step('cut over'),
      ...over,
    });

  it('fences, syncs, validates and marks each table in plan order, one table at a time; MigrationStatus cutover', async () => {
    const f = cutFakes();
    const { result, status } = await run(f, cutoverWorkflow, [{ planHash: PLAN, wave: 1, by: 'alice' }]);
    expect(f.seq('fenceTable', 'finalSync', 'finalValidation', 'markCutOver')).toEqual(
      wave1.flatMap((t) => [`fenceTable ${t}`, `finalSync ${t}`, `finalValidation ${t}`, `markCutOver ${t}`]),
    );
    expect(result).toMatchObject({ plan: PLAN.slice(0, 12), wave: 1, status: 'cutover' });
    expect(result?.tables.map((t) => [t.table, t.ok, t.steps.map((s) => s.step)])).toEqual(
      wave1.map((t) => [t, true, ['fence', 'final-sync', 'final-validation', 'mark']]),
    );
    expect(status).toBe('cutover');
  });

  it('a refused table stops at its step with the code (no later step), the others go on; an unknown table is refused up front', async () => {
    const f = cutFakes({
      finalSync: async (ref) => {
        if (ref.tableId === 'db.r2') throw coded('SYNC_FOREIGN_COMMITS');
        return step('in sync');
      },
    });
    const { result, status } = await run(f, cutoverWorkflow, [{ planHash: PLAN, wave: 1, by: 'alice', tables: ['db.x', ...wave1] }]);
    expect(f.seq('finalValidation', 'markCutOver').filter((s) => s.endsWith('db.r2'))).toEqual([]);
    expect(result?.tables.map((t) => [t.table, t.ok, t.error?.code ?? null, t.steps.length])).toEqual([
      ['db.x', false, 'CUTOVER_NOT_MIGRATED', 0],
      ['db.r1', true, null, 4],
      ['db.r2', false, 'SYNC_FOREIGN_COMMITS', 1],
      ['db.r3', true, null, 4],
    ]);
    expect(result?.status).toBe('cutover-incomplete');
    expect(status).toBe('cutover-incomplete');
  });
});

describe('nightlyValidationWorkflow in the time-skipping environment', () => {
  const nightly = (statuses: Record<string, 'validated' | 'drifted'>, failing: readonly string[] = []) =>
    new Fakes(world, {
      validationScope: async () => ({ tables: Object.keys(statuses), teams: ['crm'] }),
      startValidationRun: async () => ({ previousRunId: 'prev-run' }),
      checkTable: async (_p, tableId) => {
        if (failing.includes(tableId)) throw coded('STORAGE_ACCESS_DENIED');
        return { tableId, status: statuses[tableId] ?? 'validated', codes: [] };
      },
      publishValidationRun: async (_p, runId) => ({
        status: 'drifted',
        summary: `run ${runId}`,
        results: `s3://results/${runId}.parquet`,
        report: `s3://results/${runId}.md`,
        rows: 3,
        orphans: null,
      }),
    });

  it('checks every table once, counts validated/drifted/failed (a check that fails counts failed), publishes one run', async () => {
    const f = nightly({ 'db.r1': 'validated', 'db.r2': 'drifted', 'db.r3': 'validated' }, ['db.r3']);
    const { result, status } = await run(f, nightlyValidationWorkflow, [{ planHash: PLAN, concurrency: 2 }]);
    expect(f.seq('checkTable').sort()).toEqual(['checkTable db.r1', 'checkTable db.r2', 'checkTable db.r3']);
    expect(result).toMatchObject({
      status: 'drifted',
      tables: 3,
      counts: { validated: 1, drifted: 1, failed: 1 },
      previousRunId: 'prev-run',
    });
    expect(f.of('publishValidationRun')).toHaveLength(1);
    expect(status).toBe('drifted');
  });

  it('continues as new when suggested: one run id across the runs, every table checked once, the counts carried', async () => {
    const tables = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`db.n${i + 1}`, i % 3 === 0 ? 'drifted' : 'validated'] as const),
    );
    const f = nightly(tables);
    const { result, h } = await run(f, nightlyValidationWorkflow, [{ planHash: PLAN, concurrency: 2 }], { [SUGGEST_AT_MEMO]: 20 });
    const first = await env.client.workflow.getHandle(h.workflowId, h.firstExecutionRunId).fetchHistory();
    expect(first.events?.[first.events.length - 1]?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    expect(f.seq('checkTable').sort()).toEqual(
      Object.keys(tables)
        .map((t) => `checkTable ${t}`)
        .sort(),
    );
    expect(result?.counts).toEqual({ validated: 6, drifted: 4, failed: 0 });
    // One run id across continue-as-new: every check and the publication name the first run's.
    const runIds = new Set([...f.of('checkTable').map((c) => c.args[2]), ...f.of('publishValidationRun').map((c) => c.args[1])]);
    expect([...runIds]).toEqual([`${PLAN.slice(0, 12)}-${h.firstExecutionRunId}`]);
    expect(f.of('validationScope').length).toBeGreaterThanOrEqual(2);
  });
});
