// `migrate apply`: store a reviewed plan file (hash checked) in the state store and start its
// workflow `migrate/<plan id>` (app/apply/apply.ts); with --wait, the per-wave result and the outcome's
// exit code.
import type { Command } from 'commander';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import { planId } from '../../core/plan/ids';
import type { Applied } from '../../app/apply/apply';
import type { ProgressEvent } from '../../core/apply/progress';
import { progressLine } from '../../core/apply/progress';
import { FLAG_RANGES, intFlag } from '../flags';
import { configOf, hint } from '../output';
import type { IO } from '../output';
import { outcomeJson, renderStatus } from '../render-status';

interface ApplyOpts {
  autoApprove?: boolean;
  wait?: boolean;
  concurrency: number;
  tablesPerActivity: number;
  maxFailed: number;
  stepTimeout: number;
  heartbeatTimeout: number;
  acceptStale?: boolean;
  json?: boolean;
}

const HELP = `
Examples:
  migrate apply plan.json -c migrate.yaml
  migrate apply plan.json --auto-approve --wait
  migrate apply plan.json --auto-approve --wait --max-failed 2   # up to 2 failed tables per wave are allowed
  migrate apply plan.json --wait --json 2> progress.jsonl        # events as JSON lines on stderr, the result on stdout
  migrate apply plan.json                                        # again after it succeeded: a no-op (exit 0), no new run
  migrate apply plan.json --accept-stale --max-failed 10         # a stale plan (PLAN_STALE) anyway: its stale tables fail on their own
  migrate apply plan.json --concurrency 32 --tables-per-activity 8   # a large wave: 8 tables per activity, 32 in flight

${exitHelp('apply')}`;

export function registerApply(program: Command, io: IO): void {
  const t = FLAG_RANGES.timeoutSeconds;
  program
    .command('apply')
    .description('start migrating a reviewed plan file on Temporal (one workflow per plan, a child per wave)')
    .argument('<plan>', 'plan file written by migrate plan')
    .option('--auto-approve', 'do not wait for approval before each wave (demo)')
    .option(
      '--wait',
      'wait for the plan to finish, print each wave, approval and table outcome on stderr as it happens, then the per-wave result',
    )
    .option(
      '--concurrency <n>',
      `tables migrating at once per wave (${FLAG_RANGES.tableConcurrency.min}-${FLAG_RANGES.tableConcurrency.max})`,
      intFlag('--concurrency', FLAG_RANGES.tableConcurrency),
      8,
    )
    .option(
      '--tables-per-activity <n>',
      `tables one apply activity takes through their steps at once (${FLAG_RANGES.tablesPerActivity.min}-${FLAG_RANGES.tablesPerActivity.max}); 1 = each table in its own table workflow (the Temporal UI lists each table), more = batches, only a view, a rewrite-path table or a transient failure gets its own`,
      intFlag('--tables-per-activity', FLAG_RANGES.tablesPerActivity),
      1,
    )
    .option(
      '--max-failed <n>',
      'failed tables a wave may have before the plan stops (0: any failure stops it and fails the plan)',
      intFlag('--max-failed', FLAG_RANGES.maxFailed),
      0,
    )
    .option(
      '--step-timeout <s>',
      `deadline of one short step in seconds; a dead worker's step is retried after it (${t.min}-${t.max})`,
      intFlag('--step-timeout', t),
      120,
    )
    .option(
      '--heartbeat-timeout <s>',
      `heartbeat deadline of every step in seconds (${t.min}-${t.max}): a killed worker's step is retried after it`,
      intFlag('--heartbeat-timeout', t),
      20,
    )
    .option(
      '--accept-stale',
      'start even when the pre-check finds tables dropped or changed in HMS, or their targets registered, since the plan was made (those tables fail on their own)',
    )
    .option('--json', 'machine-readable output')
    .addHelpText('after', HELP)
    .action(async (file: string, opts: ApplyOpts, cmd: Command) => {
      const { applyPlan } = await import('../../app/apply/apply');
      const r = await applyPlan(await configOf(cmd), file, {
        autoApprove: opts.autoApprove === true,
        wait: opts.wait === true,
        concurrency: opts.concurrency,
        tablesPerActivity: opts.tablesPerActivity,
        maxFailed: opts.maxFailed,
        stepTimeout: opts.stepTimeout,
        heartbeatTimeout: opts.heartbeatTimeout,
        acceptStale: opts.acceptStale === true,
        ...(opts.wait === true ? { onProgress: progressTo(io, opts.json === true) } : {}),
      });
      const stale = r.staleCheck?.stale ?? [];
      if (stale.length > 0 && opts.json !== true)
        io.err(
          `warning: --accept-stale: started with ${stale.length} stale finding(s):\n${stale.map((s) => `  ${s.tableId}: ${s.reason}: ${s.detail}`).join('\n')}\n`,
        );
      io.out(renderApplied(r, opts.json === true, opts.autoApprove === true));
      io.setExit(r.ended?.outcome.exit ?? ExitCode.OK);
    });
}

/**
 * `--wait`: what happens while it waits goes to stderr, a line per event (JSON lines with --json), so
 * stdout keeps only the result: a wave starts, a wave waits for approval (with the command that
 * approves it), each table's outcome, a wave ends.
 */
function progressTo(io: IO, json: boolean): (e: ProgressEvent) => void {
  return (e) => {
    if (json) io.err(`${JSON.stringify(e)}\n`);
    else io.err(`${progressLine(e, (plan, wave) => hint(`migrate approve ${plan} --wave ${wave}`))}\n`);
  };
}

function renderApplied(r: Applied, json: boolean, autoApprove: boolean): string {
  const { plan, ui } = r;
  if (r.alreadySucceeded !== undefined) {
    const { closedAt } = r.alreadySucceeded;
    if (json)
      return `${JSON.stringify({ ok: true, plan: plan.hash, workflowId: r.workflowId, started: false, alreadySucceeded: true, closedAt, ui })}\n`;
    return `plan ${planId(plan.hash)} already succeeded (${r.workflowId} completed${closedAt ? ` ${closedAt}` : ''}); nothing to apply, no new run started\nsee: ${hint(`migrate status ${planId(plan.hash)}`)}\n`;
  }
  if (r.ended !== undefined) {
    const { result, outcome } = r.ended;
    return json
      ? `${JSON.stringify({ ...outcomeJson(outcome), result, ui, ...staleJson(r) })}\n`
      : `${renderStatus(result, outcome)}${ui ? `UI: ${ui}\n` : ''}`;
  }
  if (json) return `${JSON.stringify({ ok: true, plan: plan.hash, workflowId: r.workflowId, started: r.started, ui, ...staleJson(r) })}\n`;
  const approve = autoApprove ? '' : ` · ${hint(`migrate approve ${planId(plan.hash)} --wave ${plan.waves[0]?.number ?? 1}`)}`;
  return `${r.started ? 'started' : 'already running'} ${r.workflowId}\n${ui ? `watch: ${ui}\n` : ''}next: ${hint(`migrate status ${planId(plan.hash)}`)}${approve}\n`;
}

/** The pre-check in --json: tables checked, its wall time, and with --accept-stale what it accepted. */
function staleJson(r: Applied): Record<string, unknown> {
  const c = r.staleCheck;
  return c === undefined ? {} : { staleCheck: { checked: c.checked, ms: c.ms, stale: c.stale } };
}
