// Rollback of one wave, client side. A wave that is still applying is cancelled first (its tables
// in flight run their compensations) — or, with `wait`, waited for — and then every table of the
// wave is rolled back; the result says which. Two rollbacks of one wave at once attach to one
// workflow run (fixed workflow id, USE_EXISTING), so no table is rolled back (or audited) twice.
import { WorkflowNotFoundError } from '@temporalio/client';
import type { RollbackResult } from '../workflows/index';
import { cancelSignal, planId, planWorkflowId, rollbackWaveWorkflow, rollbackWorkflowId, SA, waveWorkflowId } from '../workflows/index';
import { ErrorCode, MigrationError } from '../core/errors';
import type { openTemporal } from './runtime';

type Temporal = Awaited<ReturnType<typeof openTemporal>>;

export interface WaveRollback extends RollbackResult {
  /** What the wave was doing when the rollback was asked for, and what was done about it. */
  readonly applying: 'idle' | 'cancelled' | 'waited';
}

const CALL_MS = 30_000;

async function waveRunning(tmp: Temporal, planHash: string, wave: number): Promise<boolean> {
  try {
    const d = await tmp.deadline(CALL_MS, () => tmp.client.workflow.getHandle(waveWorkflowId(planHash, wave)).describe());
    return d.status.name === 'RUNNING';
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return false;
    throw e;
  }
}

/** Cancel (or wait for) a wave still applying; resolves when it has ended. */
async function settleWave(tmp: Temporal, planHash: string, wave: number, mode: 'cancel' | 'wait', maxWaitMs: number): Promise<void> {
  if (mode === 'cancel') await tmp.deadline(CALL_MS, () => tmp.client.workflow.getHandle(planWorkflowId(planHash)).signal(cancelSignal));
  const h = tmp.client.workflow.getHandle(waveWorkflowId(planHash, wave));
  const ended = await Promise.race([h.result().then(() => true, () => true), new Promise<false>((r) => setTimeout(() => r(false), maxWaitMs).unref())]);
  if (!ended) {
    throw new MigrationError(ErrorCode.ROLLBACK_REFUSED, `wave ${wave} of plan ${planId(planHash)} is still applying after ${Math.round(maxWaitMs / 1000)} s (${mode === 'cancel' ? 'cancel sent' : 'waited'}); nothing was rolled back — see migrate status ${planId(planHash)}, then run the rollback again`, { wave }, { retryable: false });
  }
}

export async function rollbackWave(tmp: Temporal, req: { planHash: string; wave: number; force: boolean; by: string; whileApplying: 'cancel' | 'wait'; maxWaitMs: number }): Promise<WaveRollback> {
  let applying: WaveRollback['applying'] = 'idle';
  if (await waveRunning(tmp, req.planHash, req.wave)) {
    await settleWave(tmp, req.planHash, req.wave, req.whileApplying, req.maxWaitMs);
    applying = req.whileApplying === 'cancel' ? 'cancelled' : 'waited';
  }
  const r = (await tmp.client.workflow.execute(rollbackWaveWorkflow, {
    taskQueue: tmp.taskQueue,
    workflowId: rollbackWorkflowId(req.planHash, req.wave),
    workflowIdConflictPolicy: 'USE_EXISTING',
    args: [{ planHash: req.planHash, wave: req.wave, force: req.force, by: req.by }],
    typedSearchAttributes: [{ key: SA.plan, value: planId(req.planHash) }, { key: SA.wave, value: req.wave }, { key: SA.status, value: 'rolling-back' }],
    staticSummary: `rollback of wave ${req.wave} of plan ${planId(req.planHash)}`,
  })) as RollbackResult;
  return { ...r, applying };
}

export function renderRollback(r: WaveRollback): string {
  const before = r.applying === 'cancelled' ? `wave ${r.wave} was still applying: cancelled it first (its tables in flight were compensated)\n` : r.applying === 'waited' ? `wave ${r.wave} was still applying: waited for it to end\n` : '';
  const refused = r.refused.length ? `; refused: ${r.refused.map((x) => `${x.tableId} (${x.code}: ${x.message})`).join('; ')}` : '';
  return `${before}wave ${r.wave}: rolled back ${r.rolledBack.length} table(s)${refused}\n`;
}

