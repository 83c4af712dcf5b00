// `migrate pause|resume|cancel <plan>`: signals to a running plan workflow (app/status/status.ts). An
// unknown plan is a usage error and a finished one PLAN_FINISHED (exit 2), both checked before the
// signal is sent.
import type { Command } from 'commander';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import type { PlanSignal } from '../../app/status/signals';
import { PLAN_SIGNAL_HELP } from '../../app/status/signals';
import { configOf, hint } from '../output';
import type { IO } from '../output';

const help = (name: string): string => `
Examples:
  migrate ${name} 3f2a9c1b7d4e -c migrate.yaml
  migrate ${name} 3f2a9c1b7d4e --json

${exitHelp(name)}`;

export function registerSignals(program: Command, io: IO): void {
  for (const [name, what] of Object.entries(PLAN_SIGNAL_HELP) as [PlanSignal, string][]) {
    program
      .command(name)
      .description(what)
      .argument('<plan>', 'plan id')
      .option('--json', 'machine-readable output')
      .addHelpText('after', help(name))
      .action(async (planText: string, opts: { json?: boolean }, cmd: Command) => {
        const { planArg, signalPlan } = await import('../../app/status/status');
        const r = await signalPlan(await configOf(cmd), planArg(planText), name);
        io.out(
          opts.json
            ? `${JSON.stringify({ ok: true, signal: name, ...r })}\n`
            : `${name}: sent to ${r.workflowId}\nnext: ${hint(`migrate status ${r.plan}`)}\n`,
        );
        io.setExit(ExitCode.OK);
      });
  }
}
