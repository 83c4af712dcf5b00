// A Hive view's SQL as Spark SQL: only identifiers in table position are renamed (a column
// reference of the same `a`.`b` shape, string literals and comments are kept byte for byte); a
// permanent UDF or a Hive-only built-in refuses; a read the scanner cannot place refuses.
import { toSparkSql, tokenize } from '../../../core/view/translate';

const targets = new Map([
  ['s.orders', { namespace: ['ice_s'], name: 'orders' }],
  ['s.c', { namespace: ['lake', 's'], name: 'c' }],
]);

describe('toSparkSql', () => {
  it('renames tables after FROM and JOIN, keeps alias.column references and literals', () => {
    const sql =
      "SELECT `orders`.`id`, count(*) AS `n` FROM `s`.`orders` JOIN `s`.`c` ON `orders`.`id` = `c`.`id` WHERE `orders`.`x` = 'FROM s.orders' GROUP BY `orders`.`id`";
    const r = toSparkSql(sql, targets);
    expect(r).toEqual({
      ok: true,
      sql: "SELECT `orders`.`id`, count(*) AS `n` FROM `ice_s`.`orders` JOIN `lake`.`s`.`c` ON `orders`.`id` = `c`.`id` WHERE `orders`.`x` = 'FROM s.orders' GROUP BY `orders`.`id`",
      renamed: ['s.c', 's.orders'],
    });
  });

  it('handles subqueries and comma joins in a FROM list, unquoted and mixed-case names', () => {
    const r = toSparkSql('select a from (select a from S.Orders) x, s.c where x.a = c.a', targets);
    expect(r).toMatchObject({ ok: true, sql: 'select a from (select a from `ice_s`.`orders`) x, `lake`.`s`.`c` where x.a = c.a' });
  });

  it('refuses a permanent UDF and a Hive-only built-in', () => {
    expect(toSparkSql('SELECT mydb.my_udf(a) FROM s.orders JOIN s.c ON 1=1', targets)).toMatchObject({ ok: false, why: 'function' });
    expect(toSparkSql('SELECT sort_array_by(a, "x") FROM s.orders JOIN s.c ON 1=1', targets)).toMatchObject({
      ok: false,
      why: 'function',
      message: expect.stringContaining('sort_array_by') as string,
    });
  });

  it('refuses when a table the parser found is not in a table position the scanner knows', () => {
    expect(toSparkSql('SELECT * FROM s.orders', targets)).toMatchObject({
      ok: false,
      why: 'unplaced',
      message: expect.stringContaining('s.c') as string,
    });
  });

  it('refuses an unclosed quote', () => {
    expect(toSparkSql("SELECT 'x FROM s.orders", targets)).toMatchObject({ ok: false, why: 'unparseable' });
    expect(tokenize('SELECT `a``b` FROM t')?.find((t) => t.kind === 'ident' && t.text.startsWith('`'))).toMatchObject({ value: 'a`b' });
  });
});
