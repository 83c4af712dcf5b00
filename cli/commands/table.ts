// `migrate table <db>.<table>`: one table end to end through the same library the workflows use
// (engine/): prepare → list → footers → manifests → metadata.json → register →
// validate. Prints what it wrote and registered. Ids derive from (source fingerprint, target), so a
// rerun of an unchanged table writes the same files and registers once.
import type { Command } from 'commander';
import { convertTable } from '../../engine/convert-table';
import { fingerprintOf } from '../../activities/index';
import type { IcebergCatalog, TableIdent } from '../../core/catalog/catalog';
import type { MigrateConfig } from '../../core/config/schema';
import { formatTableIdent, parseTableIdent, tableIdent } from '../../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../../core/errors';
import { loadConfig } from '../config';
import { ExitCode } from '../exit-codes';
import { FLAG_RANGES, intFlag } from '../flags';
import { openCatalog, openHmsReader, openStores, toolVersion } from '../runtime';
import { footerThreadsOnEveryCpu, sharedFooterThreads } from '../../adapters/formats/footer-threads';

type IO = { out: (s: string) => void; err: (s: string) => void; setExit: (c: number) => void };
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
    throw new MigrationError(ErrorCode.USAGE, `--catalog ${opts.catalog}: the configured catalog is '${config.catalog?.name ?? '(none)'}' (set catalog.name/uri in the config)`);
  }
  if (config.catalog?.mode === 'in-place' && opts.dryRun !== true) {
    // Replacing a Hive table needs what only apply keeps: the saved original in the state store,
    // the audit trail, and `rollback` to put it back.
    throw new MigrationError(ErrorCode.USAGE, `catalog ${config.catalog.name} converts in place; migrate table does not replace Hive tables (no saved original, no rollback). Use migrate plan + apply, or --dry-run, or a catalog with mode: register.`);
  }
  const dot = name.indexOf('.');
  if (dot <= 0 || dot === name.length - 1) throw new MigrationError(ErrorCode.USAGE, `table must be db.table, got '${name}'`);
  const [db, tbl] = [name.slice(0, dot), name.slice(dot + 1)];
  const target = opts.target !== undefined ? parseTableIdent(opts.target) : tableIdent([`${config.catalog?.namespacePrefix ?? ''}${db}`], tbl);
  return { db, tbl, target };
}

interface Summary {
  readonly table: string;
  readonly target: string;
  readonly registration: string;
  readonly metadataLocation: string;
  readonly locations: number;
  readonly dataFiles: number | null;
  readonly records: number | null;
  readonly partitionFields: readonly string[];
  readonly seconds: number;
  readonly files: readonly { path: string; bytes: number; outcome: string }[];
  readonly findings: readonly { code: string; message: string }[];
  readonly validation?: { ok: boolean } | null;
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

/** What `migrate table` reports of one conversion (the JSON, and the text through renderTable). */
function summaryOf(r: Awaited<ReturnType<typeof convertTable>>, ok: boolean, table: string, target: string, started: number) {
  return {
    ok,
    table,
    target,
    registration: r.registration,
    metadataLocation: r.prepared.metadataLocation,
    snapshotId: r.written?.snapshotId?.toString() ?? null,
    schemaFields: r.prepared.schema.fields.length,
    partitionFields: r.prepared.spec.fields.map((f) => f.name),
    locations: r.prepared.locations.length,
    dataFiles: r.written?.dataFiles ?? null,
    records: r.written?.records ?? null,
    files: r.written?.files ?? [],
    findings: r.written?.findings ?? [],
    validation: r.validation,
    seconds: (Date.now() - started) / 1000,
  };
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
    .option('--footer-concurrency <n>', `footers read at once (${FLAG_RANGES.footerConcurrency.min}-${FLAG_RANGES.footerConcurrency.max})`, intFlag('--footer-concurrency', FLAG_RANGES.footerConcurrency), 32)
    .option('--json', 'machine-readable output')
    .addHelpText('after', `
Examples:
  migrate table sales.orders -c migrate.yaml --catalog local-rest --dry-run
  migrate table sales.orders -c migrate.yaml --target lake.orders --json

Exit codes: 0 migrated and validated (or, with --dry-run, decided); 1 refused, failed, or validation
failed (then nothing stays registered), or an endpoint cannot be reached; 2 bad flag, configuration
or table name.`)
    .action(async (name: string, opts: Opts, cmd: Command) => {
      // One conversion and no workflow tasks in this process: a footer thread per CPU, started now so
      // they boot while HMS and the catalog answer.
      footerThreadsOnEveryCpu();
      sharedFooterThreads();
      const g = cmd.optsWithGlobals<{ config?: string; set: string[] }>();
      const { config } = loadConfig({ file: g.config, env: process.env, sets: g.set, cwd: process.cwd() });
      const { db, tbl, target } = tableArgs(name, opts, config);
      const hms = openHmsReader(config);
      const stores = openStores(config);
      let catalog: IcebergCatalog | undefined;
      try {
        const [inv] = await hms.getTables(db, [tbl]);
        if (inv === undefined) throw new MigrationError(ErrorCode.HMS_NOT_FOUND, `${name} not found in HMS`);
        catalog = await openCatalog(config, process.env, stores);
        const fingerprint = fingerprintOf(inv);
        const timestampMs = Math.max(1, (Number(inv.table.parameters.transient_lastDdlTime ?? 0) || inv.table.createTime || 1) * 1000);
        const metadataDir = `${(inv.table.sd.location ?? '').replace(/\/+$/, '')}/metadata/`;
        const started = Date.now();
        let last = 0;
        const r = await convertTable(stores.storeFor([metadataDir]), catalog, {
          inventory: inv,
          identity: { planHash: `table:${fingerprint}`, table: `hms:${db}.${tbl}->${catalog.name}:${formatTableIdent(target)}` },
          timestampMs,
          toolVersion: toolVersion(),
          target,
          dryRun: opts.dryRun === true,
          allowUnbucketed: opts.allowUnbucketed === true,
          write: {
            footerConcurrency: opts.footerConcurrency,
            onProgress: (p) => {
              if (opts.json || !process.stderr.isTTY || Date.now() - last < 250) return;
              last = Date.now();
              process.stderr.write(`\r  listed ${p.locationsListed}/${p.locations} locations, ${p.footersRead}/${p.filesListed} footers`);
            },
          },
        });
        if (!opts.json && process.stderr.isTTY) process.stderr.write('\n');
        const ok = r.registration === 'dry-run' || r.validation?.ok === true;
        const summary = summaryOf(r, ok, `${db}.${tbl}`, `${catalog.name}:${formatTableIdent(target)}`, started);
        io.out(opts.json ? `${JSON.stringify(summary, null, 2)}\n` : renderTable(summary, r.validation?.findings ?? []));
        io.setExit(ok ? ExitCode.OK : ExitCode.FAILED);
      } finally {
        await catalog?.close?.();
        await hms.close();
        stores.close();
      }
    });
}
