// Dependency graph over assessed tables: compact adjacency (CSR), iterative Tarjan SCC (no
// recursion, so 10k-node chains do not overflow the stack), condensation DAG, cycle report.
// Pure; no I/O. Tables are indexed in id order so every result is independent of input order.
import { ErrorCode, MigrationError } from '../errors';
import type { Finding, PlanEdge, PlanTable, TableId } from './types';
import { FindingCode, formatPath } from './types';
import { compareIds } from './compare-ids';

/** Compressed sparse rows: the neighbours of v are targets[offsets[v] .. offsets[v+1]). */
export interface Csr {
  readonly offsets: Int32Array;
  readonly targets: Int32Array;
}

export interface DependencyGraph {
  /** Sorted by id; a table's index is its position here. */
  readonly tables: readonly PlanTable[];
  readonly index: ReadonlyMap<TableId, number>;
  /** Edges between known tables, one per (from, to), sorted by (from, to). */
  readonly edges: readonly PlanEdge[];
  readonly succ: Csr;
  readonly pred: Csr;
  /** Edges naming unknown tables. */
  readonly findings: readonly Finding[];
}

export interface Components {
  /** Component of each node, or -1 for nodes outside the mask. */
  readonly comp: Int32Array;
  /** Members (node indexes, ascending) of each component. Tarjan order: if c → d then d < c. */
  readonly members: readonly (readonly number[])[];
}

/** Sizes feed the caps: a negative, fractional or non-finite count would let a wave overflow silently. */
function checkSizes(tables: readonly PlanTable[]): void {
  tables.forEach((t, i) => {
    for (const key of ['files', 'bytes'] as const) {
      if (Number.isSafeInteger(t[key]) && t[key] >= 0) continue;
      const path = formatPath(['tables', i, key]);
      throw new MigrationError(ErrorCode.PLAN_INVALID, `${path}: expected a non-negative integer, got ${t[key]} (${t.id})`, {
        paths: [path],
        id: t.id,
      });
    }
  });
}

function indexTables(tables: readonly PlanTable[]): { sorted: PlanTable[]; index: Map<TableId, number> } {
  checkSizes(tables);
  const sorted = [...tables].sort((a, b) => compareIds(a.id, b.id));
  const index = new Map<TableId, number>();
  sorted.forEach((t, i) => {
    if (index.has(t.id))
      throw new MigrationError(ErrorCode.PLAN_INVALID, `tables: duplicate table id ${t.id}`, { paths: ['tables'], id: t.id });
    if (t.id !== `${t.database}.${t.name}`) {
      throw new MigrationError(ErrorCode.PLAN_INVALID, `tables: id ${t.id} is not database.name (${t.database}.${t.name})`, {
        paths: ['tables'],
        id: t.id,
      });
    }
    index.set(t.id, i);
  });
  return { sorted, index };
}

/** Rows from (from, to) pairs; each row's targets ascending. */
export function buildCsr(n: number, from: Int32Array, to: Int32Array): Csr {
  const offsets = new Int32Array(n + 1);
  for (const f of from) offsets[f + 1]! += 1;
  for (let i = 0; i < n; i++) offsets[i + 1]! += offsets[i]!;
  const fill = offsets.slice(0, n);
  const targets = new Int32Array(from.length);
  for (let e = 0; e < from.length; e++) targets[fill[from[e]!]!++] = to[e]!;
  for (let v = 0; v < n; v++) targets.subarray(offsets[v], offsets[v + 1]).sort();
  return { offsets, targets };
}

/** Build the graph; edges naming unknown tables become findings, duplicate edges collapse. */
export function buildGraph(tables: readonly PlanTable[], edges: readonly PlanEdge[]): DependencyGraph {
  const { sorted, index } = indexTables(tables);
  const known: PlanEdge[] = [];
  const unknown = new Map<string, Set<TableId>>();
  for (const e of edges) {
    const missing = [e.from, e.to].filter((id) => !index.has(id));
    if (missing.length === 0) known.push(e);
    for (const id of missing) {
      const peers = unknown.get(id) ?? new Set<TableId>();
      peers.add(id === e.from ? e.to : e.from);
      unknown.set(id, peers);
    }
  }
  // Sort by (from, to, reason) and keep the first of each (from, to): 'lineage' < 'view'.
  known.sort((a, b) => compareIds(a.from, b.from) || compareIds(a.to, b.to) || compareIds(a.reason, b.reason));
  const deduped = known.filter((e, i) => i === 0 || e.from !== known[i - 1]!.from || e.to !== known[i - 1]!.to);
  const from = Int32Array.from(deduped, (e) => index.get(e.from)!);
  const to = Int32Array.from(deduped, (e) => index.get(e.to)!);
  const findings = [...unknown.keys()].sort(compareIds).map((id): Finding => {
    const peers = [...(unknown.get(id) ?? [])].sort(compareIds);
    return {
      code: FindingCode.UNKNOWN_EDGE_ENDPOINT,
      severity: 'warning',
      message: `${id} is not in the inventory; its edges to ${peers.join(', ')} are ignored`,
      tables: [id, ...peers].sort(compareIds),
    };
  });
  return {
    tables: sorted,
    index,
    edges: deduped,
    succ: buildCsr(sorted.length, from, to),
    pred: buildCsr(sorted.length, to, from),
    findings,
  };
}

/**
 * Tarjan's strongly connected components, iterative. Nodes with mask[v] = 0 (and edges touching
 * them) are left out. Components come out in reverse topological order of the condensation.
 */
export function stronglyConnected(succ: Csr, mask?: Uint8Array): Components {
  const n = succ.offsets.length - 1;
  const order = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const comp = new Int32Array(n).fill(-1);
  const stack = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const callNode = new Int32Array(n);
  const callEdge = new Int32Array(n);
  const members: number[][] = [];
  let counter = 0;
  let sp = 0;
  for (let root = 0; root < n; root++) {
    if (order[root] !== -1 || (mask && mask[root] === 0)) continue;
    let csp = 0;
    const enter = (v: number): void => {
      order[v] = low[v] = counter++;
      stack[sp++] = v;
      onStack[v] = 1;
      callNode[csp] = v;
      callEdge[csp++] = succ.offsets[v]!;
    };
    enter(root);
    while (csp > 0) {
      const v = callNode[csp - 1]!;
      const e = callEdge[csp - 1]!;
      if (e < succ.offsets[v + 1]!) {
        callEdge[csp - 1] = e + 1;
        const w = succ.targets[e]!;
        if (mask && mask[w] === 0) continue;
        if (order[w] === -1) enter(w);
        else if (onStack[w] === 1 && order[w]! < low[v]!) low[v] = order[w]!;
        continue;
      }
      csp--;
      if (csp > 0) {
        const parent = callNode[csp - 1]!;
        if (low[v]! < low[parent]!) low[parent] = low[v]!;
      }
      if (low[v] === order[v]) members.push(popComponent(v, stack, onStack, comp, members.length, () => --sp));
    }
  }
  for (const m of members) m.sort((a, b) => a - b);
  return { comp, members };
}

function popComponent(v: number, stack: Int32Array, onStack: Uint8Array, comp: Int32Array, id: number, pop: () => number): number[] {
  const out: number[] = [];
  for (;;) {
    const w = stack[pop()]!;
    onStack[w] = 0;
    comp[w] = id;
    out.push(w);
    if (w === v) return out;
  }
}

/** The condensation: one node per component, one edge per connected pair, no self-edges. */
export function condense(succ: Csr, components: Components): Csr {
  const { comp, members } = components;
  const seen = new Int32Array(members.length).fill(-1);
  const from: number[] = [];
  const to: number[] = [];
  members.forEach((nodes, c) => {
    for (const v of nodes) {
      for (let e = succ.offsets[v]!; e < succ.offsets[v + 1]!; e++) {
        const d = comp[succ.targets[e]!]!;
        if (d === -1 || d === c || seen[d] === c) continue;
        seen[d] = c;
        from.push(c);
        to.push(d);
      }
    }
  });
  return buildCsr(members.length, Int32Array.from(from), Int32Array.from(to));
}

function hasSelfLoop(succ: Csr, v: number): boolean {
  for (let e = succ.offsets[v]!; e < succ.offsets[v + 1]!; e++) if (succ.targets[e] === v) return true;
  return false;
}

/** Every cycle as its sorted member ids (components of 2+ tables, or a table reading itself), sorted. */
export function findCycles(graph: DependencyGraph, components: Components = stronglyConnected(graph.succ)): TableId[][] {
  return components.members
    .filter((m) => m.length > 1 || hasSelfLoop(graph.succ, m[0]!))
    .map((m) => m.map((v) => graph.tables[v]!.id))
    .sort((a, b) => compareIds(a[0]!, b[0]!));
}

/** Cycle findings, one per cycle. */
export function cycleFindings(cycles: readonly (readonly TableId[])[]): Finding[] {
  return cycles.map((members) => ({
    code: FindingCode.CYCLE,
    severity: 'warning',
    message: `dependency cycle of ${members.length} table(s): ${members.join(', ')}; its planned members share one wave`,
    tables: [...members],
  }));
}
