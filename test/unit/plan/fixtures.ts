// Shared builders for the planner tests: tables, seeded random graphs, and an independent checker
// of plan invariants (edges, caps, blast radius, cycles) that does not reuse the planner's code.
import type { PlanEdge, PlanTable, WaveOptionsInput } from '../../../core/plan/types';
import type { Risk, TableClass } from '../../../core/assess/types';
import type { WavePlan } from '../../../core/plan/waves';

export function table(id: string, over: Partial<Omit<PlanTable, 'id' | 'database' | 'name'>> = {}): PlanTable {
  const [database = '', name = ''] = id.split('.');
  return {
    id,
    database,
    name,
    team: 'data',
    kind: 'table',
    class: 'migrate',
    files: 1,
    bytes: 100,
    risk: 'low',
    fingerprint: `fp-${id}`,
    ...over,
  };
}

export const edge = (from: string, to: string, reason: PlanEdge['reason'] = 'view'): PlanEdge => ({ from, to, reason });

export const baseOptions: WaveOptionsInput = { maxTablesPerWave: 100, maxFilesPerWave: 1_000_000, maxBytesPerWave: 1e15 };

/** mulberry32: a tiny seeded PRNG, so big graphs come from a seed fast-check can shrink. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TEAMS = ['analytics', 'finance', 'growth', 'ops', null] as const;
const RISKS: Risk[] = ['low', 'low', 'medium', 'high'];
const CLASSES: TableClass[] = ['migrate', 'migrate', 'migrate', 'migrate-with-warnings', 'rewrite-required', 'skip'];

export interface RandomGraph {
  tables: PlanTable[];
  edges: PlanEdge[];
}

/** n tables across a few databases and teams; m edges, acyclic unless `cyclic` (then back edges too). */
export function randomGraph(seed: number, n: number, m: number, cyclic = false, allMigrate = false): RandomGraph {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const tables = Array.from({ length: n }, (_, i) =>
    table(`db${i % 7}.t${i}`, {
      team: pick(TEAMS),
      kind: rnd() < 0.2 ? 'view' : 'table',
      class: allMigrate ? 'migrate' : pick(CLASSES),
      files: Math.floor(rnd() * 50),
      bytes: Math.floor(rnd() * 1e6),
      risk: pick(RISKS),
    }),
  );
  // A random topological order; forward edges only keep it acyclic.
  const rank = Array.from({ length: n }, (_, i) => i).sort(() => rnd() - 0.5);
  const edges: PlanEdge[] = [];
  for (let k = 0; k < m && n > 1; k++) {
    let a = Math.floor(rnd() * n);
    let b = Math.floor(rnd() * n);
    if (!cyclic && a === b) continue;
    if (!cyclic && rank[a]! > rank[b]!) [a, b] = [b, a];
    edges.push(edge(tables[a]!.id, tables[b]!.id, rnd() < 0.5 ? 'view' : 'lineage'));
  }
  return { tables, edges };
}

export function shuffle<T>(xs: readonly T[], seed: number): T[] {
  const rnd = prng(seed);
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Mutual reachability by BFS from every node (small graphs only): the SCCs, independently of Tarjan. */
export function bruteSccs(ids: readonly string[], edges: readonly PlanEdge[]): Map<string, string> {
  const adj = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const e of edges) if (adj.has(e.from) && adj.has(e.to)) adj.get(e.from)!.push(e.to);
  const reach = new Map<string, Set<string>>();
  for (const s of ids) {
    const seen = new Set([s]);
    const queue = [s];
    while (queue.length > 0) {
      for (const w of adj.get(queue.pop()!)!) {
        if (seen.has(w)) continue;
        seen.add(w);
        queue.push(w);
      }
    }
    reach.set(s, seen);
  }
  const rep = new Map<string, string>();
  for (const s of [...ids].sort()) if (!rep.has(s)) for (const t of reach.get(s)!) if (reach.get(t)!.has(s)) rep.set(t, s);
  return rep;
}

/** Every invariant a plan must hold; returns a list of violations (empty = good). */
export function violations(
  tables: readonly PlanTable[],
  edges: readonly PlanEdge[],
  plan: WavePlan,
  sccOf?: Map<string, string>,
): string[] {
  const out: string[] = [];
  const o = plan.options;
  const wave = new Map<string, number>();
  for (const w of plan.waves)
    for (const t of w.tables) {
      if (wave.has(t.id)) out.push(`${t.id} planned twice`);
      wave.set(t.id, w.number);
    }
  const notPlanned = new Set(plan.notPlanned.map((n) => n.id));
  for (const t of tables) if (wave.has(t.id) === notPlanned.has(t.id)) out.push(`${t.id} must be in exactly one of waves / notPlanned`);
  for (const e of edges) {
    const a = wave.get(e.from);
    const b = wave.get(e.to);
    if (a === undefined || b === undefined) continue;
    const together = sccOf !== undefined && sccOf.get(e.from) === sccOf.get(e.to);
    if (together ? a !== b : !(a < b)) out.push(`edge ${e.from}(w${a}) -> ${e.to}(w${b}) not respected`);
  }
  const oversize = new Set(plan.findings.filter((f) => f.code === 'OVERSIZE_COMPONENT').map((f) => [...f.tables].sort().join(',')));
  const teamTotals = new Map<string, number>();
  for (const w of plan.waves) for (const t of w.tables) if (t.team !== null) teamTotals.set(t.team, (teamTotals.get(t.team) ?? 0) + 1);
  for (const w of plan.waves) {
    if (
      oversize.has(
        w.tables
          .map((t) => t.id)
          .sort()
          .join(','),
      )
    )
      continue;
    const sum = (f: (t: PlanTable) => number): number => w.tables.reduce((s, t) => s + f(t), 0);
    if (w.tables.length > o.maxTablesPerWave) out.push(`wave ${w.number}: ${w.tables.length} tables`);
    if (sum((t) => t.files) > o.maxFilesPerWave) out.push(`wave ${w.number}: files cap`);
    if (sum((t) => t.bytes) > o.maxBytesPerWave) out.push(`wave ${w.number}: bytes cap`);
    for (const [team, total] of teamTotals) {
      const limit = Math.max(1, Math.ceil((o.teamBlastRadiusPct * total) / 100));
      const n = w.tables.filter((t) => t.team === team).length;
      if (n > limit) out.push(`wave ${w.number}: team ${team} has ${n} > ${limit}`);
    }
  }
  return out;
}
