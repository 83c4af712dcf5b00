// `migrate sync` through Temporal (the default): the scope is checked against the state store (the
// same USAGE errors as --direct), then syncWorkflow `sync/<plan id>/<stamp>` is started on the task
// queue; with `wait`, its progress is polled (syncStatus query) and its result returned.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, MigrationError } from '../../core/errors';
import { planId, syncWorkflowId } from '../../core/plan/ids';
import { SA, syncStatusQuery, syncWorkflow } from '../../workflows/index';
import type { SyncRunResult, SyncStatus } from '../../workflows/index';
import { CALL_MS, followWorkflow, temporalError } from '../apply/plan-workflow';
import { openState, openTemporal } from '../runtime/runtime';
import type { TemporalHandle } from '../runtime/runtime';
import type { SyncScope } from './direct';
import { inScope } from './direct';

/** The `syncStatus` query's answer: counts, files and partitions caught up, the last table's time, every finished table. */
export type SyncProgress = SyncStatus;

export interface SyncStarted {
  readonly plan: string;
  readonly workflowId: string;
  readonly ui: string | undefined;
  /** With `wait`: the workflow's result. */
  readonly result?: SyncRunResult;
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
      result: await followWorkflow<SyncRunResult, SyncProgress>(tmp, workflowId, syncStatusQuery, o.progress),
    };
  } finally {
    await tmp.close();
  }
}
