// `migrate inventory`: what the Hive Metastore holds — per database, tables by kind and file
// format, and partitions — read over Thrift (default) or straight from the HMS backing database
// (--source db, config hms.db.url) by app/plan/inventory.ts. A progress bar goes to stderr on long
// runs at a terminal.
import type { Command } from 'commander';
import { Option } from 'commander';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import { TableType } from '../../core/hive/model';
import type { Counts, InventoryReport, InventorySource, Progress } from '../../app/plan/inventory';
import { collect, FLAG_RANGES, intFlag } from '../flags';
import { configOf, hint } from '../output';
import type { IO } from '../output';
import { plural } from '../render-tables';

/** A one-line bar on a TTY, shown only once a run has lasted `delayMs`; nothing otherwise. */
export function ttyProgress(stream: NodeJS.WriteStream, delayMs = 1_000): Progress {
  const t0 = Date.now();
  let drawn = false;
  return {
    update(done, total, label) {
      if (!stream.isTTY || Date.now() - t0 < delayMs) return;
      const width = 30;
      const filled = total === 0 ? width : Math.round((done / total) * width);
      stream.write(`\r\x1b[2Kinventory [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} tables · ${label}`);
      drawn = true;
    },
    end() {
      if (drawn) stream.write('\r\x1b[2K');
    },
  };
}

const KINDS: readonly [string, string][] = [
  [TableType.MANAGED, 'MANAGED'],
  [TableType.EXTERNAL, 'EXTERNAL'],
  [TableType.VIRTUAL_VIEW, 'VIEWS'],
  [TableType.MATERIALIZED_VIEW, 'MAT_VIEWS'],
];

function row(name: string, c: Counts): string {
  const formats = Object.entries(c.byFormat)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([f, n]) => `${f} ${n}`)
    .join(' · ');
  const other = Object.entries(c.byKind)
    .filter(([k]) => !KINDS.some(([t]) => t === k))
    .reduce((n, [, v]) => n + v, 0);
  const kinds = KINDS.map(([k, h]) => String(c.byKind[k] ?? 0).padStart(h.length)).join('  ');
  return `${name.padEnd(24)} ${String(c.tables).padStart(6)} ${String(c.partitions).padStart(10)}  ${kinds}  ${String(other).padStart(5)}  ${formats || '-'}`;
}

export function renderInventory(r: InventoryReport): string {
  const head = `${'DATABASE'.padEnd(24)} ${'TABLES'.padStart(6)} ${'PARTITIONS'.padStart(10)}  ${KINDS.map(([, h]) => h).join('  ')}  OTHER  FORMATS`;
  const lines = [
    `Inventory of ${r.endpoint} (${r.source}) in ${(r.elapsedMs / 1000).toFixed(1)} s`,
    '',
    head,
    ...r.databases.map((d) => row(d.name, d)),
    row('total', r.totals),
    '',
    `${plural(r.totals.tables, 'table')} and ${plural(r.totals.partitions, 'partition')} in ${plural(r.databases.length, 'database')}.`,
    `next: ${hint('migrate assess')} classifies each table; formats other than parquet/orc/avro need a rewrite.`,
  ];
  return `${lines.join('\n')}\n`;
}

/** Adds `inventory` to the program (cli/main.ts calls this). */
export function registerInventory(program: Command, io: IO): void {
  program
    .command('inventory')
    .description('count what the Hive Metastore holds: per database, tables by kind and file format, partitions')
    .addOption(
      new Option('--source <source>', 'read over Thrift or straight from the HMS backing database (hms.db.url)')
        .choices(['thrift', 'db'])
        .default('thrift'),
    )
    .option('--database <name>', 'only this database (repeatable)', collect, [])
    .option('--json', 'machine-readable output')
    .option(
      '--calls-per-second <n>',
      `Thrift calls per second at most (protects a production HMS; 0 = no limit; at most ${FLAG_RANGES.callsPerSecond.max})`,
      intFlag('--calls-per-second', FLAG_RANGES.callsPerSecond),
      200,
    )
    .addHelpText(
      'after',
      `
Examples:
  migrate inventory --config migrate.yaml
  migrate inventory -c .stack/migrate.yaml --database sales --database web --json
  migrate inventory -c prod.yaml --source db --set hms.db.url=postgres://reader@hms-db/hms

${exitHelp('inventory')}`,
    )
    .action(async (opts: { source: InventorySource; database: string[]; json?: boolean; callsPerSecond: number }, cmd: Command) => {
      const { inventory } = await import('../../app/plan/inventory');
      const report = await inventory(
        await configOf(cmd),
        { source: opts.source, databases: opts.database, callsPerSecond: opts.callsPerSecond },
        ttyProgress(process.stderr),
      );
      io.out(opts.json ? `${JSON.stringify({ ok: true, ...report }, null, 2)}\n` : renderInventory(report));
      io.setExit(ExitCode.OK);
    });
}
