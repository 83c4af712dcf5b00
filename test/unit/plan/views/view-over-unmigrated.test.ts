// Plan time: a view over a table that does not migrate (skip, rewrite-required) is skipped with
// VIEW_BASE_NOT_MIGRATED, and so is a view over that view (fixpoint); a view over migrating tables
// and one over a table outside the inventory (decided at apply) keep their class.
import { assessWarehouse } from '../../../../app/plan/assess';
import { parseOwnership } from '../../../../core/plan/ownership';
import { AssessCode, finding } from '../../../../core/assess/types';
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

describe('views over tables that do not migrate', () => {
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
  const r = assessWarehouse(
    [
      inv(table({ name: 't', sd: { location: 's3://b/db/t' } })),
      csv,
      view('v_ok', 'SELECT * FROM `db`.`t`'),
      view('v_csv', 'SELECT * FROM `db`.`raw_csv`'),
      view('v_on_v_csv', 'SELECT * FROM `db`.`v_csv` JOIN `db`.`t` ON 1=1'),
      view('v_outside', 'SELECT * FROM `other`.`x`'),
    ],
    { allowUnbucketed: false },
    parseOwnership({}),
  );
  const byId = new Map(r.tables.map((t) => [t.id, t]));

  it('the CSV table itself does not migrate (the premise)', () => {
    expect(['skip', 'rewrite-required']).toContain(byId.get('db.raw_csv')?.class);
  });

  it('skips the view over it and the view over that view, naming what they read', () => {
    const v = byId.get('db.v_csv')!;
    expect(v.class).toBe('skip');
    const f = v.findings.find((x) => x.code === 'VIEW_BASE_NOT_MIGRATED');
    expect(f?.evidence).toMatch(/^reads db\.raw_csv \(not migrating: /);
    const vv = byId.get('db.v_on_v_csv')!;
    expect(vv.class).toBe('skip');
    expect(vv.findings.find((x) => x.code === 'VIEW_BASE_NOT_MIGRATED')?.evidence).toMatch(/^reads db\.v_csv /);
  });

  it('keeps the view over a migrating table and the one over a table outside the inventory', () => {
    expect([byId.get('db.v_ok')?.class, byId.get('db.v_outside')?.class]).toEqual(['migrate-with-warnings', 'migrate-with-warnings']);
    expect(byId.get('db.v_ok')?.findings.map((f) => f.code)).toEqual(['VIEW']);
  });

  it('a view over a table already in the target catalog (skip: IN_TARGET_CATALOG) stays planned', () => {
    const there = new Map([['db.t', [finding(AssessCode.IN_TARGET_CATALOG, 'skip', 'registered', 'nothing to do')]]]);
    const r2 = assessWarehouse(
      [inv(table({ name: 't', sd: { location: 's3://b/db/t' } })), view('v_ok', 'SELECT * FROM `db`.`t`')],
      { allowUnbucketed: false },
      parseOwnership({}),
      there,
    );
    expect(r2.tables.map((t) => [t.id, t.class])).toEqual([
      ['db.t', 'skip'],
      ['db.v_ok', 'migrate-with-warnings'],
    ]);
  });
});
