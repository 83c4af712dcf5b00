// `migrate table <db>.<table>`: one table end to end (app/table.ts) outside any workflow; prints
// what it wrote and registered.
import type { Command } from 'commander';
import type { TableIdent } from '../../core/catalog/catalog';
import type { MigrateConfig } from '../../core/config/schema';
import { parseTableIdent, tableIdent } from '../../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../../core/errors';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import type { ConvertProgress, Summary } from '../../app/table';
import { FLAG_RANGES, intFlag } from '../flags';
import { configOf } from '../output';
import type { IO } from '../output';

interface Opts {
  catalog?: string;
  target?: string;
  dryRun?: boolean;
  allowUnbucketed?: boolean;
  json?: boolean;
  footerConcurrency: number;
}

/** The table and its target from the command line, checked against the config (USAGE, exit 2). */
function tableArgs(name: string, opts: Opts, config: MigrateConfig): { db: string; tbl: string; target: TableIdent } {
  if (opts.catalog !== undefined && opts.catalog !== config.catalog?.name) {
    throw new MigrationError(
      ErrorCode.USAGE,
      `--catalog ${opts.catalog}: the configured catalog is '${config.catalog?.name ?? '(none)'}' (set catalog.name/uri in the config)`,
    );
  }
  if (config.catalog?.mode === 'in-place' && opts.dryRun !== true) {
    // Replacing a Hive table needs what only apply keeps: the saved original in the state store,
    // the audit trail, and `rollback` to put it back.
    throw new MigrationError(
      ErrorCode.USAGE,
      `catalog ${config.catalog.name} converts in place; migrate table does not replace Hive tables (no saved original, no rollback). Use migrate plan + apply, or --dry-run, or a catalog with mode: register.`,
    );
  }
  const dot = name.indexOf('.');
  if (dot <= 0 || dot === name.length - 1) throw new MigrationError(ErrorCode.USAGE, `table must be db.table, got '${name}'`);
  const [db, tbl] = [name.slice(0, dot), name.slice(dot + 1)];
  const target =
    opts.target !== undefined ? parseTableIdent(opts.target) : tableIdent([`${config.catalog?.namespacePrefix ?? ''}${db}`], tbl);
  return { db, tbl, target };
}

function renderTable(summary: Summary, validationFindings: readonly { code: string; message: string }[]): string {
  const v = summary.validation;
  const lines = [
    `${summary.table} → ${summary.target}: ${summary.registration}${v ? (v.ok ? ', validated' : ', VALIDATION FAILED (undone)') : ''}`,
    `  metadata: ${summary.metadataLocation}`,
    `  ${summary.locations} location(s), ${summary.dataFiles ?? '-'} data files, ${summary.records ?? '-'} rows, partition [${summary.partitionFields.join(', ')}], ${summary.seconds.toFixed(1)} s`,
    ...summary.files.map((f) => `  wrote ${f.path} (${f.bytes} B, ${f.outcome})`),
    ...summary.findings.map((f) => `  finding ${f.code}: ${f.message}`),
    ...validationFindings.map((f) => `  validation ${f.code}: ${f.message}`),
  ];
  return `${lines.join('\n')}\n`;
}

export function registerTable(program: Command, io: IO): void {
  program
    .command('table')
    .description('convert one Hive table to Iceberg metadata-only, register it in the configured catalog, and validate it')
    .argument('<table>', 'db.table in HMS')
    .option('--catalog <name>', 'the catalog to register in (must be the configured catalog.name)')
    .option('--target <ns.name>', 'catalog identifier (default: <catalog.namespacePrefix><db>.<table>)')
    .option('--dry-run', 'decide schema, partition spec, locations and file names; write nothing')
    .option('--allow-unbucketed', 'convert a bucketed table without its bucketing')
    .option(
      '--footer-concurrency <n>',
      `footers read at once (${FLAG_RANGES.footerConcurrency.min}-${FLAG_RANGES.footerConcurrency.max})`,
      intFlag('--footer-concurrency', FLAG_RANGES.footerConcurrency),
      32,
    )
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      `
Examples:
  migrate table sales.orders -c migrate.yaml --catalog local-rest --dry-run
  migrate table sales.orders -c migrate.yaml --target lake.orders --json

${exitHelp('table')}`,
    )
    .action(async (name: string, opts: Opts, cmd: Command) => {
      const { migrateOneTable, startFooterThreads } = await import('../../app/table');
      startFooterThreads();
      const { conversionEngine } = await import('../compose');
      const config = await configOf(cmd);
      const { db, tbl, target } = tableArgs(name, opts, config);
      let last = 0;
      const onProgress = (p: ConvertProgress): void => {
        if (opts.json || !process.stderr.isTTY || Date.now() - last < 250) return;
        last = Date.now();
        process.stderr.write(`\r  listed ${p.locationsListed}/${p.locations} locations, ${p.footersRead}/${p.filesListed} footers`);
      };
      const r = await migrateOneTable(
        config,
        {
          db,
          tbl,
          target,
          dryRun: opts.dryRun === true,
          allowUnbucketed: opts.allowUnbucketed === true,
          footerConcurrency: opts.footerConcurrency,
          onProgress,
        },
        conversionEngine(),
      );
      if (!opts.json && process.stderr.isTTY) process.stderr.write('\n');
      io.out(opts.json ? `${JSON.stringify(r.summary, null, 2)}\n` : renderTable(r.summary, r.validationFindings));
      io.setExit(r.ok ? ExitCode.OK : ExitCode.FAILED);
    });
}
