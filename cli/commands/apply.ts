// `migrate apply`: store a reviewed plan file (hash checked) in the state store and start its
// workflow `migrate/<plan id>`; with --wait, the per-wave result and the outcome's exit code.
import type { Command } from 'commander';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { AuditAction } from '../../core/audit/chain';
import type { PlanFile } from '../../core/plan/plan-file';
import { migrationWorkflow, planId, SA } from '../../workflows/index';
import { ExitCode } from '../exit-codes';
import { actorOf } from '../identity';
import { readPlanForApply } from '../plan-input';
import { FLAG_RANGES, intFlag } from '../flags';
import { configOf } from '../output';
import type { IO } from '../output';
import { openState, openTemporal } from '../runtime';
import type { TemporalHandle } from '../runtime';
import { CALL_MS, migrationWorkflowId, outcomeJson, outcomeOf, planInput, planResult, renderStatus, temporalError } from './plan-workflow';

interface ApplyOpts {
  autoApprove?: boolean;
  wait?: boolean;
  concurrency: number;
  maxFailed: number;
  stepTimeout: number;
  heartbeatTimeout: number;
  json?: boolean;
}

const HELP = `
Examples:
  migrate apply plan.json -c migrate.yaml
  migrate apply plan.json --auto-approve --wait
  migrate apply plan.json --auto-approve --wait --max-failed 2   # up to 2 failed tables per wave are allowed

Exit codes: 0 started (or, with --wait, succeeded with no failed table, or with failures that
--max-failed allowed, which the output says); 1 with --wait, the plan failed, was cancelled or
ended without a result, or a table failed that --max-failed did not allow; Temporal or the state DB
unreachable; 2 bad flag, configuration, or a plan file that fails its size, schema, version, hash or
signature, or has no waves (PLAN_*).`;

/** Start the plan's workflow; false when it is already running (the same plan applied again attaches to it). */
async function startPlan(tmp: TemporalHandle, plan: PlanFile, opts: ApplyOpts): Promise<boolean> {
  try {
    await tmp.deadline(CALL_MS, () =>
      tmp.client.workflow.start(migrationWorkflow, {
        taskQueue: tmp.taskQueue,
        workflowId: migrationWorkflowId(plan.hash),
        args: [{ planHash: plan.hash, autoApprove: opts.autoApprove === true, concurrency: opts.concurrency, maxFailedPerWave: opts.maxFailed, timeouts: { stepSeconds: opts.stepTimeout, heartbeatSeconds: opts.heartbeatTimeout } }],
        typedSearchAttributes: [{ key: SA.plan, value: planId(plan.hash) }, { key: SA.status, value: 'running' }],
        staticSummary: `migration plan ${planId(plan.hash)} · ${plan.waves.length} waves`,
      }),
    );
    return true;
  } catch (e) {
    if (e instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw temporalError(e, tmp, `start ${migrationWorkflowId(plan.hash)}`);
  }
}

async function waitForPlan(tmp: TemporalHandle, plan: PlanFile, opts: ApplyOpts, started: boolean, ui: string | undefined, io: IO): Promise<void> {
  const h = tmp.client.workflow.getHandle(migrationWorkflowId(plan.hash));
  const result = await planResult(h);
  // Attached to a run started earlier: its own --max-failed counts, not this command line's.
  const maxFailed = started ? opts.maxFailed : ((await planInput(tmp, h))?.maxFailedPerWave ?? 0);
  const o = outcomeOf(result, maxFailed);
  io.out(opts.json ? `${JSON.stringify({ ...outcomeJson(o), result, ui })}\n` : `${renderStatus(result, o)}${ui ? `UI: ${ui}\n` : ''}`);
  io.setExit(o.exit);
}

export function registerApply(program: Command, io: IO): void {
  const t = FLAG_RANGES.timeoutSeconds;
  program
    .command('apply')
    .description('start migrating a reviewed plan file on Temporal (one workflow per plan, a child per wave)')
    .argument('<plan>', 'plan file written by migrate plan')
    .option('--auto-approve', 'do not wait for approval before each wave (demo)')
    .option('--wait', 'wait for the plan to finish and print the per-wave result')
    .option('--concurrency <n>', `tables migrating at once per wave (${FLAG_RANGES.tableConcurrency.min}-${FLAG_RANGES.tableConcurrency.max})`, intFlag('--concurrency', FLAG_RANGES.tableConcurrency), 8)
    .option('--max-failed <n>', 'failed tables a wave may have before the plan stops (0: any failure stops it and fails the plan)', intFlag('--max-failed', FLAG_RANGES.maxFailed), 0)
    .option('--step-timeout <s>', `deadline of one short step in seconds; a dead worker's step is retried after it (${t.min}-${t.max})`, intFlag('--step-timeout', t), 120)
    .option('--heartbeat-timeout <s>', `heartbeat deadline of every step in seconds (${t.min}-${t.max}): a killed worker's step is retried after it`, intFlag('--heartbeat-timeout', t), 20)
    .option('--json', 'machine-readable output')
    .addHelpText('after', HELP)
    .action(async (file: string, opts: ApplyOpts, cmd: Command) => {
      const config = configOf(cmd);
      // Size, UTF-8, schema, version, hash, signature (when plan.signing is configured), waves: exit 2.
      const { plan, signer } = readPlanForApply(file, config);
      const state = await openState(config);
      try {
        const tmp = await openTemporal(config);
        try {
          const { created } = await state.submitPlan(plan);
          const by = actorOf();
          if (created) await state.appendAudit({ at: new Date().toISOString(), actor: by.actor, actorSource: by.actorSource, action: AuditAction.PLAN_SUBMITTED, object: `plan:${plan.hash}`, planHash: plan.hash, beforeDigest: null, afterDigest: plan.hash, details: { waves: plan.waves.length, tables: plan.waves.reduce((n, w) => n + w.tables.length, 0), autoApprove: opts.autoApprove === true, signer } });
          const started = await startPlan(tmp, plan, opts);
          const workflowId = migrationWorkflowId(plan.hash);
          const ui = tmp.uiUrl === undefined ? undefined : `${tmp.uiUrl}/namespaces/${tmp.namespace}/workflows?query=${encodeURIComponent(`MigrationPlan="${planId(plan.hash)}"`)}`;
          if (opts.wait) return await waitForPlan(tmp, plan, opts, started, ui, io);
          io.out(opts.json ? `${JSON.stringify({ ok: true, plan: plan.hash, workflowId, started, ui })}\n` : `${started ? 'started' : 'already running'} ${workflowId}\n${ui ? `watch: ${ui}\n` : ''}next: migrate status ${planId(plan.hash)}${opts.autoApprove ? '' : ` · migrate approve ${planId(plan.hash)} --wave ${plan.waves[0]?.number ?? 1}`}\n`);
          io.setExit(ExitCode.OK);
        } finally {
          await tmp.close();
        }
      } finally {
        await state.close();
      }
    });
}
