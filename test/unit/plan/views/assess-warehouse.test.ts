// The pure middle of `migrate assess`/`plan`: inventory → assessed tables (team, fingerprint) and
// view edges; unparseable view SQL is a finding; config errors keep their section path.
import { assessWarehouse, toPlanTable, withPrefix } from '../../../../app/plan/assess';
import { ErrorCode, MigrationError } from '../../../../core/errors';
import { parseOwnership } from '../../../../core/plan/ownership';
import { parseWaveOptions } from '../../../../core/plan/types';
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

describe('assessWarehouse', () => {
  const tables = [
    inv(table({ name: 'T' })),
    view('v1', 'SELECT * FROM `db`.`t`'),
    view('v2', 'WITH c AS (SELECT * FROM db.v1) SELECT * FROM c JOIN other.x ON 1=1'),
    view('bad', 'SELEKT nonsense ((('),
  ];
  const r = assessWarehouse(tables, { allowUnbucketed: false }, parseOwnership({ databases: { db: 'core' } }));

  it('sorts by id, resolves teams, fingerprints the table as read', () => {
    expect(r.tables.map((t) => [t.id, t.kind, t.class, t.team])).toEqual([
      ['db.bad', 'view', 'migrate-with-warnings', 'core'],
      ['db.t', 'table', 'migrate', 'core'],
      ['db.v1', 'view', 'migrate-with-warnings', 'core'],
      ['db.v2', 'view', 'migrate-with-warnings', 'core'],
    ]);
    expect(r.tables[1]!.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(
      assessWarehouse([inv(table({ name: 'T', parameters: { numFiles: '4' } }))], { allowUnbucketed: false }, parseOwnership({})).tables[0]!
        .fingerprint,
    ).not.toBe(r.tables[1]!.fingerprint);
    expect(toPlanTable(r.tables[1]!)).toMatchObject({ id: 'db.t', database: 'db', name: 't', files: 3, bytes: 3000, risk: 'low' });
  });

  it('one view edge per source (CTE names excluded), unparseable SQL is a VIEW_SQL_UNPARSEABLE finding', () => {
    expect(r.edges).toEqual([
      { from: 'db.t', to: 'db.v1', reason: 'view' },
      { from: 'db.v1', to: 'db.v2', reason: 'view' },
      { from: 'other.x', to: 'db.v2', reason: 'view' },
    ]);
    expect(r.tables[0]!.findings.map((f) => f.code)).toEqual(['VIEW', 'VIEW_SQL_UNPARSEABLE']);
  });
});

describe('withPrefix', () => {
  it('puts planner error paths under their config section', () => {
    let err: unknown;
    try {
      withPrefix('plan.waves', () => parseWaveOptions({ maxTablesPerWave: 0, maxFilesPerWave: 1, maxBytesPerWave: 1 }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MigrationError);
    expect((err as MigrationError).code).toBe(ErrorCode.PLAN_CONTRADICTORY_CAPS);
    expect((err as MigrationError).message).toMatch(/\nplan\.waves\.maxTablesPerWave: /);
    expect((err as MigrationError).context.paths).toEqual(['plan.waves.maxTablesPerWave']);
  });
});
