// `migrate rollback <plan> --wave N`: undo one wave through rollbackWaveWorkflow (app/rollback.ts).
// The plan and the wave are checked against the state store before anything starts.
import type { Command } from 'commander';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import type { WaveRollback } from '../../app/rollback';
import { FLAG_RANGES, intFlag } from '../flags';
import { configOf } from '../output';
import type { IO } from '../output';

const HELP = `
Examples:
  migrate rollback 3f2a9c1b7d4e --wave 3
  migrate rollback 3f2a9c1b7d4e --wave 3 --force

A wave still applying is cancelled first (its tables in flight compensate), or with --wait-for-wave
waited for, up to --max-wait; then every table of the wave is rolled back. Data files are never deleted.
${exitHelp('rollback')}`;

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
    .option(
      '--max-wait <s>',
      `how long to wait for a wave still applying to end, in seconds (${FLAG_RANGES.timeoutSeconds.min}-${FLAG_RANGES.timeoutSeconds.max})`,
      intFlag('--max-wait', FLAG_RANGES.timeoutSeconds),
      600,
    )
    .option('--json', 'machine-readable output')
    .addHelpText('after', HELP)
    .action(async (plan: string, opts: RollbackOpts, cmd: Command) => {
      const { rollbackPlanWave } = await import('../../app/rollback');
      const r = await rollbackPlanWave(await configOf(cmd), plan, {
        wave: opts.wave,
        force: opts.force === true,
        waitForWave: opts.waitForWave === true,
        maxWaitSeconds: opts.maxWait,
      });
      io.out(opts.json ? `${JSON.stringify({ ok: r.refused.length === 0, ...r })}\n` : renderRollback(r));
      io.setExit(r.refused.length === 0 ? ExitCode.OK : ExitCode.FAILED);
    });
}

function renderRollback(r: WaveRollback): string {
  const before =
    r.applying === 'cancelled'
      ? `wave ${r.wave} was still applying: cancelled it first (its tables in flight were compensated)\n`
      : r.applying === 'waited'
        ? `wave ${r.wave} was still applying: waited for it to end\n`
        : '';
  const refused = r.refused.length ? `; refused: ${r.refused.map((x) => `${x.tableId} (${x.code}: ${x.message})`).join('; ')}` : '';
  return `${before}wave ${r.wave}: rolled back ${r.rolledBack.length} table(s)${refused}\n`;
}
