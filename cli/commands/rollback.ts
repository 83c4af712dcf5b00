// `migrate rollback <plan> --wave N`: undo one wave through rollbackWaveWorkflow. The plan and the
// wave are checked against the state store before anything starts.
import type { Command } from 'commander';
import { WorkflowFailedError } from '@temporalio/client';
import { ErrorCode, MigrationError } from '../../core/errors';
import { planId } from '../../workflows/index';
import { ExitCode } from '../exit-codes';
import { FLAG_RANGES, intFlag } from '../flags';
import { configOf } from '../output';
import type { IO } from '../output';
import { openState, openTemporal } from '../runtime';
import type { TemporalHandle } from '../runtime';
import { renderRollback, rollbackWave } from '../rollback-run';
import type { WaveRollback } from '../rollback-run';
import { temporalError, who } from './plan-workflow';

const HELP = `
Examples:
  migrate rollback 3f2a9c1b7d4e --wave 3
  migrate rollback 3f2a9c1b7d4e --wave 3 --force

A wave still applying is cancelled first (its tables in flight compensate), or with --wait-for-wave
waited for, up to --max-wait; then every table of the wave is rolled back. Data files are never deleted.
Exit codes: 0 every migrated table of the wave rolled back (or none was migrated); 1 a table was
refused, the wave did not end within --max-wait (ROLLBACK_REFUSED), the rollback workflow ended
without a result, Temporal or the state DB unreachable;
2 bad flag or configuration, unknown plan, or a wave the plan does not have (WAVE_UNKNOWN).`;

async function runRollback(tmp: TemporalHandle, planHash: string, wave: number, opts: RollbackOpts): Promise<WaveRollback> {
  try {
    return await rollbackWave(tmp, { planHash, wave, force: opts.force === true, by: who(), whileApplying: opts.waitForWave ? 'wait' : 'cancel', maxWaitMs: opts.maxWait * 1000 });
  } catch (e) {
    if (!(e instanceof WorkflowFailedError)) throw temporalError(e, tmp, `rollback of wave ${wave}`);
    const why = e.cause?.message ?? e.message;
    throw new MigrationError(ErrorCode.TEMPORAL_WORKFLOW_ENDED, `rollback workflow of wave ${wave} of plan ${planId(planHash)} ended without a result: ${why}`, { wave }, { cause: e });
  }
}

interface RollbackOpts {
  wave: number;
  force?: boolean;
  waitForWave?: boolean;
  maxWait: number;
  json?: boolean;
}

export function registerRollback(program: Command, io: IO): void {
  program
    .command('rollback')
    .description('undo one wave: unregister without purge, delete only our metadata, verify HMS equals the saved original')
    .argument('<plan>', 'plan id')
    .requiredOption('--wave <n>', 'wave number', intFlag('--wave', FLAG_RANGES.wave))
    .option('--force', 'drop tables even when they have Iceberg commits after ours (audited)')
    .option('--wait-for-wave', 'a wave still applying: wait for it to end instead of cancelling it first')
    .option('--max-wait <s>', `how long to wait for a wave still applying to end, in seconds (${FLAG_RANGES.timeoutSeconds.min}-${FLAG_RANGES.timeoutSeconds.max})`, intFlag('--max-wait', FLAG_RANGES.timeoutSeconds), 600)
    .option('--json', 'machine-readable output')
    .addHelpText('after', HELP)
    .action(async (plan: string, opts: RollbackOpts, cmd: Command) => {
      const config = configOf(cmd);
      const state = await openState(config);
      try {
        const planHash = await state.resolvePlan(plan);
        const waves = (await state.getPlan(planHash)).waves.map((w) => w.number);
        if (!waves.includes(opts.wave)) throw new MigrationError(ErrorCode.WAVE_UNKNOWN, `plan ${planId(planHash)} has no wave ${opts.wave} (its waves: ${waves.join(', ') || 'none'})`, { plan: planId(planHash), wave: opts.wave, waves });
        const tmp = await openTemporal(config);
        try {
          const r = await runRollback(tmp, planHash, opts.wave, opts);
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
