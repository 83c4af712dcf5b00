// `migrate status <plan>`: where a plan is (app/status.ts), and the outcome's exit code: 1 when the
// plan failed, was cancelled, ended without a result (failed, terminated, timed out), or a table
// failed that its --max-failed did not allow.
import { exitHelp } from '../../core/exit-codes';
import type { Command } from 'commander';
import { configOf } from '../output';
import type { IO } from '../output';
import { outcomeJson, renderCutover, renderStatus } from '../render-status';

const HELP = `
Examples:
  migrate status 3f2a9c1b7d4e -c migrate.yaml
  migrate status 3f2a9c1b7d4e --watch
  migrate status 3f2a9c1b7d4e --json

${exitHelp('status')}`;

export function registerStatus(program: Command, io: IO): void {
  program
    .command('status')
    .description('where a plan is: waves done, tables migrated/failed, what waits for approval')
    .argument('<plan>', 'plan id')
    .option('--json', 'machine-readable output')
    .option('--watch', 'refresh every 2 s until the plan ends')
    .addHelpText('after', HELP)
    .action(async (planText: string, opts: { json?: boolean; watch?: boolean }, cmd: Command) => {
      const { planArg, watchPlan } = await import('../../app/status');
      const plan = planArg(planText);
      const last = await watchPlan(await configOf(cmd), plan, { watch: opts.watch === true }, ({ status, outcome, cutover }) => {
        const cut = cutover === undefined ? {} : { cutover };
        io.out(
          opts.json
            ? `${JSON.stringify({ ...status, ...outcomeJson(outcome), ...cut })}\n`
            : renderStatus(status, outcome) + renderCutover(cutover),
        );
      });
      io.setExit(last.outcome.exit);
    });
}
