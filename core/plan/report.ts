// The Markdown report of a plan, for review before `apply`: a waves × teams matrix (tables per team
// per wave, with each wave's estimates), each wave's tables with class and assessment codes, what
// is not planned and why, and the planner's findings. Pure; no I/O; deterministic for one input.
import type { PlanFile } from './plan-file';
import { compareIds } from './types';

/** Per-table assessment summary shown next to each table (planned or not). */
export interface ReportTable {
  readonly id: string;
  readonly class: string;
  readonly codes: readonly string[];
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
  const parts: [number, string][] = [[Math.floor(s / 3600), 'h'], [Math.floor((s % 3600) / 60), 'm'], [s % 60, 's']];
  const shown = parts.filter(([n]) => n > 0).map(([n, u]) => `${n}${u}`);
  return shown.length > 0 ? shown.join(' ') : '0s';
}

function teamMatrix(plan: PlanFile): string[] {
  const teams = [...new Set(plan.waves.flatMap((w) => w.tables.map((t) => t.team ?? NO_TEAM)))].sort(compareIds);
  const head = `| wave | ${teams.map(cell).join(' | ')} | tables | files | bytes | expected |`;
  const sep = `|---:|${teams.map(() => '---:').join('|')}|---:|---:|---:|---:|`;
  const rows = plan.waves.map((w) => {
    const counts = teams.map((team) => String(w.tables.filter((t) => (t.team ?? NO_TEAM) === team).length));
    return `| ${w.number} | ${counts.join(' | ')} | ${w.tables.length} | ${w.estimates.files} | ${humanBytes(w.estimates.bytes)} | ${humanSeconds(w.estimates.expectedSeconds)} |`;
  });
  const totals = teams.map((team) => String(plan.waves.reduce((n, w) => n + w.tables.filter((t) => (t.team ?? NO_TEAM) === team).length, 0)));
  const all = plan.waves.reduce((a, w) => ({ t: a.t + w.tables.length, f: a.f + w.estimates.files, b: a.b + w.estimates.bytes, s: a.s + w.estimates.expectedSeconds }), { t: 0, f: 0, b: 0, s: 0 });
  return [head, sep, ...rows, `| **total** | ${totals.join(' | ')} | ${all.t} | ${all.f} | ${humanBytes(all.b)} | ${humanSeconds(all.s)} |`];
}

function header(plan: PlanFile): string[] {
  const planned = plan.waves.reduce((n, w) => n + w.tables.length, 0);
  const o = plan.options;
  return [
    '# Migration plan',
    '',
    `- source: ${plan.source.uri}${plan.source.label ? ` (${plan.source.label})` : ''}`,
    `- target catalog: \`${plan.targetCatalog}\``,
    `- created: ${plan.createdAt} by ${plan.toolVersion} · plan hash \`${plan.hash}\``,
    `- ${plan.waves.length} wave(s), ${planned} table(s) planned, ${plan.notPlanned.length} not planned`,
    `- caps per wave: ${o.maxTablesPerWave} tables, ${o.maxFilesPerWave} files, ${humanBytes(o.maxBytesPerWave)}; team blast radius ${o.teamBlastRadiusPct}%` +
      (o.canary ? `; canary wave of ${o.canary.tables} table(s)` : '; no canary wave'),
  ];
}

export function renderReport(plan: PlanFile, tables: readonly ReportTable[]): string {
  const byId = new Map(tables.map((t) => [t.id, t]));
  const codes = (id: string): string => (byId.get(id)?.codes ?? []).join(', ') || '-';
  const out = [...header(plan), '', '## Waves × teams', '', ...teamMatrix(plan)];
  for (const w of plan.waves) {
    out.push('', `## Wave ${w.number}`, '', '| table | team | class | files | bytes | findings |', '|---|---|---|---:|---:|---|');
    for (const t of w.tables) out.push(`| ${cell(t.id)} | ${cell(t.team ?? NO_TEAM)} | ${t.class} | ${t.files} | ${humanBytes(t.bytes)} | ${cell(codes(t.id))} |`);
  }
  out.push('', '## Not planned', '');
  if (plan.notPlanned.length === 0) out.push('Every table is planned.');
  else {
    out.push('| table | reason | class | findings |', '|---|---|---|---|');
    for (const n of plan.notPlanned) out.push(`| ${cell(n.id)} | ${n.reason} | ${byId.get(n.id)?.class ?? '-'} | ${cell(codes(n.id))} |`);
  }
  out.push('', '## Planner findings', '');
  if (plan.findings.length === 0) out.push('None.');
  for (const f of plan.findings) out.push(`- **${f.code}** (${f.severity}): ${cell(f.message)}`);
  return `${out.join('\n')}\n`;
}
