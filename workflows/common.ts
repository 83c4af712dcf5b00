// What every workflow shares: the search attributes, the activity proxies with their deadlines,
// the plan id, and how a failure's code is found. Deterministic; imports only the workflow SDK.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { ActivityCancellationType, ApplicationFailure, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities/index';

export const SA = {
  plan: defineSearchAttributeKey('MigrationPlan', SearchAttributeType.KEYWORD),
  wave: defineSearchAttributeKey('MigrationWave', SearchAttributeType.INT),
  team: defineSearchAttributeKey('MigrationTeam', SearchAttributeType.KEYWORD_LIST),
  status: defineSearchAttributeKey('MigrationStatus', SearchAttributeType.KEYWORD),
  /** A table workflow's table (`db.table`); a cutover of one table carries it too. */
  table: defineSearchAttributeKey('MigrationTable', SearchAttributeType.KEYWORD),
};

/**
 * Plan, wave and table workflows carry MigrationPlan/Wave/Team/Status (tables also MigrationTable)
 * and update MigrationStatus at every transition, so a closed workflow never reads `running`
 * (docs/migrating.md "What the Temporal UI shows"). Histories recorded before it replay without
 * these upserts and without the extra team lookup.
 */
export const UI_TRUTH_PATCH = 'search-attributes-follow-status';

/** The teams of a set of plan members, sorted, each once (a table without an owner is `unowned`). */
export function teamsOf(members: readonly { readonly team: string }[]): string[] {
  return [...new Set(members.map((m) => m.team))].sort();
}

/** Activity deadlines; a dead worker's activity is retried elsewhere after these. */
export interface Timeouts {
  /** startToClose of the short steps (snapshot, register, compensations), seconds. Default 120. */
  readonly stepSeconds?: number;
  /**
   * Heartbeat timeout of every step, seconds (default 20). Every activity heartbeats while it runs
   * (activities/index.ts), so a killed worker's step is retried elsewhere after this, not after the
   * step deadline.
   */
  readonly heartbeatSeconds?: number;
}

/** What a run over a plan's migrated tables (nightly validation, sync) is asked to cover. */
export interface PlanTablesInput {
  readonly planHash: string;
  /** Limit the run to these waves / tables (default: every migrated table of the plan). */
  readonly waves?: readonly number[];
  readonly tables?: readonly string[];
  /** Tables worked on at once (each bounds its own footer reads); the default is the workflow's. */
  readonly concurrency?: number;
  readonly timeouts?: Timeouts;
}

const retry = { initialInterval: '1s', maximumInterval: '30s', backoffCoefficient: 2, maximumAttempts: 10 } as const;

/**
 * A cancelled workflow waits for its running activity to stop (WAIT_CANCELLATION_COMPLETED): its
 * compensation must not run beside a step that is still writing.
 */
export function activityOptions(t: Timeouts = {}) {
  const heartbeatTimeout = `${t.heartbeatSeconds ?? 20} seconds` as const;
  const cancellationType = ActivityCancellationType.WAIT_CANCELLATION_COMPLETED;
  return {
    short: { startToCloseTimeout: `${t.stepSeconds ?? 120} seconds`, heartbeatTimeout, retry, cancellationType },
    long: { startToCloseTimeout: '2 hours', heartbeatTimeout, retry, cancellationType },
  } as const;
}

export function activities(t: Timeouts = {}) {
  const o = activityOptions(t);
  return { short: proxyActivities<Activities>(o.short), long: proxyActivities<Activities>(o.long) };
}

export { cutoverWorkflowId, planId, planWorkflowId, rollbackWorkflowId, tableWorkflowId, waveWorkflowId } from '../core/plan/ids';

/** The coded cause of a failure: the first ApplicationFailure type along the cause chain. */
export function failureOf(e: unknown): { code: string; message: string } {
  let cur: unknown = e;
  while (cur !== undefined && cur !== null) {
    if (cur instanceof ApplicationFailure && cur.type) return { code: cur.type, message: cur.message };
    cur = (cur as { cause?: unknown }).cause;
  }
  return { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) };
}

/** A failure raised to a client (update validators): coded, never retried. */
export function refusal(type: string, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true });
}

/**
 * MigrationTeam (the teams of `tables`) and, for a single table, MigrationTable on the running
 * rollback or cutover workflow.
 */
export async function markTeams(planHash: string, wave: number, tables: readonly string[], timeouts?: Timeouts): Promise<void> {
  const { short } = activities(timeouts);
  const members = (await short.waveMembers(planHash, wave)).filter((m) => tables.includes(m.id));
  upsertSearchAttributes([
    { key: SA.team, value: teamsOf(members) },
    ...(tables.length === 1 ? [{ key: SA.table, value: tables[0] as string }] : []),
  ]);
}
