// The HTML plan report: same content as the Markdown one (same model), one self-contained page,
// every text escaped.
import { buildGraph } from '../../../core/plan/graph';
import { buildPlan } from '../../../core/plan/plan-file';
import type { PlanFile } from '../../../core/plan/plan-file';
import { renderReport } from '../../../core/report/report';
import { escapeHtml, renderReportHtml } from '../../../core/report/report-html';
import { planWaves } from '../../../core/plan/waves';
import { baseOptions, edge, table } from '../plan/fixtures';

const tables = [
  table('sales.orders', { team: 'payments', files: 10, bytes: 2048 }),
  table('sales.<script>alert(1)</script>', { team: 'web & "core"', files: 3, bytes: 10 }),
  table('misc.csv', { class: 'rewrite-required', team: null }),
  table('misc.loader', { team: null }),
];
function plan(): PlanFile {
  const header = {
    createdAt: '2026-01-02T03:04:05.000Z',
    toolVersion: 'migrate 0.0.0',
    source: { uri: 'thrift://hms:9083', label: 'test' },
    targetCatalog: 'lake',
    throughput: { filesPerSecond: 10, bytesPerSecond: 1024, perTableOverheadSeconds: 5 },
  };
  return buildPlan(header, planWaves(buildGraph(tables, [edge('misc.loader', 'sales.orders', 'lineage')]), baseOptions));
}
const rt = [
  { id: 'sales.orders', class: 'migrate', codes: [] },
  { id: 'sales.<script>alert(1)</script>', class: 'migrate-with-warnings', codes: ['PARTITION_OUTSIDE_LOCATION'] },
  { id: 'misc.csv', class: 'rewrite-required', codes: ['UNSUPPORTED_FORMAT'] },
];

describe('HTML plan report', () => {
  const p = plan();
  const html = renderReportHtml(p, rt);

  it('is one self-contained page: doctype, inline style, no scripts or external references', () => {
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('<style>');
    expect(html).not.toMatch(/<script|src=|href=|@import/i);
  });

  it('escapes every text: a table named <script> stays text', () => {
    expect(html).toContain('sales.&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('web &amp; &quot;core&quot;');
    expect(escapeHtml(`<a href='x'>&`)).toBe('&lt;a href=&#39;x&#39;&gt;&amp;');
  });

  it('has the waves × teams totals, each wave with its tables, the not-planned table and its codes', () => {
    const planned = p.waves.reduce((n, w) => n + w.tables.length, 0);
    expect(html).toMatch(new RegExp(`<tr class="total"><td>total</td>.*<td class="n">${planned}</td>`));
    for (const w of p.waves) {
      expect(html).toContain(`<h2 id="wave-${w.number}">Wave ${w.number}</h2>`);
      for (const t of w.tables) expect(html).toContain(`<td>${escapeHtml(t.id)}</td>`);
    }
    expect(html).toMatch(
      /<tr class="rewrite-required"><td>misc\.csv<\/td><td>CLASS_REWRITE_REQUIRED<\/td><td>rewrite-required<\/td><td>UNSUPPORTED_FORMAT<\/td><\/tr>/,
    );
    expect(html).toContain(p.hash);
  });

  it('carries the same table rows as the Markdown report', () => {
    const md = renderReport(p, rt);
    for (const w of p.waves) for (const t of w.tables) expect(md).toContain(t.id.replace(/\|/g, '\\|'));
    expect((html.match(/<h2 id="wave-/g) ?? []).length).toBe((md.match(/^## Wave /gm) ?? []).length);
  });
});
