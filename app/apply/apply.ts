// `apply`, client side: a reviewed plan file (size, schema, hash, signature: app/plan/plan-input.ts) is
// stored in the state store (recorded once, with the submitter) and its workflow `migrate/<plan id>`
// started — or attached to when the same plan is already running; with `wait`, its outcome.
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { AuditAction } from '../../core/audit/chain';
import type { MigrateConfig } from '../../core/config/schema';
import type { PlanFile } from '../../core/plan/plan-file';
import { migrationWorkflow, planId, SA } from '../../workflows/index';
import type { MigrationStatus } from '../../workflows/index';
import { actorOf } from '../runtime/identity';
import { readPlanForApply } from '../plan/plan-input';
import type { Outcome } from './plan-workflow';
import { CALL_MS, migrationWorkflowId, outcomeOf, planInput, planResult, temporalError } from './plan-workflow';
import { openState, openTemporal } from '../runtime/runtime';
import type { TemporalHandle } from '../runtime/runtime';
import type { ProgressEvent } from '../../core/apply/progress';
import type { StateStore } from '../../core/state/store';
import { followPlan } from './progress';
import type { StaleCheck } from './stale';
import { checkStale } from './stale';
import { planStaleError } from '../../core/plan/stale';

export interface ApplyOptions {
  readonly autoApprove: boolean;
  readonly wait: boolean;
  readonly concurrency: number;
  /** Tables per apply activity (1: each table in its own table workflow). */
  readonly tablesPerActivity?: number;
  readonly maxFailed: number;
  readonly stepTimeout: number;
  readonly heartbeatTimeout: number;
  /** Start even when the pre-check finds stale tables (they fail on their own in the run). */
  readonly acceptStale: boolean;
  /** With `wait`: each wave start, approval awaited, table outcome and wave end as it happens (app/apply/progress.ts). */
  readonly onProgress?: (e: ProgressEvent) => void;
}

export interface Applied {
  readonly plan: PlanFile;
  readonly workflowId: string;
  /** False: the plan was already running and this call attached to it. */
  readonly started: boolean;
  /** The Temporal UI's list of this plan's workflows, when temporal.uiUrl is set. */
  readonly ui: string | undefined;
  /** With `wait`: how the plan ended. */
  readonly ended?: { readonly result: MigrationStatus; readonly outcome: Outcome };
  /** Set when the plan had already succeeded: nothing was started (a no-op, exit 0). */
  readonly alreadySucceeded?: { readonly closedAt: string | null };
  /** The stale-plan pre-check (absent when the plan was already running: this call attached to it). */
  readonly staleCheck?: StaleCheck;
}

/**
 * The plan's last run when it succeeded with no failed table and no table of it was rolled back
 * since: applying it again has nothing to do (as applying a saved Terraform plan twice). A run that
 * failed, was cancelled, had failures --max-failed allowed, or a rolled-back wave may run again.
 */
async function lastRun(
  tmp: TemporalHandle,
  state: StateStore,
  plan: PlanFile,
): Promise<{ running: boolean; already?: Applied['alreadySucceeded'] }> {
  const h = tmp.client.workflow.getHandle(migrationWorkflowId(plan.hash));
  let d: Awaited<ReturnType<typeof h.describe>>;
  try {
    d = await tmp.deadline(CALL_MS, () => h.describe());
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return { running: false };
    throw temporalError(e, tmp, `describe ${h.workflowId}`);
  }
  if (d.status.name !== 'COMPLETED') return { running: d.status.name === 'RUNNING' };
  const result = await tmp.deadline(CALL_MS, () => planResult(h));
  if (result.state !== 'succeeded' || result.waves.some((w) => w.failed.length > 0)) return { running: false };
  const tables = await state.listTableSummaries(plan.hash);
  if (tables.some((t) => t.status === 'rolled-back' || t.status === 'failed')) return { running: false };
  return { running: false, already: { closedAt: d.closeTime?.toISOString() ?? null } };
}

/** The stale-plan pre-check: PLAN_STALE naming every stale table, unless `acceptStale` (then the caller reports them). */
async function preCheck(config: MigrateConfig, state: StateStore, plan: PlanFile, acceptStale: boolean): Promise<StaleCheck> {
  const check = await checkStale(config, state, plan);
  if (check.stale.length > 0 && !acceptStale) throw planStaleError(planId(plan.hash), check.stale, check.checked);
  return check;
}

/** PLAN_SUBMITTED, once: when this call stored the plan. */
async function auditSubmitted(
  state: StateStore,
  plan: PlanFile,
  o: ApplyOptions,
  signer: ReturnType<typeof readPlanForApply>['signer'],
): Promise<void> {
  const by = actorOf();
  const tables = plan.waves.reduce((n, w) => n + w.tables.length, 0);
  await state.appendAudit({
    at: new Date().toISOString(),
    actor: by.actor,
    actorSource: by.actorSource,
    action: AuditAction.PLAN_SUBMITTED,
    object: `plan:${plan.hash}`,
    planHash: plan.hash,
    beforeDigest: null,
    afterDigest: plan.hash,
    details: { waves: plan.waves.length, tables, autoApprove: o.autoApprove, signer },
  });
}

/** Start the plan's workflow; false when it is already running (the same plan applied again attaches to it). */
async function startPlan(tmp: TemporalHandle, plan: PlanFile, o: ApplyOptions): Promise<boolean> {
  try {
    await tmp.deadline(CALL_MS, () =>
      tmp.client.workflow.start(migrationWorkflow, {
        taskQueue: tmp.taskQueue,
        workflowId: migrationWorkflowId(plan.hash),
        args: [
          {
            planHash: plan.hash,
            autoApprove: o.autoApprove,
            concurrency: o.concurrency,
            ...((o.tablesPerActivity ?? 1) > 1 ? { tablesPerActivity: o.tablesPerActivity } : {}),
            maxFailedPerWave: o.maxFailed,
            timeouts: { stepSeconds: o.stepTimeout, heartbeatSeconds: o.heartbeatTimeout },
          },
        ],
        typedSearchAttributes: [
          { key: SA.plan, value: planId(plan.hash) },
          { key: SA.status, value: 'running' },
        ],
        staticSummary: `migration plan ${planId(plan.hash)} · ${plan.waves.length} waves`,
      }),
    );
    return true;
  } catch (e) {
    if (e instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw temporalError(e, tmp, `start ${migrationWorkflowId(plan.hash)}`);
  }
}

async function waitForPlan(
  tmp: TemporalHandle,
  state: StateStore,
  plan: PlanFile,
  o: ApplyOptions,
  started: boolean,
): Promise<Applied['ended']> {
  const h = tmp.client.workflow.getHandle(migrationWorkflowId(plan.hash));
  const ended = planResult(h);
  const following =
    o.onProgress === undefined ? undefined : followPlan({ tmp, handle: h, state, planHash: plan.hash }, ended, o.onProgress);
  let result: MigrationStatus;
  try {
    result = await ended;
  } finally {
    await following;
  }
  // Attached to a run started earlier: its own --max-failed counts, not this command line's.
  const maxFailed = started ? o.maxFailed : ((await planInput(tmp, h))?.maxFailedPerWave ?? 0);
  return { result, outcome: outcomeOf(result, maxFailed) };
}

/** The Temporal UI's list of the plan's workflows, when temporal.uiUrl is set. */
function uiOf(tmp: TemporalHandle, plan: PlanFile): string | undefined {
  return tmp.uiUrl === undefined
    ? undefined
    : `${tmp.uiUrl}/namespaces/${tmp.namespace}/workflows?query=${encodeURIComponent(`MigrationPlan="${planId(plan.hash)}"`)}`;
}

/** Submit `file` (refused before anything is stored when it fails its checks) and start its workflow. */
export async function applyPlan(config: MigrateConfig, file: string, o: ApplyOptions): Promise<Applied> {
  // Size, UTF-8, schema, version, hash, signature (when plan.signing is configured), waves: exit 2.
  const { plan, signer } = readPlanForApply(file, config);
  const state = await openState(config);
  try {
    const tmp = await openTemporal(config);
    try {
      const workflowId = migrationWorkflowId(plan.hash);
      const ui = uiOf(tmp, plan);
      const last = await lastRun(tmp, state, plan);
      if (last.already !== undefined) return { plan, workflowId, started: false, ui, alreadySucceeded: last.already };
      // Before anything is stored or started; a running plan is attached to, not checked (its tables are its own).
      const staleCheck = last.running ? undefined : await preCheck(config, state, plan, o.acceptStale);
      const { created } = await state.submitPlan(plan);
      if (created) await auditSubmitted(state, plan, o, signer);
      const started = await startPlan(tmp, plan, o);
      const ended = o.wait ? await waitForPlan(tmp, state, plan, o, started) : undefined;
      return { plan, workflowId, started, ui, ...(staleCheck ? { staleCheck } : {}), ...(ended !== undefined ? { ended } : {}) };
    } finally {
      await tmp.close();
    }
  } finally {
    await state.close();
  }
}
