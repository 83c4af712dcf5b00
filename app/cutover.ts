// `migrate cutover`, client side: the plan, the wave and the scope are checked against the state
// store (USAGE / WAVE_UNKNOWN before anything starts), then cutoverWorkflow
// `migrate/<plan id>/cutover-wave-<n>` is started on the task queue (a run already going is
// attached to: USE_EXISTING) and, with `wait`, followed to its result (cutoverStatus query).
import type { MigrateConfig } from '../core/config/schema';
import { ErrorCode, MigrationError } from '../core/errors';
import { cutoverWorkflowId, planId } from '../core/plan/ids';
import { isLive } from '../core/state/status';
import type { StateStore } from '../core/state/store';
import { cutoverStatusQuery, cutoverWorkflow, SA } from '../workflows/index';
import type { CutoverResult } from '../workflows/index';
import { CALL_MS, followWorkflow, temporalError, who } from './apply/plan-workflow';
import { openState, openTemporal } from './runtime/runtime';
import type { TemporalHandle } from './runtime/runtime';

export type CutoverProgress = { tables: number; done: number; refused: number };

export interface CutoverStarted {
  readonly plan: string;
  readonly wave: number;
  readonly workflowId: string;
  readonly ui: string | undefined;
  /** With `wait`: the workflow's result. */
  readonly result?: CutoverResult;
}

export interface CutoverOptions {
  readonly wave: number;
  readonly tables: readonly string[];
  readonly wait: boolean;
  readonly progress: (p: CutoverProgress) => void;
}

/** The plan hash; WAVE_UNKNOWN for a wave the plan lacks, USAGE when no table of the wave is migrated (or a named one is not in it). */
async function checkScope(state: StateStore, plan: string, o: CutoverOptions): Promise<string> {
  const planHash = await state.resolvePlan(plan);
  const waves = (await state.getPlan(planHash)).waves.map((w) => w.number);
  if (!waves.includes(o.wave))
    throw new MigrationError(
      ErrorCode.WAVE_UNKNOWN,
      `plan ${planId(planHash)} has no wave ${o.wave} (its waves: ${waves.join(', ') || 'none'})`,
      {
        plan: planId(planHash),
        wave: o.wave,
      },
    );
  const recs = await state.listTables(planHash, o.wave);
  const unknown = o.tables.filter((t) => !recs.some((r) => r.tableId === t));
  if (unknown.length > 0)
    throw new MigrationError(ErrorCode.USAGE, `not tables of wave ${o.wave} of plan ${planId(planHash)}: ${unknown.join(', ')}`, {
      tables: unknown,
    });
  if (!recs.some((r) => isLive(r.status) && (o.tables.length === 0 || o.tables.includes(r.tableId))))
    throw new MigrationError(
      ErrorCode.USAGE,
      `no migrated table of wave ${o.wave} of plan ${planId(planHash)} matches the scope; see migrate status`,
    );
  return planHash;
}

async function start(tmp: TemporalHandle, planHash: string, o: CutoverOptions, workflowId: string): Promise<void> {
  try {
    await tmp.deadline(CALL_MS, () =>
      tmp.client.workflow.start(cutoverWorkflow, {
        taskQueue: tmp.taskQueue,
        workflowId,
        workflowIdConflictPolicy: 'USE_EXISTING',
        args: [{ planHash, wave: o.wave, tables: [...o.tables], by: who() }],
        typedSearchAttributes: [
          { key: SA.plan, value: planId(planHash) },
          { key: SA.wave, value: o.wave },
          { key: SA.status, value: 'cutting-over' },
        ],
        staticSummary: `cutover of wave ${o.wave} of plan ${planId(planHash)}`,
      }),
    );
  } catch (e) {
    throw temporalError(e, tmp, `start ${workflowId}`);
  }
}

/** Start (or attach to) the wave's cutover workflow; with `wait`, follow it to its result. */
export async function startCutover(config: MigrateConfig, plan: string, o: CutoverOptions): Promise<CutoverStarted> {
  const state = await openState(config);
  let planHash: string;
  try {
    planHash = await checkScope(state, plan, o);
  } finally {
    await state.close();
  }
  const tmp = await openTemporal(config);
  try {
    const workflowId = cutoverWorkflowId(planHash, o.wave);
    await start(tmp, planHash, o, workflowId);
    const ui = tmp.uiUrl === undefined ? undefined : `${tmp.uiUrl}/namespaces/${tmp.namespace}/workflows/${encodeURIComponent(workflowId)}`;
    const base = { plan: planId(planHash), wave: o.wave, workflowId, ui };
    if (!o.wait) return base;
    return { ...base, result: await followWorkflow<CutoverResult, CutoverProgress>(tmp, workflowId, cutoverStatusQuery, o.progress) };
  } finally {
    await tmp.close();
  }
}
