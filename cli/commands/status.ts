// `migrate status <plan>`: where a plan is (app/status/status.ts) and where each of its tables stands
// (app/status/table-status.ts: migrated / syncing with the last sync / cut over; `--lag`: the live check of
// how far each is behind Hive), and the outcome's exit code: 1 when the plan failed, was cancelled,
// ended without a result (failed, terminated, timed out), or a table failed that its --max-failed
// did not allow.
import { MigrationError } from '../../core/errors';
import { exitHelp } from '../../core/exit-codes';
import type { Command } from 'commander';
import { intFlag, FLAG_RANGES } from '../flags';
import { configOf } from '../output';
import type { IO } from '../output';
import { outcomeJson, renderCutover, renderStatus, wavesJson } from '../render-status';
import { renderTables } from '../render-tables';
import type { ConversionEngine } from '../../core/engine-port/conversion-engine';

const HELP = `
Examples:
  migrate status 3f2a9c1b7d4e -c migrate.yaml
  migrate status 3f2a9c1b7d4e --lag                      # how far each migrated table is behind Hive now
  migrate status 3f2a9c1b7d4e --table sales.orders --lag # one table: last sync, lag, partitions added since the plan
  migrate status 3f2a9c1b7d4e --lag --list-storage       # exact: every location listed against the current snapshot
  migrate status 3f2a9c1b7d4e --watch
  migrate status 3f2a9c1b7d4e --json

Tables: "migrated" (never synced), "syncing" (synced at least once: last sync time, outcome and
snapshot), "cut over", or their status as recorded. Without --lag only the state store is read.
--lag reads HMS: new, dropped and rewritten partitions, and the files of the new ones. It is never
exact: a file added to an existing partition does not show in HMS when its writer leaves the
partition's statistics alone. --list-storage lists every location and compares it with the table's
current snapshot, as a sync would: the files it would add and remove (exact: true).

${exitHelp('status')}`;

interface StatusOpts {
  json?: boolean;
  watch?: boolean;
  lag?: boolean;
  listStorage?: boolean;
  table?: string;
  lagConcurrency: number;
}

export function registerStatus(program: Command, io: IO): void {
  program
    .command('status')
    .description('where a plan is: waves done, tables migrated/syncing/cut over (with their lag), what waits for approval')
    .argument('<plan>', 'plan id')
    .option('--json', 'machine-readable output')
    .option('--watch', 'refresh every 2 s until the plan ends')
    .option('--lag', 'check live how far each migrated table is behind Hive (HMS partitions, files in new partitions; not exact)')
    .option('--list-storage', 'with --lag: list every location of each table and compare with its current snapshot (exact; slower)')
    .option('--table <db.t>', 'only this table, with the partitions added since the plan')
    .option(
      '--lag-concurrency <n>',
      'tables checked at once with --lag (1-1000)',
      intFlag('--lag-concurrency', FLAG_RANGES.validateConcurrency),
      8,
    )
    .addHelpText('after', HELP)
    .action(async (planText: string, opts: StatusOpts, cmd: Command) => {
      const { planArg, watchPlan } = await import('../../app/status/status');
      const { tablesStatus } = await import('../../app/status/table-status');
      const { withTableRuns } = await import('../../app/status/table-runs');
      const plan = planArg(planText);
      const config = await configOf(cmd);
      const lag = opts.lag === true || opts.listStorage === true;
      // The engine (with it the Avro and Parquet readers) only for --lag, made once for every --watch tick.
      let engine: Promise<ConversionEngine> | undefined;
      const engineOnce = (): Promise<ConversionEngine> => (engine ??= import('../compose').then((m) => m.conversionEngine()));
      const asked = lag || opts.table !== undefined;
      // The tables come from the state store: when it cannot answer, the plan's status still shows
      // (with the reason), unless --lag or --table asked for the tables.
      const tables = () =>
        tablesStatus(
          config,
          plan,
          {
            lag,
            listStorage: opts.listStorage === true,
            table: opts.table,
            concurrency: opts.lagConcurrency,
          },
          engineOnce,
        ).then(
          async (t) => (opts.json ? { ...t, rows: await withTableRuns(config, plan, t.rows) } : t),
          (e: unknown) => {
            if (asked || !(e instanceof MigrationError)) throw e;
            return { error: { code: e.code, message: e.message } };
          },
        );
      const last = await watchPlan(config, plan, { watch: opts.watch === true }, async ({ status, outcome, cutover }) => {
        const t = await tables();
        const cut = cutover === undefined ? {} : { cutover };
        const body =
          'error' in t
            ? { tablesError: t.error }
            : { tables: t.rows, tableCounts: t.counts, ...(t.sincePlan !== undefined ? { sincePlan: t.sincePlan } : {}) };
        const rows = 'error' in t ? undefined : t.rows;
        const waves = rows === undefined || opts.table !== undefined ? {} : { waves: wavesJson(status, rows) };
        if (opts.json) io.out(`${JSON.stringify({ ...status, ...waves, ...outcomeJson(outcome), ...cut, ...body })}\n`);
        else
          io.out(
            `${renderStatus(status, outcome, opts.table === undefined ? rows : undefined)}${renderCutover(cutover)}${'error' in t ? `tables: not available (${t.error.code}: ${t.error.message})\n` : renderTables(t.rows, t.counts, t.sincePlan)}`,
          );
      });
      io.setExit(last.outcome.exit);
    });
}
