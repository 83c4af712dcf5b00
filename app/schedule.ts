// The nightly validation of a plan as a Temporal Schedule (`validate/<plan id>` runs
// nightlyValidationWorkflow): create, list, describe, pause, unpause, delete, trigger.
import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import type { MigrateConfig } from '../core/config/schema';
import { ErrorCode, MigrationError } from '../core/errors';
import { planId } from '../core/plan/ids';
import { nightlyValidationWorkflow, SA } from '../workflows/index';
import { openState, openTemporal } from './runtime';
import type { TemporalHandle } from './runtime';
import { SCHEDULE_ACTIONS } from './schedule-actions';
import type { ScheduleAction } from './schedule-actions';

const CALL_MS = 30_000;
const DEFAULT_CRON = '0 2 * * *';

export const scheduleIdFor = (planHash: string): string => `validate/${planId(planHash)}`;

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
): Promise<{ scheduleId: string; when: string }> {
  if (o.cron !== undefined && o.every !== undefined) throw new MigrationError(ErrorCode.USAGE, 'give --cron or --every, not both');
  const state = await openState(config);
  const tmp = await openTemporal(config);
  try {
    const planHash = await state.resolvePlan(plan);
    const id = scheduleIdFor(planHash);
    const when = o.every !== undefined ? { intervals: [{ every: o.every as never }] } : { cronExpressions: [o.cron ?? DEFAULT_CRON] };
    await createOnce(tmp, id, () =>
      tmp.client.schedule.create({
        scheduleId: id,
        spec: { ...when, timezone: o.timezone, jitter: o.jitter as never },
        action: {
          type: 'startWorkflow',
          workflowType: nightlyValidationWorkflow,
          workflowId: `validate/${planId(planHash)}/run`,
          args: [{ planHash, concurrency: o.concurrency }],
          taskQueue: tmp.taskQueue,
          typedSearchAttributes: [
            { key: SA.plan, value: planId(planHash) },
            { key: SA.status, value: 'pending' },
          ],
          staticSummary: `nightly validation of plan ${planId(planHash)}`,
        },
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: o.catchup as never },
        memo: { plan: planHash },
        state: { paused: o.paused, note: `validation of plan ${planHash}` },
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

/** Every validation schedule of the namespace. */
export async function listValidationSchedules(config: MigrateConfig): Promise<ScheduleListing[]> {
  const tmp = await openTemporal(config);
  try {
    const out: ScheduleListing[] = [];
    for await (const s of tmp.client.schedule.list()) {
      if (!s.scheduleId.startsWith('validate/')) continue;
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
): Promise<{ scheduleId: string; description?: ScheduleDescription }> {
  const tmp = await openTemporal(config);
  const scheduleId = `validate/${plan.slice(0, 12)}`;
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
