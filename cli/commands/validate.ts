// `migrate validate`: the nightly checks on demand, in this process (app/validate.ts; `migrate
// schedule …` is in ./schedule.ts). Exit codes of validate: 0 clean, 3 drift found, 1 a check could
// not run.
import type { Command } from 'commander';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import type { ValidationRow } from '../../core/validate/drift';
import { runStatus } from '../../core/validate/drift';
import { collect, FLAG_RANGES, intFlag, intListFlag } from '../flags';
import { configOf } from '../output';
import type { IO } from '../output';
import { registerSchedule } from './schedule';

function renderRows(rows: readonly ValidationRow[]): string {
  const bad = rows.filter((r) => r.status !== 'ok');
  const tables = new Set(rows.map((r) => r.table));
  const lines = [
    `${runStatus(rows)}: ${tables.size} table(s), ${rows.length} checks, ${bad.filter((r) => r.status === 'drift').length} drift, ${bad.filter((r) => r.status === 'failed').length} failed`,
  ];
  for (const r of bad) lines.push(`  ${r.status.padEnd(6)} ${r.table}  ${r.check}  ${r.code}  ${r.actual}`);
  return `${lines.join('\n')}\n`;
}

export function registerValidation(program: Command, io: IO): void {
  program
    .command('validate')
    .description('check migrated tables for drift now (same checks as the nightly schedule)')
    .argument('<plan>', 'plan id (first 12 hex of the hash) or full hash')
    .option('--wave <n>', 'only this wave (repeatable)', intListFlag('--wave', FLAG_RANGES.wave), [] as number[])
    .option('--table <db.t>', 'only this table (repeatable)', collect, [])
    .option(
      '--concurrency <n>',
      `tables checked at once (${FLAG_RANGES.validateConcurrency.min}-${FLAG_RANGES.validateConcurrency.max})`,
      intFlag('--concurrency', FLAG_RANGES.validateConcurrency),
      8,
    )
    .option('--json', 'every result row as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  migrate validate 3f2a9c1b7d4e -c migrate.yaml\n  migrate validate 3f2a9c1b7d4e --wave 2 --table sales.orders --json\n\n' +
        exitHelp('validate'),
    )
    .action(async (plan: string, opts: { wave: number[]; table: string[]; concurrency: number; json?: boolean }, cmd: Command) => {
      const { validateNow } = await import('../../app/validate');
      const { conversionEngine } = await import('../compose');
      const scope = { waves: opts.wave, tables: opts.table, concurrency: opts.concurrency };
      const rows = await validateNow(await configOf(cmd), plan, scope, conversionEngine());
      const s = runStatus(rows);
      io.out(opts.json ? `${JSON.stringify({ ok: s === 'validated', status: s, rows }, null, 2)}\n` : renderRows(rows));
      io.setExit(s === 'validated' ? ExitCode.OK : s === 'drifted' ? ExitCode.DRIFT : ExitCode.FAILED);
    });
  registerSchedule(program, io);
}
