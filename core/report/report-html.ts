// The plan report as one self-contained HTML page (inline CSS, no scripts, no external assets):
// the same content as the Markdown report (report.ts reportModel), every text HTML-escaped so a
// table name or a finding can never inject markup. Pure; no I/O.
import type { PlanFile } from '../plan/plan-file';
import type { ReportTable } from './report';
import { NOT_PLANNED_HEAD, WAVE_HEAD, reportModel } from './report';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESC[c] ?? c);

const CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1b1f24}table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{border:1px solid #d0d7de;padding:.25rem .6rem;text-align:left}td.n,th.n{text-align:right}th{background:#f6f8fa}tr.total td{font-weight:600}code{background:#f6f8fa;padding:0 .2rem}.rewrite-required{color:#b35900}.skip{color:#6e7781}.migrate-with-warnings{color:#7d4e00}`;

function table(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  numeric: (i: number) => boolean,
  rowClass: (r: readonly string[]) => string = () => '',
): string {
  const th = head.map((h, i) => `<th${numeric(i) ? ' class="n"' : ''}>${escapeHtml(h)}</th>`).join('');
  const trs = rows
    .map(
      (r) =>
        `<tr${rowClass(r) ? ` class="${escapeHtml(rowClass(r))}"` : ''}>${r.map((c, i) => `<td${numeric(i) ? ' class="n"' : ''}>${escapeHtml(c)}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return `<table>\n<thead><tr>${th}</tr></thead>\n<tbody>\n${trs}\n</tbody>\n</table>`;
}

export function renderReportHtml(plan: PlanFile, tables: readonly ReportTable[]): string {
  const m = reportModel(plan, tables);
  const matrixNumeric = (i: number): boolean => i > 0 && i !== m.matrix.head.length - 2 && i !== m.matrix.head.length - 1;
  const parts = [
    '<!DOCTYPE html>',
    `<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(`${m.title} ${plan.hash.slice(0, 12)}`)}</title><style>${CSS}</style></head><body>`,
    `<h1>${escapeHtml(m.title)}</h1>`,
    `<ul>${m.facts.map((f) => `<li>${escapeHtml(f)}</li>`).join('')}</ul>`,
    '<h2>Waves × teams</h2>',
    table(m.matrix.head, [...m.matrix.rows, m.matrix.total], matrixNumeric, (r) => (r === m.matrix.total ? 'total' : '')),
  ];
  for (const w of m.waves)
    parts.push(
      `<h2 id="wave-${w.number}">Wave ${w.number}</h2>`,
      table(
        WAVE_HEAD,
        w.rows,
        (i) => i === 4 || i === 5,
        (r) => r[2] ?? '',
      ),
    );
  parts.push(
    '<h2>Not planned (left out, with the reason)</h2>',
    m.notPlanned.length === 0
      ? '<p>Every table is planned.</p>'
      : table(
          NOT_PLANNED_HEAD,
          m.notPlanned,
          () => false,
          (r) => r[2] ?? '',
        ),
  );
  parts.push(
    '<h2>Planner findings</h2>',
    m.findings.length === 0
      ? '<p>None.</p>'
      : `<ul>${m.findings.map((f) => `<li><strong>${escapeHtml(f.code)}</strong> (${escapeHtml(f.severity)}): ${escapeHtml(f.message)}</li>`).join('')}</ul>`,
  );
  parts.push('</body></html>');
  return `${parts.join('\n')}\n`;
}
