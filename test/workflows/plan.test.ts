// migrationWorkflow (workflows/plan.ts) with its real wave and table children in the time-skipping
// test environment, on in-memory activities: waves in order behind approvals (the `approve` update:
// early, already, refused with codes, the worker's approver rules), a gate that waits without a
// deadline, --auto-approve, pause/resume, the per-wave failure budget (maxFailedPerWave), and the
// `cancel` signal while waiting and while a wave runs; the MigrationStatus each state leaves.
import { Context } from '@temporalio/activity';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { SA } from '../../workflows/common';
import type { MigrationInput, MigrationStatus } from '../../workflows/plan';
import { approveUpdate, cancelSignal, migrationWorkflow, pauseSignal, resumeSignal, statusQuery } from '../../workflows/plan';
import { coded, Fakes, freshPlan } from './helpers/fake-activities';
import type { World } from './helpers/fake-activities';
import { timeSkippingEnv, until, withWorker } from './helpers/env';

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
        { id: 'db.a1', team: 'crm' },
        { id: 'db.a2', team: 'crm' },
        { id: 'db.a3', team: 'web' },
      ],
    },
    { number: 2, tables: [{ id: 'db.b1', team: 'web' }] },
  ],
};
let n = 0;

async function withPlan<T>(
  f: Fakes,
  over: Partial<MigrationInput>,
  fn: (h: WorkflowHandle<typeof migrationWorkflow>) => Promise<T>,
): Promise<T> {
  return withWorker(env, f.activities, async (taskQueue) => {
    const h = await env.client.workflow.start(migrationWorkflow, {
      taskQueue,
      workflowId: `plan-${++n}`,
      args: [{ planHash: freshPlan(), autoApprove: false, ...over }],
    });
    return fn(h);
  });
}

const saStatus = async (h: WorkflowHandle): Promise<unknown> => (await h.describe()).typedSearchAttributes.get(SA.status);
/** The plan's status once the workflow has processed what was sent before (a query waits for that). */
const state = (h: WorkflowHandle<typeof migrationWorkflow>): Promise<MigrationStatus> => h.query(statusQuery);

/**
 * Wait until the plan answers queries: it registers its handlers after its first activity
 * (planOutline), and an update or query that comes earlier is rejected ("no registered handler").
 */
async function ready(h: WorkflowHandle<typeof migrationWorkflow>): Promise<MigrationStatus> {
  for (let i = 0; ; i++) {
    try {
      return await state(h);
    } catch (e) {
      if (i > 100) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** The coded refusal of an update (the validator's or the handler's ApplicationFailure type). */
async function refusedWith(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof WorkflowUpdateFailedError && e.cause instanceof ApplicationFailure) return e.cause.type ?? '';
    throw e;
  }
  throw new Error('the update was accepted');
}

describe('migrationWorkflow in the time-skipping environment', () => {
  it('--auto-approve: each wave approved as auto-approve and run in order, wave 1 ended before wave 2 starts; succeeded', async () => {
    const f = new Fakes(world);
    const { result, status, attrs } = await withPlan(f, { autoApprove: true }, async (h) => ({
      result: await h.result(),
      status: await saStatus(h),
      attrs: (await h.describe()).typedSearchAttributes,
    }));
    // Every team of the plan, and the last wave it was at.
    expect(attrs.get(SA.team)).toEqual(['crm', 'web']);
    expect(attrs.get(SA.wave)).toBe(2);
    expect(result).toMatchObject({ state: 'succeeded', currentWave: null, approved: [1, 2], totalWaves: 2, failedTables: 0 });
    expect(result.waves.map((w) => [w.wave, w.status, w.migrated])).toEqual([
      [1, 'succeeded', 3],
      [2, 'succeeded', 1],
    ]);
    expect(f.of('recordApproval').map((c) => c.args.slice(1))).toEqual([
      [1, 'auto-approve'],
      [2, 'auto-approve'],
    ]);
    const validated = f.seq('validateTable', 'saveOriginalAndWrite');
    expect(validated.indexOf('saveOriginalAndWrite db.b1')).toBeGreaterThan(
      Math.max(...['db.a1', 'db.a2', 'db.a3'].map((t) => validated.indexOf(`validateTable ${t}`))),
    );
    expect(status).toBe('succeeded');
  });

  it('waits for approval without a deadline (30 days pass), then runs each wave once it is approved; early and repeated approvals', async () => {
    const f = new Fakes(world);
    await withPlan(f, {}, async (h) => {
      expect(await ready(h)).toMatchObject({ state: 'waiting-approval', currentWave: 1, approved: [] });
      expect(await saStatus(h)).toBe('waiting-approval');
      await env.sleep('30 days');
      expect(await state(h)).toMatchObject({ state: 'waiting-approval', currentWave: 1 });
      expect(f.seq('saveOriginalAndWrite')).toEqual([]);
      // Wave 2 approved ahead of wave 1: a pre-approval, and wave 1 still waits.
      expect(await h.executeUpdate(approveUpdate, { args: [{ wave: 2, by: 'alice' }] })).toEqual({ approved: [2], early: true });
      expect(await state(h)).toMatchObject({ state: 'waiting-approval', currentWave: 1 });
      expect(await h.executeUpdate(approveUpdate, { args: [{ wave: 2, by: 'bob' }] })).toEqual({ approved: [2], already: true });
      expect(await h.executeUpdate(approveUpdate, { args: [{ wave: 1, by: 'alice' }] })).toEqual({ approved: [1, 2] });
      const r = await h.result();
      expect(r).toMatchObject({ state: 'succeeded', approved: [1, 2] });
      expect(r.waves.map((w) => w.wave)).toEqual([1, 2]);
    });
    expect(f.of('recordApproval').map((c) => c.args.slice(1))).toEqual([
      [2, 'alice'],
      [1, 'alice'],
    ]);
  });

  it('refuses with codes: an unknown wave (WAVE_UNKNOWN), a wave that already ran (WAVE_ALREADY_RAN), no approver (USAGE)', async () => {
    const f = new Fakes(world);
    await withPlan(f, {}, async (h) => {
      await ready(h);
      expect(await refusedWith(h.executeUpdate(approveUpdate, { args: [{ wave: 9, by: 'alice' }] }))).toBe('WAVE_UNKNOWN');
      expect(await refusedWith(h.executeUpdate(approveUpdate, { args: [{ wave: 1, by: '' }] }))).toBe('USAGE');
      await h.executeUpdate(approveUpdate, { args: [{ wave: 1, by: 'alice' }] });
      // Wave 1 runs and ends; the plan waits at wave 2.
      await env.sleep('1 minute');
      for (let i = 0; i < 100 && (await state(h)).waves.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await state(h)).toMatchObject({ state: 'waiting-approval', currentWave: 2 });
      expect(await refusedWith(h.executeUpdate(approveUpdate, { args: [{ wave: 1, by: 'alice' }] }))).toBe('WAVE_ALREADY_RAN');
      await h.signal(cancelSignal);
      expect(await h.result()).toMatchObject({ state: 'cancelled', currentWave: 2 });
    });
    expect(f.of('recordApproval')).toHaveLength(1);
  });

  it("the worker's approver rules: someone not on the list is refused (AUDIT_APPROVER_REFUSED, audited); --auto-approve does not pass a ruled wave", async () => {
    const f = new Fakes({ ...world, approval: { approvers: ['alice'], waveApprovers: {}, trustDeclaredActor: false } });
    await withPlan(f, { autoApprove: true }, async (h) => {
      expect(await ready(h)).toMatchObject({ state: 'waiting-approval', currentWave: 1 });
      expect(await refusedWith(h.executeUpdate(approveUpdate, { args: [{ wave: 1, by: 'mallory', source: 'os' }] }))).toBe(
        'AUDIT_APPROVER_REFUSED',
      );
      // A self-declared name does not count without trustDeclaredActor, even alice's.
      expect(await refusedWith(h.executeUpdate(approveUpdate, { args: [{ wave: 1, by: 'alice', source: 'declared' }] }))).toBe(
        'AUDIT_APPROVER_REFUSED',
      );
      expect(await h.executeUpdate(approveUpdate, { args: [{ wave: 1, by: 'alice@host', source: 'os' }] })).toEqual({ approved: [1] });
      await h.executeUpdate(approveUpdate, { args: [{ wave: 2, by: 'alice', source: 'os' }] });
      expect(await h.result()).toMatchObject({ state: 'succeeded' });
    });
    expect(f.of('recordApprovalRefused').map((c) => [c.args[2], c.args[3]])).toEqual([
      ['mallory', 'os'],
      ['alice', 'declared'],
    ]);
    expect(f.of('recordApproval').map((c) => c.args.slice(1))).toEqual([
      [1, 'alice@host', 'os'],
      [2, 'alice', 'os'],
    ]);
  });

  it('paused: the next wave does not start until resume (status and MigrationStatus paused), then the plan runs on', async () => {
    // The auto-approval of wave 1 is held until the pause is in, so the pause lands before wave 1 starts.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const f = new Fakes(world, { recordApproval: () => held });
    await withPlan(f, { autoApprove: true }, async (h) => {
      await ready(h);
      await h.signal(pauseSignal);
      release();
      for (let i = 0; i < 100 && f.of('recordApproval').length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      await env.sleep('1 day');
      expect(await state(h)).toMatchObject({ state: 'paused', currentWave: 1, approved: [1] });
      expect(await saStatus(h)).toBe('paused');
      expect(f.seq('saveOriginalAndWrite')).toEqual([]);
      await h.signal(resumeSignal);
      expect(await h.result()).toMatchObject({ state: 'succeeded' });
    });
    expect(f.of('saveOriginalAndWrite')).toHaveLength(4);
  });

  it('paused while waiting for approval, then approved: status and MigrationStatus say paused until resume', async () => {
    const f = new Fakes(world);
    await withPlan(f, {}, async (h) => {
      expect(await ready(h)).toMatchObject({ state: 'waiting-approval', currentWave: 1 });
      await h.signal(pauseSignal);
      expect(await h.executeUpdate(approveUpdate, { args: [{ wave: 1, by: 'alice' }] })).toEqual({ approved: [1] });
      await env.sleep('1 day');
      expect(await state(h)).toMatchObject({ state: 'paused', currentWave: 1, approved: [1] });
      expect(await saStatus(h)).toBe('paused');
      expect(f.seq('saveOriginalAndWrite')).toEqual([]);
      await h.signal(resumeSignal);
      await h.executeUpdate(approveUpdate, { args: [{ wave: 2, by: 'alice' }] });
      expect(await h.result()).toMatchObject({ state: 'succeeded' });
    });
    expect(f.of('saveOriginalAndWrite')).toHaveLength(4);
  });

  it('maxFailedPerWave: a wave with more failed tables than allowed ends the plan failed before the next wave', async () => {
    const failing = {
      validateTable: async (ref: { tableId: string }) => {
        if (ref.tableId === 'db.a1' || ref.tableId === 'db.a2') throw coded('VALIDATION_ROW_COUNT_MISMATCH');
        return { ok: true, snapshotId: '1' };
      },
    };
    const strict = new Fakes(world, failing);
    const r1 = await withPlan(strict, { autoApprove: true, maxFailedPerWave: 1 }, async (h) => ({
      r: await h.result(),
      s: await saStatus(h),
    }));
    expect(r1.r).toMatchObject({ state: 'failed', currentWave: 1, failedTables: 2, maxFailedPerWave: 1 });
    expect(r1.r.waves.map((w) => [w.wave, w.status, w.failed.length])).toEqual([[1, 'failed', 2]]);
    expect(strict.seq('saveOriginalAndWrite')).not.toContain('saveOriginalAndWrite db.b1');
    expect(r1.s).toBe('failed');

    // Two failures are within a budget of two: the plan goes on to wave 2.
    const lenient = new Fakes(world, failing);
    const r2 = await withPlan(lenient, { autoApprove: true, maxFailedPerWave: 2 }, (h) => h.result());
    expect(r2).toMatchObject({ state: 'succeeded', failedTables: 2 });
    expect(lenient.seq('saveOriginalAndWrite')).toContain('saveOriginalAndWrite db.b1');

    // The default budget is 0: one failed table stops the plan.
    const one = new Fakes(world, {
      validateTable: async (ref) => {
        if (ref.tableId === 'db.a2') throw coded('VALIDATION_FILES_MISMATCH');
        return { ok: true, snapshotId: '1' };
      },
    });
    expect(await withPlan(one, { autoApprove: true }, (h) => h.result())).toMatchObject({ state: 'failed', failedTables: 1 });
  });

  it('a wave workflow that ends without a result fails the plan with the reason (its code), before any later wave', async () => {
    const f = new Fakes(world, {
      waveMembers: async () => {
        throw coded('STATE_DB_AUTH_FAILED', { message: 'password authentication failed' });
      },
    });
    const r = await withPlan(f, { autoApprove: true }, (h) => h.result());
    expect(r).toMatchObject({ state: 'failed', currentWave: 1, waves: [] });
    expect(r.reason).toContain('wave 1 workflow ended without a result (STATE_DB_AUTH_FAILED: password authentication failed)');
    expect(f.seq('waveMembers')).toEqual(['waveMembers wave 1']);
  });

  it('cancel while waiting for approval: nothing runs, the plan ends cancelled', async () => {
    const f = new Fakes(world);
    const { r, s } = await withPlan(f, {}, async (h) => {
      await ready(h);
      await h.signal(cancelSignal);
      return { r: await h.result(), s: await saStatus(h) };
    });
    expect(r).toMatchObject({ state: 'cancelled', currentWave: 1, waves: [] });
    expect(s).toBe('cancelled');
    expect(f.seq('saveOriginalAndWrite')).toEqual([]);
  });

  it('cancel while a wave runs: its table in flight compensates, the wave ends cancelled, the next wave never starts', async () => {
    let go!: () => void;
    const started = new Promise<void>((r) => (go = r));
    const f = new Fakes(world, {
      saveOriginalAndWrite: async (ref) => {
        if (ref.tableId !== 'db.a1') return { view: false, metadataLocation: 's3://w/x', dataFiles: 1, records: 1 };
        const ctx = Context.current();
        go();
        for (;;) {
          ctx.heartbeat();
          await ctx.sleep(100);
        }
      },
    });
    const { r, s } = await withPlan(f, { autoApprove: true, concurrency: 1, timeouts: { heartbeatSeconds: 2 } }, async (h) => {
      await started;
      await h.signal(cancelSignal);
      await until(() => f.of('markFailed').length > 0);
      return { r: await h.result(), s: await saStatus(h) };
    });
    expect(r.state).toBe('cancelled');
    expect(r.waves).toEqual([
      {
        wave: 1,
        tables: 3,
        migrated: 0,
        skipped: 0,
        failed: [{ tableId: 'db.a1', code: 'CANCELLED' }],
        notStarted: 2,
        status: 'cancelled',
      },
    ]);
    expect(f.seq('saveOriginalAndWrite', 'deleteMetadata', 'markFailed')).toEqual([
      'saveOriginalAndWrite db.a1',
      'deleteMetadata db.a1',
      'markFailed db.a1',
    ]);
    expect(s).toBe('cancelled');
  });
});
