// `plan`: the warehouse (app/plan/assess.ts) → dependency graph → waves → the plan file, and its
// outputs (report, graph) written all or nothing.
import { maskUri } from '../../core/mask';
import { existsSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, MigrationError } from '../../core/errors';
import { parseThroughput } from '../../core/plan/estimates';
import { buildGraph } from '../../core/plan/graph';
import { lineageEdges, parseLineage } from '../../core/plan/lineage';
import { buildPlan, serializePlan } from '../../core/plan/plan-file';
import type { PlanFile } from '../../core/plan/plan-file';
import { toDot, toMermaid } from '../../core/report/render-graph';
import { renderReport } from '../../core/report/report';
import { renderReportHtml } from '../../core/report/report-html';
import type { PlanEdge } from '../../core/plan/types';
import { parseWaveOptions } from '../../core/plan/types';
import { pinnedTarget } from '../../core/plan/target';
import { planWaves } from '../../core/plan/waves';
import { dotToSvg } from '../../adapters/graphviz/svg';
import { readYamlFile } from '../runtime/input-file';
import type { HmsSource } from '../runtime/runtime';
import { openWarehouseReader, toolVersion } from '../runtime/runtime';
import type { AssessResult } from './assess';
import { assessSettings, assessWarehouse, outsideFindingsFor, toPlanTable, withPrefix } from './assess';
import { readWarehouse } from './walk';
import { planId } from '../../core/plan/ids';

/** Caps used when the config sets none (a wave of at most 100 tables, 1M files, 100 TiB). */
export const DEFAULT_WAVES = { maxTablesPerWave: 100, maxFilesPerWave: 1_000_000, maxBytesPerWave: 100 * 2 ** 40 } as const;
/** Conservative rates until a trial wave measures this warehouse. */
export const DEFAULT_THROUGHPUT = { filesPerSecond: 100, bytesPerSecond: 50 * 2 ** 20, perTableOverheadSeconds: 5 } as const;

export interface PlanOutputs {
  readonly out: string;
  readonly report?: string;
  readonly graph?: string;
}

export function reportKind(file: string): 'md' | 'html' {
  const ext = path.extname(file).toLowerCase().slice(1);
  if (ext === 'md' || ext === 'markdown') return 'md';
  if (ext === 'html' || ext === 'htm') return 'html';
  throw new MigrationError(ErrorCode.USAGE, `--report: ${file} must end in .md or .html`);
}

export function graphKind(file: string): 'svg' | 'dot' | 'mmd' {
  const ext = path.extname(file).toLowerCase().slice(1);
  if (ext === 'svg' || ext === 'dot' || ext === 'mmd') return ext;
  throw new MigrationError(ErrorCode.USAGE, `--graph: ${file} must end in .svg, .dot or .mmd`);
}

/** A lineage file holds at most this much YAML. */
export const MAX_LINEAGE_BYTES = 64 * 2 ** 20;

export function readLineage(file: string): PlanEdge[] {
  if (!existsSync(file))
    throw new MigrationError(ErrorCode.LINEAGE_INVALID, `plan.lineage: ${file} does not exist`, { paths: ['plan.lineage'] });
  const doc = readYamlFile(file, { what: 'lineage file', code: ErrorCode.LINEAGE_INVALID, maxBytes: MAX_LINEAGE_BYTES });
  return lineageEdges(parseLineage(doc, `lineage file ${file}`));
}

/** Everything the plan needs from the config, validated before any HMS call. */
export function planSettings(cfg: MigrateConfig, lineageFlag: string | undefined, rewriteFlag = false) {
  const p = cfg.plan;
  // The rewrite path is opt-in per plan: --rewrite, or rewrite.enabled; recorded in the plan's options.
  const rewrite = rewriteFlag || cfg.rewrite?.enabled === true;
  if (rewriteFlag && cfg.rewrite === undefined)
    throw new MigrationError(
      ErrorCode.CONFIG_INVALID,
      'plan --rewrite: the config has no rewrite: section (the spark-submit command line)',
      {
        paths: ['rewrite'],
      },
    );
  const waves = { ...DEFAULT_WAVES, ...(p?.waves ?? {}), ...(rewrite ? { rewrite: true } : {}) };
  withPrefix('plan.waves', () => parseWaveOptions(waves));
  const measured = parseThroughput(p?.throughput ?? DEFAULT_THROUGHPUT);
  const throughput = withPrefix('plan', () =>
    rewrite ? parseThroughput({ rewriteBytesPerSecond: cfg.rewrite?.bytesPerSecond, ...measured }) : measured,
  );
  const targetCatalog = p?.targetCatalog ?? cfg.catalog?.name;
  if (targetCatalog === undefined)
    throw new MigrationError(ErrorCode.CONFIG_INVALID, 'plan.targetCatalog: not set (and no catalog.name to default to)', {
      paths: ['plan.targetCatalog'],
    });
  const lineageFile = lineageFlag ?? p?.lineage;
  const lineage = lineageFile === undefined ? [] : readLineage(lineageFile);
  return { waves, throughput, targetCatalog, lineage, ...assessSettings(cfg) };
}

export type PlanSettings = ReturnType<typeof planSettings>;

export interface BuiltPlan {
  readonly plan: PlanFile;
  readonly assessed: AssessResult;
  readonly edges: readonly PlanEdge[];
}

export async function buildPlanFromHms(
  cfg: MigrateConfig,
  o: { databases: readonly string[]; lineage?: string; now: Date; source?: HmsSource; rewrite?: boolean },
): Promise<BuiltPlan> {
  const s = planSettings(cfg, o.lineage, o.rewrite);
  const { reader, source, endpoint } = await openWarehouseReader(cfg, { source: o.source });
  let assessed: AssessResult;
  try {
    const inventory = await readWarehouse(reader, o.databases.length > 0 ? o.databases : (cfg.plan?.databases ?? []));
    // With the rewrite path on, a view over a table the job rewrites is an Iceberg view like any other.
    const options = s.waves.rewrite === true ? { ...s.options, rewrite: true } : s.options;
    assessed = assessWarehouse(inventory, options, s.ownership, await outsideFindingsFor(cfg, inventory));
  } finally {
    await reader.close();
  }
  return planFromAssessment(cfg, s, assessed, { now: o.now, source: { uri: maskUri(endpoint), label: source } });
}

/** The back half of `plan`, pure over the assessment: graph → waves → the plan file (not yet signed). */
export function planFromAssessment(
  cfg: MigrateConfig,
  s: PlanSettings,
  assessed: AssessResult,
  o: { now: Date; source: { uri: string; label: string } },
): BuiltPlan {
  const edges = [...assessed.edges, ...s.lineage];
  const graph = buildGraph(assessed.tables.map(toPlanTable), edges);
  const waves = withPrefix('plan.waves', () => planWaves(graph, s.waves));
  const header = {
    createdAt: o.now.toISOString(),
    toolVersion: toolVersion(),
    source: o.source,
    targetCatalog: s.targetCatalog,
    target: pinnedTarget(cfg),
    throughput: s.throughput,
  };
  const review = {
    tables: assessed.tables.map((t) => ({ id: t.id, class: t.class, kind: t.kind, codes: t.findings.map((f) => f.code) })),
    edges: edges.map((e) => ({ from: e.from, to: e.to, reason: e.reason })),
  };
  return { plan: buildPlan(header, waves, review), assessed, edges };
}

/** Render every output in memory; only then write each to a temp file and rename them all. */
/**
 * Refuses, before any work, an output path the plan could not be written to: a directory, something
 * that is not a regular file, or a parent directory that does not exist (USAGE, exit 2).
 */
export function checkOutputPaths(outs: Partial<PlanOutputs> & { readonly html?: string }): void {
  for (const [flag, f] of [
    ['--out', outs.out],
    ['--report', outs.report],
    ['--graph', outs.graph],
    ['--html', outs.html],
  ] as const) {
    if (f === undefined) continue;
    const dir = path.dirname(path.resolve(f));
    const parent = existsSync(dir) ? statSync(dir) : undefined;
    if (parent === undefined || !parent.isDirectory())
      throw new MigrationError(ErrorCode.USAGE, `${flag} ${f}: the directory ${dir} does not exist; create it first`, { file: f });
    const st = existsSync(f) ? statSync(f) : undefined;
    if (st !== undefined && !st.isFile())
      throw new MigrationError(
        ErrorCode.USAGE,
        `${flag} ${f}: ${st.isDirectory() ? 'is a directory' : 'is not a regular file'}; name a file to write`,
        {
          file: f,
        },
      );
  }
}

/**
 * The report and graph of a plan, rendered from the plan alone (its `review`): what `plan` writes and
 * `migrate show` re-renders from the saved plan, byte for byte. A plan without a review has none.
 */
export async function renderReviewOutputs(plan: PlanFile, outs: Omit<PlanOutputs, 'out'>): Promise<[string, string][]> {
  const review = plan.review;
  if (review === undefined && (outs.report !== undefined || outs.graph !== undefined))
    throw new MigrationError(
      ErrorCode.USAGE,
      `plan ${planId(plan.hash)} carries no review section (made by an earlier version): its report and graph cannot be rendered from it; run migrate plan again`,
    );
  const files: [string, string][] = [];
  if (outs.report !== undefined && review !== undefined)
    files.push([
      outs.report,
      reportKind(outs.report) === 'html' ? renderReportHtml(plan, review.tables) : renderReport(plan, review.tables),
    ]);
  if (outs.graph !== undefined && review !== undefined) {
    const input = { waves: plan.waves, edges: review.edges };
    const kind = graphKind(outs.graph);
    files.push([outs.graph, kind === 'mmd' ? toMermaid(input) : kind === 'dot' ? toDot(input) : await dotToSvg(toDot(input))]);
  }
  return files;
}

/** Render every output in memory; only then write each to a temp file and rename them all. */
export async function writePlanOutputs(built: Pick<BuiltPlan, 'plan'>, outs: PlanOutputs): Promise<string[]> {
  return writeAll([[outs.out, `${serializePlan(built.plan)}\n`], ...(await renderReviewOutputs(built.plan, outs))]);
}

/** Each file to a temp file, then all renamed (all or nothing). */
export function writeAll(files: readonly [string, string][]): string[] {
  const temps = files.map(([f]) => `${f}.tmp-${process.pid}`);
  try {
    files.forEach(([, text], i) => writeFileSync(temps[i]!, text));
    files.forEach(([f], i) => renameSync(temps[i]!, f));
  } finally {
    for (const t of temps) rmSync(t, { force: true });
  }
  return files.map(([f]) => f);
}
