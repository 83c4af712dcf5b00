// `rollback`, client side: one wave. A wave that is still applying is cancelled first (its tables
// in flight run their compensations) — or, with `wait`, waited for — and then every table of the
// wave is rolled back; the result says which. Two rollbacks of one wave at once attach to one
// workflow run (fixed workflow id, USE_EXISTING), so no table is rolled back (or audited) twice.
import { ApplicationFailure, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import type { RollbackResult } from '../../workflows/index';
import { cancelSignal, planId, planWorkflowId, rollbackWaveWorkflow, rollbackWorkflowId, SA, waveWorkflowId } from '../../workflows/index';
import type { MigrateConfig } from '../../core/config/schema';
import type { StateStore } from '../../core/state/store';
import { ErrorCode, MigrationError } from '../../core/errors';
import { temporalError, who } from '../apply/plan-workflow';
import { openState, openTemporal } from '../runtime/runtime';
import type { TemporalHandle } from '../runtime/runtime';

type Temporal = TemporalHandle;

export interface WaveRollback extends RollbackResult {
  /** What the wave was doing when the rollback was asked for, and what was done about it. */
  readonly applying: 'idle' | 'cancelled' | 'waited';
}

const CALL_MS = 30_000;

async function waveRunning(tmp: Temporal, planHash: string, wave: number): Promise<boolean> {
  try {
    const d = await tmp.deadline(CALL_MS, () => tmp.client.workflow.getHandle(waveWorkflowId(planHash, wave)).describe());
    return d.status.name === 'RUNNING';
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return false;
    throw e;
  }
}

/** Cancel (or wait for) a wave still applying; resolves when it has ended. */
async function settleWave(tmp: Temporal, planHash: string, wave: number, mode: 'cancel' | 'wait', maxWaitMs: number): Promise<void> {
  if (mode === 'cancel') await tmp.deadline(CALL_MS, () => tmp.client.workflow.getHandle(planWorkflowId(planHash)).signal(cancelSignal));
  const h = tmp.client.workflow.getHandle(waveWorkflowId(planHash, wave));
  const ended = await Promise.race([
    h.result().then(
      () => true,
      () => true,
    ),
    new Promise<false>((r) => setTimeout(() => r(false), maxWaitMs).unref()),
  ]);
  if (!ended) {
    throw new MigrationError(
      ErrorCode.ROLLBACK_REFUSED,
      `wave ${wave} of plan ${planId(planHash)} is still applying after ${Math.round(maxWaitMs / 1000)} s (${mode === 'cancel' ? 'cancel sent' : 'waited'}); nothing was rolled back — see migrate status ${planId(planHash)}, then run the rollback again`,
      { wave },
      { retryable: false },
    );
  }
}

export async function rollbackWave(
  tmp: Temporal,
  req: {
    planHash: string;
    wave: number;
    force: boolean;
    by: string;
    whileApplying: 'cancel' | 'wait';
    maxWaitMs: number;
    withDependentViews?: boolean;
    /** Tables a workflow run rolls back before it continues as new (the workflow's default when unset). */
    tablesPerRun?: number;
  },
): Promise<WaveRollback> {
  let applying: WaveRollback['applying'] = 'idle';
  if (await waveRunning(tmp, req.planHash, req.wave)) {
    await settleWave(tmp, req.planHash, req.wave, req.whileApplying, req.maxWaitMs);
    applying = req.whileApplying === 'cancel' ? 'cancelled' : 'waited';
  }
  const r = (await tmp.client.workflow.execute(rollbackWaveWorkflow, {
    taskQueue: tmp.taskQueue,
    workflowId: rollbackWorkflowId(req.planHash, req.wave),
    workflowIdConflictPolicy: 'USE_EXISTING',
    args: [
      {
        planHash: req.planHash,
        wave: req.wave,
        force: req.force,
        by: req.by,
        ...(req.withDependentViews === true ? { withDependentViews: true } : {}),
        ...(req.tablesPerRun === undefined ? {} : { tablesPerRun: req.tablesPerRun }),
      },
    ],
    typedSearchAttributes: [
      { key: SA.plan, value: planId(req.planHash) },
      { key: SA.wave, value: req.wave },
      { key: SA.status, value: 'rolling-back' },
    ],
    staticSummary: `rollback of wave ${req.wave} of plan ${planId(req.planHash)}`,
  })) as RollbackResult;
  return { ...r, applying };
}

export interface RollbackOptions {
  readonly wave: number;
  readonly force: boolean;
  /** A wave still applying: wait for it to end instead of cancelling it first. */
  readonly waitForWave: boolean;
  readonly maxWaitSeconds: number;
  /** Roll back the still-migrated views of later waves that read the wave first (else they refuse it: ROLLBACK_ORDER). */
  readonly withDependentViews?: boolean;
  /** Tables a workflow run rolls back before it continues as new. */
  readonly tablesPerRun?: number;
}

async function runRollback(tmp: TemporalHandle, planHash: string, wave: number, opts: RollbackOptions): Promise<WaveRollback> {
  try {
    return await rollbackWave(tmp, {
      planHash,
      wave,
      force: opts.force,
      by: who(),
      whileApplying: opts.waitForWave ? 'wait' : 'cancel',
      maxWaitMs: opts.maxWaitSeconds * 1000,
      withDependentViews: opts.withDependentViews === true,
      ...(opts.tablesPerRun === undefined ? {} : { tablesPerRun: opts.tablesPerRun }),
    });
  } catch (e) {
    if (!(e instanceof WorkflowFailedError)) throw temporalError(e, tmp, `rollback of wave ${wave}`);
    // The workflow's own refusal (the worker's rule, whoever started it): the same code here.
    if (e.cause instanceof ApplicationFailure && e.cause.type === ErrorCode.ROLLBACK_ORDER)
      throw new MigrationError(ErrorCode.ROLLBACK_ORDER, e.cause.message, { wave }, { retryable: false });
    const why = e.cause?.message ?? e.message;
    throw new MigrationError(
      ErrorCode.TEMPORAL_WORKFLOW_ENDED,
      `rollback workflow of wave ${wave} of plan ${planId(planHash)} ended without a result: ${why}`,
      { wave },
      { cause: e },
    );
  }
}

/** The plan hash of `plan` (a unique prefix), checked to have `wave` (WAVE_UNKNOWN otherwise). */
export async function planWithWave(state: StateStore, plan: string, wave: number): Promise<string> {
  const planHash = await state.resolvePlan(plan);
  const waves = (await state.getPlan(planHash)).waves.map((w) => w.number);
  if (!waves.includes(wave))
    throw new MigrationError(
      ErrorCode.WAVE_UNKNOWN,
      `plan ${planId(planHash)} has no wave ${wave} (its waves: ${waves.join(', ') || 'none'})`,
      {
        plan: planId(planHash),
        wave,
        waves,
      },
    );
  return planHash;
}

/** Roll back one wave of an applied plan; the plan and the wave are checked in the state store before anything starts. */
export async function rollbackPlanWave(config: MigrateConfig, plan: string, opts: RollbackOptions): Promise<WaveRollback> {
  const state = await openState(config);
  try {
    const planHash = await planWithWave(state, plan, opts.wave);
    const tmp = await openTemporal(config);
    try {
      return await runRollback(tmp, planHash, opts.wave, opts);
    } finally {
      await tmp.close();
    }
  } finally {
    await state.close();
  }
}
