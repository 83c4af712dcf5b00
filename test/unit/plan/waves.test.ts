// Wave planner, by example: ordering, cycles, caps, canary, blast radius, pins, excludes, scope,
// and coded, path-precise errors for bad options.
import { buildGraph } from '../../../core/plan/graph';
import { lineageEdges, parseLineage } from '../../../core/plan/lineage';
import type { PlanEdge, PlanTable, WaveOptionsInput } from '../../../core/plan/types';
import { planWaves } from '../../../core/plan/waves';
import type { WavePlan } from '../../../core/plan/waves';
import { baseOptions, edge, table, violations } from './fixtures';
import { errorOf } from '../../helpers/errors';

const plan = (tables: PlanTable[], edges: PlanEdge[], over: Partial<WaveOptionsInput> = {}): WavePlan =>
  planWaves(buildGraph(tables, edges), { ...baseOptions, ...over });
const layout = (p: WavePlan): Record<number, string[]> => Object.fromEntries(p.waves.map((w) => [w.number, w.tables.map((t) => t.id)]));

describe('planWaves', () => {
  const sales = [table('s.orders'), table('s.customers'), table('s.v_orders', { kind: 'view' }), table('s.v_top', { kind: 'view' })];
  const views = [edge('s.orders', 's.v_orders'), edge('s.customers', 's.v_orders'), edge('s.v_orders', 's.v_top')];

  it('puts a view in a later wave than everything it reads', () => {
    const p = plan(sales, views);
    expect(layout(p)).toEqual({ 1: ['s.customers', 's.orders'], 2: ['s.v_orders'], 3: ['s.v_top'] });
    expect(violations(sales, views, p)).toEqual([]);
  });

  it("orders by declared lineage and view edges together (a job's writes after its reads)", () => {
    const tables = [table('raw.events'), table('mart.daily'), table('mart.v_daily', { kind: 'view' })];
    const lineage = parseLineage({ version: 1, jobs: [{ name: 'daily', reads: ['RAW.events'], writes: ['mart.daily'] }] });
    const p = plan(tables, [...lineageEdges(lineage), edge('mart.daily', 'mart.v_daily')]);
    expect(layout(p)).toEqual({ 1: ['raw.events'], 2: ['mart.daily'], 3: ['mart.v_daily'] });
  });

  it('fills the canary around tables pinned to wave 1 and never picks a table with dependencies', () => {
    const tables = [table('a.pinned', { risk: 'high' }), table('a.src'), table('a.dep'), table('b.one', { team: 'b' })];
    const p = plan(tables, [edge('a.src', 'a.dep')], { canary: { tables: 2 }, pins: { 'a.pinned': 1 }, maxTablesPerWave: 3 });
    expect(layout(p)).toEqual({ 1: ['a.pinned', 'a.src', 'b.one'], 2: ['a.dep'] });
  });

  it('keeps a cycle in one wave and reports it', () => {
    const tables = [table('a.x'), table('a.y'), table('a.z')];
    const edges = [edge('a.x', 'a.y'), edge('a.y', 'a.x'), edge('a.y', 'a.z')];
    const p = plan(tables, edges);
    expect(layout(p)).toEqual({ 1: ['a.x', 'a.y'], 2: ['a.z'] });
    expect(p.findings.filter((f) => f.code === 'CYCLE').map((f) => f.tables)).toEqual([['a.x', 'a.y']]);
  });

  it('holds the table, file and byte caps; a cycle over a cap gets a wave alone and a finding', () => {
    const tables = ['a.a', 'a.b', 'a.c', 'a.d', 'a.e'].map((id) => table(id, { files: 10, bytes: 10 }));
    expect(layout(plan(tables, [], { maxTablesPerWave: 2 }))).toEqual({ 1: ['a.a', 'a.b'], 2: ['a.c', 'a.d'], 3: ['a.e'] });
    expect(Object.keys(layout(plan(tables, [], { maxFilesPerWave: 30 })))).toHaveLength(2);
    const cyc = [edge('a.a', 'a.b'), edge('a.b', 'a.c'), edge('a.c', 'a.a')];
    const p = plan(tables, cyc, { maxTablesPerWave: 2 });
    expect(layout(p)).toEqual({ 1: ['a.a', 'a.b', 'a.c'], 2: ['a.d', 'a.e'] });
    expect(p.findings.find((f) => f.code === 'OVERSIZE_COMPONENT')?.tables).toEqual(['a.a', 'a.b', 'a.c']);
  });

  it('fills the canary wave with small low-risk tables round-robin across teams', () => {
    const tables = [
      table('f.big', { team: 'fin', bytes: 9e9 }),
      table('f.small', { team: 'fin', bytes: 10 }),
      table('f.tiny', { team: 'fin', bytes: 1 }),
      table('g.small', { team: 'growth', bytes: 50 }),
      table('g.risky', { team: 'growth', bytes: 1, risk: 'high' }),
      table('o.view', { team: 'ops', kind: 'view', bytes: 0 }),
      table('o.warn', { team: 'ops', class: 'migrate-with-warnings', bytes: 0 }),
    ];
    const p = plan(tables, [], { canary: { tables: 3 } });
    expect(layout(p)[1]).toEqual(['f.small', 'f.tiny', 'g.small']);
    expect(layout(p)[2]).toEqual(['f.big', 'g.risky', 'o.view', 'o.warn']);
    expect(layout(plan(tables, [], { canary: { tables: 3, teams: ['growth'] } }))[1]).toEqual(['g.small']);
    expect(plan(tables, [], { canary: { tables: 3, teams: ['growth'] } }).findings.map((f) => f.code)).toContain('CANARY_SHORT');
  });

  it('never puts more than K% (rounded up, at least 1) of a team in one wave', () => {
    const tables = Array.from({ length: 10 }, (_, i) => table(`f.t${i}`, { team: 'fin' }));
    const p = plan(tables, [], { teamBlastRadiusPct: 25 });
    expect(p.waves.map((w) => w.tables.length)).toEqual([3, 3, 3, 1]);
    expect(plan(tables, [], { teamBlastRadiusPct: 1 }).waves).toHaveLength(10);
  });

  it('honours pins, and places what a pinned table reads before it', () => {
    const p = plan(sales, views, { pins: { 's.v_orders': 4, 's.customers': 3 } });
    expect(layout(p)).toEqual({ 1: ['s.orders'], 3: ['s.customers'], 4: ['s.v_orders'], 5: ['s.v_top'] });
    expect(layout(plan(sales, views, { pins: { 's.v_top': 3 } }))).toEqual({
      1: ['s.customers', 's.orders'],
      2: ['s.v_orders'],
      3: ['s.v_top'],
    });
  });

  it('refuses a pin that contradicts an edge, naming the pin', () => {
    const e = errorOf(() => plan(sales, views, { pins: { 's.v_top': 2 } }));
    expect(e.code).toBe('PLAN_PIN_CONFLICT');
    expect(e.message).toBe(
      'pins["s.v_top"]: s.v_top is pinned to wave 2 but it depends on s.orders, which would have to migrate by wave 0 but cannot before wave 1',
    );
    const self = errorOf(() => plan(sales, views, { pins: { 's.orders': 3, 's.v_orders': 3 } }));
    expect([self.code, self.message]).toEqual([
      'PLAN_PIN_CONFLICT',
      'pins["s.v_orders"]: s.v_orders is pinned to wave 3 but it depends on s.orders, which would have to migrate by wave 2 but cannot before wave 3',
    ]);
    const cyc = [edge('s.orders', 's.customers'), edge('s.customers', 's.orders')];
    expect(errorOf(() => plan(sales, cyc, { pins: { 's.orders': 1, 's.customers': 2 } })).message).toMatch(/one dependency cycle/);
  });

  it('refuses unknown tables in pins and excludes with PLAN_UNKNOWN_TABLE and the path', () => {
    const e = errorOf(() => plan(sales, views, { pins: { 's.nope': 2 } }));
    expect([e.code, e.context['paths']]).toEqual(['PLAN_UNKNOWN_TABLE', ['pins["s.nope"]']]);
    const x = errorOf(() => plan(sales, views, { excludes: ['s.orders', 'x.y'] }));
    expect([x.code, x.message]).toEqual(['PLAN_UNKNOWN_TABLE', 'excludes[1]: unknown table x.y']);
    expect(errorOf(() => plan(sales, views, { excludes: ['s.orders'], pins: { 's.orders': 1 } })).code).toBe('PLAN_INVALID');
  });

  it('leaves excluded, out-of-scope, skip and rewrite-required tables out, with reasons and dependency findings', () => {
    const tables = [...sales, table('t.skip', { class: 'skip' }), table('t.acid', { class: 'rewrite-required' }), table('u.other')];
    const p = plan(tables, views, { excludes: ['s.orders'], scope: { databases: ['s', 't'], exclude: ['^s\\.v_top$'] } });
    expect(p.notPlanned).toEqual([
      { id: 's.orders', reason: 'EXCLUDED' },
      { id: 's.v_top', reason: 'OUT_OF_SCOPE' },
      { id: 't.acid', reason: 'CLASS_REWRITE_REQUIRED' },
      { id: 't.skip', reason: 'CLASS_SKIP' },
      { id: 'u.other', reason: 'OUT_OF_SCOPE' },
    ]);
    expect(layout(p)).toEqual({ 1: ['s.customers'], 2: ['s.v_orders'] });
    expect(p.findings.filter((f) => f.code === 'DEPENDENCY_NOT_PLANNED').map((f) => f.tables)).toEqual([['s.orders', 's.v_orders']]);
    expect(layout(plan(tables, views, { scope: { include: ['^s\\.v_'] } }))).toEqual({ 1: ['s.v_orders'], 2: ['s.v_top'] });
  });

  it.each([
    [{ maxTablesPerWave: 0 }, 'PLAN_CONTRADICTORY_CAPS', 'maxTablesPerWave'],
    [{ maxFilesPerWave: -5 }, 'PLAN_CONTRADICTORY_CAPS', 'maxFilesPerWave'],
    [{ maxBytesPerWave: 1.5 }, 'PLAN_CONTRADICTORY_CAPS', 'maxBytesPerWave'],
    [{ maxTablesPerWave: 5, canary: { tables: 6 } }, 'PLAN_CONTRADICTORY_CAPS', 'canary.tables'],
    [{ teamBlastRadiusPct: 0 }, 'PLAN_CONTRADICTORY_CAPS', 'teamBlastRadiusPct'],
    [{ teamBlastRadiusPct: 150 }, 'PLAN_CONTRADICTORY_CAPS', 'teamBlastRadiusPct'],
    [{ pins: { 's.orders': 0 } }, 'PLAN_INVALID', 'pins["s.orders"]'],
    [{ scope: { include: ['(unclosed'] } }, 'PLAN_INVALID', 'scope.include[0]'],
    [{ surprise: true }, 'PLAN_INVALID', '(root)'],
  ])('refuses bad options %j with %s at %s', (over, code, path) => {
    const e = errorOf(() => plan(sales, views, over as Partial<WaveOptionsInput>));
    expect(e.code).toBe(code);
    expect(e.context['paths']).toEqual([path]);
    expect(e.message).toContain(`${path}: `);
  });
});
