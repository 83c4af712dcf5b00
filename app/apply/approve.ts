// `approve`, client side: the plan workflow's `approve` update with who approved (recorded in the
// audit log by the workflow's activity). Idempotent: a wave approved before (or already run) is
// "already approved"; approving a later wave early pre-approves it.
import { ApplicationFailure, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, MigrationError } from '../../core/errors';
import { planId } from '../../core/plan/ids';
import type { ApproveResult, MigrationStatus } from '../../workflows/index';
import { approveUpdate, statusQuery } from '../../workflows/index';
import { actorOf, checkApprover } from '../runtime/identity';
import type { ActorIdentity } from '../runtime/identity';
import { CALL_MS, describePlan, planFinished, planHandle, planResult, QUERY_MS, temporalError } from './plan-workflow';
import { openTemporal } from '../runtime/runtime';
import type { TemporalHandle } from '../runtime/runtime';

export interface Approval {
  readonly wave: number;
  readonly approved: readonly number[];
  readonly already: boolean;
  /** The plan is at an earlier wave: this one starts without asking when its turn comes. */
  readonly preApproval: boolean;
}

/** The update's refusal, from the workflow's validator (ApplicationFailure type, or the older plain message). */
function refusal(e: unknown, plan: string, wave: number): MigrationError | 'already-ran' | undefined {
  if (!(e instanceof WorkflowUpdateFailedError)) return undefined;
  const type = e.cause instanceof ApplicationFailure ? e.cause.type : undefined;
  const msg = e.cause?.message ?? e.message;
  if (type === ErrorCode.WAVE_ALREADY_RAN || /already ran/.test(msg)) return 'already-ran';
  if (type === ErrorCode.AUDIT_APPROVER_REFUSED)
    return new MigrationError(ErrorCode.AUDIT_APPROVER_REFUSED, `the worker refused the approval of wave ${wave}: ${msg}`, {
      plan: planId(plan),
      wave,
    });
  if (type === ErrorCode.WAVE_UNKNOWN || /has no wave/.test(msg))
    return new MigrationError(ErrorCode.WAVE_UNKNOWN, /has no wave/.test(msg) ? msg : `plan ${planId(plan)} has no wave ${wave}`, {
      plan: planId(plan),
      wave,
    });
  return new MigrationError(ErrorCode.USAGE, `approval of wave ${wave} refused: ${msg}`, {
    plan: planId(plan),
    wave,
    ...(type !== undefined ? { type } : {}),
  });
}

/** A plan that has ended: a wave it had approved is "already approved" (idempotent), anything else PLAN_FINISHED. */
async function approvedWhenEnded(tmp: TemporalHandle, h: WorkflowHandle, plan: string, wave: number): Promise<Approval> {
  const { status } = await describePlan(tmp, h, plan);
  const final = status === 'COMPLETED' ? await tmp.deadline(CALL_MS, () => planResult(h)).catch(() => undefined) : undefined;
  if (final?.approved.includes(wave)) return { wave, approved: final.approved, already: true, preApproval: false };
  throw planFinished(plan, status, `approve (wave ${wave} was not approved before it ended)`);
}

async function approveWave(tmp: TemporalHandle, h: WorkflowHandle, plan: string, wave: number, by: ActorIdentity): Promise<Approval> {
  if ((await describePlan(tmp, h, plan)).status !== 'RUNNING') return approvedWhenEnded(tmp, h, plan, wave);
  let before: MigrationStatus;
  try {
    before = await tmp.deadline(QUERY_MS, () => h.query(statusQuery));
  } catch (e) {
    throw new MigrationError(
      ErrorCode.TEMPORAL_NO_WORKER,
      `plan workflow ${h.workflowId} is running but no worker answered (task queue ${tmp.taskQueue}): start one with migrate worker -c <config>`,
      { workflowId: h.workflowId, taskQueue: tmp.taskQueue },
      { cause: e },
    );
  }
  const early = before.currentWave !== null && wave > before.currentWave;
  if (before.approved.includes(wave)) return { wave, approved: before.approved, already: true, preApproval: false };
  try {
    const r: ApproveResult = await tmp.deadline(CALL_MS, () =>
      h.executeUpdate(approveUpdate, { args: [{ wave, by: by.actor, source: by.actorSource }] }),
    );
    return { wave, approved: r.approved, already: r.already === true, preApproval: r.already !== true && (r.early === true || early) };
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return approvedWhenEnded(tmp, h, plan, wave); // it ended meanwhile
    const r = refusal(e, plan, wave);
    if (r === 'already-ran') return { wave, approved: before.approved, already: true, preApproval: false };
    throw r ?? temporalError(e, tmp, `approve wave ${wave} of ${h.workflowId}`);
  }
}

/** Approve `wave` of the running plan as the caller (refused before anything is sent when audit.approvers does not list them). */
export async function approvePlanWave(config: MigrateConfig, plan: string, wave: number): Promise<Approval> {
  const by = actorOf();
  checkApprover(config, by, wave);
  const tmp = await openTemporal(config);
  try {
    return await approveWave(tmp, planHandle(tmp, plan), plan, wave, by);
  } finally {
    await tmp.close();
  }
}
