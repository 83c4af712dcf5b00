// `migrate rollback <plan> --wave N`: undo one wave through rollbackWaveWorkflow (app/rollback/rollback.ts).
// The plan and the wave are checked against the state store before anything starts.
import type { Command } from 'commander';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import type { WaveRollback } from '../../app/rollback/rollback';
import type { RollbackPreview, RollbackPreviewTable } from '../../app/rollback/preview';
import { FLAG_RANGES, intFlag } from '../flags';
import { configOf } from '../output';
import type { IO } from '../output';

const HELP = `
Examples:
  migrate rollback 3f2a9c1b7d4e --wave 3 --dry-run
  migrate rollback 3f2a9c1b7d4e --wave 3
  migrate rollback 3f2a9c1b7d4e --wave 3 --force

A wave still applying is cancelled first (its tables in flight compensate), or with --wait-for-wave
waited for, up to --max-wait; then every table of the wave is rolled back. Data files are never deleted.
A table whose Iceberg entry received appends from other engines since our last snapshot (Parquet/ORC
data files under our identity partitions, where Hive reads them) gets them back: the partitions Hive
lacks are added (metadata-only), then the entry is dropped. Any other commit (delete, overwrite,
delete files, compaction, partition or schema evolution) blocks the table with ROLLBACK_BLOCKED and
the snapshot ids; --force drops the entry with them (audited). --dry-run shows all of it, changing nothing.
Views of a later wave still migrated that read this wave's tables refuse the rollback (ROLLBACK_ORDER,
nothing changed); --with-dependent-views rolls those views back first, then the wave. A wave of any
size: after --tables-per-run tables the workflow continues as new (same id); the result counts every
table and lists them up to a bound, saying how many it did not list.
${exitHelp('rollback')}`;

interface RollbackOpts {
  wave: number;
  force?: boolean;
  waitForWave?: boolean;
  maxWait: number;
  dryRun?: boolean;
  json?: boolean;
  withDependentViews?: boolean;
  tablesPerRun: number;
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
    .option(
      '--with-dependent-views',
      'roll back first the still-migrated views of later waves that read this wave (else they refuse it: ROLLBACK_ORDER)',
    )
    .option(
      '--tables-per-run <n>',
      `tables one workflow run rolls back before it continues as new, keeping its history bounded (${FLAG_RANGES.tablesPerRun.min}-${FLAG_RANGES.tablesPerRun.max})`,
      intFlag('--tables-per-run', FLAG_RANGES.tablesPerRun),
      250,
    )
    .option('--dry-run', 'show what would be dropped, put back into Hive (partitions, files, rows) or refused and why; change nothing')
    .option('--json', 'machine-readable output')
    .addHelpText('after', HELP)
    .action(async (plan: string, opts: RollbackOpts, cmd: Command) => {
      if (opts.dryRun === true) {
        const { previewRollback } = await import('../../app/rollback/preview');
        const { conversionEngine } = await import('../compose');
        const p = await previewRollback(
          await configOf(cmd),
          plan,
          {
            wave: opts.wave,
            force: opts.force === true,
            withDependentViews: opts.withDependentViews === true,
          },
          conversionEngine(),
        );
        const refused = p.tables.filter((t) => t.action === 'blocked' || t.action === 'refused' || t.action === 'not-ours');
        io.out(opts.json ? `${JSON.stringify({ ok: refused.length === 0, ...p })}\n` : renderPreview(p));
        io.setExit(refused.length === 0 ? ExitCode.OK : ExitCode.FAILED);
        return;
      }
      const { rollbackPlanWave } = await import('../../app/rollback/rollback');
      const r = await rollbackPlanWave(await configOf(cmd), plan, {
        wave: opts.wave,
        force: opts.force === true,
        waitForWave: opts.waitForWave === true,
        maxWaitSeconds: opts.maxWait,
        withDependentViews: opts.withDependentViews === true,
        tablesPerRun: opts.tablesPerRun,
      });
      io.out(opts.json ? `${JSON.stringify({ ok: refusedCount(r) === 0, ...r })}\n` : renderRollback(r));
      io.setExit(refusedCount(r) === 0 ? ExitCode.OK : ExitCode.FAILED);
    });
}

/** Refused tables, counted whether or not the result lists each (a wave of any size: workflows/rollback-tally.ts). */
const refusedCount = (r: WaveRollback): number => r.counts?.refused ?? r.refused.length;

/** What the result counted but did not list (its lists are bounded), said in one line each. */
function notListedLines(r: WaveRollback): string[] {
  const n = r.notListed;
  if (n === undefined) return [];
  const codes = Object.entries(n.refused).map(([code, k]) => `${k} ${code}`);
  return [
    ...(codes.length
      ? [`  and ${codes.join(', ')} more refused, not listed here (migrate status <plan> shows where each table stands)\n`]
      : []),
    ...(n.putBack > 0 ? [`  and ${n.putBack} more table(s) put back, not listed here\n`] : []),
  ];
}

/** The text `migrate rollback` prints (exported for its unit test). */
export function renderRollback(r: WaveRollback): string {
  const before =
    r.applying === 'cancelled'
      ? `wave ${r.wave} was still applying: cancelled it first (its tables in flight were compensated)\n`
      : r.applying === 'waited'
        ? `wave ${r.wave} was still applying: waited for it to end\n`
        : '';
  const refused = r.refused.length ? `; refused: ${r.refused.map((x) => `${x.tableId} (${x.code}: ${x.message})`).join('; ')}` : '';
  const put = (r.putBack ?? []).map(
    (p) =>
      `  ${p.tableId}: put back ${p.files} file(s), ${p.records} row(s) of snapshot(s) ${p.snapshots.join(', ')}; partitions added: ${p.partitionsAdded.join(', ') || 'none'}; already visible: ${p.partitionsVisible.join(', ') || 'none'}\n`,
  );
  const views = r.dependentViews?.length ? `first the views that read it: ${r.dependentViews.join(', ')}\n` : '';
  const count = r.counts?.rolledBack ?? r.rolledBack.length;
  return `${before}${views}wave ${r.wave}: rolled back ${count} table(s)${refused}\n${put.join('')}${notListedLines(r).join('')}`;
}

const PREVIEW_WHAT: Readonly<Record<RollbackPreviewTable['action'], string>> = {
  drop: 'drop the catalog entry (no commits since ours), delete our metadata',
  'put-back': 'put back into Hive, then drop the entry',
  blocked: 'refused',
  'force-drop': 'drop the entry WITH the commits since ours (--force, audited)',
  refused: 'refused',
  'not-ours': 'refused, left untouched',
  'nothing-registered': 'no catalog entry of ours: only our metadata files and the check',
};

function renderPreviewTable(t: RollbackPreviewTable): string {
  const head = `  ${t.table}: ${PREVIEW_WHAT[t.action]}${t.code === undefined ? '' : ` (${t.code}${t.message === undefined ? '' : `: ${t.message}`})`}\n`;
  const s = t.putBack;
  if (t.action !== 'put-back' || s === undefined) return head;
  const lines = [
    ...s.snapshots.map((x) => `    snapshot ${x.snapshotId} (${x.operation}): ${x.files} file(s), ${x.records} row(s)\n`),
    ...s.partitionsToAdd.map((p) => `    add partition ${p.name} at ${p.location}: ${p.files.length} file(s), ${p.records} row(s)\n`),
    ...s.partitionsVisible.map(
      (p) =>
        `    already visible in ${p.name === '' ? 'the table' : `partition ${p.name}`}: ${p.files.length} file(s), ${p.records} row(s)\n`,
    ),
  ];
  return `${head}${lines.join('')}`;
}

function renderPreview(p: RollbackPreview): string {
  const body = p.tables.map(renderPreviewTable).join('');
  return `dry run: rollback of wave ${p.wave} of plan ${p.plan} would do (nothing was changed):\n${body || '  nothing to roll back\n'}`;
}
