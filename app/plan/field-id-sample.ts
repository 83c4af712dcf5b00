// Assessment of the field ids sampled Parquet footers carry (core/iceberg/embedded-ids.ts): the same
// decision apply makes over every footer, made over the sample — FIELD_IDS_ADOPTED (info) or
// FIELD_IDS_INCONSISTENT (rewrite) naming files and columns. The footers come from storage-sample.ts.
import type { FileIdLayout } from '../../core/iceberg/embedded-ids';
import { decideEmbeddedIds } from '../../core/iceberg/embedded-ids';
import { convertHiveSchemaOrThrow } from '../../core/iceberg/schema';
import { parseHiveType } from '../../core/hive/types';
import type { TableInventory } from '../../core/hive/model';
import type { AssessFinding } from '../../core/assess/types';
import { AssessCode, finding } from '../../core/assess/types';
import type { SchemaElement } from '../../adapters/formats/parquet/thrift';

/** Leaf paths of a flattened Parquet schema and the field_id at each level, or undefined without ids. */
export function parquetIdLayout(file: string, schema: readonly SchemaElement[]): FileIdLayout | undefined {
  const columns: string[][] = [];
  const fieldIds: (number | null)[][] = [];
  let any = false;
  let i = 1;
  const walk = (names: string[], ids: (number | null)[]): void => {
    const e = schema[i++];
    if (e === undefined) return;
    any ||= e.fieldId !== undefined;
    const at = [...names, e.name];
    const idsAt = [...ids, e.fieldId ?? null];
    const n = e.numChildren ?? 0;
    if (n === 0) {
      columns.push(at);
      fieldIds.push(idsAt);
    }
    for (let k = 0; k < n; k++) walk(at, idsAt);
  };
  for (let k = 0; k < (schema[0]?.numChildren ?? 0) && i < schema.length; k++) walk([], []);
  return any ? { file, columns, fieldIds } : undefined;
}

/** The finding for a table whose sampled footers carry ids, or none. */
export function fieldIdFindings(t: TableInventory, layouts: readonly FileIdLayout[], where: string): AssessFinding[] {
  if (layouts.length === 0) return [];
  const source = `${t.table.database}.${t.table.name}`;
  const parsed = (cols: readonly { name: string; type: string; comment: string | null }[]) =>
    cols.map((c) => ({ name: c.name, type: parseHiveType(c.type, `${source}.${c.name}`), comment: c.comment }));
  let schema;
  try {
    schema = convertHiveSchemaOrThrow(parsed(t.table.sd.columns), parsed(t.table.partitionKeys)).schema;
  } catch {
    return []; // the type findings say why the table does not convert
  }
  const d = decideEmbeddedIds(schema, t.table.sd.columns.length, layouts);
  if (d.kind === 'none') return [];
  if (d.kind === 'adopt') {
    const ids = [...d.adopted].map(([c, id]) => `${c}=${id}`).join(', ');
    return [
      finding(
        AssessCode.FIELD_IDS_ADOPTED,
        'info',
        `${d.filesWithIds} sampled file(s) of ${where} carry Iceberg field ids, consistent with the Hive columns: ${ids}`,
        'none: apply adopts these ids into the Iceberg schema (readers resolve these files by id), or refuses with FIELD_IDS_INCONSISTENT if the files it reads disagree',
      ),
    ];
  }
  return [
    finding(
      AssessCode.FIELD_IDS_INCONSISTENT,
      'rewrite',
      `sampled files of ${where} carry Iceberg field ids that cannot hold in one schema: ${d.conflicts
        .slice(0, 5)
        .map((c) => c.message)
        .join('; ')}`,
      'rewrite the table (plan --rewrite), or rewrite the named files without field ids: metadata-only, readers would read one column as another',
      d.conflicts[0]?.column,
    ),
  ];
}
