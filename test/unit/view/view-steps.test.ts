// A view's apply steps over fake ports (no components) and the real SQL parser: created with hive +
// spark representations when every input has an Iceberg name (its record in this plan, or the
// catalog), recorded once; skipped with its code otherwise (VIEW_CATALOG_UNSUPPORTED,
// VIEW_BASE_NOT_MIGRATED, VIEW_FUNCTION_UNSUPPORTED, IN_TARGET_CATALOG); a foreign view under the
// name is VIEW_NOT_OURS; rollback drops only a view carrying our marker.
import { rollbackView } from '../../../ops/views';
import { ErrorCode } from '../../../core/errors';
import { PLAN, setup } from './fixture';

describe('view steps', () => {
  it('creates the view with hive + spark representations, records it once, validates it', async () => {
    const s = setup({});
    expect(await s.acts.createIcebergView(s.ref)).toEqual({ created: true, target: 'lake:ice_lb.v' });
    expect(await s.acts.createIcebergView(s.ref)).toEqual({ created: true, target: 'lake:ice_lb.v' });
    expect(s.views.created).toHaveLength(1);
    expect(s.views.created[0]!.representations.map((r) => [r.dialect, r.sql])).toEqual([
      ['hive', 'SELECT `orders`.`id` FROM `lb`.`orders`'],
      ['spark', 'SELECT `orders`.`id` FROM `ice_lb`.`orders`'],
    ]);
    expect([s.rec().status, s.rec().target]).toEqual(['view-created', 'lake:ice_lb.v']);
    expect(await s.acts.validateIcebergView(s.ref)).toMatchObject({ ok: true });
    expect(s.events.map((e) => e.action)).toEqual(['view.created', 'view.validated']);
  });

  it('with a Trino catalog: a trino representation when the SQL translates; else created without one, VIEW_TRINO_UNTRANSLATED recorded and audited', async () => {
    const s = setup({ extra: { trinoCatalog: 'iceberg' } });
    expect(await s.acts.createIcebergView(s.ref)).toMatchObject({ created: true });
    expect(s.views.created[0]!.representations.map((r) => r.dialect)).toEqual(['hive', 'spark', 'trino']);
    expect(s.views.created[0]!.representations[2]?.sql).toContain('FROM "iceberg"."ice_lb"."orders"');
    expect((s.rec().validation as { warnings: unknown[] }).warnings).toEqual([]);

    const u = setup({ sql: 'SELECT `orders`.`id` / 2 AS `id` FROM `lb`.`orders`', extra: { trinoCatalog: 'iceberg' } });
    expect(await u.acts.createIcebergView(u.ref)).toMatchObject({ created: true });
    expect(u.views.created[0]!.representations.map((r) => r.dialect)).toEqual(['hive', 'spark']);
    const warning = { code: 'VIEW_TRINO_UNTRANSLATED', message: expect.stringMatching(/^no trino representation: `\/`/) };
    expect((u.rec().validation as { warnings: unknown[] }).warnings).toEqual([warning]);
    expect(u.events[0]?.details.warnings).toEqual([warning]);
    // The validation step keeps the warning on the record.
    expect(await u.acts.validateIcebergView(u.ref)).toMatchObject({ ok: true });
    expect((u.rec().validation as { warnings: unknown[] }).warnings).toEqual([warning]);
  });

  it('an input migrated earlier (in the catalog, no record here) counts', async () => {
    const s = setup({ baseStatus: null, inCatalog: ['ice_lb.orders'] });
    expect(await s.acts.createIcebergView(s.ref)).toMatchObject({ created: true });
  });

  it.each([
    ['a catalog without views', { views: false }, 'VIEW_CATALOG_UNSUPPORTED'],
    ['an input neither migrated nor in the catalog', { baseStatus: 'skipped' as const }, 'VIEW_BASE_NOT_MIGRATED'],
    ['a permanent UDF', { sql: 'SELECT `lb`.`f`(`orders`.`id`) AS `id` FROM `lb`.`orders`' }, 'VIEW_FUNCTION_UNSUPPORTED'],
    ['SQL that does not parse', { sql: 'SELEKT ((' }, 'VIEW_NOT_TRANSLATABLE'],
  ])('%s: skipped with its code, recorded and audited', async (_what, o, code) => {
    const s = setup(o);
    expect(await s.acts.createIcebergView(s.ref)).toMatchObject({ created: false, code });
    expect([s.rec().status, s.rec().errorCode]).toEqual(['skipped', code]);
    expect(s.events.map((e) => [e.action, e.details.code])).toEqual([['view.skipped', code]]);
    expect(s.views.created).toEqual([]);
  });

  it('a foreign view under the name is VIEW_NOT_OURS; ours from another plan is left (IN_TARGET_CATALOG)', async () => {
    const ident = { namespace: ['ice_lb'], name: 'v' };
    const foreign = {
      ident,
      metadataLocation: 's3://x',
      viewUuid: 'x',
      properties: {},
      schema: { schemaId: 0, fields: [] },
      representations: [],
      defaultNamespace: [],
      defaultCatalog: null,
    };
    await expect(
      setup({ existing: new Map([['ice_lb.v', foreign]]) }).acts.createIcebergView({ planHash: PLAN, tableId: 'lb.v' }),
    ).rejects.toMatchObject({
      code: ErrorCode.VIEW_NOT_OURS,
    });
    const older = {
      ...foreign,
      properties: { 'him.created-by': 'hms-iceberg-migrator', 'him.source.hms-view': 'lb.v', 'him.plan': 'o'.repeat(64) },
    };
    const s = setup({ existing: new Map([['ice_lb.v', older]]) });
    expect(await s.acts.createIcebergView(s.ref)).toMatchObject({ created: false, code: 'IN_TARGET_CATALOG' });
  });

  it('rollback drops our view (audited) and refuses a view that is not ours', async () => {
    const s = setup({});
    await s.acts.createIcebergView(s.ref);
    const hmsView = s.rec().original!;
    (s.c.deps as { hms: unknown }).hms = { getTables: () => Promise.resolve([hmsView]) };
    const created = s.rec();
    const fp = (await import('../../../ops/context')).fingerprintOf(hmsView);
    const rec = { ...created, originalDigest: fp };
    expect(await rollbackView(s.c, s.ref, rec, 'alice')).toEqual({ status: 'rolled-back' });
    expect(s.views.dropped).toEqual(['ice_lb.v']);
    expect(s.events.map((e) => e.action)).toEqual(['view.created', 'view.dropped', 'table.rolled-back']);
    // A view of someone else's under the name now: left alone.
    const ident = { namespace: ['ice_lb'], name: 'v' };
    await s.views.createView(ident, { ...s.views.created[0]!, properties: {} });
    await expect(rollbackView(s.c, s.ref, rec, 'alice')).rejects.toMatchObject({ code: ErrorCode.ROLLBACK_NOT_OURS });
    expect(s.views.dropped).toEqual(['ice_lb.v']);
  });
});
