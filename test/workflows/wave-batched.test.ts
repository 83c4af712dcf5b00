// waveWorkflow with tablesPerActivity > 1 (workflows/wave-batched.ts) in the time-skipping
// environment: the real applyTables activity (activities/apply-batch.ts) over in-memory steps. The
// batches and their bound, a failure compensated inside the batch, tables handed back to their own
// table workflow (transient failure, view, rewrite, a batch that failed as a whole), a batch retried
// after its attempt died skipping the tables it had finished, and cancellation.
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { SA, tableWorkflowId } from '../../workflows/common';
import type { WaveInput, WaveResult } from '../../workflows/wave-run';
import { waveWorkflow } from '../../workflows/wave';
import { APPLY_BATCH_PATCH } from '../../workflows/wave-batched';
import type { TableRef } from '../../ops/context';
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
const worldOf = (k: number, more: Partial<World> = {}): World => ({ waves: [{ number: 1, tables: tables(k) }], ...more });
let n = 0;
let PLAN = freshPlan();
beforeEach(() => {
  PLAN = freshPlan();
});
const input = (over: Partial<WaveInput> = {}): WaveInput => ({
  planHash: PLAN,
  wave: 1,
  teams: ['crm', 'web'],
  concurrency: 8,
  tablesPerActivity: 4,
  ...over,
});

async function runWave(f: Fakes, over: Partial<WaveInput> = {}, memo?: Record<string, unknown>) {
  return withWorker(env, f.activities, async (taskQueue) => {
    const workflowId = `wave-b-${++n}`;
    const h = await env.client.workflow.start(waveWorkflow, { taskQueue, workflowId, args: [input(over)], ...(memo ? { memo } : {}) });
    const result: WaveResult = await h.result();
    const history = await h.fetchHistory();
    return { result, h, history, status: (await h.describe()).typedSearchAttributes.get(SA.status) };
  });
}

/** Whether a table workflow of this plan's wave 1 exists for `tableId`. */
async function hasChild(tableId: string): Promise<boolean> {
  try {
    await env.client.workflow.getHandle(tableWorkflowId(PLAN, 1, tableId)).describe();
    return true;
  } catch {
    return false;
  }
}

const sorted = (xs: string[]): string[] => [...xs].sort();
/** Every byte payload inside a history object, as text. */
const texts = (o: unknown): string[] =>
  o instanceof Uint8Array ? [Buffer.from(o).toString('utf8')] : typeof o === 'object' && o !== null ? Object.values(o).flatMap(texts) : [];
const steps = (f: Fakes, name: 'saveOriginalAndWrite' | 'registerTable' | 'validateTable'): string[] => sorted(f.seq(name));

describe('waveWorkflow in batches (tablesPerActivity)', () => {
  it('12 tables in batches of 4, at most ceil(8/4) batches at once: every table through its three steps once, no table workflow', async () => {
    let inFlight = 0;
    let most = 0;
    const f = new Fakes(worldOf(12), {
      validateTable: async () => {
        inFlight++;
        most = Math.max(most, inFlight);
        // Held until a second batch's tables are in flight too (or 5 s): two batches at once show as
        // more than 4 however loaded the machine (a fixed 30 ms let them miss each other in a cold run).
        for (const t0 = Date.now(); most <= 4 && Date.now() - t0 < 5_000; ) await new Promise((r) => setTimeout(r, 10));
        inFlight--;
        return { ok: true, snapshotId: '1' };
      },
    });
    const { result, status, history } = await runWave(f, { concurrency: 8 });
    expect(result).toEqual({ wave: 1, tables: 12, migrated: 12, skipped: 0, failed: [], status: 'succeeded' });
    expect(status).toBe('succeeded');
    // Two batches start at once: either may reach the worker first.
    const batches = f.of('applyTables').map((c) => c.args[1]);
    expect(batches).toHaveLength(3);
    expect(batches).toEqual(
      expect.arrayContaining([
        ['db.t1', 'db.t2', 'db.t3', 'db.t4'],
        ['db.t5', 'db.t6', 'db.t7', 'db.t8'],
        ['db.t9', 'db.t10', 'db.t11', 'db.t12'],
      ]),
    );
    for (const s of ['saveOriginalAndWrite', 'registerTable', 'validateTable'] as const)
      expect(steps(f, s)).toEqual(sorted(tables(12).map((t) => `${s} ${t.id}`)));
    expect(most).toBeLessThanOrEqual(8);
    expect(most).toBeGreaterThan(4); // two batches did run at once
    expect(await hasChild('db.t1')).toBe(false);
    // The history says the batch patch: a replay of it takes the batched path again.
    const markers = (history.events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch');
    expect(markers.flatMap((m) => texts(m.markerRecordedEventAttributes?.details))).toEqual(
      expect.arrayContaining([expect.stringContaining(APPLY_BATCH_PATCH)]),
    );
  });

  it('a step that fails for good: that table is compensated inside its batch (unregister, then delete) and fails with its code; the rest migrate', async () => {
    const f = new Fakes(worldOf(4), {
      validateTable: async (ref: TableRef) => {
        if (ref.tableId === 'db.t2') throw coded('VALIDATION_ROWS_MISMATCH');
        return { ok: true, snapshotId: '1' };
      },
    });
    const { result, status } = await runWave(f);
    expect(result).toEqual({
      wave: 1,
      tables: 4,
      migrated: 3,
      skipped: 0,
      failed: [{ tableId: 'db.t2', code: 'VALIDATION_ROWS_MISMATCH' }],
      status: 'failed',
    });
    expect(status).toBe('failed');
    expect(f.seq('unregisterTable', 'deleteMetadata', 'markFailed')).toEqual([
      'unregisterTable db.t2',
      'deleteMetadata db.t2',
      'markFailed db.t2',
    ]);
    expect(f.of('markFailed')[0]?.args[1]).toBe('VALIDATION_ROWS_MISMATCH');
    expect(await hasChild('db.t2')).toBe(false);
  });

  it('an undo that cannot finish: COMPENSATION_INCOMPLETE naming it and the repair command', async () => {
    const f = new Fakes(worldOf(2), {
      registerTable: async (ref: TableRef) => {
        if (ref.tableId === 'db.t1') throw coded('CATALOG_CONFLICT');
        return { outcome: 'registered' };
      },
      deleteMetadata: async () => {
        throw coded('STORAGE_ACCESS_DENIED');
      },
    });
    const { result } = await runWave(f);
    expect(result.failed).toEqual([{ tableId: 'db.t1', code: 'COMPENSATION_INCOMPLETE' }]);
    const msg = String(f.of('markFailed')[0]?.args[2]);
    expect(msg).toContain('CATALOG_CONFLICT');
    expect(msg).toContain('delete our metadata: STORAGE_ACCESS_DENIED');
    expect(msg).toContain(`run migrate repair ${PLAN.slice(0, 12)}`);
  });

  it('a transient failure, a view and a rewrite-path table go on alone in their own table workflow, which resumes them', async () => {
    let first = true;
    const f = new Fakes(worldOf(6, { views: ['db.t2'], rewrite: ['db.t3'] }), {
      registerTable: async (ref: TableRef) => {
        if (ref.tableId === 'db.t4' && first) {
          first = false;
          throw coded('CATALOG_UNAVAILABLE', { retryable: true });
        }
        return { outcome: 'registered' };
      },
      rewriteTable: async () => ({ rows: 1, checksum: 'x' }) as never,
    });
    const { result } = await runWave(f, { tablesPerActivity: 3 });
    expect(result).toEqual({ wave: 1, tables: 6, migrated: 6, skipped: 0, failed: [], status: 'succeeded' });
    for (const t of ['db.t2', 'db.t3', 'db.t4']) expect(await hasChild(t)).toBe(true);
    for (const t of ['db.t1', 'db.t5', 'db.t6']) expect(await hasChild(t)).toBe(false);
    expect(f.seq('createIcebergView', 'rewriteTable')).toEqual(['createIcebergView db.t2', 'rewriteTable db.t3']);
    expect(f.seq('registerTable').filter((s) => s === 'registerTable db.t4')).toHaveLength(2);
    expect(f.of('markFailed')).toHaveLength(0);
  });

  it('a batch that fails as a whole (not retryable): each of its tables goes on alone and migrates', async () => {
    const f = new Fakes(worldOf(4), {
      applyTables: async () => {
        throw coded('PLAN_NOT_FOUND');
      },
    });
    const { result } = await runWave(f, { tablesPerActivity: 2 });
    expect(result).toEqual({ wave: 1, tables: 4, migrated: 4, skipped: 0, failed: [], status: 'succeeded' });
    for (const t of tables(4)) expect(await hasChild(t.id)).toBe(true);
    expect(steps(f, 'validateTable')).toEqual(sorted(tables(4).map((t) => `validateTable ${t.id}`)));
  });

  it('a batch attempt that dies after two tables: the retry skips them (heartbeated outcomes) and finishes the rest', async () => {
    let died = false;
    const f = new Fakes(
      worldOf(4),
      {
        saveOriginalAndWrite: async (ref: TableRef) => {
          // t3 and t4 wait until t1 and t2 are done, so the attempt dies with exactly two finished.
          if (!died && (ref.tableId === 'db.t3' || ref.tableId === 'db.t4')) await new Promise((r) => setTimeout(r, 300));
          return { view: false, metadataLocation: `s3://w/${ref.tableId}/m.json`, dataFiles: 1, records: 1 };
        },
      },
      {
        failpoint: (name, tableId) => {
          if (name === 'after-batch-table' && tableId === 'db.t2' && !died) {
            died = true;
            throw new Error('worker lost (test)');
          }
        },
      },
    );
    const { result } = await runWave(f, { tablesPerActivity: 4 });
    expect(result).toEqual({ wave: 1, tables: 4, migrated: 4, skipped: 0, failed: [], status: 'succeeded' });
    expect(f.of('applyTables')).toHaveLength(2);
    expect(f.seq('validateTable').filter((s) => s === 'validateTable db.t1')).toHaveLength(1);
    expect(f.seq('validateTable').filter((s) => s === 'validateTable db.t2')).toHaveLength(1);
  });

  it('cancelled: the tables in flight are undone (CANCELLED), the batch does not start the rest, no new batch starts', async () => {
    let go!: () => void;
    const started = new Promise<void>((r) => (go = r));
    const f = new Fakes(worldOf(6), {
      registerTable: async (ref: TableRef) => {
        if (ref.tableId !== 'db.t1') return { outcome: 'registered' };
        const ctx = Context.current();
        go();
        for (;;) {
          ctx.heartbeat();
          await ctx.sleep(100);
        }
      },
    });
    const { result, status } = await withWorker(env, f.activities, async (taskQueue) => {
      const h = await env.client.workflow.start(waveWorkflow, {
        taskQueue,
        workflowId: `wave-b-${++n}`,
        args: [input({ concurrency: 3, tablesPerActivity: 3, timeouts: { heartbeatSeconds: 2 } })],
      });
      await started;
      await until(() => f.of('validateTable').length >= 2);
      await h.cancel();
      const r = await h.result();
      return { result: r, status: (await h.describe()).typedSearchAttributes.get(SA.status) };
    });
    expect(result).toEqual({
      wave: 1,
      tables: 6,
      migrated: 2,
      skipped: 0,
      failed: [{ tableId: 'db.t1', code: 'CANCELLED' }],
      notStarted: 3,
      status: 'cancelled',
    });
    expect(status).toBe('cancelled');
    expect(f.seq('unregisterTable', 'deleteMetadata', 'markFailed')).toEqual([
      'unregisterTable db.t1',
      'deleteMetadata db.t1',
      'markFailed db.t1',
    ]);
    expect(f.of('applyTables')).toHaveLength(1);
  });

  it('continues as new when suggested: the batches in flight end first, every table once over the runs', async () => {
    const f = new Fakes(worldOf(16));
    const { result } = await runWave(f, { concurrency: 4, tablesPerActivity: 2 }, { [SUGGEST_AT_MEMO]: 20 });
    expect(result).toEqual({ wave: 1, tables: 16, migrated: 16, skipped: 0, failed: [], status: 'succeeded' });
    expect(steps(f, 'validateTable')).toEqual(sorted(tables(16).map((t) => `validateTable ${t.id}`)));
  });
});
