// `migrate schedule create|list|describe|pause|unpause|delete|trigger`: the Temporal Schedule that
// runs nightlyValidationWorkflow for a plan.
import type { Command } from 'commander';
import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import { ErrorCode, MigrationError } from '../../core/errors';
import { nightlyValidationWorkflow, planId, SA } from '../../workflows/index';
import { ExitCode } from '../exit-codes';
import { FLAG_RANGES, intFlag } from '../flags';
import { configOf } from '../output';
import type { IO } from '../output';
import { openState, openTemporal } from '../runtime';
import type { TemporalHandle } from '../runtime';

const cfg = configOf;
const CALL_MS = 30_000;

export const scheduleIdFor = (planHash: string): string => `validate/${planId(planHash)}`;

/** Create a schedule; one that exists already is a usage error (describe, delete or trigger it instead). */
async function createSchedule(tmp: TemporalHandle, id: string, create: () => Promise<unknown>): Promise<void> {
  try {
    await tmp.deadline(CALL_MS, create);
  } catch (e) {
    if (e instanceof ScheduleAlreadyRunning) throw new MigrationError(ErrorCode.USAGE, `schedule ${id} exists already (migrate schedule describe|delete)`, { scheduleId: id });
    throw e;
  }
}

function registerCreate(schedule: Command, io: IO): void {
  schedule
    .command('create')
    .argument('<plan>', 'plan id or hash (must have been applied)')
    .option('--cron <expr>', 'cron expression (default "0 2 * * *": 02:00 every day)')
    .option('--every <duration>', 'an interval instead of cron, e.g. 12h, 30m')
    .option('--timezone <tz>', 'IANA time zone of the cron expression', 'UTC')
    .option('--jitter <duration>', 'random delay added to each run', '5m')
    .option('--catchup <duration>', 'how far back missed runs are still taken after an outage', '1h')
    .option('--concurrency <n>', `tables checked at once (${FLAG_RANGES.validateConcurrency.min}-${FLAG_RANGES.validateConcurrency.max})`, intFlag('--concurrency', FLAG_RANGES.validateConcurrency), 16)
    .option('--paused', 'create it paused')
    .option('--json', 'machine-readable output')
    .addHelpText('after', '\nExamples:\n  migrate schedule create 3f2a9c1b7d4e -c migrate.yaml\n  migrate schedule create 3f2a9c1b7d4e --cron "30 1 * * 1-5" --timezone Europe/Berlin\n  migrate schedule create 3f2a9c1b7d4e --every 6h --jitter 10m\n\nOverlap policy: skip (a run still going blocks the next).\nExit codes: 0 created; 1 Temporal or the state DB unreachable; 2 bad flag or configuration, unknown plan, or the schedule exists.')
    .action(async (plan: string, opts: { cron?: string; every?: string; timezone: string; jitter: string; catchup: string; concurrency: number; paused?: boolean; json?: boolean }, cmd: Command) => {
      const config = cfg(cmd);
      if (opts.cron !== undefined && opts.every !== undefined) throw new MigrationError(ErrorCode.USAGE, 'give --cron or --every, not both');
      const state = await openState(config);
      const tmp = await openTemporal(config);
      try {
        const planHash = await state.resolvePlan(plan);
        const id = scheduleIdFor(planHash);
        await createSchedule(tmp, id, () =>
          tmp.client.schedule.create({
            scheduleId: id,
            spec: { ...(opts.every !== undefined ? { intervals: [{ every: opts.every as never }] } : { cronExpressions: [opts.cron ?? '0 2 * * *'] }), timezone: opts.timezone, jitter: opts.jitter as never },
            action: {
              type: 'startWorkflow',
              workflowType: nightlyValidationWorkflow,
              workflowId: `validate/${planId(planHash)}/run`,
              args: [{ planHash, concurrency: opts.concurrency }],
              taskQueue: tmp.taskQueue,
              typedSearchAttributes: [{ key: SA.plan, value: planId(planHash) }, { key: SA.status, value: 'pending' }],
              staticSummary: `nightly validation of plan ${planId(planHash)}`,
            },
            policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: opts.catchup as never },
            memo: { plan: planHash },
            state: { paused: opts.paused === true, note: `validation of plan ${planHash}` },
          }),
        );
        const when = opts.every !== undefined ? `every ${opts.every}` : `cron ${opts.cron ?? '0 2 * * *'} ${opts.timezone}`;
        io.out(opts.json ? `${JSON.stringify({ ok: true, scheduleId: id, when, paused: opts.paused === true })}\n` : `created schedule ${id} (${when})${opts.paused ? ', paused' : ''}\n`);
        io.setExit(ExitCode.OK);
      } finally {
        await state.close();
        await tmp.close();
      }
    });

}

function registerList(schedule: Command, io: IO): void {
  schedule
    .command('list')
    .option('--json', 'machine-readable output')
    .addHelpText('after', '\nExit codes: 0 ok; 1 Temporal unreachable; 2 bad configuration.')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const tmp = await openTemporal(cfg(cmd));
      try {
        const out: { id: string; paused: boolean; plan: unknown; next: string | undefined }[] = [];
        for await (const s of tmp.client.schedule.list()) {
          if (!s.scheduleId.startsWith('validate/')) continue;
          out.push({ id: s.scheduleId, paused: s.state.paused, plan: s.memo?.plan, next: s.info.nextActionTimes[0]?.toISOString() });
        }
        io.out(opts.json ? `${JSON.stringify(out)}\n` : out.map((s) => `${s.id}${s.paused ? ' (paused)' : ''} next ${s.next ?? '-'}\n`).join('') || 'no validation schedules\n');
        io.setExit(ExitCode.OK);
      } finally {
        await tmp.close();
      }
    });

}

function registerActions(schedule: Command, io: IO): void {
  for (const [name, what] of [['describe', 'show the schedule, its state and recent runs'], ['pause', 'stop firing until unpaused'], ['unpause', 'fire again'], ['delete', 'remove the schedule (runs and results stay)'], ['trigger', 'start a run now (skipped if one is running)']] as const) {
    schedule
      .command(name)
      .description(what)
      .argument('<plan>', 'plan id or hash')
      .option('--json', 'machine-readable output')
      .addHelpText('after', '\nExit codes: 0 ok; 1 Temporal unreachable; 2 bad configuration or no such schedule.')
      .action(async (plan: string, opts: { json?: boolean }, cmd: Command) => {
        const tmp = await openTemporal(cfg(cmd));
        try {
          const h = tmp.client.schedule.getHandle(`validate/${plan.slice(0, 12)}`);
          await tmp.deadline(CALL_MS, async () => {
            if (name === 'describe') {
              const d = await h.describe();
              const info = { id: d.scheduleId, paused: d.state.paused, note: d.state.note, plan: d.memo?.plan, spec: d.spec, recent: d.info.recentActions.map((a) => ({ at: a.takenAt.toISOString(), workflowId: a.action.workflow.workflowId, runId: a.action.workflow.firstExecutionRunId })), next: d.info.nextActionTimes.map((t) => t.toISOString()) };
              io.out(opts.json ? `${JSON.stringify(info)}\n` : `${info.id}${info.paused ? ' (paused)' : ''}\n  plan ${String(info.plan)}\n  next ${info.next[0] ?? '-'}\n  recent runs: ${info.recent.map((r) => `${r.at} ${r.runId}`).join(', ') || 'none'}\n`);
            } else if (name === 'pause') await h.pause(`paused by migrate schedule pause`);
            else if (name === 'unpause') await h.unpause('unpaused by migrate schedule unpause');
            else if (name === 'delete') await h.delete();
            else await h.trigger();
          });
          if (name !== 'describe') io.out(opts.json ? `${JSON.stringify({ ok: true, action: name, scheduleId: `validate/${plan.slice(0, 12)}` })}\n` : `${name}: validate/${plan.slice(0, 12)}\n`);
          io.setExit(ExitCode.OK);
        } catch (e) {
          if (e instanceof ScheduleNotFoundError) throw new MigrationError(ErrorCode.USAGE, `no schedule validate/${plan.slice(0, 12)} (create it with migrate schedule create)`);
          throw e;
        } finally {
          await tmp.close();
        }
      });
  }
}

export function registerSchedule(program: Command, io: IO): void {
  const schedule = program.command('schedule').description('the nightly validation schedule of a plan (a Temporal Schedule)');
  registerCreate(schedule, io);
  registerList(schedule, io);
  registerActions(schedule, io);
}
