// `migrate plans` (the submitted plans, newest first, with where each stands) and `migrate show`
// (a saved plan re-rendered: report, HTML report and graph exactly as `migrate plan` wrote them),
// over app/plan/plans.ts.
import type { Command } from 'commander';
import { ErrorCode, MigrationError } from '../../core/errors';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import type { ListedPlan } from '../../app/plan/plans';
import { configOf, hint } from '../output';
import type { IO } from '../output';

const PLANS_HELP = `
Examples:
  migrate plans -c migrate.yaml
  migrate plans -c migrate.yaml --json | jq '.plans[] | select(.state == "succeeded") | .id'

State: the plan workflow's last status (waiting-approval, running, paused, succeeded, failed,
cancelled, …), "rolled back" / "partly rolled back" when its tables were rolled back since, or
"not started".
${exitHelp('plans')}`;

const SHOW_HELP = `
Examples:
  migrate show plan.json                                   # the Markdown report on stdout
  migrate show 3f2a9c1b7d4e -c migrate.yaml --html plan.html --graph plan.svg
  migrate show plan.json --report plan.md --graph plan.dot --json

The files are byte-identical to what migrate plan wrote for the same plan (--report .md or .html,
--html: the HTML report, --graph .svg, .dot or .mmd). A plan id is looked up among the plans apply
stored; a plan made by a version that did not record its review section is refused (plan again).
${exitHelp('show')}`;

function planLine(p: ListedPlan): string {
  const run =
    p.lastRun === null
      ? 'no run'
      : `last run ${p.lastRun.closedAt ?? `started ${p.lastRun.startedAt}`} (${p.lastRun.execution.toLowerCase()})`;
  return `${p.id}  ${p.createdAt}  ${p.tables} tables  ${p.waves} waves  ${p.state}  ${run}`;
}

export function registerPlans(program: Command, io: IO): void {
  program
    .command('plans')
    .description('list the plans apply stored, newest first: id, created, tables, waves, state, last run')
    .option('--json', 'machine-readable output')
    .addHelpText('after', PLANS_HELP)
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { listPlans } = await import('../../app/plan/plans');
      const plans = await listPlans(await configOf(cmd));
      if (opts.json) io.out(`${JSON.stringify({ ok: true, plans })}\n`);
      else if (plans.length === 0) io.out(`no plans stored yet; next: ${hint('migrate apply plan.json')}\n`);
      else io.out(`${['id            created                   tables waves state last run', ...plans.map(planLine)].join('\n')}\n`);
      io.setExit(ExitCode.OK);
    });

  program
    .command('show')
    .description('re-render a saved plan (a plan file or a stored plan id): its report, HTML report and graph, as migrate plan wrote them')
    .argument('<plan>', 'plan file (plan.json) or plan id')
    .option('--report <file>', 'report: .md (Markdown) or .html')
    .option('--html <file>', 'the HTML report (.html)')
    .option('--graph <file>', 'dependency graph: .svg, .dot or .mmd')
    .option('--json', 'machine-readable output')
    .addHelpText('after', SHOW_HELP)
    .action(async (ref: string, opts: { report?: string; html?: string; graph?: string; json?: boolean }, cmd: Command) => {
      if (opts.html !== undefined && !/\.html?$/i.test(opts.html))
        throw new MigrationError(ErrorCode.USAGE, `--html: ${opts.html} must end in .html`);
      const [{ loadSavedPlan, reportText, writeShown }, { checkOutputPaths, graphKind, reportKind }] = await Promise.all([
        import('../../app/plan/plans'),
        import('../../app/plan/build'),
      ]);
      if (opts.report !== undefined) reportKind(opts.report);
      if (opts.graph !== undefined) graphKind(opts.graph);
      checkOutputPaths({ report: opts.report, html: opts.html, graph: opts.graph });
      const plan = await loadSavedPlan(() => configOf(cmd), ref);
      const any = opts.report !== undefined || opts.html !== undefined || opts.graph !== undefined;
      const written = any ? await writeShown(plan, opts) : [];
      const tables = plan.waves.reduce((n, w) => n + w.tables.length, 0);
      if (opts.json)
        io.out(`${JSON.stringify({ ok: true, hash: plan.hash, createdAt: plan.createdAt, waves: plan.waves.length, tables, written })}\n`);
      else io.out(any ? `wrote ${written.join(', ')}\n` : await reportText(plan));
      io.setExit(ExitCode.OK);
    });
}
