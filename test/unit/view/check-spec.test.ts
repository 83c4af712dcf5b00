// The view check's pure parts (core/view/check-spec.ts): the inputs' dependency order (views after
// what they read, cycles reported), the job spec (tables with their storage as the rewrite readers
// take it, views with their SQL, the catalog named as the view's default catalog, the Hive view's
// columns), refusals for inputs the job cannot read, and when two sides count as equal.
import { inputOrder, viewCheckEqual, viewCheckJobId, viewCheckSpec } from '../../../core/view/check-spec';
import { TEXT_SD, inv, partition, table } from '../assess/fixture';

const view = (name: string, sql: string) =>
  inv(
    table({
      database: 'lb',
      name,
      tableType: 'VIRTUAL_VIEW',
      viewExpandedText: sql,
      sd: { location: null, inputFormat: null, serde: { name: null, serializationLib: null, parameters: {} } },
    }),
  );

describe('inputOrder', () => {
  it('puts every view after what it reads, each input once, the root left out', () => {
    const reads = new Map([
      ['lb.top', ['lb.mid', 'lb.a']],
      ['lb.mid', ['lb.b', 'lb.a']],
    ]);
    expect(inputOrder('lb.top', reads)).toEqual({ ok: true, order: ['lb.a', 'lb.b', 'lb.mid'] });
    expect(inputOrder('lb.t', new Map())).toEqual({ ok: true, order: [] });
  });

  it('reports views that read each other', () => {
    const r = inputOrder(
      'lb.x',
      new Map([
        ['lb.x', ['lb.y']],
        ['lb.y', ['lb.x']],
      ]),
    );
    expect(r).toEqual({ ok: false, error: 'views read each other: lb.x → lb.y → lb.x' });
  });
});

describe('viewCheckSpec', () => {
  const base = {
    planHash: 'p'.repeat(64),
    tableId: 'lb.v2',
    target: { namespace: 'ice_lb', name: 'v2' },
    catalogName: 'lake',
    catalogProperties: { type: 'rest', uri: 'http://127.0.0.1:1' },
  };

  it('carries tables with their storage, views with their SQL, the view catalog and the Hive columns', () => {
    const orders = inv(table({ database: 'lb', name: 'orders', partitionKeys: [{ name: 'dt', type: 'string', comment: null }] }), [
      partition('dt=2024-01-01'),
      { ...partition('dt=x'), values: ['__HIVE_DEFAULT_PARTITION__'] },
    ]);
    const v1 = view('v1', 'SELECT `orders`.`id` FROM `lb`.`orders`');
    const v2 = view('v2', 'SELECT `v1`.`id` FROM `lb`.`v1`');
    const r = viewCheckSpec({ ...base, view: v2, inputs: [orders, v1] });
    if (!r.ok) throw new Error(r.why);
    expect(r.spec).toMatchObject({
      version: 1,
      jobId: viewCheckJobId(base.planHash, 'lb.v2'),
      view: { namespace: 'ice_lb', name: 'v2' },
      hiveSql: 'SELECT `v1`.`id` FROM `lb`.`v1`',
      columns: ['id', 'v'],
      catalog: { name: 'lake', properties: base.catalogProperties },
    });
    expect(r.spec.inputs.map((i) => [i.kind, i.name])).toEqual([
      ['table', 'lb.orders'],
      ['view', 'lb.v1'],
    ]);
    const t = r.spec.inputs[0];
    expect(t?.kind === 'table' ? t.source.locations : null).toEqual([
      { location: 's3a://wh/db/t/dt=2024-01-01', values: ['2024-01-01'] },
      { location: 's3a://wh/db/t/dt=x', values: [null] },
    ]);
    expect(viewCheckJobId(base.planHash, 'lb.v2')).not.toBe(viewCheckJobId(base.planHash, 'lb.v1'));
  });

  it('refuses an input the job cannot read (its serde), naming it', () => {
    const avro = inv(
      table({
        database: 'lb',
        name: 'events',
        sd: { serde: { name: null, serializationLib: 'org.apache.hadoop.hive.serde2.avro.AvroSerDe', parameters: {} } },
      }),
    );
    const text = inv(table({ database: 'lb', name: 'raw', sd: TEXT_SD }));
    expect(viewCheckSpec({ ...base, view: view('v2', 'SELECT 1'), inputs: [text] }).ok).toBe(true);
    expect(viewCheckSpec({ ...base, view: view('v2', 'SELECT 1'), inputs: [avro, text] })).toEqual({
      ok: false,
      why: 'lb.events: serde org.apache.hadoop.hive.serde2.avro.AvroSerDe is not one the job reads',
    });
  });
});

describe('viewCheckEqual', () => {
  const side = { rows: 3, checksum: 'abc' };
  it.each([
    [{ status: 'checked' as const, iceberg: side, hive: side }, true],
    [{ status: 'checked' as const, iceberg: side, hive: { ...side, checksum: 'abd' } }, false],
    [{ status: 'checked' as const, iceberg: side, hive: { ...side, rows: 4 } }, false],
    [{ status: 'checked' as const, iceberg: { rows: 0, checksum: '' }, hive: { rows: 0, checksum: '' } }, false],
    [{ status: 'bad-spec' as const, error: 'x' }, false],
  ])('%j → %s', (r, want) => expect(viewCheckEqual(r)).toBe(want));
});
