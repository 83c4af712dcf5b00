// The Markdown report of a plan, for review before `apply`: a waves × teams matrix (tables per team
// per wave, with each wave's estimates), each wave's tables with class, path (path.ts) and assessment codes, what
// is not planned and why, and the planner's findings. Pure; no I/O; deterministic for one input.
import { maskUri } from '../mask';
import type { PlanFile } from '../plan/plan-file';
import { migrationPath } from './path';
import type { TableKind } from '../assess/types';
import { compareIds } from '../plan/compare-ids';

/** Per-table assessment summary shown next to each table (planned or not). */
export interface ReportTable {
  readonly id: string;
  readonly class: string;
  readonly codes: readonly string[];
  /** A view or a table (the path column says `view` for views); absent: a table. */
  readonly kind?: TableKind;
}

const NO_TEAM = '(no team)';

/** A Markdown table cell: pipes escaped, line breaks flattened. */
const cell = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

/** Binary units, one decimal: 1536 → "1.5 KiB". */
export function humanBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(1)} ${units[u]}`;
}

/** 3725 → "1h 2m 5s"; zero parts are left out, except a lone "0s". */
export function humanSeconds(s: number): string {
  const parts: [number, string][] = [
    [Math.floor(s / 3600), 'h'],
    [Math.floor((s % 3600) / 60), 'm'],
    [s % 60, 's'],
  ];
  const shown = parts.filter(([n]) => n > 0).map(([n, u]) => `${n}${u}`);
  return shown.length > 0 ? shown.join(' ') : '0s';
}

/** The report's content, shared by the Markdown and HTML renderers (report-html.ts). */
export interface ReportModel {
  readonly title: string;
  readonly facts: readonly string[];
  readonly matrix: { readonly head: readonly string[]; readonly rows: readonly (readonly string[])[]; readonly total: readonly string[] };
  readonly waves: readonly { readonly number: number; readonly rows: readonly (readonly string[])[] }[];
  readonly notPlanned: readonly (readonly string[])[];
  readonly findings: readonly { readonly code: string; readonly severity: string; readonly message: string }[];
}

export const WAVE_HEAD = ['table', 'team', 'class', 'path', 'files', 'bytes', 'findings'] as const;
export const NOT_PLANNED_HEAD = ['table', 'reason', 'class', 'findings'] as const;

export function reportModel(plan: PlanFile, tables: readonly ReportTable[]): ReportModel {
  const byId = new Map(tables.map((t) => [t.id, t]));
  const codes = (id: string): string => (byId.get(id)?.codes ?? []).join(', ') || '-';
  const teams = [...new Set(plan.waves.flatMap((w) => w.tables.map((t) => t.team ?? NO_TEAM)))].sort(compareIds);
  const rows = plan.waves.map((w) => [
    String(w.number),
    ...teams.map((team) => String(w.tables.filter((t) => (t.team ?? NO_TEAM) === team).length)),
    String(w.tables.length),
    String(w.estimates.files),
    humanBytes(w.estimates.bytes),
    humanSeconds(w.estimates.expectedSeconds),
  ]);
  const all = plan.waves.reduce(
    (a, w) => ({ t: a.t + w.tables.length, f: a.f + w.estimates.files, b: a.b + w.estimates.bytes, s: a.s + w.estimates.expectedSeconds }),
    { t: 0, f: 0, b: 0, s: 0 },
  );
  const total = [
    'total',
    ...teams.map((team) => String(plan.waves.reduce((n, w) => n + w.tables.filter((t) => (t.team ?? NO_TEAM) === team).length, 0))),
    String(all.t),
    String(all.f),
    humanBytes(all.b),
    humanSeconds(all.s),
  ];
  const planned = plan.waves.reduce((n, w) => n + w.tables.length, 0);
  const o = plan.options;
  return {
    title: 'Migration plan',
    facts: [
      `source: ${maskUri(plan.source.uri)}${plan.source.label ? ` (${plan.source.label})` : ''}`,
      `target catalog: ${plan.targetCatalog}`,
      `created: ${plan.createdAt} by ${plan.toolVersion} · plan hash ${plan.hash}`,
      `${plan.waves.length} wave(s), ${planned} table(s) planned, ${plan.notPlanned.length} not planned`,
      `caps per wave: ${o.maxTablesPerWave} tables, ${o.maxFilesPerWave} files, ${humanBytes(o.maxBytesPerWave)}; team blast radius ${o.teamBlastRadiusPct}%` +
        (o.canary ? `; canary wave of ${o.canary.tables} table(s)` : '; no canary wave'),
    ],
    matrix: { head: ['wave', ...teams, 'tables', 'files', 'bytes', 'expected'], rows, total },
    waves: plan.waves.map((w) => ({
      number: w.number,
      rows: w.tables.map((t) => [
        t.id,
        t.team ?? NO_TEAM,
        t.class,
        migrationPath({ kind: byId.get(t.id)?.kind, class: t.class, codes: byId.get(t.id)?.codes ?? [] }),
        String(t.files),
        humanBytes(t.bytes),
        codes(t.id),
      ]),
    })),
    notPlanned: plan.notPlanned.map((n) => [n.id, n.reason, byId.get(n.id)?.class ?? '-', codes(n.id)]),
    findings: plan.findings.map((f) => ({ code: f.code, severity: f.severity, message: f.message })),
  };
}

const mdRow = (cells: readonly string[]): string => `| ${cells.map(cell).join(' | ')} |`;

export function renderReport(plan: PlanFile, tables: readonly ReportTable[]): string {
  const m = reportModel(plan, tables);
  const code = (s: string): string => `\`${s}\``;
  const facts = m.facts.map(
    (f) =>
      `- ${f.replace(/^target catalog: (.*)$/, (_x, c: string) => `target catalog: ${code(c)}`).replace(/plan hash ([0-9a-f]{64})$/, (_x, h: string) => `plan hash ${code(h)}`)}`,
  );
  const out = [
    `# ${m.title}`,
    '',
    ...facts,
    '',
    '## Waves × teams',
    '',
    mdRow(m.matrix.head),
    `|---:|${m.matrix.head
      .slice(1)
      .map(() => '---:')
      .join('|')}|`,
    ...m.matrix.rows.map(mdRow),
    mdRow([`**${m.matrix.total[0] ?? ''}**`, ...m.matrix.total.slice(1)]),
  ];
  for (const w of m.waves) {
    out.push('', `## Wave ${w.number}`, '', mdRow([...WAVE_HEAD]), '|---|---|---|---|---:|---:|---|', ...w.rows.map(mdRow));
  }
  out.push('', '## Not planned (left out, with the reason)', '');
  if (m.notPlanned.length === 0) out.push('Every table is planned.');
  else out.push(mdRow([...NOT_PLANNED_HEAD]), '|---|---|---|---|', ...m.notPlanned.map(mdRow));
  out.push('', '## Planner findings', '');
  if (m.findings.length === 0) out.push('None.');
  for (const f of m.findings) out.push(`- **${f.code}** (${f.severity}): ${cell(f.message)}`);
  return `${out.join('\n')}\n`;
}
