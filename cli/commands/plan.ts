// `migrate plan`: inventory → assessment → dependency graph (view SQL + declared lineage) → waves →
// the versioned, hashed plan file, plus an optional Markdown report and graph (SVG/DOT/Mermaid).
// Every input is validated before HMS is read; every output is rendered before any is written, then
// written to a temp file and renamed, so a failure leaves nothing behind. `--diff` compares two plans.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { parse, YAMLParseError } from 'yaml';
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, MigrationError } from '../../core/errors';
import { diffPlans, isEmptyDiff } from '../../core/plan/diff';
import type { PlanDiff } from '../../core/plan/diff';
import { parseThroughput } from '../../core/plan/estimates';
import { buildGraph } from '../../core/plan/graph';
import { lineageEdges, parseLineage } from '../../core/plan/lineage';
import { buildPlan, serializePlan } from '../../core/plan/plan-file';
import type { PlanFile } from '../../core/plan/plan-file';
import { toDot, toMermaid } from '../../core/plan/render-graph';
import { renderReport } from '../../core/plan/report';
import { renderReportHtml } from '../../core/plan/report-html';
import type { PlanEdge } from '../../core/plan/types';
import { parseWaveOptions } from '../../core/plan/types';
import { pinnedTarget } from '../../core/plan/target';
import { planWaves } from '../../core/plan/waves';
import { dotToSvg } from '../../adapters/graphviz/svg';
import { loadConfig } from '../config';
import { ExitCode } from '../exit-codes';
import { planSigningKey, readPlanFile, signBuiltPlan } from '../plan-input';
import type { AssessResult } from './assess';
import { openThrift, readWarehouse, assessSettings, assessWarehouse, outsideFindingsFor, toPlanTable, withPrefix } from './assess';

/** Caps used when the config sets none (a wave of at most 100 tables, 1M files, 100 TiB). */
export const DEFAULT_WAVES = { maxTablesPerWave: 100, maxFilesPerWave: 1_000_000, maxBytesPerWave: 100 * 2 ** 40 } as const;
/** Conservative rates until a trial wave measures this warehouse. */
export const DEFAULT_THROUGHPUT = { filesPerSecond: 100, bytesPerSecond: 50 * 2 ** 20, perTableOverheadSeconds: 5 } as const;

export interface PlanOutputs {
  readonly out: string;
  readonly report?: string;
  readonly graph?: string;
}

function toolVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

function reportKind(file: string): 'md' | 'html' {
  const ext = path.extname(file).toLowerCase().slice(1);
  if (ext === 'md' || ext === 'markdown') return 'md';
  if (ext === 'html' || ext === 'htm') return 'html';
  throw new MigrationError(ErrorCode.USAGE, `--report: ${file} must end in .md or .html`);
}

function graphKind(file: string): 'svg' | 'dot' | 'mmd' {
  const ext = path.extname(file).toLowerCase().slice(1);
  if (ext === 'svg' || ext === 'dot' || ext === 'mmd') return ext;
  throw new MigrationError(ErrorCode.USAGE, `--graph: ${file} must end in .svg, .dot or .mmd`);
}

export function readLineage(file: string): PlanEdge[] {
  if (!existsSync(file)) throw new MigrationError(ErrorCode.LINEAGE_INVALID, `plan.lineage: ${file} does not exist`, { paths: ['plan.lineage'] });
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'));
  } catch (e) {
    if (!(e instanceof YAMLParseError)) throw e;
    const at = e.linePos?.[0];
    throw new MigrationError(ErrorCode.LINEAGE_INVALID, `${file}${at ? `:${at.line}:${at.col}` : ''}: not valid YAML: ${e.message.split('\n')[0] ?? ''}`, { paths: ['(root)'], file });
  }
  return lineageEdges(parseLineage(doc, `lineage file ${file}`));
}

/** Everything the plan needs from the config, validated before any HMS call. */
function planSettings(cfg: MigrateConfig, lineageFlag: string | undefined) {
  const p = cfg.plan;
  const waves = { ...DEFAULT_WAVES, ...(p?.waves ?? {}) };
  withPrefix('plan.waves', () => parseWaveOptions(waves));
  const throughput = withPrefix('plan', () => parseThroughput(p?.throughput ?? DEFAULT_THROUGHPUT));
  const targetCatalog = p?.targetCatalog ?? cfg.catalog?.name;
  if (targetCatalog === undefined) throw new MigrationError(ErrorCode.CONFIG_INVALID, 'plan.targetCatalog: not set (and no catalog.name to default to)', { paths: ['plan.targetCatalog'] });
  const lineageFile = lineageFlag ?? p?.lineage;
  const lineage = lineageFile === undefined ? [] : readLineage(lineageFile);
  return { waves, throughput, targetCatalog, lineage, ...assessSettings(cfg) };
}

export interface BuiltPlan {
  readonly plan: PlanFile;
  readonly assessed: AssessResult;
  readonly edges: readonly PlanEdge[];
}

export async function buildPlanFromHms(cfg: MigrateConfig, o: { databases: readonly string[]; lineage?: string; now: Date }): Promise<BuiltPlan> {
  const s = planSettings(cfg, o.lineage);
  const reader = openThrift(cfg);
  let assessed: AssessResult;
  try {
    const inventory = await readWarehouse(reader, o.databases.length > 0 ? o.databases : (cfg.plan?.databases ?? []));
    assessed = assessWarehouse(inventory, s.options, s.ownership, await outsideFindingsFor(cfg, inventory));
  } finally {
    await reader.close();
  }
  const edges = [...assessed.edges, ...s.lineage];
  const graph = buildGraph(assessed.tables.map(toPlanTable), edges);
  const waves = withPrefix('plan.waves', () => planWaves(graph, s.waves));
  const header = { createdAt: o.now.toISOString(), toolVersion: toolVersion(), source: { uri: cfg.hms?.thrift.uri ?? '', label: 'thrift' }, targetCatalog: s.targetCatalog, target: pinnedTarget(cfg), throughput: s.throughput };
  return { plan: buildPlan(header, waves), assessed, edges };
}

/** Render every output in memory; only then write each to a temp file and rename them all. */
export async function writePlanOutputs(built: BuiltPlan, outs: PlanOutputs): Promise<string[]> {
  const files: [string, string][] = [[outs.out, `${serializePlan(built.plan)}\n`]];
  if (outs.report !== undefined) {
    const rt = built.assessed.tables.map((t) => ({ id: t.id, class: t.class, codes: t.findings.map((f) => f.code) }));
    files.push([outs.report, reportKind(outs.report) === 'html' ? renderReportHtml(built.plan, rt) : renderReport(built.plan, rt)]);
  }
  if (outs.graph !== undefined) {
    const input = { waves: built.plan.waves, edges: built.edges };
    const kind = graphKind(outs.graph);
    files.push([outs.graph, kind === 'mmd' ? toMermaid(input) : kind === 'dot' ? toDot(input) : await dotToSvg(toDot(input))]);
  }
  const temps = files.map(([f]) => `${f}.tmp-${process.pid}`);
  try {
    files.forEach(([, text], i) => writeFileSync(temps[i]!, text));
    files.forEach(([f], i) => renameSync(temps[i]!, f));
  } finally {
    for (const t of temps) rmSync(t, { force: true });
  }
  return files.map(([f]) => f);
}

export { readPlanFile };

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

interface GlobalOpts {
  config?: string;
  set: string[];
}
interface PlanOpts {
  out?: string;
  report?: string;
  graph?: string;
  diff?: boolean;
  lineage?: string;
  database: string[];
  json?: boolean;
}
const collect = (v: string, prev: string[]): string[] => [...prev, v];

async function runPlanCommand(opts: PlanOpts, files: string[], g: GlobalOpts, io: { out: (s: string) => void; setExit: (c: number) => void }): Promise<void> {
  const { config } = loadConfig({ file: g.config, env: process.env, sets: g.set, cwd: process.cwd() });
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
  // Keys are loaded and checked before HMS is read: a signing misconfiguration writes nothing.
  const signing = planSigningKey(config);
  const unsigned = await buildPlanFromHms(config, { databases: opts.database, lineage: opts.lineage, now: new Date() });
  const built = signing === undefined ? unsigned : { ...unsigned, plan: signBuiltPlan(unsigned.plan, signing) };
  const written = await writePlanOutputs(built, { out: opts.out, report: opts.report, graph: opts.graph });
  const p = built.plan;
  const signed = p.signature === undefined ? '' : `; signed (${p.signature.type}, key ${p.signature.keyId}) by ${p.signature.signer}`;
  const summary = `${p.waves.length} waves, ${p.waves.reduce((n, w) => n + w.tables.length, 0)} tables planned, ${p.notPlanned.length} not planned, ${p.findings.length} findings; hash ${p.hash}${signed}`;
  io.out(opts.json ? `${JSON.stringify({ ok: true, written, hash: p.hash, signature: p.signature ?? null, target: p.target, waves: p.waves.length, notPlanned: p.notPlanned.length, findings: p.findings }, null, 2)}\n` : `${summary}\nwrote ${written.join(', ')}\nnext: review ${opts.report ?? opts.out}, then migrate apply ${opts.out}\n`);
  io.setExit(ExitCode.OK);
}

export function registerPlan(program: Command, io: { out: (s: string) => void; err: (s: string) => void; setExit: (c: number) => void }): void {
  program
    .command('plan')
    .description('build the dependency graph and ordered waves into a versioned, hashed plan file (or --diff two plans)')
    .argument('[files...]', 'with --diff: old.json new.json')
    .option('--out <file>', 'plan file to write (canonical JSON)')
    .option('--report <file>', 'report of waves × teams: .md (Markdown) or .html (one self-contained page)')
    .option('--graph <file>', 'dependency graph: .svg (rendered in-process), .dot or .mmd')
    .option('--lineage <file>', 'declared lineage YAML (overrides plan.lineage)')
    .option('--database <name>', 'only this database (repeatable)', collect, [])
    .option('--diff', 'compare two plan files: tables added, removed, moved, class and fingerprint changes')
    .option('--json', 'machine-readable output')
    .addHelpText('after', `
Examples:
  migrate plan -c migrate.yaml --out plan.json --report plan.md --graph plan.svg
  migrate plan -c migrate.yaml --out plan.json --report plan.html
  migrate plan -c migrate.yaml --out plan.json --lineage lineage.yaml --database sales
  migrate plan --diff old.json new.json

Tables the target catalog already holds (an earlier plan migrated them) are left out with the
finding IN_TARGET_CATALOG; the catalog is listed once per target namespace.
Exit codes: 0 written (or compared); 1 HMS or the catalog cannot be read; 2 bad input (flags,
config, lineage, pins, caps, plan files: PLAN_INVALID, PLAN_HASH_MISMATCH, PLAN_VERSION_UNSUPPORTED,
LINEAGE_INVALID, ...). Nothing is written on an error.`)
    .action(async (files: string[], opts: PlanOpts, cmd: Command) => {
      // Planning-input errors (config, lineage, pins, caps, plan files) are the user's to fix: the
      // one exit point renders them and exits 2 (cli/output.ts USAGE_CODES).
      await runPlanCommand(opts, files, cmd.optsWithGlobals<GlobalOpts>(), io);
    });
}
