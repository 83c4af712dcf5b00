import { NodeSqlViewParser } from '../../../adapters/sql/view-deps';
import { viewReferences } from '../../../core/view/view-deps';
import { parseOwnership, teamOf } from '../../../core/plan/ownership';

const parser = new NodeSqlViewParser();
const viewDependencies = (x: { expanded: string | null; original: string | null }) => {
  const r = viewReferences(parser, 'sales', x.expanded, x.original);
  return r.ok ? { refs: r.tables, error: null, parsedFrom: r.sql } : { refs: [], error: r.error, parsedFrom: null };
};
const v = (expanded: string | null, original: string | null = null) => ({ expanded, original });

describe('viewDependencies', () => {
  it('backticked, db-qualified joins (as Hive expands them)', () => {
    const sql =
      'SELECT `orders`.`customer`, count(*) AS `n` FROM `sales`.`v_orders_eu_big` JOIN `sales`.`orders` ON `v_orders_eu_big`.`order_id` = `orders`.`order_id` GROUP BY `orders`.`customer`';
    expect(viewDependencies(v(sql))).toEqual({ refs: ['sales.orders', 'sales.v_orders_eu_big'], error: null, parsedFrom: 'expanded' });
  });

  it('CTEs are not tables; subqueries, IN-subqueries and unions are followed', () => {
    const sql =
      'WITH a AS (SELECT * FROM db1.t1), b AS (SELECT a.x FROM a JOIN db2.T2 ON a.x = T2.x) SELECT x FROM b UNION ALL SELECT x FROM (SELECT x FROM db3.t3) s WHERE x IN (SELECT x FROM db4.t4)';
    expect(viewDependencies(v(sql)).refs).toEqual(['db1.t1', 'db2.t2', 'db3.t3', 'db4.t4']);
  });

  it('unqualified names resolve to the view database; duplicates are dropped', () => {
    expect(viewDependencies(v('SELECT * FROM orders o JOIN orders p ON o.id = p.id LEFT JOIN sales.w ON 1=1')).refs).toEqual([
      'sales.orders',
      'sales.w',
    ]);
  });

  it('falls back to the original text when the expanded one does not parse', () => {
    const r = viewDependencies(v('SELECT FROM WHERE', 'SELECT * FROM db.t'));
    expect([r.refs, r.parsedFrom]).toEqual([['db.t'], 'original']);
  });

  it('Hive LATERAL VIEW and LEFT SEMI JOIN still yield their tables', () => {
    expect(
      viewDependencies(v('SELECT a.id, x FROM db.a LATERAL VIEW explode(a.xs) t AS x LEFT SEMI JOIN db.b ON a.id = b.id')).refs,
    ).toEqual(['db.a', 'db.b']);
  });

  it('unparseable SQL is an error message, not an exception', () => {
    const r = viewDependencies(v('SELECT FROM WHERE ((('));
    expect(r.refs).toEqual([]);
    expect(r.error).toEqual(expect.any(String));
    expect(viewDependencies(v(null)).error).toBe('the view has no SQL text');
  });
});

describe('teamOf', () => {
  const t = { database: 'sales', name: 'orders', owner: 'alice', parameters: { team: 'payments' } };
  it('mapping (table > database > regex) beats the param, which beats the owner', () => {
    expect(
      teamOf(t, parseOwnership({ tables: { 'sales.orders': 'a' }, databases: { sales: 'b' }, patterns: [{ regex: 'ord', team: 'c' }] })),
    ).toBe('a');
    expect(teamOf(t, parseOwnership({ databases: { sales: 'b' }, patterns: [{ regex: 'ord', team: 'c' }] }))).toBe('b');
    expect(
      teamOf(
        t,
        parseOwnership({
          patterns: [
            { regex: '^web\\.', team: 'x' },
            { regex: 'ord', team: 'c' },
          ],
        }),
      ),
    ).toBe('c');
    expect(teamOf(t, parseOwnership({}))).toBe('payments');
    expect(teamOf({ ...t, parameters: {} }, parseOwnership({}))).toBe('alice');
    expect(teamOf({ ...t, parameters: {}, owner: null }, parseOwnership({}))).toBeNull();
  });
  it('a bad regex is a path-precise error', () => {
    expect(() => parseOwnership({ patterns: [{ regex: '(', team: 'x' }] })).toThrow(/patterns\[0\]\.regex/);
  });
});
