// Dependency graph: indexing, unknown endpoints as findings, iterative Tarjan against brute-force
// mutual reachability, deep chains without recursion.
import fc from 'fast-check';
import { buildGraph, condense, findCycles, stronglyConnected } from '../../../core/plan/graph';
import type { MigrationError } from '../../../core/errors';
import { bruteSccs, edge, randomGraph, table } from './fixtures';

describe('buildGraph', () => {
  it('indexes tables in id order whatever the input order, and collapses duplicate edges', () => {
    const g = buildGraph(
      [table('b.y'), table('a.x'), table('b.a')],
      [edge('a.x', 'b.y', 'view'), edge('a.x', 'b.y', 'lineage'), edge('b.a', 'b.y')],
    );
    expect(g.tables.map((t) => t.id)).toEqual(['a.x', 'b.a', 'b.y']);
    expect(g.edges).toEqual([edge('a.x', 'b.y', 'lineage'), edge('b.a', 'b.y', 'view')]);
    expect(Array.from(g.pred.targets.subarray(g.pred.offsets[2], g.pred.offsets[3]))).toEqual([0, 1]);
  });

  it('reports edges to unknown tables as findings, not crashes', () => {
    const g = buildGraph([table('a.x')], [edge('a.x', 'zz.gone'), edge('ghost.t', 'a.x'), edge('ghost.t', 'zz.gone')]);
    expect(g.edges).toEqual([]);
    expect(g.findings.map((f) => [f.code, f.tables])).toEqual([
      ['UNKNOWN_EDGE_ENDPOINT', ['a.x', 'ghost.t', 'zz.gone']],
      ['UNKNOWN_EDGE_ENDPOINT', ['a.x', 'ghost.t', 'zz.gone']],
    ]);
  });

  it('refuses duplicate ids and ids that are not database.name with PLAN_INVALID', () => {
    expect(() => buildGraph([table('a.x'), table('a.x')], [])).toThrow(expect.objectContaining({ code: 'PLAN_INVALID' }) as MigrationError);
    expect(() => buildGraph([{ ...table('a.x'), name: 'y' }], [])).toThrow(/not database.name/);
    expect(() => buildGraph([table('a.x'), table('a.y', { files: -1 })], [])).toThrow(
      'tables[1].files: expected a non-negative integer, got -1 (a.y)',
    );
    expect(() => buildGraph([table('a.x', { bytes: NaN })], [])).toThrow(/tables\[0\]\.bytes/);
  });
});

describe('stronglyConnected / findCycles', () => {
  it('finds a 3-cycle, a self-reference and leaves acyclic tables alone', () => {
    const tables = ['a.a', 'a.b', 'a.c', 'a.d', 'a.e'].map((id) => table(id));
    const g = buildGraph(tables, [edge('a.a', 'a.b'), edge('a.b', 'a.c'), edge('a.c', 'a.a'), edge('a.c', 'a.d'), edge('a.e', 'a.e')]);
    expect(findCycles(g)).toEqual([['a.a', 'a.b', 'a.c'], ['a.e']]);
    const comps = stronglyConnected(g.succ);
    const dag = condense(g.succ, comps);
    // Tarjan order: an edge c -> d between components has d < c.
    for (let c = 0; c < comps.members.length; c++)
      for (let e = dag.offsets[c]!; e < dag.offsets[c + 1]!; e++) expect(dag.targets[e]!).toBeLessThan(c);
  });

  it('handles a 10,000-table chain and a 10,000-table ring without recursion', () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => `d.t${String(i).padStart(5, '0')}`);
    const chain = ids.slice(1).map((id, i) => edge(ids[i]!, id));
    const g = buildGraph(
      ids.map((id) => table(id)),
      chain,
    );
    expect(stronglyConnected(g.succ).members).toHaveLength(10_000);
    const ring = buildGraph(
      ids.map((id) => table(id)),
      [...chain, edge(ids[9_999]!, ids[0]!)],
    );
    expect(findCycles(ring)).toEqual([ids]);
  });

  it('matches brute-force mutual reachability on random graphs with cycles', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 80 }), fc.integer({ min: 0, max: 200 }), (seed, n, m) => {
        const { tables, edges } = randomGraph(seed, n, m, true);
        const g = buildGraph(tables, edges);
        const rep = bruteSccs(
          tables.map((t) => t.id),
          edges,
        );
        const comps = stronglyConnected(g.succ);
        for (const members of comps.members) {
          const ids = members.map((v) => g.tables[v]!.id);
          if (new Set(ids.map((id) => rep.get(id))).size !== 1) return false;
          if (tables.filter((t) => rep.get(t.id) === rep.get(ids[0]!)).length !== ids.length) return false;
        }
        const selfLoops = new Set(edges.filter((e) => e.from === e.to).map((e) => e.from));
        const expected = [...new Set(rep.values())]
          .map((r) =>
            tables
              .filter((t) => rep.get(t.id) === r)
              .map((t) => t.id)
              .sort(),
          )
          .filter((ids) => ids.length > 1 || selfLoops.has(ids[0]!))
          .sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
        expect(findCycles(g)).toEqual(expected);
        return true;
      }),
      { numRuns: 150 },
    );
  });
});
