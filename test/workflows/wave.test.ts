// waveWorkflow (workflows/wave.ts) with its real child tableWorkflows in the time-skipping test
// environment, on in-memory activities: the sliding window's bound, failed and skipped tables
// counted, a terminated child recorded failed by the wave, cancellation (tables in flight
// compensate, none new start), continue-as-new (suggested by helpers/suggest-continue-as-new.ts) and
// a continued run's carried counts, and the read-back proof's compensation.
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { SA, tableWorkflowId } from '../../workflows/common';
import type { WaveInput, WaveResult } from '../../workflows/wave-run';
import { waveStatusQuery, waveWorkflow } from '../../workflows/wave';
import { coded, Fakes, freshPlan } from './helpers/fake-activities';
import type { World } from './helpers/fake-activities';
import { timeSkippingEnv, until, withWorker } from './helpers/env';
import { SUGGEST_AT_MEMO } from './helpers/suggest-continue-as-new';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const tables = (k: number): { id: string; team: string }[] =>
  Array.from({ length: k }, (_, i) => ({ id: `db.t${i + 1}`, team: i % 2 === 0 ? 'crm' : 'web' }));
const worldOf = (k: number): World => ({ waves: [{ number: 1, tables: tables(k) }] });
let n = 0;
let PLAN = freshPlan();
beforeEach(() => {
  PLAN = freshPlan();
});
const input = (over: Partial<WaveInput> = {}): WaveInput => ({ planHash: PLAN, wave: 1, teams: ['crm', 'web'], concurrency: 8, ...over });

/** A step that heartbeats until it is cancelled; `started` resolves when it runs. */
function blocking(): { step: () => Promise<never>; started: Promise<void> } {
  let go!: () => void;
  const started = new Promise<void>((r) => (go = r));
  return {
    started,
    step: async () => {
      const ctx = Context.current();
      go();
      for (;;) {
        ctx.heartbeat();
        await ctx.sleep(100);
      }
    },
  };
}

async function runWave(f: Fakes, over: Partial<WaveInput> = {}, memo?: Record<string, unknown>) {
  return withWorker(env, f.activities, async (taskQueue) => {
    const workflowId = `wave-${++n}`;
    const h = await env.client.workflow.start(waveWorkflow, { taskQueue, workflowId, args: [input(over)], ...(memo ? { memo } : {}) });
    const result: WaveResult = await h.result();
    const desc = await h.describe();
    return { result, h, status: desc.typedSearchAttributes.get(SA.status), runId: desc.runId, firstRunId: h.firstExecutionRunId };
  });
}

describe('waveWorkflow in the time-skipping environment', () => {
  it('runs its tables as child workflows, never more than `concurrency` at once, in plan order; all migrated', async () => {
    let inFlight = 0;
    let most = 0;
    // Each write waits (up to 2 s of real time) for a third table in flight: the window's bound is
    // reached however slowly the children start, and a window that admits more shows it.
    let full: () => void = () => undefined;
    const three = new Promise<void>((r) => (full = r));
    const f = new Fakes(worldOf(7), {
      saveOriginalAndWrite: async (ref) => {
        most = Math.max(most, ++inFlight);
        if (inFlight >= 3) full();
        await Promise.race([three, new Promise((r) => setTimeout(r, 2_000))]);
        return { view: false, metadataLocation: `s3://w/${ref.tableId}`, dataFiles: 1, records: 1 };
      },
      validateTable: async () => {
        inFlight--;
        return { ok: true, snapshotId: '1' };
      },
    });
    const { result, status } = await runWave(f, { concurrency: 3 });
    expect(result).toEqual({ wave: 1, tables: 7, migrated: 7, skipped: 0, failed: [], status: 'succeeded' });
    expect(most).toBe(3);
    // Tables start in plan order (the window admits the next one as each ends): the first window is
    // the plan's first three. Within it the three children run at once, so whose first activity
    // reaches the worker first is the machine's (a loaded cold run saw t2 before t1).
    expect([...f.seq('saveOriginalAndWrite').slice(0, 3)].sort()).toEqual([
      'saveOriginalAndWrite db.t1',
      'saveOriginalAndWrite db.t2',
      'saveOriginalAndWrite db.t3',
    ]);
    expect(new Set(f.seq('validateTable')).size).toBe(7);
    expect(status).toBe('succeeded');
  });

  it('each table child carries plan, wave, its team and table, and ends on its own MigrationStatus', async () => {
    const f = new Fakes({ ...worldOf(2), views: [] });
    const { result } = await runWave(f);
    expect(result.status).toBe('succeeded');
    const child = await env.client.workflow.getHandle(tableWorkflowId(PLAN, 1, 'db.t2')).describe();
    expect(child.typedSearchAttributes.get(SA.plan)).toBe(PLAN.slice(0, 12));
    expect(child.typedSearchAttributes.get(SA.wave)).toBe(1);
    expect(child.typedSearchAttributes.get(SA.team)).toEqual(['web']);
    expect(child.typedSearchAttributes.get(SA.table)).toBe('db.t2');
    expect(child.typedSearchAttributes.get(SA.status)).toBe('succeeded');
  });

  it('a failed table is counted with its code and the others go on; a view skipped counts as skipped; the wave ends failed', async () => {
    const f = new Fakes(
      { ...worldOf(4), views: ['db.t3'] },
      {
        createIcebergView: async () => ({ created: false, code: 'VIEW_DIALECT_UNSUPPORTED', message: 'no' }),
        validateTable: async (ref) => {
          if (ref.tableId === 'db.t2') throw coded('VALIDATION_ROW_COUNT_MISMATCH');
          return { ok: true, snapshotId: '1' };
        },
      },
    );
    const { result, status } = await runWave(f, { concurrency: 2 });
    expect(result).toEqual({
      wave: 1,
      tables: 4,
      migrated: 2,
      skipped: 1,
      failed: [{ tableId: 'db.t2', code: 'VALIDATION_ROW_COUNT_MISMATCH' }],
      status: 'failed',
    });
    expect(f.seq('unregisterTable', 'deleteMetadata', 'markFailed')).toEqual([
      'unregisterTable db.t2',
      'deleteMetadata db.t2',
      'markFailed db.t2',
    ]);
    expect(status).toBe('failed');
  });

  it('a table workflow that ends without an outcome (its own markFailed failed) counts as failed with that code; the wave records it', async () => {
    // The test server does not tell a parent that its child was terminated (no ChildWorkflowExecutionTerminated
    // event), so the terminated child of the replay fixtures is exercised here by a child that fails instead.
    let marks = 0;
    const f = new Fakes(worldOf(2), {
      validateTable: async (ref) => {
        if (ref.tableId === 'db.t1') throw coded('VALIDATION_FILES_MISMATCH');
        return { ok: true, snapshotId: '1' };
      },
      markFailed: async () => {
        if (++marks === 1) throw coded('STATE_DB_UNREACHABLE');
      },
    });
    const { result, status } = await runWave(f);
    expect(result).toMatchObject({
      tables: 2,
      migrated: 1,
      failed: [{ tableId: 'db.t1', code: 'STATE_DB_UNREACHABLE' }],
      status: 'failed',
    });
    // The child's own attempt (which failed), then the wave's.
    expect(f.seq('unregisterTable', 'deleteMetadata', 'markFailed')).toEqual([
      'unregisterTable db.t1',
      'deleteMetadata db.t1',
      'markFailed db.t1',
      'markFailed db.t1',
    ]);
    expect(f.of('markFailed')[1]?.args[2]).toContain('table workflow ended without an outcome');
    expect(await env.client.workflow.getHandle(tableWorkflowId(PLAN, 1, 'db.t1')).describe()).toMatchObject({ status: { name: 'FAILED' } });
    expect(status).toBe('failed');
  });

  it('cancelled: the table in flight is cancelled and compensates, no new table starts; the wave ends cancelled with notStarted', async () => {
    const b = blocking();
    const f = new Fakes(worldOf(3), { saveOriginalAndWrite: b.step });
    const { result, status } = await withWorker(env, f.activities, async (taskQueue) => {
      const h = await env.client.workflow.start(waveWorkflow, {
        taskQueue,
        workflowId: `wave-${++n}`,
        args: [input({ concurrency: 1, timeouts: { heartbeatSeconds: 2 } })],
      });
      await b.started;
      expect(await h.query(waveStatusQuery)).toEqual({ wave: 1, tables: 3, done: 0, failed: 0, running: 1 });
      await h.cancel();
      await until(() => f.of('markFailed').length > 0);
      const r = await h.result();
      return { result: r, status: (await h.describe()).typedSearchAttributes.get(SA.status) };
    });
    expect(result).toEqual({
      wave: 1,
      tables: 3,
      migrated: 0,
      skipped: 0,
      failed: [{ tableId: 'db.t1', code: 'CANCELLED' }],
      notStarted: 2,
      status: 'cancelled',
    });
    expect(f.seq()).toEqual(['waveMembers wave 1', 'saveOriginalAndWrite db.t1', 'deleteMetadata db.t1', 'markFailed db.t1']);
    expect(status).toBe('cancelled');
  });

  it('continues as new when Temporal suggests it: the window drains, the next run starts at the cursor, every table once', async () => {
    const f = new Fakes(worldOf(12));
    const { result, h, runId, firstRunId } = await runWave(f, { concurrency: 2 }, { [SUGGEST_AT_MEMO]: 40 });
    expect(result).toEqual({ wave: 1, tables: 12, migrated: 12, skipped: 0, failed: [], status: 'succeeded' });
    expect(runId).not.toBe(firstRunId);
    const first = await env.client.workflow.getHandle(h.workflowId, firstRunId).fetchHistory();
    const last = first.events?.[first.events.length - 1];
    expect(last?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    // No table was started twice or skipped across the runs.
    expect(f.seq('saveOriginalAndWrite').sort()).toEqual(
      tables(12)
        .map((t) => `saveOriginalAndWrite ${t.id}`)
        .sort(),
    );
  });

  it('a continued run starts at its cursor and counts what the earlier runs carried', async () => {
    const f = new Fakes(worldOf(4));
    const { result } = await runWave(f, { cursor: 2, done: 2, skipped: 1, failed: [{ tableId: 'db.t1', code: 'SOURCE_CHANGED' }] });
    // Both run at once: either may start first.
    expect(f.seq('saveOriginalAndWrite').sort()).toEqual(['saveOriginalAndWrite db.t3', 'saveOriginalAndWrite db.t4']);
    expect(result).toEqual({
      wave: 1,
      tables: 4,
      migrated: 2,
      skipped: 1,
      failed: [{ tableId: 'db.t1', code: 'SOURCE_CHANGED' }],
      status: 'failed',
    });
  });

  it('the read-back proof: a table it fails is compensated (unregister, delete metadata, markReadBackFailed) and counts as failed', async () => {
    const f = new Fakes(worldOf(3), {
      readBackBatches: async () => [['db.t1', 'db.t2'], ['db.t3']],
      readBackTables: async (_p, ids) => ({
        failures: ids.includes('db.t2') ? [{ tableId: 'db.t2', code: 'READBACK_MISMATCH', message: 'rows differ' }] : [],
      }),
    });
    const { result } = await runWave(f);
    expect(f.seq('readBackTables')).toEqual(['readBackTables db.t1,db.t2', 'readBackTables db.t3']);
    expect(f.seq('unregisterTable', 'deleteMetadata', 'markReadBackFailed', 'markFailed')).toEqual([
      'unregisterTable db.t2',
      'deleteMetadata db.t2',
      'markReadBackFailed db.t2',
    ]);
    expect(result).toEqual({
      wave: 1,
      tables: 3,
      migrated: 2,
      skipped: 0,
      failed: [{ tableId: 'db.t2', code: 'READBACK_MISMATCH' }],
      status: 'failed',
    });
  });

  it('a read-back job that fails after its retries fails each table of its batch with that code, each compensated', async () => {
    const f = new Fakes(worldOf(3), {
      readBackBatches: async () => [['db.t1', 'db.t2'], ['db.t3']],
      readBackTables: async (_p, ids) => {
        if (ids.includes('db.t1')) throw coded('READBACK_FAILED', { message: 'spark job exited 1', retryable: true });
        return { failures: [] };
      },
    });
    const { result } = await runWave(f);
    // Ten attempts of the failing batch (Temporal's retry policy; the backoff skipped), one of the other.
    expect(f.seq('readBackTables')).toEqual([...Array<string>(10).fill('readBackTables db.t1,db.t2'), 'readBackTables db.t3']);
    expect(f.seq('markReadBackFailed')).toEqual(['markReadBackFailed db.t1', 'markReadBackFailed db.t2']);
    expect(f.of('markReadBackFailed')[0]?.args.slice(1)).toEqual(['READBACK_FAILED', 'db.t1: spark job exited 1']);
    expect(result).toMatchObject({
      migrated: 1,
      failed: [
        { tableId: 'db.t1', code: 'READBACK_FAILED' },
        { tableId: 'db.t2', code: 'READBACK_FAILED' },
      ],
      status: 'failed',
    });
  });
});
