// `migrate repair <plan> [--apply]`: lists, and with --apply removes, the metadata this tool wrote
// for tables that did not end migrated (app/repair.ts). A table whose workflow Temporal still runs
// (`migrate/<plan12>/wave-<n>/<table>`) is left alone. Exit 0: nothing left (or all of it removed);
// 1: orphans found (or some could not be removed); 2: usage.
import type { Command } from 'commander';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import { planId } from '../../core/plan/ids';
import type { OrphanReport, RepairReport, TableLeftovers } from '../../app/repair';
import { configOf, hint } from '../output';
import type { IO } from '../output';

function leftoverText(t: TableLeftovers): string {
  const parts: string[] = [];
  if (t.files.length > 0) parts.push(`${t.files.length} metadata file(s) under ${t.metadataDir ?? '?'}`);
  if (t.entry?.state === 'ours') parts.push(`catalog entry ${t.target} → our ${t.entry.location ?? ''}`);
  if (t.entry?.state === 'unreadable') parts.push(`catalog entry ${t.target} unreadable (${t.entry.message ?? ''}); check it by hand`);
  if (t.entry?.state === 'foreign') parts.push(`catalog entry ${t.target} points at ${t.entry.location ?? '?'} (not ours; left alone)`);
  if (t.staleState && parts.length === 0) parts.push('record only (no files or entry left)');
  const status = t.errorCode === null ? t.status : `${t.status} ${t.errorCode}`;
  return `  ${t.tableId} (${status}${t.running ? ', workflow running: left alone' : ''}): ${parts.join('; ')}`;
}

function renderFound(r: OrphanReport): string {
  const orphans = r.tables.filter((t) => t.orphan);
  const lines = [
    `plan ${planId(r.planHash)}: ${orphans.length} orphan(s)${r.tables.some((t) => t.running) ? `, ${r.tables.filter((t) => t.running).length} still running` : ''}`,
  ];
  lines.push(...r.tables.map(leftoverText));
  if (orphans.length > 0) lines.push(`next: ${hint(`migrate repair ${planId(r.planHash)} --apply`)}`);
  return `${lines.join('\n')}\n`;
}

function renderRepair(r: RepairReport): string {
  const lines = [`plan ${planId(r.planHash)}: repaired ${r.repaired.filter((x) => x.ok).length} of ${r.repaired.length} orphan(s)`];
  for (const x of r.repaired) {
    const what = `${x.removed.files.length} metadata file(s) deleted${x.removed.entry === null ? '' : `, ${x.removed.entry}`}`;
    lines.push(
      `  ${x.tableId}: ${what}${x.ok ? '' : ` — NOT finished: ${x.error ? `${x.error.code}: ${x.error.message}` : x.left ? leftoverText(x.left).trim() : ''}`}`,
    );
  }
  for (const t of r.running) lines.push(`  ${t}: workflow still running: left alone`);
  for (const f of r.foreign) lines.push(`  ${f.tableId}: catalog entry ${f.target} points at ${f.location ?? '?'} (not ours; left alone)`);
  return `${lines.join('\n')}\n`;
}

export function registerRepair(program: Command, io: IO): void {
  program
    .command('repair')
    .description('find (and with --apply remove) metadata this tool wrote for tables that did not end migrated')
    .argument('<plan>', 'plan id (first 12 hex of the hash) or full hash')
    .option('--apply', 'remove the orphans: unregister our entries, delete our metadata files (never data), audited')
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      '\nExamples:\n  migrate repair 3f2a9c1b7d4e -c migrate.yaml            # list; exit 1 when orphans are found\n  migrate repair 3f2a9c1b7d4e --apply -c migrate.yaml    # remove them; exit 1 when any is left\n\nTables whose workflow still runs and catalog entries that point at metadata we did not write are\nnever touched. Data files are never deleted. See docs/repair.md.\n' +
        exitHelp('repair'),
    )
    .action(async (plan: string, opts: { apply?: boolean; json?: boolean }, cmd: Command) => {
      const { findPlanOrphans, repairPlanOrphans } = await import('../../app/repair');
      const config = await configOf(cmd);
      if (opts.apply === true) {
        const r = await repairPlanOrphans(config, plan);
        const ok = r.repaired.every((x) => x.ok);
        io.out(opts.json ? `${JSON.stringify({ ok, ...r })}\n` : renderRepair(r));
        io.setExit(ok ? ExitCode.OK : ExitCode.FAILED);
      } else {
        const r = await findPlanOrphans(config, plan);
        const orphans = r.tables.filter((t) => t.orphan).length;
        io.out(opts.json ? `${JSON.stringify({ ok: orphans === 0, orphans, ...r })}\n` : renderFound(r));
        io.setExit(orphans === 0 ? ExitCode.OK : ExitCode.FAILED);
      }
    });
}
