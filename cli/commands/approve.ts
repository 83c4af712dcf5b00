// `migrate approve <plan> --wave N`: the plan workflow's `approve` update (app/apply/approve.ts),
// recorded in the audit log with who approved. Idempotent: a wave approved before (or already run)
// is "already approved".
import type { Command } from 'commander';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import { planId } from '../../core/plan/ids';
import type { Approval } from '../../app/apply/approve';
import { FLAG_RANGES, intFlag } from '../flags';
import { configOf, hint } from '../output';
import type { IO } from '../output';

const HELP = `
Examples:
  migrate approve 3f2a9c1b7d4e --wave 2
  MIGRATE_ACTOR=alice migrate approve 3f2a9c1b7d4e --wave 3 --json

Approving a wave twice, or a wave that already ran (also once the plan has ended), is "already
approved" (exit 0). Approving a
later wave early pre-approves it: it starts without asking once the waves before it have run.
${exitHelp('approve')}`;

function renderApproval(a: Approval, plan: string): string {
  const so = `approved so far: ${a.approved.join(', ') || 'none'}`;
  if (a.already) return `wave ${a.wave} of plan ${planId(plan)} was already approved (${so})\n`;
  if (a.preApproval)
    return `pre-approved wave ${a.wave} of plan ${planId(plan)}: it starts without asking once the waves before it have run (${so})\n`;
  return `approved wave ${a.wave} (${so})\nnext: ${hint(`migrate status ${planId(plan)}`)}\n`;
}

export function registerApprove(program: Command, io: IO): void {
  program
    .command('approve')
    .description('approve the next wave of a running plan (recorded in the audit log with who approved)')
    .argument('<plan>', 'plan id (first 12 hex of the hash) or full hash')
    .requiredOption('--wave <n>', 'wave number', intFlag('--wave', FLAG_RANGES.wave))
    .option('--json', 'machine-readable output')
    .addHelpText('after', HELP)
    .action(async (planText: string, opts: { wave: number; json?: boolean }, cmd: Command) => {
      const [{ approvePlanWave }, { planArg }] = await Promise.all([import('../../app/apply/approve'), import('../../app/status/status')]);
      const plan = planArg(planText);
      const a = await approvePlanWave(await configOf(cmd), plan, opts.wave);
      io.out(opts.json ? `${JSON.stringify({ ok: true, plan: planId(plan), ...a })}\n` : renderApproval(a, plan));
      io.setExit(ExitCode.OK);
    });
}
