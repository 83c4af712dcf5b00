// `migrate sync` through Temporal (the default): the scope is checked against the state store (the
// same USAGE errors as --direct), then syncWorkflow `sync/<plan id>/<stamp>` is started on the task
// queue; with `wait`, its progress is polled (syncStatus query) and its result returned.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { MigrateConfig } from '../core/config/schema';
import { ErrorCode, MigrationError } from '../core/errors';
import { planId, syncWorkflowId } from '../core/plan/ids';
import { SA, syncStatusQuery, syncWorkflow } from '../workflows/index';
import type { SyncRunResult, SyncStatus } from '../workflows/index';
import { CALL_MS, planResult, temporalError } from './plan-workflow';
import { openState, openTemporal } from './runtime';
import type { TemporalHandle } from './runtime';
import type { SyncScope } from './sync';
import { inScope } from './sync';

/** The `syncStatus` query's answer: counts, files and partitions caught up, the last table's time, every finished table. */
export type SyncProgress = SyncStatus;

export interface SyncStarted {
  readonly plan: string;
  readonly workflowId: string;
  readonly ui: string | undefined;
  /** With `wait`: the workflow's result. */
  readonly result?: SyncRunResult;
}

const POLL_MS = 2_000;

/** A stamp for the workflow id: UTC to the millisecond, so two runs a second apart are distinct. */
const stampOf = (d: Date): string => d.toISOString().replace(/[-:]/g, '').replace('.', '');

async function start(tmp: TemporalHandle, planHash: string, scope: SyncScope, workflowId: string): Promise<void> {
  const waves = scope.waves;
  try {
    await tmp.deadline(CALL_MS, () =>
      tmp.client.workflow.start(syncWorkflow, {
        taskQueue: tmp.taskQueue,
        workflowId,
        args: [{ planHash, waves: [...waves], tables: [...scope.tables], concurrency: scope.concurrency }],
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

/** Report progress until the workflow ends, then its result. */
async function follow(tmp: TemporalHandle, workflowId: string, progress: (p: SyncProgress) => void): Promise<SyncRunResult> {
  const h = tmp.client.workflow.getHandle(workflowId);
  const result = planResult<SyncRunResult>(h);
  let ended = false;
  void result.then(
    () => (ended = true),
    () => (ended = true),
  );
  let last = '';
  while (!ended) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    if (ended) break;
    const p = await h.query(syncStatusQuery).catch(() => undefined);
    const now = JSON.stringify(p);
    if (p !== undefined && now !== last) progress(p);
    last = now;
  }
  return result;
}

/** Start the plan's sync workflow (a worker runs it); with `wait`, follow it to its result. */
export async function startSync(
  config: MigrateConfig,
  plan: string,
  scope: SyncScope,
  o: { readonly wait: boolean; readonly progress: (p: SyncProgress) => void },
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
    await start(tmp, planHash, scope, workflowId);
    const ui = tmp.uiUrl === undefined ? undefined : `${tmp.uiUrl}/namespaces/${tmp.namespace}/workflows/${encodeURIComponent(workflowId)}`;
    if (!o.wait) return { plan: planId(planHash), workflowId, ui };
    return { plan: planId(planHash), workflowId, ui, result: await follow(tmp, workflowId, o.progress) };
  } finally {
    await tmp.close();
  }
}
