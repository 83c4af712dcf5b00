// `status`, `pause`/`resume`/`cancel`: where a plan is, with the outcome's exit code, and the
// signals to a running plan workflow (an unknown plan or a finished one is refused before sending).
import { WorkflowNotFoundError } from '@temporalio/client';
import type { MigrateConfig } from '../../core/config/schema';
import { planId } from '../../core/plan/ids';
import type { MigrationStatus } from '../../workflows/index';
import { cancelSignal, pauseSignal, resumeSignal } from '../../workflows/index';
import type { Outcome } from '../apply/plan-workflow';
import {
  CALL_MS,
  outcomeOf,
  planArg,
  planHandle,
  planInput,
  planStatus,
  requireRunning,
  temporalError,
  unknownPlan,
} from '../apply/plan-workflow';
import { openState, openTemporal } from '../runtime/runtime';
import type { StateStore } from '../../core/state/store';
import { PLAN_SIGNAL_HELP } from './signals';
import type { PlanSignal } from './signals';
import type { TemporalHandle } from '../runtime/runtime';

export { planArg };

const ENDED: readonly string[] = ['succeeded', 'failed', 'cancelled'];

/** Per wave, the tables `migrate cutover` fenced or cut over (from the state store). */
export interface WaveCutover {
  readonly wave: number;
  readonly fenced: readonly string[];
  readonly cutover: readonly string[];
}

export interface PlanReport {
  readonly status: MigrationStatus;
  /** Waves with fenced or cut-over tables (state store); absent when the state store cannot be read. */
  readonly cutover?: readonly WaveCutover[];
  readonly outcome: Outcome;
  /** The plan has ended: watching it further shows nothing new. */
  readonly ended: boolean;
}

async function outcome(tmp: TemporalHandle, plan: string, s: MigrationStatus): Promise<Outcome> {
  const first = outcomeOf(s, 0);
  if (first.failedTables === 0 || s.state === 'failed' || s.state === 'cancelled') return first;
  // Failed tables in a plan that goes on: allowed only by the --max-failed it was applied with.
  return outcomeOf(s, (await planInput(tmp, planHandle(tmp, plan)))?.maxFailedPerWave ?? 0);
}

/** The plan's status, once, or (with `watch`) every `everyMs` until it ends; each report goes to `onReport` (awaited). */
export async function watchPlan(
  config: MigrateConfig,
  plan: string,
  o: { watch: boolean; everyMs?: number },
  onReport: (r: PlanReport) => void | Promise<void>,
): Promise<PlanReport> {
  const tmp = await openTemporal(config);
  try {
    const h = planHandle(tmp, plan);
    for (;;) {
      const s = await planStatus(tmp, h, plan);
      const cut = await cutoverOf(config, s.planHash);
      const r = { status: s, outcome: await outcome(tmp, plan, s), ended: ENDED.includes(s.state), ...(cut ? { cutover: cut } : {}) };
      await onReport(r);
      if (!o.watch || r.ended) return r;
      await new Promise((resolve) => setTimeout(resolve, o.everyMs ?? 2000));
    }
  } finally {
    await tmp.close();
  }
}

/** The fenced and cut-over tables per wave; undefined when the state store cannot be read (status still shows Temporal's view). */
async function cutoverOf(config: MigrateConfig, planHash: string): Promise<WaveCutover[] | undefined> {
  let state: StateStore | undefined;
  try {
    state = await openState(config);
    const recs = await state.listTables(planHash);
    const waves = [...new Set(recs.filter((r) => r.status === 'fenced' || r.status === 'cutover').map((r) => r.wave))].sort(
      (a, b) => a - b,
    );
    const of = (w: number, st: string) => recs.filter((r) => r.wave === w && r.status === st).map((r) => r.tableId);
    return waves.map((wave) => ({ wave, fenced: of(wave, 'fenced'), cutover: of(wave, 'cutover') }));
  } catch {
    return undefined;
  } finally {
    await state?.close();
  }
}

export const PLAN_SIGNALS = {
  pause: { signal: pauseSignal, what: PLAN_SIGNAL_HELP.pause },
  resume: { signal: resumeSignal, what: PLAN_SIGNAL_HELP.resume },
  cancel: { signal: cancelSignal, what: PLAN_SIGNAL_HELP.cancel },
} as const;
export type { PlanSignal };

/** Send `name` to the running plan workflow: USAGE when it was never applied, PLAN_FINISHED when it has ended. */
export async function signalPlan(config: MigrateConfig, plan: string, name: PlanSignal): Promise<{ plan: string; workflowId: string }> {
  const tmp = await openTemporal(config);
  try {
    const h = planHandle(tmp, plan);
    await requireRunning(tmp, h, plan, name);
    try {
      await tmp.deadline(CALL_MS, () => h.signal(PLAN_SIGNALS[name].signal));
    } catch (e) {
      if (!(e instanceof WorkflowNotFoundError)) throw temporalError(e, tmp, `${name} ${h.workflowId}`);
      await requireRunning(tmp, h, plan, name); // it ended meanwhile: PLAN_FINISHED
      throw unknownPlan(plan);
    }
    return { plan: planId(plan), workflowId: h.workflowId };
  } finally {
    await tmp.close();
  }
}
