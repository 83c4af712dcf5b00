// `migrate sync`: the migrated tables of a plan catch up with their Hive side, one snapshot each,
// metadata-only, in this process (app/sync.ts). Exit codes of sync: 0 every table in sync, 1 a
// table was refused or failed (the others were still synced), 2 usage.
import type { Command } from 'commander';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import { collect, FLAG_RANGES, intFlag } from '../flags';
import { configOf } from '../output';
import type { IO } from '../output';
import type { SyncReport, TableSyncOutcome } from '../../app/sync';

function line(o: TableSyncOutcome): string {
  if (!o.ok) return `  failed     ${o.table}  ${o.error.code}: ${o.error.message}`;
  const r = o.result;
  const snap = `snapshot ${r.snapshotId ?? 'none'}`;
  switch (r.status) {
    case 'in-sync':
      return `  in sync    ${o.table}  ${snap}`;
    case 'appended':
      return `  appended   ${o.table}  ${r.filesAdded} file(s) (${r.partitionsAdded} partition(s)), ${r.recordsAdded} rows  ${snap}`;
    case 'deleted':
      return `  deleted    ${o.table}  −${r.filesRemoved} file(s), −${r.recordsRemoved} rows  ${snap}`;
    default:
      return `  overwrote  ${o.table}  +${r.filesAdded} −${r.filesRemoved} file(s), +${r.recordsAdded} −${r.recordsRemoved} rows  ${snap}`;
  }
}

function render(report: SyncReport): string {
  const failed = report.tables.filter((t) => !t.ok).length;
  const committed = report.tables.filter((t) => t.ok && t.result.commit !== null).length;
  const head = `plan ${report.plan}: ${report.tables.length} table(s), ${committed} snapshot(s) committed, ${failed} failed`;
  const next =
    failed > 0 ? '\nnext: fix what the failed tables name, then run migrate sync again' : `\nnext: migrate validate ${report.plan}`;
  return `${[head, ...report.tables.map(line)].join('\n')}${next}\n`;
}

/** JSON of a report: bigint-free already (ids are strings). */
const json = (r: SyncReport): string => `${JSON.stringify({ ok: r.tables.every((t) => t.ok), ...r }, null, 2)}\n`;

export function registerSync(program: Command, io: IO): void {
  program
    .command('sync')
    .description('commit new Iceberg snapshots (metadata-only) for migrated tables whose Hive side kept changing')
    .argument('<plan>', 'plan id (first 12 hex of the hash) or full hash')
    .option('--table <db.t>', 'only this table (repeatable)', collect, [])
    .option(
      '--concurrency <n>',
      `tables synced at once (${FLAG_RANGES.validateConcurrency.min}-${FLAG_RANGES.validateConcurrency.max})`,
      intFlag('--concurrency', FLAG_RANGES.validateConcurrency),
      4,
    )
    .option(
      '--footer-concurrency <n>',
      `footers read at once per table (${FLAG_RANGES.footerConcurrency.min}-${FLAG_RANGES.footerConcurrency.max})`,
      intFlag('--footer-concurrency', FLAG_RANGES.footerConcurrency),
      32,
    )
    .option('--json', 'the per-table results as JSON')
    .addHelpText(
      'after',
      '\nWhat it does, per migrated table: new partitions and files → an append snapshot; dropped partitions and\n' +
        'replaced files (INSERT OVERWRITE) → an overwrite snapshot that removes exactly those files; nothing changed →\n' +
        'no commit. Refused: a table another writer committed to (SYNC_FOREIGN_COMMITS), a table whose conversion\n' +
        'changed in HMS (SOURCE_CHANGED). Data files are never touched.\n' +
        '\nExamples:\n  migrate sync 3f2a9c1b7d4e -c migrate.yaml\n  migrate sync 3f2a9c1b7d4e --table sales.orders --table sales.items --json\n\n' +
        exitHelp('sync'),
    )
    .action(
      async (plan: string, opts: { table: string[]; concurrency: number; footerConcurrency: number; json?: boolean }, cmd: Command) => {
        const { syncNow } = await import('../../app/sync');
        const report = await syncNow(await configOf(cmd), plan, {
          tables: opts.table,
          concurrency: opts.concurrency,
          footerConcurrency: opts.footerConcurrency,
        });
        io.out(opts.json ? json(report) : render(report));
        io.setExit(report.tables.every((t) => t.ok) ? ExitCode.OK : ExitCode.FAILED);
      },
    );
}
