// Planner benchmark: 10,000 tables / 50,000 edges (seeded, so every run plans the same warehouse),
// timing graph build, wave planning and plan serialization (canonical JSON + pure-TS sha256), with
// peak RSS; and a naive repeated-scan peer for a ratio. Goal: ≤ 10 s.
// Run: npx tsx bench/plan/plan.bench.ts
import { performance } from 'node:perf_hooks';
import { buildGraph } from '../../core/plan/graph';
import { buildPlan, serializePlan } from '../../core/plan/plan-file';
import type { PlanEdge, PlanTable, WaveOptionsInput } from '../../core/plan/types';
import { planWaves } from '../../core/plan/waves';

const TABLES = 10_000;
const EDGES = 50_000;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A warehouse: 40 databases, 12 teams, a random topological order and forward edges only (a DAG) plus a few cycles. */
function warehouse(seed: number): { tables: PlanTable[]; edges: PlanEdge[] } {
  const rnd = mulberry32(seed);
  const teams = Array.from({ length: 12 }, (_, i) => `team-${i}`);
  const tables: PlanTable[] = Array.from({ length: TABLES }, (_, i) => {
    const database = `db${i % 40}`;
    const name = `t${i}`;
    const risk = rnd() < 0.6 ? 'low' : rnd() < 0.7 ? 'medium' : 'high';
    const cls = rnd() < 0.85 ? 'migrate' : rnd() < 0.6 ? 'migrate-with-warnings' : 'rewrite-required';
    const files = Math.floor(rnd() ** 3 * 5000);
    return {
      id: `${database}.${name}`,
      database,
      name,
      team: teams[Math.floor(rnd() * teams.length)] ?? null,
      kind: rnd() < 0.15 ? 'view' : 'table',
      class: cls,
      files,
      bytes: files * Math.floor(64e6 * rnd()),
      risk,
      fingerprint: `fp${i}`,
    };
  });
  const edges: PlanEdge[] = [];
  while (edges.length < EDGES) {
    const a = Math.floor(rnd() * TABLES);
    const b = Math.floor(rnd() * TABLES);
    if (a === b) continue;
    // Mostly forward (acyclic); 1 in 5,000 backward, so the plan also meets a handful of cycles.
    const [from, to] = a < b || rnd() < 0.0002 ? [a, b] : [b, a];
    edges.push({ from: tables[from]!.id, to: tables[to]!.id, reason: rnd() < 0.5 ? 'view' : 'lineage' });
  }
  return { tables, edges };
}

const options: WaveOptionsInput = {
  maxTablesPerWave: 500,
  maxFilesPerWave: 200_000,
  maxBytesPerWave: 5e14,
  teamBlastRadiusPct: 20,
  canary: { tables: 25 },
};
const header = {
  createdAt: '2025-01-01T00:00:00.000Z',
  toolVersion: 'bench',
  source: { uri: 'thrift://bench:9083', label: 'bench' },
  targetCatalog: 'lake',
  throughput: { filesPerSecond: 500, bytesPerSecond: 2e9, perTableOverheadSeconds: 3 },
};

/**
 * The naive peer: wave by wave, scan every edge to find tables whose readers' sources are not yet
 * placed, then take up to maxTablesPerWave unblocked tables in id order. O(W·(V+E)); holds only
 * the table cap and no canary, blast radius, pins, cycle grouping or hashing. On a cycle it stops
 * and dumps the rest in one wave.
 */
function naiveWaves(tables: readonly PlanTable[], edges: readonly PlanEdge[], maxTables: number): Map<string, number> {
  const wave = new Map<string, number>();
  let remaining = tables
    .filter((t) => t.class !== 'rewrite-required' && t.class !== 'skip')
    .map((t) => t.id)
    .sort();
  const planned = new Set(remaining);
  for (let w = 1; remaining.length > 0; w++) {
    const blocked = new Set<string>();
    for (const e of edges) if (planned.has(e.from) && !wave.has(e.from)) blocked.add(e.to);
    let take = remaining.filter((id) => !blocked.has(id)).slice(0, maxTables);
    if (take.length === 0) take = remaining;
    for (const id of take) wave.set(id, w);
    const taken = new Set(take);
    remaining = remaining.filter((id) => !taken.has(id));
  }
  return wave;
}

function time<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const out = fn();
  return [out, performance.now() - t0];
}

function ours(tables: PlanTable[], edges: PlanEdge[]): { ms: number[]; text: string; waves: number } {
  const [graph, g] = time(() => buildGraph(tables, edges));
  const [plan, w] = time(() => planWaves(graph, options));
  const [text, s] = time(() => serializePlan(buildPlan(header, plan)));
  return { ms: [g, w, s], text, waves: plan.waves.length };
}

const [{ tables, edges }, genMs] = time(() => warehouse(6));
const cold = ours(tables, edges);
const warm = [ours(tables, edges), ours(tables, edges)];
const best = (i: number): number => Math.min(cold.ms[i]!, ...warm.map((r) => r.ms[i]!));
const total = (r: { ms: number[] }): number => r.ms.reduce((a, b) => a + b, 0);
const [naive, naiveMs] = time(() => naiveWaves(tables, edges, options.maxTablesPerWave));
const naiveWaveCount = new Set(naive.values()).size;
const ourWaveMs = best(0) + best(1);
const rssMb = process.resourceUsage().maxRSS / 1024;
const f = (ms: number): string => `${ms.toFixed(0)} ms`;

console.log(`plan bench: ${TABLES} tables, ${EDGES} edges (generated in ${f(genMs)}), node ${process.version}`);
console.log(
  `ours, cold: graph ${f(cold.ms[0]!)} + waves ${f(cold.ms[1]!)} + serialize ${f(cold.ms[2]!)} = ${f(total(cold))} (${cold.waves} waves, plan file ${(cold.text.length / 1e6).toFixed(2)} MB)`,
);
console.log(`ours, best of 3: graph ${f(best(0))} + waves ${f(best(1))} + serialize ${f(best(2))} = ${f(best(0) + best(1) + best(2))}`);
console.log(`deterministic: ${warm.every((r) => r.text === cold.text) ? 'yes (identical plan text on every run)' : 'NO'}`);
console.log(`naive repeated-scan peer (waves only, table cap only): ${f(naiveMs)} (${naiveWaveCount} waves)`);
console.log(`ratio naive / ours (graph + waves, best): ${(naiveMs / ourWaveMs).toFixed(1)}x`);
console.log(`peak RSS: ${rssMb.toFixed(0)} MB; heap used now: ${(process.memoryUsage().heapUsed / 1048576).toFixed(0)} MB`);
console.log(`goal ≤ 10 s (cold total): ${total(cold) <= 10_000 ? 'met' : 'MISSED'}`);
