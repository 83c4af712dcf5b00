// The plan's dependency graph as text: Graphviz DOT (one cluster per wave, a node per planned
// table, solid view edges, dashed lineage edges) and Mermaid (same structure). SVG rendering of the
// DOT lives in adapters/graphviz. Pure; no I/O; output depends only on the input (sorted).
import type { PlanEdge, TableId } from '../plan/types';
import type { TableClass } from '../assess/types';
import { compareIds } from '../plan/compare-ids';

export interface GraphTable {
  readonly id: TableId;
  readonly team: string | null;
  readonly class: TableClass;
}

export interface GraphInput {
  readonly waves: readonly { readonly number: number; readonly tables: readonly GraphTable[] }[];
  /** Dependency edges; those touching a table outside the waves are left out. May be empty. */
  readonly edges: readonly PlanEdge[];
}

const FILL: Readonly<Record<TableClass, string>> = {
  migrate: '#d8f0dc',
  'migrate-with-warnings': '#fdf0c8',
  'rewrite-required': '#f8d7da',
  skip: '#e2e3e5',
};

/** DOT double-quoted string: backslash and quote escaped, newlines as \n. */
function dq(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r?\n/g, '\\n')}"`;
}

function plannedEdges(g: GraphInput): PlanEdge[] {
  const planned = new Set(g.waves.flatMap((w) => w.tables.map((t) => t.id)));
  const seen = new Set<string>();
  return g.edges
    .filter((e) => planned.has(e.from) && planned.has(e.to))
    .filter((e) => {
      const k = `${e.from}\u0000${e.to}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .sort((a, b) => compareIds(a.from, b.from) || compareIds(a.to, b.to));
}

const label = (t: GraphTable): string => (t.team === null ? t.id : `${t.id}\n${t.team}`);

export function toDot(g: GraphInput): string {
  const lines = [
    'digraph plan {',
    '  rankdir=LR;',
    '  graph [fontname="Helvetica", fontsize=12, compound=true];',
    '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
    '  edge [color="#555555"];',
  ];
  for (const w of g.waves) {
    lines.push(
      `  subgraph ${dq(`cluster_wave_${w.number}`)} {`,
      `    label=${dq(`wave ${w.number} (${w.tables.length})`)};`,
      '    style="rounded"; color="#999999";',
    );
    for (const t of w.tables) lines.push(`    ${dq(t.id)} [label=${dq(label(t))}, fillcolor=${dq(FILL[t.class])}];`);
    lines.push('  }');
  }
  for (const e of plannedEdges(g)) lines.push(`  ${dq(e.from)} -> ${dq(e.to)}${e.reason === 'lineage' ? ' [style=dashed]' : ''};`);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** Mermaid label text: quotes become #quot; (Mermaid's entity form), newlines <br/>. */
function mq(s: string): string {
  return `"${s.replace(/"/g, '#quot;').replace(/\r?\n/g, '<br/>')}"`;
}

export function toMermaid(g: GraphInput): string {
  const ids = new Map<TableId, string>();
  const lines = ['flowchart LR'];
  for (const w of g.waves) {
    lines.push(`  subgraph wave_${w.number} [${mq(`wave ${w.number} (${w.tables.length})`)}]`);
    for (const t of w.tables) {
      const n = `t${ids.size}`;
      ids.set(t.id, n);
      lines.push(`    ${n}[${mq(label(t))}]:::${t.class.replace(/-/g, '_')}`);
    }
    lines.push('  end');
  }
  for (const e of plannedEdges(g))
    lines.push(`  ${ids.get(e.from) ?? ''} ${e.reason === 'lineage' ? '-.->' : '-->'} ${ids.get(e.to) ?? ''}`);
  for (const [cls, fill] of Object.entries(FILL)) lines.push(`  classDef ${cls.replace(/-/g, '_')} fill:${fill}`);
  return `${lines.join('\n')}\n`;
}
