// Import cycles among the repository's own TypeScript modules (every import, type-only ones too:
// a circle is a concept cut in two, whether or not it bites at run time). Used by the lint test
// test/unit/lint/import-cycles.test.ts and runnable alone:
//   npx tsx dev/tools/import-cycles.ts          (exit 1 and each cycle on a line when there is one)
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { buildCsr, stronglyConnected } from '../../core/plan/graph';

/** The product's source folders (tests and dev tools may import across freely). */
export const PRODUCT_DIRS = ['activities', 'adapters', 'app', 'bin', 'cli', 'core', 'engine', 'ops', 'workflows'] as const;

function listTs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listTs(p));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** `spec` imported from `from`, as a file of the graph, or null (a package, or not a .ts file of ours). */
function resolve(from: string, spec: string, known: ReadonlySet<string>): string | null {
  if (!spec.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), spec);
  for (const c of [base, `${base}.ts`, path.join(base, 'index.ts')]) if (known.has(c)) return c;
  return null;
}

/** Each module's imports among `files` (relative specifiers only; re-exports count). */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const info = ts.preProcessFile(readFileSync(f, 'utf8'), true, false);
    const deps = info.importedFiles.map((i) => resolve(f, i.fileName, known)).filter((d): d is string => d !== null);
    graph.set(f, [...new Set(deps)].sort());
  }
  return graph;
}

/** Every strongly connected component with more than one module (or a module importing itself), sorted. */
export function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const nodes = [...new Set([...graph.keys(), ...[...graph.values()].flat()])].sort();
  const index = new Map(nodes.map((n, i) => [n, i]));
  const edges = [...graph].flatMap(([v, ws]) => ws.map((w) => [index.get(v)!, index.get(w)!] as const));
  const succ = buildCsr(
    nodes.length,
    Int32Array.from(edges, (e) => e[0]),
    Int32Array.from(edges, (e) => e[1]),
  );
  const readsItself = (v: string): boolean => (graph.get(v) ?? []).includes(v);
  return stronglyConnected(succ)
    .members.map((m) => m.map((i) => nodes[i]!))
    .filter((c) => c.length > 1 || readsItself(c[0]!))
    .sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
}

/** The cycles among the product's modules under `root`, paths relative to it. */
export function productCycles(root: string): string[][] {
  const files = PRODUCT_DIRS.flatMap((d) => listTs(path.join(root, d)));
  return cyclesOf(importGraph(files)).map((c) => c.map((f) => path.relative(root, f)));
}

if (require.main === module) {
  const cycles = productCycles(path.resolve(__dirname, '..', '..'));
  for (const c of cycles) process.stdout.write(`${c.join(' <-> ')}\n`);
  process.stdout.write(`${cycles.length} import cycle(s)\n`);
  process.exitCode = cycles.length === 0 ? 0 : 1;
}
