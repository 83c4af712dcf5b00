// What an operation needs from the process that runs it, without knowing Temporal: the activity's
// identity (the idempotency key and owner run of what it records), its heartbeat, its cancellation
// signal and the worker's view of a workflow. activities/runtime.ts fills it in from Temporal's
// activity context; outside a worker (`migrate repair`, `migrate validate`, tests) there is none.

/** The activity running an operation: what makes a retried attempt's events the same events (core/audit/idempotency.ts). */
export interface ActivityIdentity {
  readonly workflowId: string;
  readonly runId: string;
  /** The same for every attempt of one activity. */
  readonly activityId: string;
}

/** One running activity, as an operation sees it. */
export interface Invocation {
  /** Undefined when the activity runs outside a workflow. */
  readonly identity: ActivityIdentity | undefined;
  /** The details the previous attempt heartbeated (a batch's finished tables), if any. */
  readonly heartbeatDetails: unknown;
  heartbeat(details: unknown): void;
  /** Aborted when the workflow cancels the activity. */
  readonly signal: AbortSignal;
  /** True while the workflow `workflowId` runs (asked through the worker's own client). */
  workflowRunning(workflowId: string): Promise<boolean>;
}

export interface OpsRuntime {
  /** The activity running now, or undefined outside one. */
  current(): Invocation | undefined;
}

/** Outside a worker: no identity, no heartbeats, no cancellation. */
export const outsideWorker: OpsRuntime = { current: () => undefined };
