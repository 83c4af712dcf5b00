// render-graph (DOT, Mermaid) and the Markdown report over a plan built by the real planner.
import { buildGraph } from '../../../core/plan/graph';
import { buildPlan } from '../../../core/plan/plan-file';
import type { PlanFile } from '../../../core/plan/plan-file';
import { toDot, toMermaid } from '../../../core/report/render-graph';
import { migrationPath } from '../../../core/report/path';
import { humanBytes, humanSeconds, renderReport } from '../../../core/report/report';
import { planWaves } from '../../../core/plan/waves';
import { baseOptions, edge, table } from '../plan/fixtures';

const tables = [
  table('sales.orders', { team: 'payments', files: 10, bytes: 2048 }),
  table('sales.v_eu', { kind: 'view', class: 'migrate-with-warnings', team: 'payments', files: 0, bytes: 0 }),
  table('web."odd|name', { team: 'web "core"' }),
  table('misc.csv', { class: 'rewrite-required', team: null }),
  table('misc.loader', { team: null }),
];
const edges = [edge('sales.orders', 'sales.v_eu'), edge('misc.loader', 'sales.orders', 'lineage'), edge('misc.csv', 'sales.v_eu')];

function plan(): PlanFile {
  const header = {
    createdAt: '2026-01-02T03:04:05.000Z',
    toolVersion: 'migrate 0.0.0',
    source: { uri: 'thrift://hms:9083', label: 'test' },
    targetCatalog: 'lake',
    throughput: { filesPerSecond: 10, bytesPerSecond: 1024, perTableOverheadSeconds: 5 },
  };
  return buildPlan(header, planWaves(buildGraph(tables, edges), baseOptions));
}

describe('render-graph', () => {
  const p = plan();
  const input = { waves: p.waves, edges };

  it('DOT: a cluster per wave, a node per planned table, edges only between planned tables, lineage dashed', () => {
    const dot = toDot(input);
    expect(dot.match(/subgraph "cluster_wave_\d+"/g)).toHaveLength(p.waves.length);
    for (const w of p.waves) for (const t of w.tables) expect(dot).toContain(`"${t.id.replace(/"/g, '\\"')}" [label=`);
    expect(dot).toContain('"sales.orders" -> "sales.v_eu";');
    expect(dot).toContain('"misc.loader" -> "sales.orders" [style=dashed];');
    expect(dot).not.toContain('misc.csv'); // rewrite-required: not planned, no node, no edge
    expect(dot).toContain('web \\"core\\"');
    expect(toDot(input)).toBe(dot);
  });

  it('Mermaid: safe node ids, labels with entity-escaped quotes, one subgraph per wave', () => {
    const mmd = toMermaid(input);
    expect(mmd.startsWith('flowchart LR\n')).toBe(true);
    expect(mmd.match(/^ {2}subgraph wave_\d+ /gm)).toHaveLength(p.waves.length);
    expect(mmd).toContain('#quot;core#quot;');
    expect(mmd).toMatch(/t\d+ -\.-> t\d+/);
    expect(mmd).toMatch(/t\d+ --> t\d+/);
    expect(mmd).not.toContain('misc.csv');
  });
});

describe('report', () => {
  it('waves × teams, per-wave tables with codes, not planned with reasons, findings', () => {
    const p = plan();
    const md = renderReport(p, [
      { id: 'sales.v_eu', class: 'migrate-with-warnings', codes: ['VIEW'] },
      { id: 'misc.csv', class: 'rewrite-required', codes: ['UNSUPPORTED_FORMAT'] },
    ]);
    expect(md).toContain('## Waves × teams');
    expect(md).toMatch(/^\| wave \| \(no team\) \| payments \| web "core" \| tables \| files \| bytes \| expected \|$/m);
    expect(md).toMatch(/^\| \*\*total\*\* \| 1 \| 2 \| 1 \| 4 \|/m);
    expect(md).toContain('| sales.v_eu | payments | migrate-with-warnings | view | 0 | 0 B | VIEW |');
    expect(md).toContain('| sales.orders | payments | migrate | metadata-only | 10 | 2.0 KiB | - |');
    expect(md).toContain('## Not planned (left out, with the reason)');
    expect(md).toContain('| misc.csv | CLASS_REWRITE_REQUIRED | rewrite-required | UNSUPPORTED_FORMAT |');
    expect(md).toContain('web."odd\\|name');
    expect(md).toContain('**DEPENDENCY_NOT_PLANNED**');
    expect(md).toContain(p.hash);
    expect(renderReport(p, [])).toBe(renderReport(p, []));
  });

  it('the path column: view, rewrite (planned with --rewrite), insert-only (committed writes), metadata-only', () => {
    expect(migrationPath({ kind: 'view', class: 'migrate-with-warnings', codes: [] })).toBe('view');
    expect(migrationPath({ class: 'migrate-with-warnings', codes: ['VIEW'] })).toBe('view');
    expect(migrationPath({ kind: 'table', class: 'rewrite-required', codes: ['UNSUPPORTED_FORMAT'] })).toBe('rewrite');
    expect(migrationPath({ kind: 'table', class: 'migrate', codes: ['INSERT_ONLY_METADATA'] })).toBe('insert-only');
    expect(migrationPath({ kind: 'table', class: 'migrate-with-warnings', codes: ['TYPE_WIDENED'] })).toBe('metadata-only');
  });

  it('human units', () => {
    expect([humanBytes(0), humanBytes(1536), humanBytes(5 * 1024 ** 4)]).toEqual(['0 B', '1.5 KiB', '5.0 TiB']);
    expect([humanSeconds(0), humanSeconds(59), humanSeconds(3725), humanSeconds(3600)]).toEqual(['0s', '59s', '1h 2m 5s', '1h']);
  });
});
