// A plan's Temporal Schedules: the nightly validation (`validate/<plan id>` runs
// nightlyValidationWorkflow) and the sync (`sync/<plan id>` runs syncWorkflow): create, list,
// describe, pause, unpause, delete, trigger.
import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, MigrationError } from '../../core/errors';
import { planId, syncScheduleId } from '../../core/plan/ids';
import { nightlyValidationWorkflow, SA, syncWorkflow } from '../../workflows/index';
import { openState, openTemporal } from '../runtime/runtime';
import type { TemporalHandle } from '../runtime/runtime';
import { SCHEDULE_ACTIONS } from './actions';
import type { ScheduleAction } from './actions';

const CALL_MS = 30_000;
const DEFAULT_CRON = '0 2 * * *';

/** What a schedule runs: the nightly validation (default) or the sync of the plan's migrated tables. */
export type ScheduleKind = 'validate' | 'sync';

export const scheduleIdFor = (planHash: string, kind: ScheduleKind = 'validate'): string =>
  kind === 'sync' ? syncScheduleId(planHash) : `validate/${planId(planHash)}`;

/** The workflow a schedule starts: its type, id (the server appends the fire time), input and summary. */
function actionOf(kind: ScheduleKind, planHash: string): { workflowType: string; workflowId: string; summary: string } {
  const id = planId(planHash);
  return kind === 'sync'
    ? { workflowType: syncWorkflow.name, workflowId: `${syncScheduleId(planHash)}/scheduled`, summary: `scheduled sync of plan ${id}` }
    : { workflowType: nightlyValidationWorkflow.name, workflowId: `validate/${id}/run`, summary: `nightly validation of plan ${id}` };
}

export interface ScheduleSpec {
  readonly cron?: string;
  readonly every?: string;
  readonly timezone: string;
  readonly jitter: string;
  readonly catchup: string;
  readonly concurrency: number;
  readonly paused: boolean;
}

/** Create a schedule; one that exists already is a usage error (describe, delete or trigger it instead). */
async function createOnce(tmp: TemporalHandle, id: string, create: () => Promise<unknown>): Promise<void> {
  try {
    await tmp.deadline(CALL_MS, create);
  } catch (e) {
    if (e instanceof ScheduleAlreadyRunning)
      throw new MigrationError(ErrorCode.USAGE, `schedule ${id} exists already (migrate schedule describe|delete)`, { scheduleId: id });
    throw e;
  }
}

/** The schedule of an applied plan (`plan`: id or hash, resolved in the state store). */
export async function createValidationSchedule(
  config: MigrateConfig,
  plan: string,
  o: ScheduleSpec,
  kind: ScheduleKind = 'validate',
): Promise<{ scheduleId: string; when: string }> {
  if (o.cron !== undefined && o.every !== undefined) throw new MigrationError(ErrorCode.USAGE, 'give --cron or --every, not both');
  const state = await openState(config);
  const tmp = await openTemporal(config);
  try {
    const planHash = await state.resolvePlan(plan);
    const id = scheduleIdFor(planHash, kind);
    const a = actionOf(kind, planHash);
    const when = o.every !== undefined ? { intervals: [{ every: o.every as never }] } : { cronExpressions: [o.cron ?? DEFAULT_CRON] };
    await createOnce(tmp, id, () =>
      tmp.client.schedule.create({
        scheduleId: id,
        spec: { ...when, timezone: o.timezone, jitter: o.jitter as never },
        action: {
          type: 'startWorkflow',
          workflowType: a.workflowType,
          workflowId: a.workflowId,
          args: [{ planHash, concurrency: o.concurrency }],
          taskQueue: tmp.taskQueue,
          typedSearchAttributes: [
            { key: SA.plan, value: planId(planHash) },
            { key: SA.status, value: 'pending' },
          ],
          staticSummary: a.summary,
        },
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: o.catchup as never },
        memo: { plan: planHash, kind },
        state: { paused: o.paused, note: `${kind === 'sync' ? 'sync' : 'validation'} of plan ${planHash}` },
      }),
    );
    return { scheduleId: id, when: o.every !== undefined ? `every ${o.every}` : `cron ${o.cron ?? DEFAULT_CRON} ${o.timezone}` };
  } finally {
    await state.close();
    await tmp.close();
  }
}

export interface ScheduleListing {
  readonly id: string;
  readonly paused: boolean;
  readonly plan: unknown;
  readonly next: string | undefined;
}

/** Every validation and sync schedule of the namespace. */
export async function listValidationSchedules(config: MigrateConfig): Promise<ScheduleListing[]> {
  const tmp = await openTemporal(config);
  try {
    const out: ScheduleListing[] = [];
    for await (const s of tmp.client.schedule.list()) {
      if (!s.scheduleId.startsWith('validate/') && !s.scheduleId.startsWith('sync/')) continue;
      out.push({ id: s.scheduleId, paused: s.state.paused, plan: s.memo?.plan, next: s.info.nextActionTimes[0]?.toISOString() });
    }
    return out;
  } finally {
    await tmp.close();
  }
}

export { SCHEDULE_ACTIONS };
export type { ScheduleAction };

export interface ScheduleDescription {
  readonly id: string;
  readonly paused: boolean;
  readonly note: string | undefined;
  readonly plan: unknown;
  readonly spec: unknown;
  readonly recent: { at: string; workflowId: string; runId: string }[];
  readonly next: string[];
}

/** `action` on the plan's schedule; `describe` returns what it found. No such schedule: USAGE. */
export async function scheduleAction(
  config: MigrateConfig,
  plan: string,
  action: ScheduleAction,
  kind: ScheduleKind = 'validate',
): Promise<{ scheduleId: string; description?: ScheduleDescription }> {
  const tmp = await openTemporal(config);
  const scheduleId = scheduleIdFor(plan, kind);
  try {
    const h = tmp.client.schedule.getHandle(scheduleId);
    const description = await tmp.deadline(CALL_MS, async (): Promise<ScheduleDescription | undefined> => {
      if (action === 'describe') {
        const d = await h.describe();
        const recent = d.info.recentActions.map((a) => ({
          at: a.takenAt.toISOString(),
          workflowId: a.action.workflow.workflowId,
          runId: a.action.workflow.firstExecutionRunId,
        }));
        return {
          id: d.scheduleId,
          paused: d.state.paused,
          note: d.state.note,
          plan: d.memo?.plan,
          spec: d.spec,
          recent,
          next: d.info.nextActionTimes.map((t) => t.toISOString()),
        };
      }
      if (action === 'pause') await h.pause('paused by migrate schedule pause');
      else if (action === 'unpause') await h.unpause('unpaused by migrate schedule unpause');
      else if (action === 'delete') await h.delete();
      else await h.trigger();
      return undefined;
    });
    return { scheduleId, ...(description !== undefined ? { description } : {}) };
  } catch (e) {
    if (e instanceof ScheduleNotFoundError)
      throw new MigrationError(ErrorCode.USAGE, `no schedule ${scheduleId} (create it with migrate schedule create)`);
    throw e;
  } finally {
    await tmp.close();
  }
}
