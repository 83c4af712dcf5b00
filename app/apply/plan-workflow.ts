// What the Temporal-backed use cases share about one plan's workflow `migrate/<plan id>`: finding
// it (unknown plan, finished plan → coded errors), its status with or without a worker, how it
// ended, and the outcome's exit code (any failed table → 1 unless --max-failed allowed it).
import {
  CancelledFailure,
  isGrpcServiceError,
  ServiceError,
  TerminatedFailure,
  TimeoutFailure,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import type { QueryDefinition } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { MigrationInput, MigrationStatus } from '../../workflows/index';

export type { MigrationStatus };
import { planId, planWorkflowId } from '../../core/plan/ids';
import { statusQuery } from '../../workflows/index';
import { ExitCode } from '../../core/exit-codes';
import { actorOf } from '../runtime/identity';
import type { TemporalHandle } from '../runtime/runtime';

export const CALL_MS = 30_000;
/** A status query waits this long for a worker before the workflow's own record is consulted. */
export const QUERY_MS = 10_000;

/** The name a command records as its actor (app/runtime/identity.ts: MIGRATE_ACTOR, declared, else user@host). */
export const who = (): string => actorOf().actor;
export const migrationWorkflowId = planWorkflowId;

/** A plan id as typed: 12 to 64 hex characters (the first 12 name the workflow). */
export function planArg(plan: string): string {
  if (!/^[0-9a-f]{12,64}$/i.test(plan))
    throw new MigrationError(ErrorCode.USAGE, `plan id must be 12 to 64 hex characters (the first 12 of the plan hash), got '${plan}'`, {
      plan,
    });
  return plan.toLowerCase();
}

export const planHandle = (tmp: TemporalHandle, plan: string): WorkflowHandle => tmp.client.workflow.getHandle(planWorkflowId(plan));

export function unknownPlan(plan: string): MigrationError {
  return new MigrationError(ErrorCode.USAGE, `no migration workflow for plan ${planId(plan)} (run migrate apply first)`, {
    plan: planId(plan),
  });
}

/** A Temporal client error as a coded error: no answer → TEMPORAL_NO_WORKER, no server → TEMPORAL_UNREACHABLE. */
export function temporalError(e: unknown, tmp: TemporalHandle, what: string): unknown {
  if (e instanceof MigrationError) return e;
  const grpc = isGrpcServiceError(e) ? e : e instanceof ServiceError && isGrpcServiceError(e.cause) ? e.cause : undefined;
  const timedOut = e instanceof WorkflowUpdateRPCTimeoutOrCancelledError || grpc?.code === 4; // DEADLINE_EXCEEDED
  if (timedOut)
    return new MigrationError(
      ErrorCode.TEMPORAL_NO_WORKER,
      `${what}: no answer within ${CALL_MS / 1000} s; is a worker polling task queue ${tmp.taskQueue}? (start one with migrate worker -c <config>)`,
      { taskQueue: tmp.taskQueue },
      { cause: e },
    );
  if (grpc !== undefined || e instanceof ServiceError)
    return new MigrationError(ErrorCode.TEMPORAL_UNREACHABLE, `${what}: ${(e as Error).message}`, { grpcCode: grpc?.code }, { cause: e });
  return e;
}

/** The plan workflow's execution status; an unknown plan is a USAGE error. */
export async function describePlan(tmp: TemporalHandle, h: WorkflowHandle, plan: string): Promise<{ status: string; taskQueue: string }> {
  try {
    const d = await tmp.deadline(CALL_MS, () => h.describe());
    return { status: d.status.name, taskQueue: d.taskQueue };
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) throw unknownPlan(plan);
    throw temporalError(e, tmp, `describe ${h.workflowId}`);
  }
}

export function planFinished(plan: string, status: string, action: string): MigrationError {
  return new MigrationError(
    ErrorCode.PLAN_FINISHED,
    `plan ${planId(plan)} has already finished (workflow ${status.toLowerCase()}); nothing to ${action}. See migrate status ${planId(plan)}`,
    { plan: planId(plan), workflowStatus: status },
  );
}

/** `plan` must name a running plan workflow, else USAGE (never applied) or PLAN_FINISHED (it ended). */
export async function requireRunning(tmp: TemporalHandle, h: WorkflowHandle, plan: string, action: string): Promise<void> {
  const { status } = await describePlan(tmp, h, plan);
  if (status !== 'RUNNING') throw planFinished(plan, status, action);
}

/** The innermost message of a failure chain (the activity's own error, not "Activity task failed"). */
function rootMessage(e: unknown): string {
  let cur = e as { cause?: unknown; message?: string };
  while (cur.cause !== undefined && cur.cause !== null) cur = cur.cause as { cause?: unknown; message?: string };
  return cur.message ?? String(cur);
}

export function workflowEnded(workflowId: string, status: string, reason: string, cause?: unknown): MigrationError {
  return new MigrationError(
    ErrorCode.TEMPORAL_WORKFLOW_ENDED,
    `plan workflow ${workflowId} ended ${status.toLowerCase().replace('_', ' ')}${reason}; see it in the Temporal UI, fix the cause, then migrate apply again`,
    { workflowId, status },
    cause === undefined ? undefined : { cause },
  );
}

/**
 * The plan workflow's result. It returns its status even when tables or waves failed; it only
 * throws when the workflow itself ended without a result (failed, terminated, cancelled, timed
 * out): that becomes TEMPORAL_WORKFLOW_ENDED with how and why, not an internal error.
 */
export async function planResult<T = MigrationStatus>(h: WorkflowHandle): Promise<T> {
  try {
    return (await h.result()) as T;
  } catch (e) {
    if (!(e instanceof WorkflowFailedError)) throw e;
    const status =
      e.cause instanceof TerminatedFailure
        ? 'TERMINATED'
        : e.cause instanceof CancelledFailure
          ? 'CANCELLED'
          : e.cause instanceof TimeoutFailure
            ? 'TIMED_OUT'
            : 'FAILED';
    const why = e.cause === undefined ? undefined : rootMessage(e.cause);
    throw workflowEnded(h.workflowId, status, why ? `: ${why}` : '', e);
  }
}

/**
 * Where the plan is. Asked of the server first: a workflow that ended without a result (failed,
 * cancelled, terminated, timed out) is reported as such even when a worker would still answer a
 * query from its replayed history; a completed one gives its result; a running one is queried.
 */
export async function planStatus(tmp: TemporalHandle, h: WorkflowHandle, plan: string): Promise<MigrationStatus> {
  const d = await describePlan(tmp, h, plan);
  if (d.status === 'COMPLETED') return tmp.deadline(CALL_MS, () => planResult(h));
  if (d.status !== 'RUNNING') {
    const reason = await h.result().then(
      () => '',
      (e: unknown) => `: ${rootMessage(e)}`,
    );
    throw workflowEnded(h.workflowId, d.status, reason);
  }
  try {
    return await tmp.deadline(QUERY_MS, () => h.query(statusQuery));
  } catch (cause) {
    const again = await describePlan(tmp, h, plan);
    if (again.status !== 'RUNNING') return planStatus(tmp, h, plan);
    throw new MigrationError(
      ErrorCode.TEMPORAL_NO_WORKER,
      `plan workflow ${h.workflowId} is running but no worker answered (task queue ${d.taskQueue}): start one with migrate worker -c <config>`,
      { workflowId: h.workflowId, taskQueue: d.taskQueue },
      { cause },
    );
  }
}

/** The plan workflow's own input (its first history event): what --max-failed it was started with. */
export async function planInput(tmp: TemporalHandle, h: WorkflowHandle): Promise<MigrationInput | undefined> {
  const history = await tmp.deadline(CALL_MS, () => h.fetchHistory());
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  return payload ? defaultPayloadConverter.fromPayload<MigrationInput>(payload) : undefined;
}

export interface Outcome {
  readonly exit: ExitCode;
  readonly failedTables: number;
  /** Set when failed tables were allowed: "2 tables failed (allowed by --max-failed 3)". */
  readonly note?: string;
}

/** Any failed table → exit 1, unless the plan's --max-failed allowed every wave's failures (then 0, and said). */
export function outcomeOf(s: MigrationStatus, maxFailed: number): Outcome {
  const failedTables = s.waves.reduce((n, w) => n + w.failed.length, 0);
  if (s.state === 'failed' || s.state === 'cancelled') return { exit: ExitCode.FAILED, failedTables };
  if (failedTables === 0) return { exit: ExitCode.OK, failedTables };
  const allowed = maxFailed > 0 && s.waves.every((w) => w.failed.length <= maxFailed);
  if (!allowed) return { exit: ExitCode.FAILED, failedTables };
  return {
    exit: ExitCode.OK,
    failedTables,
    note: `${failedTables} table${failedTables === 1 ? '' : 's'} failed (allowed by --max-failed ${maxFailed})`,
  };
}

/**
 * Follow a started workflow to its result (as planResult), polling `query` every `pollMs` and
 * reporting each new answer to `progress` (sync and cutover's --wait).
 */
export async function followWorkflow<R, P>(
  tmp: TemporalHandle,
  workflowId: string,
  query: QueryDefinition<P, []>,
  progress: (p: P) => void,
  pollMs = 2_000,
): Promise<R> {
  const h = tmp.client.workflow.getHandle(workflowId);
  const result = planResult<R>(h);
  let ended = false;
  void result.then(
    () => (ended = true),
    () => (ended = true),
  );
  let last = '';
  while (!ended) {
    await new Promise((r) => setTimeout(r, pollMs));
    if (ended) break;
    const p = await h.query(query).catch(() => undefined);
    const now = JSON.stringify(p);
    if (p !== undefined && now !== last) progress(p);
    last = now;
  }
  return result;
}
