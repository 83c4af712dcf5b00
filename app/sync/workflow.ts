// `migrate sync` through Temporal (the default): the scope is checked against the state store (the
// same USAGE errors as --direct), then syncWorkflow `sync/<plan id>/<stamp>` is started on the task
// queue; with `wait`, its progress is polled (syncStatus query) and its result returned with every
// table's outcome, read from the state store by the workflow id (the workflow returns only counts).
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { MigrateConfig } from '../../core/config/schema';
import type { TableSyncOutcome } from '../../core/engine-port/sync';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { StateStore } from '../../core/state/store';
import { planId, syncWorkflowId } from '../../core/plan/ids';
import { SA, syncStatusQuery, syncWorkflow } from '../../workflows/index';
import type { SyncOutcomesRef, SyncRunResult, SyncStatus } from '../../workflows/index';
import { CALL_MS, followWorkflow, temporalError } from '../apply/plan-workflow';
import { openState, openTemporal } from '../runtime/runtime';
import type { TemporalHandle } from '../runtime/runtime';
import type { SyncScope } from './direct';
import { inScope } from './direct';

/** The `syncStatus` query's answer: counts, files and partitions caught up, the last table's time, the newest finished tables. */
export type SyncProgress = SyncStatus;

export interface SyncStarted {
  readonly plan: string;
  readonly workflowId: string;
  readonly ui: string | undefined;
  /** With `wait`: the workflow's result with every table's outcome, in the order they finished. */
  readonly result?: SyncRunResult & { readonly tables: readonly TableSyncOutcome[] };
}

/** Outcomes read per query. */
const OUTCOME_PAGE = 1_000;

/**
 * Every table's outcome of a finished sync workflow, page by page from the state store
 * (`recordSyncOutcomes` wrote them under its workflow id), in the order they finished.
 */
export async function syncOutcomes(state: StateStore, ref: SyncOutcomesRef): Promise<TableSyncOutcome[]> {
  const all: TableSyncOutcome[] = [];
  let after = -1;
  for (;;) {
    const page = await state.readSyncOutcomes(ref.workflowId, { afterSeq: after, limit: OUTCOME_PAGE });
    all.push(...page.map((r) => r.outcome as TableSyncOutcome));
    if (page.length < OUTCOME_PAGE) break;
    after = (page[page.length - 1] as { seq: number }).seq;
  }
  if (all.length !== ref.count)
    throw new MigrationError(
      ErrorCode.INTERNAL,
      `sync ${ref.workflowId} finished ${ref.count} table(s) but the state store holds ${all.length} of their outcomes`,
      { workflowId: ref.workflowId, count: ref.count, stored: all.length },
    );
  return all;
}

/** The result with its outcomes: in it (workflows from before the outcomes were paged), or from the state store. */
async function withOutcomes(config: MigrateConfig, r: SyncRunResult): Promise<NonNullable<SyncStarted['result']>> {
  if (r.outcomes === undefined) return { ...r, tables: r.tables ?? [] };
  const state = await openState(config);
  try {
    return { ...r, tables: await syncOutcomes(state, r.outcomes) };
  } finally {
    await state.close();
  }
}

/** A stamp for the workflow id: UTC to the millisecond, so two runs a second apart are distinct. */
const stampOf = (d: Date): string => d.toISOString().replace(/[-:]/g, '').replace('.', '');

/** Per-run knobs of the workflow: the steps' heartbeat deadline and the tables a run syncs before it continues as new. */
export interface SyncRunOptions {
  readonly heartbeatSeconds?: number;
  readonly tablesPerRun?: number;
  /** Tables per syncTables activity (the workflow's `batch`). */
  readonly tablesPerActivity?: number;
}

async function start(tmp: TemporalHandle, planHash: string, scope: SyncScope, workflowId: string, run: SyncRunOptions): Promise<void> {
  const waves = scope.waves;
  const timeouts = run.heartbeatSeconds === undefined ? {} : { timeouts: { heartbeatSeconds: run.heartbeatSeconds } };
  const perRun = {
    ...(run.tablesPerRun === undefined ? {} : { tablesPerRun: run.tablesPerRun }),
    ...(run.tablesPerActivity === undefined ? {} : { batch: run.tablesPerActivity }),
  };
  try {
    await tmp.deadline(CALL_MS, () =>
      tmp.client.workflow.start(syncWorkflow, {
        taskQueue: tmp.taskQueue,
        workflowId,
        args: [{ planHash, waves: [...waves], tables: [...scope.tables], concurrency: scope.concurrency, ...timeouts, ...perRun }],
        typedSearchAttributes: [
          { key: SA.plan, value: planId(planHash) },
          ...(waves.length === 1 ? [{ key: SA.wave, value: waves[0] as number }] : []),
          { key: SA.status, value: 'syncing' },
        ],
        memo: { plan: planHash, waves: [...waves], tables: [...scope.tables] },
        staticSummary: `sync of plan ${planId(planHash)}${waves.length === 1 ? ` wave ${waves[0]}` : ''}`,
      }),
    );
  } catch (e) {
    if (e instanceof WorkflowExecutionAlreadyStartedError)
      throw new MigrationError(ErrorCode.USAGE, `${workflowId} is running already; wait for it`, { workflowId });
    throw temporalError(e, tmp, `start ${workflowId}`);
  }
}

/** Start the plan's sync workflow (a worker runs it); with `wait`, follow it to its result. */
export async function startSync(
  config: MigrateConfig,
  plan: string,
  scope: SyncScope,
  o: { readonly wait: boolean; readonly progress: (p: SyncProgress) => void; readonly run?: SyncRunOptions },
): Promise<SyncStarted> {
  const state = await openState(config);
  let planHash: string;
  try {
    planHash = await state.resolvePlan(plan);
    if (inScope(await state.listTables(planHash), planHash, scope).length === 0)
      throw new MigrationError(ErrorCode.USAGE, `no migrated table of plan ${planId(planHash)} matches the scope`);
  } finally {
    await state.close();
  }
  const tmp = await openTemporal(config);
  try {
    const workflowId = syncWorkflowId(planHash, stampOf(new Date()));
    await start(tmp, planHash, scope, workflowId, o.run ?? {});
    const ui = tmp.uiUrl === undefined ? undefined : `${tmp.uiUrl}/namespaces/${tmp.namespace}/workflows/${encodeURIComponent(workflowId)}`;
    if (!o.wait) return { plan: planId(planHash), workflowId, ui };
    return {
      plan: planId(planHash),
      workflowId,
      ui,
      result: await withOutcomes(config, await followWorkflow<SyncRunResult, SyncProgress>(tmp, workflowId, syncStatusQuery, o.progress)),
    };
  } finally {
    await tmp.close();
  }
}
