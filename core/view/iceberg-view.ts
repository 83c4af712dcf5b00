// A Hive view as an Iceberg view (view spec v1, https://iceberg.apache.org/view-spec/): its schema
// (the view's HMS columns as Iceberg types, fresh ids from 1), one version with a `hive`
// representation (the expanded text HMS stored), a `spark` one (the tables renamed to their Iceberg
// names: translate.ts) and, when it translates, a `trino` one (translate-trino.ts; when it does not,
// the build says why and the view goes without it), default namespace and catalog, and our
// ownership marker as view properties; and the check of a loaded view against what we asked for.
// Pure; no I/O.
import type { LoadedView, Namespace, TableIdent, ViewDefinition } from '../catalog/catalog';
import { formatTableIdent } from '../catalog/catalog';
import type { HiveTable } from '../hive/model';
import { parseHiveType } from '../hive/types';
import { convertHiveSchema } from '../iceberg/schema';
import { typeToJson } from '../iceberg/schema-json';
import { OUR_ENGINE_NAME } from '../sync/snapshot';
import { toSparkSql } from './translate';
import { toTrinoSql } from './translate-trino';

/** View properties that say this tool created the view, for which Hive view, under which plan. */
export const ViewMarker = { CREATED_BY: 'him.created-by', SOURCE: 'him.source.hms-view', PLAN: 'him.plan' } as const;
/** Representation dialects (view spec: "dialect" names the engine SQL flavour). */
export const Dialect = { HIVE: 'hive', SPARK: 'spark', TRINO: 'trino' } as const;

/** Is `v` the view this tool created for Hive view `source` (`db.view`)? */
export function isOurView(v: Pick<LoadedView, 'properties'>, source: string): boolean {
  return v.properties[ViewMarker.CREATED_BY] === OUR_ENGINE_NAME && v.properties[ViewMarker.SOURCE] === source.toLowerCase();
}

export type ViewBuild =
  | {
      readonly ok: true;
      readonly definition: ViewDefinition;
      readonly spark: boolean;
      /** Why the view has no `trino` representation (null: it has one, or no Trino catalog is configured). */
      readonly trinoSkipped: { readonly why: string; readonly message: string } | null;
    }
  | { readonly ok: false; readonly why: 'no-sql' | 'type' | 'function' | 'unplaced' | 'unparseable'; readonly message: string };

export interface ViewBuildInput {
  readonly view: HiveTable;
  /** Every table or view the SQL reads (lower-case `db.table`) → its Iceberg name. */
  readonly targets: ReadonlyMap<string, TableIdent>;
  readonly defaultNamespace: Namespace;
  readonly defaultCatalog: string | null;
  /** Trino's name for the target catalog (config `views.trinoCatalog`); null: no `trino` representation. */
  readonly trinoCatalog?: string | null;
  readonly planHash: string;
  readonly toolVersion: string;
}

/** The Iceberg view for a Hive view whose inputs all have Iceberg names; or why it cannot be one. */
export function buildIcebergView(i: ViewBuildInput): ViewBuild {
  const hive = i.view.viewExpandedText ?? i.view.viewOriginalText;
  if (hive === null || hive.trim() === '') return { ok: false, why: 'no-sql', message: 'the view has no SQL text in HMS' };
  let columns;
  try {
    columns = i.view.sd.columns.map((c) => ({ name: c.name, type: parseHiveType(c.type, c.name), comment: c.comment }));
  } catch (e) {
    return { ok: false, why: 'type', message: e instanceof Error ? e.message : String(e) };
  }
  const schema = convertHiveSchema(columns, []);
  if (!schema.ok)
    return {
      ok: false,
      why: 'type',
      message: schema.findings
        .filter((f) => f.severity === 'error')
        .map((f) => f.message)
        .join('; '),
    };
  const spark = toSparkSql(hive, i.targets);
  if (!spark.ok) return { ok: false, why: spark.why, message: spark.message };
  const source = `${i.view.database}.${i.view.name}`.toLowerCase();
  const trino =
    i.trinoCatalog === undefined || i.trinoCatalog === null
      ? null
      : toTrinoSql(hive, i.targets, i.trinoCatalog, { name: i.view.name, columns: columns.map((c) => c.name) });
  return {
    ok: true,
    spark: true,
    trinoSkipped: trino === null || trino.ok ? null : { why: trino.why, message: trino.message },
    definition: {
      schema: schema.schema,
      representations: [
        { sql: hive, dialect: Dialect.HIVE },
        { sql: spark.sql, dialect: Dialect.SPARK },
        ...(trino?.ok === true ? [{ sql: trino.sql, dialect: Dialect.TRINO }] : []),
      ],
      defaultNamespace: i.defaultNamespace,
      defaultCatalog: i.defaultCatalog,
      summary: { 'engine-name': OUR_ENGINE_NAME, 'engine-version': i.toolVersion },
      properties: { [ViewMarker.CREATED_BY]: OUR_ENGINE_NAME, [ViewMarker.SOURCE]: source, [ViewMarker.PLAN]: i.planHash },
    },
  };
}

/** What differs between the view the catalog holds and the one we asked for (empty: equal). */
export function viewDifferences(loaded: LoadedView, wanted: ViewDefinition, source: string): string[] {
  const out: string[] = [];
  if (!isOurView(loaded, source)) out.push(`${formatTableIdent(loaded.ident)} does not carry our marker for ${source}`);
  const cols = (fs: ViewDefinition['schema']['fields']): string => JSON.stringify(fs.map((f) => [f.name, typeToJson(f.type)]));
  if (cols(loaded.schema.fields) !== cols(wanted.schema.fields))
    out.push(`schema ${cols(loaded.schema.fields)} ≠ the Hive view's columns ${cols(wanted.schema.fields)}`);
  for (const r of wanted.representations) {
    const got = loaded.representations.find((x) => x.dialect === r.dialect);
    if (got === undefined) out.push(`no ${r.dialect} representation`);
    else if (got.sql !== r.sql) out.push(`the ${r.dialect} SQL differs`);
  }
  if (loaded.defaultNamespace.join('.') !== wanted.defaultNamespace.join('.')) out.push('default namespace differs');
  if (loaded.defaultCatalog !== wanted.defaultCatalog) out.push('default catalog differs');
  return out;
}
