// Iceberg views over the REST catalog (open-api: /v1/{prefix}/namespaces/{namespace}/views and
// /views/{view}; view spec v1): create (CreateViewRequest → LoadViewResult), load, exists, drop.
// Create is assert-create: an existing view (409 AlreadyExistsException, or a create whose answer
// was lost) is loaded and returned as `exists`, never replaced. The Java reference server keeps the
// request's properties but writes its own version summary and timestamp, so ownership is a property.
import type { IcebergViewCatalog, LoadedView, Namespace, TableIdent, ViewDefinition, ViewRepresentation } from '../../core/catalog/catalog';
import { formatTableIdent } from '../../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../../core/errors';
import { parseJson } from '../../core/iceberg/json';
import { schemaFromJson, schemaToJson } from '../../core/iceberg/schema-json';
import type { RestHttp } from './rest-http';
import { isObj, strMap } from './rest-wire';

/** View spec v1: the format version this client writes and reads. */
export const VIEW_FORMAT_VERSION = 1;
/** The version a new view starts at (view spec: `version-id` of the first version). */
const FIRST_VERSION_ID = 1;

export class RestViews implements IcebergViewCatalog {
  constructor(
    private readonly http: RestHttp,
    private readonly nsPath: (ns: Namespace) => string,
    private readonly now: () => number = Date.now,
  ) {}

  private viewPath(v: TableIdent): string {
    return `${this.nsPath(v.namespace)}/views/${encodeURIComponent(v.name)}`;
  }

  async viewExists(ident: TableIdent): Promise<boolean> {
    const res = await this.http.call({ method: 'GET', path: this.viewPath(ident), pass: [404] });
    return res.status !== 404;
  }

  async loadView(ident: TableIdent): Promise<LoadedView> {
    const res = await this.http.call({ method: 'GET', path: this.viewPath(ident) });
    return loadViewResult(ident, res.text, `GET ${this.viewPath(ident)}`);
  }

  async createView(ident: TableIdent, view: ViewDefinition): Promise<{ outcome: 'created' | 'exists'; view: LoadedView }> {
    const path = `${this.nsPath(ident.namespace)}/views`;
    try {
      const res = await this.http.call({
        method: 'POST',
        path,
        body: JSON.stringify(createViewRequest(ident, view, this.now())),
        pass: [409],
      });
      if (res.status === 409) return { outcome: 'exists', view: await this.loadView(ident) };
      return { outcome: 'created', view: loadViewResult(ident, res.text, `POST ${path}`) };
    } catch (e) {
      // A 5xx or timeout may have created it: the view there now answers (its marker says whose it is).
      if (e instanceof MigrationError && (e.code === ErrorCode.CATALOG_SERVER_ERROR || e.code === ErrorCode.CATALOG_TIMEOUT)) {
        if (await this.viewExists(ident)) return { outcome: 'exists', view: await this.loadView(ident) };
      }
      throw e;
    }
  }

  async dropView(ident: TableIdent): Promise<{ dropped: boolean }> {
    const res = await this.http.call({ method: 'DELETE', path: this.viewPath(ident), pass: [404] });
    return { dropped: res.status !== 404 };
  }
}

/** CreateViewRequest (open-api): name, location omitted (the server's default), schema, view-version, properties. */
export function createViewRequest(ident: TableIdent, v: ViewDefinition, nowMs: number): Record<string, unknown> {
  return {
    name: ident.name,
    schema: schemaToJson(v.schema),
    'view-version': {
      'version-id': FIRST_VERSION_ID,
      'timestamp-ms': nowMs,
      'schema-id': v.schema.schemaId,
      summary: v.summary,
      representations: v.representations.map((r) => ({ type: 'sql', sql: r.sql, dialect: r.dialect })),
      'default-namespace': [...v.defaultNamespace],
      ...(v.defaultCatalog === null ? {} : { 'default-catalog': v.defaultCatalog }),
    },
    properties: v.properties,
  };
}

/** LoadViewResult → LoadedView: the current version, its schema and SQL representations. */
export function loadViewResult(ident: TableIdent, text: string, what: string): LoadedView {
  const bad = (why: string): MigrationError =>
    new MigrationError(
      ErrorCode.CATALOG_HTTP_ERROR,
      `${what}: view ${formatTableIdent(ident)}: ${why}`,
      { view: formatTableIdent(ident) },
      { retryable: false },
    );
  const body = parseJson(text);
  if (!isObj(body) || typeof body['metadata-location'] !== 'string' || !isObj(body.metadata)) throw bad('not a LoadViewResult');
  const m = body.metadata;
  if (m['format-version'] !== VIEW_FORMAT_VERSION)
    throw bad(`view format-version ${String(m['format-version'])} (this client reads ${VIEW_FORMAT_VERSION})`);
  const versions = Array.isArray(m.versions) ? m.versions.filter(isObj) : [];
  const current = versions.find((x) => x['version-id'] === m['current-version-id']);
  if (current === undefined) throw bad('no current version');
  const schemas = Array.isArray(m.schemas) ? m.schemas.filter(isObj) : [];
  const schema = schemas.find((s) => s['schema-id'] === current['schema-id']);
  if (schema === undefined) throw bad(`no schema ${String(current['schema-id'])}`);
  const reps: ViewRepresentation[] = (Array.isArray(current.representations) ? current.representations.filter(isObj) : [])
    .filter((r) => r.type === 'sql' && typeof r.sql === 'string' && typeof r.dialect === 'string')
    .map((r) => ({ sql: r.sql as string, dialect: (r.dialect as string).toLowerCase() }));
  const ns = current['default-namespace'];
  return {
    ident,
    metadataLocation: body['metadata-location'],
    viewUuid: typeof m['view-uuid'] === 'string' ? m['view-uuid'] : '',
    properties: strMap(m.properties),
    schema: schemaFromJson(schema),
    representations: reps,
    defaultNamespace: Array.isArray(ns) ? ns.map(String) : [],
    defaultCatalog: typeof current['default-catalog'] === 'string' ? current['default-catalog'] : null,
  };
}
