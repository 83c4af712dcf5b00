// `migrate schedule create|list|describe|pause|unpause|delete|trigger`: the Temporal Schedules of a
// plan — nightlyValidationWorkflow (`validate/<plan id>`), or with --sync syncWorkflow
// (`sync/<plan id>`) (app/schedule/schedule.ts).
import type { Command } from 'commander';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import type { ScheduleDescription } from '../../app/schedule/schedule';
import type { ScheduleAction } from '../../app/schedule/actions';
import { SCHEDULE_ACTIONS } from '../../app/schedule/actions';
import { FLAG_RANGES, intFlag } from '../flags';
import { configOf } from '../output';
import type { IO } from '../output';

interface CreateOpts {
  cron?: string;
  every?: string;
  timezone: string;
  jitter: string;
  catchup: string;
  concurrency: number;
  paused?: boolean;
  sync?: boolean;
  json?: boolean;
}

const SYNC_FLAG = ['--sync', 'the sync schedule (syncWorkflow: migrate sync on a timer) instead of the nightly validation'] as const;
const kindOf = (o: { sync?: boolean }): 'sync' | 'validate' => (o.sync === true ? 'sync' : 'validate');

function registerCreate(schedule: Command, io: IO): void {
  schedule
    .command('create')
    .argument('<plan>', 'plan id or hash (must have been applied)')
    .option('--cron <expr>', 'cron expression (default "0 2 * * *": 02:00 every day)')
    .option('--every <duration>', 'an interval instead of cron, e.g. 12h, 30m')
    .option('--timezone <tz>', 'IANA time zone of the cron expression', 'UTC')
    .option('--jitter <duration>', 'random delay added to each run', '5m')
    .option('--catchup <duration>', 'how far back missed runs are still taken after an outage', '1h')
    .option(
      '--concurrency <n>',
      `tables checked (or synced) at once (${FLAG_RANGES.validateConcurrency.min}-${FLAG_RANGES.validateConcurrency.max})`,
      intFlag('--concurrency', FLAG_RANGES.validateConcurrency),
      16,
    )
    .option('--paused', 'create it paused')
    .option(...SYNC_FLAG)
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      '\nExamples:\n  migrate schedule create 3f2a9c1b7d4e -c migrate.yaml\n  migrate schedule create 3f2a9c1b7d4e --cron "30 1 * * 1-5" --timezone Europe/Berlin\n  migrate schedule create 3f2a9c1b7d4e --every 6h --jitter 10m\n  migrate schedule create 3f2a9c1b7d4e --sync --every 1h\n\nOverlap policy: skip (a run still going blocks the next).\n' +
        exitHelp('schedule create'),
    )
    .action(async (plan: string, opts: CreateOpts, cmd: Command) => {
      const paused = opts.paused === true;
      const { createValidationSchedule } = await import('../../app/schedule/schedule');
      const r = await createValidationSchedule(await configOf(cmd), plan, { ...opts, paused }, kindOf(opts));
      io.out(
        opts.json
          ? `${JSON.stringify({ ok: true, scheduleId: r.scheduleId, when: r.when, paused })}\n`
          : `created schedule ${r.scheduleId} (${r.when})${paused ? ', paused' : ''}\n`,
      );
      io.setExit(ExitCode.OK);
    });
}

function registerList(schedule: Command, io: IO): void {
  schedule
    .command('list')
    .option('--json', 'machine-readable output')
    .addHelpText('after', `\n${exitHelp('schedule list')}`)
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { listValidationSchedules } = await import('../../app/schedule/schedule');
      const out = await listValidationSchedules(await configOf(cmd));
      io.out(
        opts.json
          ? `${JSON.stringify(out)}\n`
          : out.map((s) => `${s.id}${s.paused ? ' (paused)' : ''} next ${s.next ?? '-'}\n`).join('') || 'no validation or sync schedules\n',
      );
      io.setExit(ExitCode.OK);
    });
}

function renderDescription(info: ScheduleDescription): string {
  const recent = info.recent.map((r) => `${r.at} ${r.runId}`).join(', ') || 'none';
  return `${info.id}${info.paused ? ' (paused)' : ''}\n  plan ${String(info.plan)}\n  next ${info.next[0] ?? '-'}\n  recent runs: ${recent}\n`;
}

function registerActions(schedule: Command, io: IO): void {
  for (const [name, what] of Object.entries(SCHEDULE_ACTIONS) as [ScheduleAction, string][]) {
    schedule
      .command(name)
      .description(what)
      .argument('<plan>', 'plan id or hash')
      .option(...SYNC_FLAG)
      .option('--json', 'machine-readable output')
      .addHelpText('after', `\n${exitHelp(`schedule ${name}`)}`)
      .action(async (plan: string, opts: { json?: boolean; sync?: boolean }, cmd: Command) => {
        const { scheduleAction } = await import('../../app/schedule/schedule');
        const r = await scheduleAction(await configOf(cmd), plan, name, kindOf(opts));
        if (r.description !== undefined) io.out(opts.json ? `${JSON.stringify(r.description)}\n` : renderDescription(r.description));
        else io.out(opts.json ? `${JSON.stringify({ ok: true, action: name, scheduleId: r.scheduleId })}\n` : `${name}: ${r.scheduleId}\n`);
        io.setExit(ExitCode.OK);
      });
  }
}

export function registerSchedule(program: Command, io: IO): void {
  const schedule = program
    .command('schedule')
    .description('the nightly validation (or, with --sync, the sync) schedule of a plan (a Temporal Schedule)');
  registerCreate(schedule, io);
  registerList(schedule, io);
  registerActions(schedule, io);
}
