// `migrate rollback <plan> --wave N`: undo one wave through rollbackWaveWorkflow. The plan and the
// wave are checked against the state store before anything starts.
import type { Command } from 'commander';
import { WorkflowFailedError } from '@temporalio/client';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { RollbackResult } from '../../workflows/index';
import { planId, rollbackWaveWorkflow, SA } from '../../workflows/index';
import { ExitCode } from '../exit-codes';
import { FLAG_RANGES, intFlag } from '../flags';
import { configOf } from '../output';
import type { IO } from '../output';
import { openState, openTemporal } from '../runtime';
import type { TemporalHandle } from '../runtime';
import { temporalError, who } from './plan-workflow';

const HELP = `
Examples:
  migrate rollback 3f2a9c1b7d4e --wave 3
  migrate rollback 3f2a9c1b7d4e --wave 3 --force

Data files are never deleted.
Exit codes: 0 every migrated table of the wave rolled back (or none was migrated); 1 a table was
refused, the rollback workflow ended without a result, Temporal or the state DB unreachable;
2 bad flag or configuration, unknown plan, or a wave the plan does not have (WAVE_UNKNOWN).`;

async function runRollback(tmp: TemporalHandle, planHash: string, wave: number, force: boolean): Promise<RollbackResult> {
  const workflowId = `migrate/${planId(planHash)}/rollback-wave-${wave}-${Date.now()}`;
  try {
    return (await tmp.client.workflow.execute(rollbackWaveWorkflow, {
      taskQueue: tmp.taskQueue,
      workflowId,
      args: [{ planHash, wave, force, by: who() }],
      typedSearchAttributes: [{ key: SA.plan, value: planId(planHash) }, { key: SA.wave, value: wave }, { key: SA.status, value: 'rolling-back' }],
      staticSummary: `rollback of wave ${wave} of plan ${planId(planHash)}`,
    })) as RollbackResult;
  } catch (e) {
    if (!(e instanceof WorkflowFailedError)) throw temporalError(e, tmp, `rollback of wave ${wave}`);
    const why = e.cause?.message ?? e.message;
    throw new MigrationError(ErrorCode.TEMPORAL_WORKFLOW_ENDED, `rollback workflow ${workflowId} ended without a result: ${why}`, { workflowId, wave }, { cause: e });
  }
}

function renderRollback(r: RollbackResult): string {
  if (r.rolledBack.length === 0 && r.refused.length === 0) return `wave ${r.wave}: no migrated table to roll back\n`;
  return `wave ${r.wave}: rolled back ${r.rolledBack.length} table(s)${r.refused.length ? `; refused: ${r.refused.map((x) => `${x.tableId} (${x.code}: ${x.message})`).join('; ')}` : ''}\n`;
}

export function registerRollback(program: Command, io: IO): void {
  program
    .command('rollback')
    .description('undo one wave: unregister without purge, delete only our metadata, verify HMS equals the saved original')
    .argument('<plan>', 'plan id')
    .requiredOption('--wave <n>', 'wave number', intFlag('--wave', FLAG_RANGES.wave))
    .option('--force', 'drop tables even when they have Iceberg commits after ours (audited)')
    .option('--json', 'machine-readable output')
    .addHelpText('after', HELP)
    .action(async (plan: string, opts: { wave: number; force?: boolean; json?: boolean }, cmd: Command) => {
      const config = configOf(cmd);
      const state = await openState(config);
      try {
        const planHash = await state.resolvePlan(plan);
        const waves = (await state.getPlan(planHash)).waves.map((w) => w.number);
        if (!waves.includes(opts.wave)) throw new MigrationError(ErrorCode.WAVE_UNKNOWN, `plan ${planId(planHash)} has no wave ${opts.wave} (its waves: ${waves.join(', ') || 'none'})`, { plan: planId(planHash), wave: opts.wave, waves });
        const tmp = await openTemporal(config);
        try {
          const r = await runRollback(tmp, planHash, opts.wave, opts.force === true);
          io.out(opts.json ? `${JSON.stringify({ ok: r.refused.length === 0, ...r })}\n` : renderRollback(r));
          io.setExit(r.refused.length === 0 ? ExitCode.OK : ExitCode.FAILED);
        } finally {
          await tmp.close();
        }
      } finally {
        await state.close();
      }
    });
}
