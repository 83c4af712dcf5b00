// Plan time with the rewrite path on (`plan --rewrite`): a view over a rewrite-required table the job
// takes (a CSV table) migrates like a view over any migrating table — it is ordered after it and keeps
// its class; a view over a table no rewrite takes (a uniontype column) is still VIEW_BASE_NOT_MIGRATED.
// Without --rewrite both views are skipped (the left-behind warehouse holds the first case).
import { assessWarehouse } from '../../../../app/plan/assess';
import { parseOwnership } from '../../../../core/plan/ownership';
import { inv, table } from '../../assess/fixture';

const view = (name: string, sql: string) =>
  inv(
    table({
      name,
      tableType: 'VIRTUAL_VIEW',
      viewExpandedText: sql,
      sd: { location: null, inputFormat: null, serde: { name: null, serializationLib: null, parameters: {} } },
    }),
  );

const csv = inv(
  table({
    name: 'raw_csv',
    sd: {
      location: 's3://b/db/raw_csv',
      inputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
      serde: { name: null, serializationLib: 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe', parameters: {} },
    },
  }),
);
const union = inv(
  table({
    name: 'legacy_union',
    sd: { location: 's3://b/db/legacy_union', columns: [{ name: 'u', type: 'uniontype<int,string>', comment: null }] },
  }),
);
const warehouse = [
  csv,
  union,
  view('v_csv', 'SELECT * FROM `db`.`raw_csv`'),
  view('v_on_v_csv', 'SELECT * FROM `db`.`v_csv`'),
  view('v_union', 'SELECT * FROM `db`.`legacy_union`'),
];
const assessed = (rewrite: boolean) =>
  new Map(assessWarehouse(warehouse, { allowUnbucketed: false, rewrite }, parseOwnership({})).tables.map((t) => [t.id, t]));

describe('views over rewrite tables (plan --rewrite)', () => {
  it('the premise: the CSV table is rewrite-required and rewritable, the union table rewrite-required and not', () => {
    const r = assessed(true);
    expect([r.get('db.raw_csv')?.class, r.get('db.raw_csv')?.rewritable]).toEqual(['rewrite-required', true]);
    expect([r.get('db.legacy_union')?.class, r.get('db.legacy_union')?.rewritable]).toEqual(['rewrite-required', false]);
    expect(r.get('db.legacy_union')?.findings.map((f) => f.code)).toContain('TYPE_UNSUPPORTED');
  });

  it('with the rewrite path on, the view over the CSV table and the view over that view keep their class', () => {
    const r = assessed(true);
    for (const id of ['db.v_csv', 'db.v_on_v_csv']) {
      expect(r.get(id)?.class).toBe('migrate-with-warnings');
      expect(r.get(id)?.findings.map((f) => f.code)).toEqual(['VIEW']);
    }
    expect(r.get('db.v_csv')?.reads).toEqual(['db.raw_csv']);
  });

  it('the view over the table no rewrite takes stays VIEW_BASE_NOT_MIGRATED, with or without the rewrite path', () => {
    for (const rw of [true, false]) {
      const v = assessed(rw).get('db.v_union');
      expect(v?.class).toBe('skip');
      expect(v?.findings.find((f) => f.code === 'VIEW_BASE_NOT_MIGRATED')?.evidence).toMatch(/^reads db\.legacy_union /);
    }
  });

  it('without the rewrite path, the views over the CSV table are skipped', () => {
    const r = assessed(false);
    expect([r.get('db.v_csv')?.class, r.get('db.v_on_v_csv')?.class]).toEqual(['skip', 'skip']);
  });
});
