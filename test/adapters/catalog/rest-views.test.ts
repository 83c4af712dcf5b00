// RestViews against the stack's Java reference REST catalog (1.10.1, JdbcCatalog with its V1 schema:
// view support): create a view spec v1 view (schema, hive + spark representations, defaults,
// properties) and read it back as sent; assert-create (a second create answers `exists` with the
// first view, unchanged); a view and a table are separate (tableExists false for the view name);
// drop removes only the entry (a second drop: absent); load of a missing view is CATALOG_NOT_FOUND;
// a body that is not a LoadViewResult is a coded error.
import { RestCatalog } from '../../../adapters/catalog/rest';
import { loadViewResult } from '../../../adapters/catalog/rest-views';
import type { ViewDefinition } from '../../../core/catalog/catalog';
import { tableIdent } from '../../../core/catalog/catalog';
import { ErrorCode } from '../../../core/errors';
import { testStack, uniqueName } from '../../helpers/stack-env';

const ns = [uniqueName('him_views')];
let catalog: RestCatalog;

const def: ViewDefinition = {
  schema: {
    schemaId: 0,
    fields: [
      { id: 1, name: 'id', required: false, type: { kind: 'long' } },
      { id: 2, name: 'amount', required: false, type: { kind: 'decimal', precision: 10, scale: 2 }, doc: 'eur' },
    ],
  },
  representations: [
    { sql: 'SELECT `t`.`id`, `t`.`amount` FROM `db`.`t`', dialect: 'hive' },
    { sql: `SELECT \`t\`.\`id\`, \`t\`.\`amount\` FROM \`${ns[0]}\`.\`t\``, dialect: 'spark' },
  ],
  defaultNamespace: ns,
  defaultCatalog: 'lake',
  summary: { 'engine-name': 'hms-iceberg-migrator' },
  properties: { 'him.created-by': 'hms-iceberg-migrator', 'him.source.hms-view': 'db.v' },
};

beforeAll(async () => {
  catalog = await RestCatalog.connect({ name: 'stack', uri: testStack().HIM_ICEBERG_REST_URI ?? '' });
  await catalog.createNamespace(ns);
});

afterAll(async () => {
  await catalog.views.dropView(tableIdent(ns, 'v')).catch(() => undefined);
  await catalog.dropNamespace(ns).catch(() => undefined);
});

describe('RestViews (Java reference REST catalog)', () => {
  const ident = () => tableIdent(ns, 'v');

  it('creates a view spec v1 view and reads it back as sent', async () => {
    expect(await catalog.views.viewExists(ident())).toBe(false);
    const { outcome, view } = await catalog.views.createView(ident(), def);
    expect(outcome).toBe('created');
    expect(view.metadataLocation).toMatch(/^s3:\/\/.*\/metadata\/.*\.metadata\.json$/);
    const back = await catalog.views.loadView(ident());
    expect(back.schema.fields.map((f) => [f.id, f.name, f.type, f.doc])).toEqual(
      def.schema.fields.map((f) => [f.id, f.name, f.type, f.doc]),
    );
    expect(back.representations).toEqual(def.representations);
    expect([back.defaultNamespace, back.defaultCatalog]).toEqual([ns, 'lake']);
    expect(back.properties).toMatchObject(def.properties);
    expect(back.viewUuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(await catalog.tableExists(ident())).toBe(false);
  });

  it('assert-create: a second create answers exists with the first view, unchanged', async () => {
    const before = await catalog.views.loadView(ident());
    const again = await catalog.views.createView(ident(), { ...def, properties: { other: 'x' } });
    expect(again.outcome).toBe('exists');
    expect([again.view.metadataLocation, again.view.properties]).toEqual([before.metadataLocation, before.properties]);
  });

  it('drop removes the entry once; loading a missing view is CATALOG_NOT_FOUND', async () => {
    expect(await catalog.views.dropView(ident())).toEqual({ dropped: true });
    expect(await catalog.views.dropView(ident())).toEqual({ dropped: false });
    await expect(catalog.views.loadView(ident())).rejects.toMatchObject({ code: ErrorCode.CATALOG_NOT_FOUND });
  });

  it('a body that is not a LoadViewResult, or another format version, is a coded error', () => {
    expect(() => loadViewResult(ident(), '{"x":1}', 'GET v')).toThrow(
      expect.objectContaining({ code: ErrorCode.CATALOG_HTTP_ERROR }) as Error,
    );
    const v2 = JSON.stringify({ 'metadata-location': 's3://m', metadata: { 'format-version': 2 } });
    expect(() => loadViewResult(ident(), v2, 'GET v')).toThrow(/format-version 2/);
  });
});
