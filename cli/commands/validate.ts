// `migrate validate` (the nightly checks on demand, in this process) and `migrate schedule …`
// (a Temporal Schedule that runs nightlyValidationWorkflow for a plan). Exit codes of validate:
// 0 clean, 3 drift found, 1 a check could not run.
import type { IcebergCatalog } from '../../core/catalog/catalog';
import type { Command } from 'commander';
import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import type { TemporalHandle } from '../runtime';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { ValidationRow } from '../../core/validate/drift';
import { runStatus } from '../../core/validate/drift';
import { mapOrdered } from '../../activities/convert/ordered-pool';
import { checkTableDrift } from '../../activities/validate/drift-check';
import { nightlyValidationWorkflow, planId, SA } from '../../workflows/index';
import { loadConfig } from '../config';
import { ExitCode } from '../exit-codes';
import { FLAG_RANGES, intFlag, intListFlag } from '../flags';
import { openCatalog, openHmsReader, openState, openStores, openTemporal, toolVersion } from '../runtime';

type IO = { out: (s: string) => void; err: (s: string) => void; setExit: (c: number) => void };
const cfg = (cmd: Command) => {
  const g = cmd.optsWithGlobals<{ config?: string; set: string[] }>();
  return loadConfig({ file: g.config, env: process.env, sets: g.set, cwd: process.cwd() }).config;
};
const collect = (v: string, prev: string[]): string[] => [...prev, v];
const CALL_MS = 30_000;

/** Create a schedule; one that exists already is a usage error (describe, delete or trigger it instead). */
async function createSchedule(tmp: TemporalHandle, id: string, create: () => Promise<unknown>): Promise<void> {
  try {
    await tmp.deadline(CALL_MS, create);
  } catch (e) {
    if (e instanceof ScheduleAlreadyRunning) throw new MigrationError(ErrorCode.USAGE, `schedule ${id} exists already (migrate schedule describe|delete)`, { scheduleId: id });
    throw e;
  }
}

export const scheduleIdFor = (planHash: string): string => `validate/${planId(planHash)}`;

function renderRows(rows: readonly ValidationRow[]): string {
  const bad = rows.filter((r) => r.status !== 'ok');
  const tables = new Set(rows.map((r) => r.table));
  const lines = [`${runStatus(rows)}: ${tables.size} table(s), ${rows.length} checks, ${bad.filter((r) => r.status === 'drift').length} drift, ${bad.filter((r) => r.status === 'failed').length} failed`];
  for (const r of bad) lines.push(`  ${r.status.padEnd(6)} ${r.table}  ${r.check}  ${r.code}  ${r.actual}`);
  return `${lines.join('\n')}\n`;
}

export function registerValidation(program: Command, io: IO): void {
  program
    .command('validate')
    .description('check migrated tables for drift now (same checks as the nightly schedule)')
    .argument('<plan>', 'plan id (first 12 hex of the hash) or full hash')
    .option('--wave <n>', 'only this wave (repeatable)', intListFlag('--wave', FLAG_RANGES.wave), [] as number[])
    .option('--table <db.t>', 'only this table (repeatable)', collect, [])
    .option('--concurrency <n>', `tables checked at once (${FLAG_RANGES.validateConcurrency.min}-${FLAG_RANGES.validateConcurrency.max})`, intFlag('--concurrency', FLAG_RANGES.validateConcurrency), 8)
    .option('--json', 'every result row as JSON')
    .addHelpText('after', '\nExamples:\n  migrate validate 3f2a9c1b7d4e -c migrate.yaml\n  migrate validate 3f2a9c1b7d4e --wave 2 --table sales.orders --json\n\nExit codes: 0 clean, 3 drift found, 1 a check could not run, 2 bad input.')
    .action(async (plan: string, opts: { wave: number[]; table: string[]; concurrency: number; json?: boolean }, cmd: Command) => {
      const config = cfg(cmd);
      const state = await openState(config);
      const hms = openHmsReader(config);
      const stores = openStores(config);
      let catalog: IcebergCatalog | undefined;
      try {
        catalog = await openCatalog(config, process.env, stores);
        const planHash = await state.resolvePlan(plan);
        const p = await state.getPlan(planHash);
        const recs = (await state.listTables(planHash)).filter((t) => t.status === 'migrated' && (opts.wave.length === 0 || opts.wave.includes(t.wave)) && (opts.table.length === 0 || opts.table.includes(t.tableId)));
        if (recs.length === 0) throw new MigrationError(ErrorCode.USAGE, `no migrated table of plan ${planId(planHash)} matches the scope`);
        const runId = `${planId(planHash)}-cli-${Date.now()}`;
        const rows: ValidationRow[] = [];
        const deps = { hms, catalog, storeFor: stores.storeFor, namespacePrefix: config.catalog?.namespacePrefix ?? '', toolVersion: toolVersion() };
        for await (const r of mapOrdered(recs, opts.concurrency, (rec) => checkTableDrift(deps, p, rec, runId, () => new Date()))) rows.push(...r);
        io.out(opts.json ? `${JSON.stringify({ ok: runStatus(rows) === 'validated', status: runStatus(rows), rows }, null, 2)}\n` : renderRows(rows));
        const s = runStatus(rows);
        io.setExit(s === 'validated' ? ExitCode.OK : s === 'drifted' ? ExitCode.DRIFT : ExitCode.FAILED);
      } finally {
        await catalog?.close?.();
        await state.close();
        await hms.close();
        stores.close();
      }
    });

  const schedule = program.command('schedule').description('the nightly validation schedule of a plan (a Temporal Schedule)');
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
