// `migrate cutover <plan> --wave N`: the switch from Hive to Iceberg for a wave's migrated tables,
// through the Temporal workflow migrate/<plan id>/cutover-wave-<n> (app/cutover.ts): per table,
// fence the Hive writers, final sync, final validation, mark cut over. Exit codes: 0 every table in
// scope cut over (or already was), 1 a table refused or failed (the others were still cut over), 2 usage.
import type { Command } from 'commander';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import { collect, FLAG_RANGES, intFlag } from '../flags';
import { configOf, hint } from '../output';
import type { IO } from '../output';
import type { CutoverProgress, CutoverStarted } from '../../app/cutover';

interface CutoverOpts {
  wave: number;
  table: string[];
  wait: boolean;
  json?: boolean;
}

type Result = NonNullable<CutoverStarted['result']>;

function line(t: Result['tables'][number]): string {
  const steps = t.steps.map((s) => `${s.step}: ${s.done}${s.detail ? ` (${s.detail})` : ''}`).join('; ');
  if (!t.ok)
    return `  refused    ${t.table}  ${t.error?.code ?? 'INTERNAL'}: ${t.error?.message ?? ''}${steps ? `\n             after ${steps}` : ''}`;
  const already = t.steps.every((s) => s.done !== 'now');
  return `  ${already ? 'unchanged ' : 'cut over  '} ${t.table}  ${steps}`;
}

function render(s: CutoverStarted, r: Result): string {
  const ok = r.tables.filter((t) => t.ok).length;
  const head = `workflow ${s.workflowId}\nplan ${r.plan} wave ${r.wave}: ${ok}/${r.tables.length} table(s) cut over`;
  const next =
    ok === r.tables.length
      ? `\nnext: point readers and writers at the Iceberg tables; to go back: ${hint(`migrate rollback ${r.plan} --wave ${r.wave}`)}`
      : `\nnext: fix what the refused tables name, then run ${hint(`migrate cutover ${r.plan} --wave ${r.wave}`)} again (or migrate rollback to unfence)`;
  return `${[head, ...r.tables.map(line)].join('\n')}${next}\n`;
}

const HELP =
  '\nPer migrated table of the wave, in plan order, each step first checking whether it already happened:\n' +
  '  1. fence the Hive writers. Register mode: the Hive table is made EXTERNAL (so HMS moves no directory) and\n' +
  '     renamed to <table>__him_fenced; a writer using the old name (INSERT, add_partition, ALTER) now fails with\n' +
  '     "table not found". In place (catalog.type hive, mode in-place) the name already serves the Iceberg table:\n' +
  '     nothing to fence, recorded as such. Not stopped: writers that put files straight into the storage path.\n' +
  '  2. final sync from the fenced Hive table (as migrate sync);  3. final validation: the Hive files and footer rows\n' +
  "     equal the current snapshot's;  4. mark the table cut over (migrate status shows cutover; migrate sync refuses it).\n" +
  'Undo: migrate rollback <plan> --wave N puts the Hive table back under its name first. Data files are never touched.\n' +
  '\nExamples:\n  migrate cutover 3f2a9c1b7d4e --wave 2\n  migrate cutover 3f2a9c1b7d4e --wave 2 --table sales.orders --json\n' +
  '  migrate cutover 3f2a9c1b7d4e --wave 2 --no-wait\n\n';

async function action(cmd: Command, io: IO, plan: string, opts: CutoverOpts): Promise<void> {
  const { startCutover } = await import('../../app/cutover');
  const progress = (p: CutoverProgress): void => {
    if (opts.json !== true) io.err(`  … ${p.done}/${p.tables} tables, ${p.refused} refused\n`);
  };
  const s = await startCutover(await configOf(cmd), plan, { wave: opts.wave, tables: opts.table, wait: opts.wait, progress });
  const where = { workflowId: s.workflowId, ...(s.ui !== undefined ? { ui: s.ui } : {}) };
  if (s.result === undefined) {
    io.out(
      opts.json
        ? `${JSON.stringify({ ok: true, started: true, plan: s.plan, wave: s.wave, ...where })}\n`
        : `started ${s.workflowId}${s.ui !== undefined ? `\n  ${s.ui}` : ''}\nnext: ${hint(`migrate status ${s.plan}`)}, or watch it in the Temporal UI\n`,
    );
    io.setExit(ExitCode.OK);
    return;
  }
  const ok = s.result.tables.every((t) => t.ok);
  io.out(opts.json ? `${JSON.stringify({ ok, ...where, ...s.result }, null, 2)}\n` : render(s, s.result));
  io.setExit(ok ? ExitCode.OK : ExitCode.FAILED);
}

export function registerCutover(program: Command, io: IO): void {
  program
    .command('cutover')
    .description("switch a wave's migrated tables to Iceberg: fence Hive writers, final sync, final validation, mark cut over")
    .argument('<plan>', 'plan id (first 12 hex of the hash) or full hash')
    .requiredOption('--wave <n>', 'wave number', intFlag('--wave', FLAG_RANGES.wave))
    .option('--table <db.t>', 'only this table of the wave (repeatable)', collect, [])
    .option('--wait', 'follow the cutover workflow to its end (default)', true)
    .option('--no-wait', 'return once the cutover workflow started')
    .option('--json', 'the per-table results as JSON')
    .addHelpText('after', HELP + exitHelp('cutover'))
    .action(async (plan: string, opts: CutoverOpts, cmd: Command) => action(cmd, io, plan, opts));
}
