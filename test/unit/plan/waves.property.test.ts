// Property tests of the wave planner on random graphs: every edge respected, every cap and blast
// radius held (except reported oversize components), cycles reported with their exact members,
// and input order never changes the serialized plan. Graphs come from a seed (fast-check shrinks
// seed and size); runs are few for big graphs so the suite stays quick on a busy machine.
import fc from 'fast-check';
import { buildGraph } from '../../../core/plan/graph';
import { buildPlan, serializePlan } from '../../../core/plan/plan-file';
import type { PlanEdge, PlanTable, WaveOptionsInput } from '../../../core/plan/types';
import { planWaves } from '../../../core/plan/waves';
import { bruteSccs, randomGraph, shuffle, violations } from './fixtures';

const header = {
  createdAt: '2025-01-01T00:00:00.000Z',
  toolVersion: '0.1.0',
  source: { uri: 'thrift://hms:9083', label: 'test' },
  targetCatalog: 'lake',
  throughput: { filesPerSecond: 200, bytesPerSecond: 5e8, perTableOverheadSeconds: 2 },
};

const optionsArb = (maxTables: number): fc.Arbitrary<WaveOptionsInput> =>
  fc.integer({ min: 1, max: maxTables }).chain((maxTablesPerWave) =>
    fc.record({
      maxTablesPerWave: fc.constant(maxTablesPerWave),
      maxFilesPerWave: fc.integer({ min: 1, max: 2000 }),
      maxBytesPerWave: fc.integer({ min: 1, max: 5e7 }),
      teamBlastRadiusPct: fc.integer({ min: 1, max: 100 }),
      canary: fc.option(fc.record({ tables: fc.integer({ min: 1, max: maxTablesPerWave }) }), { nil: null }),
    }),
  );

function planOf(tables: readonly PlanTable[], edges: readonly PlanEdge[], options: WaveOptionsInput): ReturnType<typeof planWaves> {
  return planWaves(buildGraph(tables, edges), options);
}

describe('wave planner properties', () => {
  it('random DAGs (up to 400 tables): edges strictly ordered, caps and blast radius held, no cycles', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 0, max: 5 }),
        optionsArb(60),
        (seed, n, degree, options) => {
          const { tables, edges } = randomGraph(seed, n, n * degree);
          const p = planOf(tables, edges, options);
          expect(violations(tables, edges, p)).toEqual([]);
          expect(p.findings.filter((f) => f.code === 'CYCLE')).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('random graphs with cycles (up to 150 tables): SCCs share a wave, other edges strictly ordered, cycles reported exactly', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 1, max: 150 }),
        fc.integer({ min: 0, max: 3 }),
        optionsArb(40),
        (seed, n, degree, options) => {
          const { tables, edges } = randomGraph(seed, n, n * degree, true, true);
          const p = planOf(tables, edges, options);
          const rep = bruteSccs(
            tables.map((t) => t.id),
            edges,
          );
          expect(violations(tables, edges, p, rep)).toEqual([]);
          const selfLoops = new Set(edges.filter((e) => e.from === e.to).map((e) => e.from));
          const expected = [...new Set(rep.values())]
            .map((r) =>
              tables
                .filter((t) => rep.get(t.id) === r)
                .map((t) => t.id)
                .sort(),
            )
            .filter((ids) => ids.length > 1 || selfLoops.has(ids[0]!))
            .map((ids) => ids.join(','))
            .sort();
          expect(
            p.findings
              .filter((f) => f.code === 'CYCLE')
              .map((f) => f.tables.join(','))
              .sort(),
          ).toEqual(expected);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('the same input in any order gives the identical plan file (and hash)', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer(), fc.integer({ min: 1, max: 300 }), optionsArb(30), (seed, shuffleSeed, n, options) => {
        const { tables, edges } = randomGraph(seed, n, n * 3, true);
        const a = serializePlan(buildPlan(header, planOf(tables, edges, options)));
        const b = serializePlan(buildPlan(header, planOf(shuffle(tables, shuffleSeed), shuffle(edges, shuffleSeed + 1), options)));
        expect(b).toBe(a);
      }),
      { numRuns: 40 },
    );
  });

  it('10,000 tables / 50,000 edges: every edge, cap and blast radius held; order-independent hash', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 50, max: 2000 }), fc.integer({ min: 5, max: 100 }), (seed, maxTablesPerWave, pct) => {
        const { tables, edges } = randomGraph(seed, 10_000, 50_000);
        const options = {
          maxTablesPerWave,
          maxFilesPerWave: 40_000,
          maxBytesPerWave: 1e9,
          teamBlastRadiusPct: pct,
          canary: { tables: 20 },
        };
        const p = planOf(tables, edges, options);
        expect(violations(tables, edges, p)).toEqual([]);
        const a = buildPlan(header, p).hash;
        const b = buildPlan(header, planOf(shuffle(tables, seed), shuffle(edges, seed + 1), options)).hash;
        expect(b).toBe(a);
      }),
      { numRuns: 3 },
    );
  });
});
