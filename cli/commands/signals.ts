// `migrate pause|resume|cancel <plan>`: signals to a running plan workflow. An unknown plan is a
// usage error and a finished one PLAN_FINISHED (exit 2), both checked before the signal is sent.
import type { Command } from 'commander';
import { WorkflowNotFoundError } from '@temporalio/client';
import { cancelSignal, pauseSignal, planId, resumeSignal } from '../../workflows/index';
import { ExitCode } from '../exit-codes';
import { configOf } from '../output';
import type { IO } from '../output';
import { openTemporal } from '../runtime';
import { CALL_MS, planArg, planHandle, requireRunning, temporalError, unknownPlan } from './plan-workflow';

const SIGNALS = [
  ['pause', pauseSignal, 'pause before the next wave starts'],
  ['resume', resumeSignal, 'resume a paused plan'],
  ['cancel', cancelSignal, 'stop the plan before the next wave (running waves finish)'],
] as const;

const help = (name: string): string => `
Examples:
  migrate ${name} 3f2a9c1b7d4e -c migrate.yaml
  migrate ${name} 3f2a9c1b7d4e --json

Exit codes: 0 sent; 1 Temporal unreachable; 2 bad configuration, unknown plan (never applied), or a
plan that has already finished (PLAN_FINISHED).`;

export function registerSignals(program: Command, io: IO): void {
  for (const [name, signal, what] of SIGNALS) {
    program
      .command(name)
      .description(what)
      .argument('<plan>', 'plan id')
      .option('--json', 'machine-readable output')
      .addHelpText('after', help(name))
      .action(async (planText: string, opts: { json?: boolean }, cmd: Command) => {
        const plan = planArg(planText);
        const tmp = await openTemporal(configOf(cmd));
        try {
          const h = planHandle(tmp, plan);
          await requireRunning(tmp, h, plan, name);
          try {
            await tmp.deadline(CALL_MS, () => h.signal(signal));
          } catch (e) {
            if (!(e instanceof WorkflowNotFoundError)) throw temporalError(e, tmp, `${name} ${h.workflowId}`);
            await requireRunning(tmp, h, plan, name); // it ended meanwhile: PLAN_FINISHED
            throw unknownPlan(plan);
          }
          io.out(opts.json ? `${JSON.stringify({ ok: true, signal: name, plan: planId(plan), workflowId: h.workflowId })}\n` : `${name}: sent to ${h.workflowId}\nnext: migrate status ${planId(plan)}\n`);
          io.setExit(ExitCode.OK);
        } finally {
          await tmp.close();
        }
      });
  }
}
