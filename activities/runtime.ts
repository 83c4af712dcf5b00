// The Temporal side of the operations' runtime (ops/runtime.ts): the running activity's identity,
// heartbeat, cancellation signal and the worker's client, from Temporal's activity context. The
// shims build the operations with `temporalRuntime`; the steps still here (sync, undo, the batch)
// use the helpers below.
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Invocation, OpsRuntime } from '../ops/runtime';
import { stepKeyOf } from '../ops/context';

/** The activity's Temporal context, or undefined outside a worker (unit tests, `migrate table`). */
export function activityCtx(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

async function workflowRunning(ctx: Context, workflowId: string): Promise<boolean> {
  try {
    return (await ctx.client.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING';
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return false;
    throw e;
  }
}

function invocationOf(ctx: Context): Invocation {
  const run = ctx.info.workflowExecution;
  return {
    identity: run === undefined ? undefined : { workflowId: run.workflowId, runId: run.runId, activityId: ctx.info.activityId },
    heartbeatDetails: ctx.info.heartbeatDetails,
    heartbeat: (details) => ctx.heartbeat(details),
    signal: ctx.cancellationSignal,
    workflowRunning: (id) => workflowRunning(ctx, id),
  };
}

/** What the operations see of the running activity, read at each call (Temporal keeps one context per activity call). */
export const temporalRuntime: OpsRuntime = {
  current: () => {
    const ctx = activityCtx();
    return ctx === undefined ? undefined : invocationOf(ctx);
  },
};

/**
 * The details an activity last heartbeated, by its context: the keep-alive heartbeat
 * (activities/index.ts) sends them again instead of empty details, which would replace them.
 */
export const lastHeartbeatDetails = new WeakMap<Context, unknown>();

/** Heartbeat `details` now; the keep-alive heartbeats repeat them until the next call. */
export function heartbeatWith(ctx: Context, details: unknown): void {
  lastHeartbeatDetails.set(ctx, details);
  ctx.heartbeat(details);
}

/** The workflow run this activity belongs to (undefined outside a worker). */
export const runOf = (): string | undefined => temporalRuntime.current()?.identity?.runId;

/** The idempotency key of an event this activity appends (ops/context.ts `stepKeyOf`); null outside a worker. */
export const stepKey = stepKeyOf(temporalRuntime);
