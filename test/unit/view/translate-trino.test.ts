// The Trino text of a Hive view: identifiers, catalog-qualified table reads, literals and the
// functions that carry over; every construct whose result would differ in Trino refused with its reason.
import { toTrinoSql } from '../../../core/view/translate-trino';
import { tableRefs, tokenize } from '../../../core/view/translate';

const targets = new Map([
  ['lb.orders', { namespace: ['ice_lb'], name: 'orders' }],
  ['lb.customers', { namespace: ['ice_lb'], name: 'customers' }],
]);
const one = new Map([['lb.orders', targets.get('lb.orders')!]]);
const trino = (sql: string, t = one, columns = ['a']) => toTrinoSql(sql, t, 'iceberg', { name: 'v', columns });
const body = (sql: string, t = one, columns = ['a']): string => {
  const r = trino(sql, t, columns);
  if (!r.ok) throw new Error(r.message);
  return r.sql.split('\n')[1] as string;
};

describe('toTrinoSql', () => {
  it('quotes identifiers with double quotes, qualifies tables with the Trino catalog, names the columns', () => {
    const r = trino(
      "SELECT `c`.`country`, sum(`v`.`amount`) AS `total`, count(*) AS `n` FROM `lb`.`orders` `v` JOIN `lb`.`customers` `c` ON `v`.`customer` = `c`.`id` WHERE `v`.`region` = 'eu' GROUP BY `c`.`country`",
      targets,
      ['country', 'total', 'n'],
    );
    expect(r).toEqual({
      ok: true,
      sql:
        'SELECT * FROM (\n' +
        'SELECT "c"."country", sum("v"."amount") AS "total", count(*) AS "n" FROM "iceberg"."ice_lb"."orders" "v" JOIN "iceberg"."ice_lb"."customers" "c" ON "v"."customer" = "c"."id" WHERE "v"."region" = \'eu\' GROUP BY "c"."country"\n' +
        ') "v" ("country", "total", "n")',
    });
  });

  it('escapes a double quote inside an identifier and a backtick-doubled one', () => {
    expect(body('SELECT `a"b`, `x``y` FROM `lb`.`orders`')).toBe('SELECT "a""b", "x`y" FROM "iceberg"."ice_lb"."orders"');
  });

  it('turns Hive strings into Trino strings: double quotes, backslash escapes, embedded quotes', () => {
    expect(body(`SELECT \`a\` FROM \`lb\`.\`orders\` WHERE \`k\` = "it's" OR \`k\` = 'a\\'b' OR \`k\` = 'c\\\\d'`)).toBe(
      `SELECT "a" FROM "iceberg"."ice_lb"."orders" WHERE "k" = 'it''s' OR "k" = 'a''b' OR "k" = 'c\\d'`,
    );
  });

  it('== becomes =, a decimal-point literal its DOUBLE form, nvl coalesce', () => {
    expect(body('SELECT nvl(`x`, 1.5) FROM `lb`.`orders` WHERE `y` == 2 AND `z` >= 1e3 AND `w` != 0')).toBe(
      'SELECT coalesce("x", 1.5E0) FROM "iceberg"."ice_lb"."orders" WHERE "y" = 2 AND "z" >= 1e3 AND "w" != 0',
    );
  });

  it('keeps syntax words before a parenthesis (IN, EXISTS, AND) as they are', () => {
    expect(body("SELECT `a` FROM `lb`.`orders` WHERE `a` IN ('x', 'y') AND (`b` > 1) AND NOT EXISTS (SELECT 1)")).toBe(
      `SELECT "a" FROM "iceberg"."ice_lb"."orders" WHERE "a" IN ('x', 'y') AND ("b" > 1) AND NOT EXISTS (SELECT 1)`,
    );
  });

  it.each([
    ['SELECT cast(`a` AS string) FROM `lb`.`orders`', 'syntax', /CAST/],
    ['SELECT `a` / 2 FROM `lb`.`orders`', 'syntax', /divides integers/],
    ['SELECT `a` DIV 2 FROM `lb`.`orders`', 'syntax', /DIV/],
    ['SELECT `a` FROM `lb`.`orders` ORDER BY `a`', 'syntax', /NULLs/],
    ['SELECT `a`[0] FROM `lb`.`orders`', 'syntax', /0-based/],
    ["SELECT `a` FROM `lb`.`orders` WHERE `a` RLIKE 'x'", 'syntax', /RLIKE/],
    ['SELECT `a` FROM `lb`.`orders` WHERE `a` <=> 1', 'syntax', /<=>/],
    ['SELECT `a` FROM `lb`.`orders` WHERE !`b`', 'syntax', /NOT/],
    ['SELECT 10L FROM `lb`.`orders`', 'literal', /suffix/],
    ["SELECT 'a\\nb' FROM `lb`.`orders`", 'literal', /escape/],
    ['SELECT size(`a`) FROM `lb`.`orders`', 'function', /^size:/],
    ['SELECT `mydb`.`f`(`a`) FROM `lb`.`orders`', 'function', /^f:/],
    ['SELECT `a` FROM `lb`.`orders` LEFT SEMI JOIN `lb`.`customers` ON 1 = 1', 'syntax', /SEMI/],
  ])('refuses %s (%s)', (sql, why, message) => {
    const r = trino(sql, sql.includes('customers') ? targets : one);
    expect(r).toMatchObject({ ok: false, why });
    if (!r.ok) expect(r.message).toMatch(message);
  });

  it('refuses a table the view reads that is not in a table position, and an unclosed quote', () => {
    expect(trino('SELECT `a` FROM `lb`.`orders`', targets)).toMatchObject({ ok: false, why: 'unplaced' });
    expect(trino('SELECT `a FROM `lb`.`orders`')).toMatchObject({ ok: false, why: 'unparseable' });
  });

  it("reads the Trino text's tables with Trino's lexis (double quotes are identifiers)", () => {
    const toks = tokenize('SELECT "x" FROM "iceberg"."ns"."t" "a", "iceberg"."ns"."u" WHERE "x" = \'it\'\'s\'', 'trino');
    expect(tableRefs(toks ?? []).refs.map((r) => r.name)).toEqual(['iceberg.ns.t', 'iceberg.ns.u']);
  });
});
