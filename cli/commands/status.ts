// `migrate status <plan>`: where a plan is, and the outcome's exit code: 1 when the plan failed,
// was cancelled, ended without a result (failed, terminated, timed out), or a table failed that
// its --max-failed did not allow.
import type { Command } from 'commander';
import type { WorkflowHandle } from '@temporalio/client';
import type { MigrationStatus } from '../../workflows/index';
import { configOf } from '../output';
import type { IO } from '../output';
import { openTemporal } from '../runtime';
import type { TemporalHandle } from '../runtime';
import { outcomeJson, outcomeOf, planArg, planHandle, planInput, planStatus, renderStatus } from './plan-workflow';
import type { Outcome } from './plan-workflow';

const HELP = `
Examples:
  migrate status 3f2a9c1b7d4e -c migrate.yaml
  migrate status 3f2a9c1b7d4e --watch
  migrate status 3f2a9c1b7d4e --json

Exit codes: 0 running, waiting or succeeded with no failed table (or failures --max-failed allowed,
which the output says); 1 the plan failed or was cancelled, a table failed, the plan workflow ended
without a result (TEMPORAL_WORKFLOW_ENDED: failed, terminated, cancelled, timed out; --json:
error.context.status), no worker answers a running plan (TEMPORAL_NO_WORKER), Temporal unreachable;
2 bad configuration or unknown plan.`;

const ENDED: readonly string[] = ['succeeded', 'failed', 'cancelled'];

async function outcome(tmp: TemporalHandle, h: WorkflowHandle, s: MigrationStatus): Promise<Outcome> {
  const first = outcomeOf(s, 0);
  if (first.failedTables === 0 || s.state === 'failed' || s.state === 'cancelled') return first;
  // Failed tables in a plan that goes on: allowed only by the --max-failed it was applied with.
  return outcomeOf(s, (await planInput(tmp, h))?.maxFailedPerWave ?? 0);
}

export function registerStatus(program: Command, io: IO): void {
  program
    .command('status')
    .description('where a plan is: waves done, tables migrated/failed, what waits for approval')
    .argument('<plan>', 'plan id')
    .option('--json', 'machine-readable output')
    .option('--watch', 'refresh every 2 s until the plan ends')
    .addHelpText('after', HELP)
    .action(async (planText: string, opts: { json?: boolean; watch?: boolean }, cmd: Command) => {
      const plan = planArg(planText);
      const tmp = await openTemporal(configOf(cmd));
      try {
        const h = planHandle(tmp, plan);
        for (;;) {
          const s = await planStatus(tmp, h, plan);
          const o = await outcome(tmp, h, s);
          io.out(opts.json ? `${JSON.stringify({ ...s, ...outcomeJson(o) })}\n` : renderStatus(s, o));
          if (!opts.watch || ENDED.includes(s.state)) return io.setExit(o.exit);
          await new Promise((r) => setTimeout(r, 2000));
        }
      } finally {
        await tmp.close();
      }
    });
}
