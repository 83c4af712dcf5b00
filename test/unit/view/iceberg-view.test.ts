// The Iceberg view built from a Hive view: the view's HMS columns as Iceberg types, hive + spark
// representations, defaults, our marker; the comparison of a loaded view with it.
import type { LoadedView } from '../../../core/catalog/catalog';
import { buildIcebergView, isOurView, viewDifferences } from '../../../core/view/iceberg-view';
import { table } from '../assess/fixture';

const hive = table({
  database: 'lb',
  name: 'v_eu',
  tableType: 'VIRTUAL_VIEW',
  viewOriginalText: 'SELECT id, amount FROM lb.orders',
  viewExpandedText: 'SELECT `orders`.`id`, `orders`.`amount` FROM `lb`.`orders`',
  sd: {
    location: null,
    inputFormat: null,
    serde: { name: null, serializationLib: null, parameters: {} },
    columns: [
      { name: 'id', type: 'bigint', comment: null },
      { name: 'amount', type: 'decimal(10,2)', comment: 'eur' },
    ],
  },
});
const input = {
  view: hive,
  targets: new Map([['lb.orders', { namespace: ['ice_lb'], name: 'orders' }]]),
  defaultNamespace: ['ice_lb'],
  defaultCatalog: 'lake',
  planHash: 'ab'.repeat(32),
  toolVersion: '0.3.0',
};

describe('buildIcebergView', () => {
  const r = buildIcebergView(input);
  it('carries the columns as Iceberg types, both representations, the defaults and our marker', () => {
    if (!r.ok) throw new Error(r.message);
    const d = r.definition;
    expect(d.schema.fields.map((f) => [f.id, f.name, f.type, f.required])).toEqual([
      [1, 'id', { kind: 'long' }, false],
      [2, 'amount', { kind: 'decimal', precision: 10, scale: 2 }, false],
    ]);
    expect(d.representations).toEqual([
      { dialect: 'hive', sql: hive.viewExpandedText },
      { dialect: 'spark', sql: 'SELECT `orders`.`id`, `orders`.`amount` FROM `ice_lb`.`orders`' },
    ]);
    expect([d.defaultNamespace, d.defaultCatalog]).toEqual([['ice_lb'], 'lake']);
    expect(isOurView(d, 'LB.v_eu')).toBe(true);
    expect(isOurView({ properties: { ...d.properties, 'him.source.hms-view': 'lb.other' } }, 'lb.v_eu')).toBe(false);
  });

  it('adds a trino representation when a Trino catalog is named and the SQL translates; says why not otherwise', () => {
    const t = buildIcebergView({ ...input, trinoCatalog: 'iceberg' });
    if (!t.ok) throw new Error(t.message);
    expect(t.trinoSkipped).toBeNull();
    expect(t.definition.representations.map((x) => x.dialect)).toEqual(['hive', 'spark', 'trino']);
    expect(t.definition.representations[2]?.sql).toBe(
      'SELECT * FROM (\nSELECT "orders"."id", "orders"."amount" FROM "iceberg"."ice_lb"."orders"\n) "v_eu" ("id", "amount")',
    );
    const cast = { ...hive, viewExpandedText: 'SELECT cast(`orders`.`id` AS bigint), `orders`.`amount` FROM `lb`.`orders`' };
    const u = buildIcebergView({ ...input, view: cast, trinoCatalog: 'iceberg' });
    if (!u.ok) throw new Error(u.message);
    expect(u.definition.representations.map((x) => x.dialect)).toEqual(['hive', 'spark']);
    expect(u.trinoSkipped).toMatchObject({ why: 'syntax', message: expect.stringMatching(/^CAST/) });
    expect(r.ok && r.trinoSkipped).toBeNull();
  });

  it('refuses a view without SQL and a column type without an Iceberg type', () => {
    expect(buildIcebergView({ ...input, view: { ...hive, viewExpandedText: null, viewOriginalText: ' ' } })).toMatchObject({
      ok: false,
      why: 'no-sql',
    });
    const odd = { ...hive, sd: { ...hive.sd, columns: [{ name: 'u', type: 'uniontype<int,string>', comment: null }] } };
    expect(buildIcebergView({ ...input, view: odd })).toMatchObject({ ok: false, why: 'type' });
  });

  it('viewDifferences: equal when read back as created; names each difference otherwise', () => {
    if (!r.ok) throw new Error(r.message);
    const d = r.definition;
    const loaded: LoadedView = { ident: { namespace: ['ice_lb'], name: 'v_eu' }, metadataLocation: 's3://x', viewUuid: 'u', ...d };
    expect(viewDifferences(loaded, d, 'lb.v_eu')).toEqual([]);
    const changed: LoadedView = {
      ...loaded,
      properties: {},
      representations: [d.representations[0]!],
      schema: { ...d.schema, fields: d.schema.fields.slice(1) },
    };
    const diffs = viewDifferences(changed, d, 'lb.v_eu');
    expect(diffs).toHaveLength(3);
    expect(diffs.join('\n')).toMatch(/does not carry our marker[\s\S]*schema[\s\S]*no spark representation/);
  });
});
