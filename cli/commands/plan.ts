// `migrate plan`: flags → app/plan/build.ts (warehouse → assessment → graph → waves → plan file,
// signed when plan.signing is set) → the outputs written all or nothing; or --diff two plan files.
import type { Command } from 'commander';
import { ErrorCode, MigrationError } from '../../core/errors';
import { ExitCode, exitHelp } from '../../core/exit-codes';
import { diffPlans, isEmptyDiff } from '../../core/plan/diff';
import type { PlanDiff } from '../../core/plan/diff';
import type { HmsSource } from '../../app/runtime/runtime';
import { collect } from '../flags';
import { configOf, hint } from '../output';
import type { IO } from '../output';
import { sourceOption } from './assess';

export function renderDiff(d: PlanDiff): string {
  if (isEmptyDiff(d)) return 'The plans place the same tables in the same waves.\n';
  const lines = [
    ...d.added.map((a) => `+ ${a.id} (wave ${a.wave})`),
    ...d.removed.map((r) => `- ${r.id} (was wave ${r.wave}${r.reason ? `; now ${r.reason}` : '; gone from HMS'})`),
    ...d.moved.map((m) => `~ ${m.id}: wave ${m.from} → ${m.to}`),
    ...d.classChanged.map((c) => `! ${c.id}: ${c.from} → ${c.to}`),
    ...d.fingerprintChanged.map((id) => `# ${id}: HMS metadata changed`),
  ];
  return `${lines.join('\n')}\n`;
}

interface PlanOpts {
  out?: string;
  report?: string;
  graph?: string;
  diff?: boolean;
  lineage?: string;
  database: string[];
  source?: HmsSource;
  json?: boolean;
  rewrite?: boolean;
}

async function runPlanCommand(opts: PlanOpts, files: string[], cmd: Command, io: IO): Promise<void> {
  const [{ buildPlanFromHms, checkOutputPaths, graphKind, reportKind, writePlanOutputs }, { planSigningKey, readPlanFile, signBuiltPlan }] =
    await Promise.all([import('../../app/plan/build'), import('../../app/plan/plan-input')]);
  const config = await configOf(cmd);
  if (opts.diff) {
    if (files.length !== 2) throw new MigrationError(ErrorCode.USAGE, '--diff takes two plan files: migrate plan --diff old.json new.json');
    const d = diffPlans(readPlanFile(files[0]!), readPlanFile(files[1]!));
    io.out(opts.json ? `${JSON.stringify({ ok: true, same: isEmptyDiff(d), diff: d }, null, 2)}\n` : renderDiff(d));
    return io.setExit(ExitCode.OK);
  }
  if (files.length > 0) throw new MigrationError(ErrorCode.USAGE, `unexpected argument(s): ${files.join(' ')}`);
  if (opts.out === undefined) throw new MigrationError(ErrorCode.USAGE, 'plan needs --out plan.json (or --diff old.json new.json)');
  if (opts.graph !== undefined) graphKind(opts.graph);
  if (opts.report !== undefined) reportKind(opts.report);
  checkOutputPaths({ out: opts.out, report: opts.report, graph: opts.graph });
  // Keys are loaded and checked before HMS is read: a signing misconfiguration writes nothing.
  const signing = planSigningKey(config);
  const unsigned = await buildPlanFromHms(config, {
    databases: opts.database,
    lineage: opts.lineage,
    now: new Date(),
    source: opts.source,
    rewrite: opts.rewrite === true,
  });
  const built = signing === undefined ? unsigned : { ...unsigned, plan: signBuiltPlan(unsigned.plan, signing) };
  const written = await writePlanOutputs(built, { out: opts.out, report: opts.report, graph: opts.graph });
  const p = built.plan;
  const signed = p.signature === undefined ? '' : `; signed (${p.signature.type}, key ${p.signature.keyId}) by ${p.signature.signer}`;
  const rewrites = p.waves.flatMap((w) => w.tables).filter((t) => t.class === 'rewrite-required');
  const rewriteNote =
    rewrites.length === 0
      ? ''
      : ` (${rewrites.length} on the rewrite path: ${rewrites.reduce((n, t) => n + t.bytes, 0)} bytes through Spark)`;
  const summary = `${p.waves.length} waves, ${p.waves.reduce((n, w) => n + w.tables.length, 0)} tables planned${rewriteNote}, ${p.notPlanned.length} not planned, ${p.findings.length} findings; hash ${p.hash}${signed}`;
  io.out(
    opts.json
      ? `${JSON.stringify({ ok: true, written, hash: p.hash, signature: p.signature ?? null, target: p.target, waves: p.waves.length, notPlanned: p.notPlanned.length, rewrite: rewrites.map((t) => ({ id: t.id, bytes: t.bytes })), findings: p.findings }, null, 2)}\n`
      : `${summary}\nwrote ${written.join(', ')}\nnext: review ${opts.report ?? opts.out}, then ${hint(`migrate apply ${opts.out}`)}\n`,
  );
  io.setExit(ExitCode.OK);
}

export function registerPlan(program: Command, io: IO): void {
  program
    .command('plan')
    .description('build the dependency graph and ordered waves into a versioned, hashed plan file (or --diff two plans)')
    .argument('[files...]', 'with --diff: old.json new.json')
    .option('--out <file>', 'plan file to write (canonical JSON)')
    .option('--report <file>', 'report of waves × teams: .md (Markdown) or .html (one self-contained page)')
    .option('--graph <file>', 'dependency graph: .svg (rendered in-process), .dot or .mmd')
    .option('--lineage <file>', 'declared lineage YAML (overrides plan.lineage)')
    .option('--database <name>', 'only this database (repeatable)', collect, [])
    .addOption(sourceOption())
    .option('--diff', 'compare two plan files: tables added, removed, moved, class and fingerprint changes')
    .option(
      '--rewrite',
      'plan rewrite-required tables the Spark job reads (text/CSV/JSON, bucketed, sub-directories) onto the rewrite path (needs a rewrite: config section)',
    )
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      `
Examples:
  migrate plan -c migrate.yaml --out plan.json --report plan.md --graph plan.svg
  migrate plan -c migrate.yaml --out plan.json --report plan.html
  migrate plan -c migrate.yaml --out plan.json --lineage lineage.yaml --database sales
  migrate plan --diff old.json new.json
  migrate plan -c migrate.yaml --out plan.json --rewrite   # text/CSV/JSON, bucketed, sub-directory tables through Spark

Tables the target catalog already holds (an earlier plan migrated them) are left out with the
finding IN_TARGET_CATALOG; the catalog is listed once per target namespace.
${exitHelp('plan')}`,
    )
    .action(async (files: string[], opts: PlanOpts, cmd: Command) => {
      // Planning-input errors (config, lineage, pins, caps, plan files) are the user's to fix: the
      // one exit point renders them and exits 2 (cli/output.ts USAGE_CODES).
      await runPlanCommand(opts, files, cmd, io);
    });
}
