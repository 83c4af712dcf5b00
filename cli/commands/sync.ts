// `migrate sync`: the migrated tables of a plan catch up with their Hive side, one snapshot each,
// metadata-only — by default through Temporal (syncWorkflow on the worker: app/sync/workflow.ts),
// with --direct in this process (app/sync/direct.ts). Both report the same per-table outcomes. Exit codes
// of sync: 0 every table in sync, 1 a table was refused or failed (the others were still synced), 2 usage.
import type { Command } from 'commander';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import { collect, FLAG_RANGES, intFlag, intListFlag } from '../flags';
import { configOf, hint } from '../output';
import type { IO } from '../output';
import type { SyncReport, TableSyncOutcome } from '../../app/sync/direct';
import type { SyncProgress, SyncStarted } from '../../app/sync/workflow';

interface SyncOpts {
  wave: number[];
  table: string[];
  concurrency: number;
  footerConcurrency: number;
  direct?: boolean;
  wait: boolean;
  json?: boolean;
  heartbeatTimeout: number;
  tablesPerRun: number;
  tablesPerActivity: number;
}

/** The columns a schema addition brought (older results have none). */
const columns = (added: readonly string[] | undefined): string =>
  added === undefined || added.length === 0 ? '' : `, column(s) added: ${added.join(', ')}`;

function line(o: TableSyncOutcome): string {
  if (!o.ok) return `  failed     ${o.table}  ${o.error.code}: ${o.error.message}`;
  const r = o.result;
  const snap = `snapshot ${r.snapshotId ?? 'none'}`;
  switch (r.status) {
    case 'in-sync':
      return `  in sync    ${o.table}  ${snap}`;
    case 'appended':
      return `  appended   ${o.table}  ${r.filesAdded} file(s) (${r.partitionsAdded} partition(s)), ${r.recordsAdded} rows${columns(r.columnsAdded)}  ${snap}`;
    case 'deleted':
      return `  deleted    ${o.table}  −${r.filesRemoved} file(s), −${r.recordsRemoved} rows  ${snap}`;
    default:
      return `  overwrote  ${o.table}  +${r.filesAdded} −${r.filesRemoved} file(s), +${r.recordsAdded} −${r.recordsRemoved} rows${columns(r.columnsAdded)}  ${snap}`;
  }
}

function render(report: SyncReport): string {
  const failed = report.tables.filter((t) => !t.ok).length;
  const committed = report.tables.filter((t) => t.ok && t.result.commit !== null).length;
  const head = `plan ${report.plan}: ${report.tables.length} table(s), ${committed} snapshot(s) committed, ${failed} failed`;
  const next =
    failed > 0
      ? '\nnext: fix what the failed tables name, then run migrate sync again'
      : `\nnext: ${hint(`migrate validate ${report.plan}`)}`;
  return `${[head, ...report.tables.map(line)].join('\n')}${next}\n`;
}

/** JSON of a report: bigint-free already (ids are strings). */
const json = (r: SyncReport, extra: object = {}): string =>
  `${JSON.stringify({ ok: r.tables.every((t) => t.ok), ...extra, ...r }, null, 2)}\n`;

const progressLine = (p: SyncProgress): string =>
  `  … ${p.done}/${p.tables} tables: ${p.committed} committed (+${p.filesAdded} files), ${p.inSync} in sync, ${p.refused} failed\n`;

/** The workflow path: started (and with --wait followed to its result). */
async function throughTemporal(cmd: Command, io: IO, plan: string, opts: SyncOpts): Promise<void> {
  const { startSync } = await import('../../app/sync/workflow');
  const scope = { waves: opts.wave, tables: opts.table, concurrency: opts.concurrency, footerConcurrency: opts.footerConcurrency };
  const progress = (p: SyncProgress): void => {
    if (opts.json !== true) io.err(progressLine(p));
  };
  const run = { heartbeatSeconds: opts.heartbeatTimeout, tablesPerRun: opts.tablesPerRun, tablesPerActivity: opts.tablesPerActivity };
  const s: SyncStarted = await startSync(await configOf(cmd), plan, scope, { wait: opts.wait, progress, run });
  const where = { workflowId: s.workflowId, ...(s.ui !== undefined ? { ui: s.ui } : {}) };
  if (s.result === undefined) {
    io.out(
      opts.json
        ? `${JSON.stringify({ ok: true, started: true, plan: s.plan, ...where })}\n`
        : `started ${s.workflowId}${s.ui !== undefined ? `\n  ${s.ui}` : ''}\nnext: ${hint(`migrate sync ${s.plan} --wait`)} later, or watch it in the Temporal UI\n`,
    );
    io.setExit(ExitCode.OK);
    return;
  }
  const report = { plan: s.result.plan, tables: s.result.tables };
  io.out(opts.json ? json(report, where) : `workflow ${s.workflowId}\n${render(report)}`);
  io.setExit(report.tables.every((t) => t.ok) ? ExitCode.OK : ExitCode.FAILED);
}

async function direct(cmd: Command, io: IO, plan: string, opts: SyncOpts): Promise<void> {
  const { syncNow } = await import('../../app/sync/direct');
  const { conversionEngine } = await import('../compose');
  const report = await syncNow(
    await configOf(cmd),
    plan,
    {
      waves: opts.wave,
      tables: opts.table,
      concurrency: opts.concurrency,
      footerConcurrency: opts.footerConcurrency,
    },
    conversionEngine(),
  );
  io.out(opts.json ? json(report) : render(report));
  io.setExit(report.tables.every((t) => t.ok) ? ExitCode.OK : ExitCode.FAILED);
}

const HELP =
  '\nWhat it does, per migrated table: new partitions and files → an append snapshot; dropped partitions and\n' +
  'replaced files (INSERT OVERWRITE) → an overwrite snapshot that removes exactly those files; nothing changed →\n' +
  'no commit. Refused: a table another writer committed to (SYNC_FOREIGN_COMMITS), a table whose conversion\n' +
  'changed in HMS (SOURCE_CHANGED). Data files are never touched.\n' +
  '\nBy default the sync runs as the Temporal workflow sync/<plan id>/<stamp> on a worker (migrate worker):\n' +
  'retried, heartbeating, visible in the Temporal UI; --wait (default) follows it and prints the summary,\n' +
  '--no-wait returns once it started. --direct runs it in this process instead, without Temporal (small jobs).\n' +
  'A worker killed mid-sync: the step is retried after --heartbeat-timeout and ends as one clean run would (one\n' +
  'snapshot, recorded and audited once). After --tables-per-run tables the workflow continues as new (same id).\n' +
  'Tables go --tables-per-activity at a time into one activity (fewer Temporal round trips per table); a table\n' +
  'whose sync fails transiently is retried alone.\n' +
  '\nExamples:\n  migrate sync 3f2a9c1b7d4e -c migrate.yaml\n  migrate sync 3f2a9c1b7d4e --wave 2 --no-wait\n' +
  '  migrate sync 3f2a9c1b7d4e --direct --table sales.orders --table sales.items --json\n' +
  '  migrate sync 3f2a9c1b7d4e --heartbeat-timeout 10 --tables-per-run 200\n\n';

export function registerSync(program: Command, io: IO): void {
  program
    .command('sync')
    .description('commit new Iceberg snapshots (metadata-only) for migrated tables whose Hive side kept changing')
    .argument('<plan>', 'plan id (first 12 hex of the hash) or full hash')
    .option('--wave <n>', 'only this wave (repeatable)', intListFlag('--wave', FLAG_RANGES.wave), [] as number[])
    .option('--table <db.t>', 'only this table (repeatable)', collect, [])
    .option(
      '--concurrency <n>',
      `tables synced at once (${FLAG_RANGES.validateConcurrency.min}-${FLAG_RANGES.validateConcurrency.max})`,
      intFlag('--concurrency', FLAG_RANGES.validateConcurrency),
      4,
    )
    .option(
      '--footer-concurrency <n>',
      `footers read at once per table, --direct only (the worker uses its own write.footerConcurrency) (${FLAG_RANGES.footerConcurrency.min}-${FLAG_RANGES.footerConcurrency.max})`,
      intFlag('--footer-concurrency', FLAG_RANGES.footerConcurrency),
      32,
    )
    .option(
      '--heartbeat-timeout <s>',
      `heartbeat deadline of each table's step in seconds (${FLAG_RANGES.timeoutSeconds.min}-${FLAG_RANGES.timeoutSeconds.max}): a killed worker's step is retried after it`,
      intFlag('--heartbeat-timeout', FLAG_RANGES.timeoutSeconds),
      20,
    )
    .option(
      '--tables-per-run <n>',
      `tables one workflow run syncs before it continues as new, keeping its history bounded (${FLAG_RANGES.tablesPerRun.min}-${FLAG_RANGES.tablesPerRun.max})`,
      intFlag('--tables-per-run', FLAG_RANGES.tablesPerRun),
      500,
    )
    .option(
      '--tables-per-activity <n>',
      `tables one sync activity takes at once (${FLAG_RANGES.tablesPerActivity.min}-${FLAG_RANGES.tablesPerActivity.max}; 1 = an activity per table)`,
      intFlag('--tables-per-activity', FLAG_RANGES.tablesPerActivity),
      4,
    )
    .option('--direct', 'sync in this process, without Temporal (no worker needed)')
    .option('--wait', 'follow the sync workflow to its end (default)', true)
    .option('--no-wait', 'return once the sync workflow started')
    .option('--json', 'the per-table results as JSON')
    .addHelpText('after', HELP + exitHelp('sync'))
    .action(async (plan: string, opts: SyncOpts, cmd: Command) =>
      opts.direct === true ? direct(cmd, io, plan, opts) : throughTemporal(cmd, io, plan, opts),
    );
}
