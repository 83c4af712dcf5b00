// Schema additions a sync carries: columns Hive gained at the end of the table
// (ALTER TABLE … ADD COLUMNS) become new optional fields of a new current schema — the Iceberg
// table's fields as they are, then the new ones with fresh ids after `last-column-id` (top-level
// first, then nested, as Java's AssignFreshIds numbers them) — and the name mapping
// (`schema.name-mapping.default`) gains their names, so files written before the change read the
// new columns as null and files written after read them by name. Which changes are allowed is
// decided by the plan rules (core/plan/source-check.ts `syncSourceChange`: trailing additions
// only); this module only builds the schema. Pure; no I/O.
import { nameMappingToJson, buildNameMapping } from '../iceberg/name-mapping';
import type { TableMetadata } from '../iceberg/metadata';
import { TableProperty } from '../iceberg/spec-constants';
import type { IcebergType, NestedField, Schema } from '../iceberg/types';

export interface SchemaAddition {
  /** The new current schema (id: the highest schema id + 1). */
  readonly schema: Schema;
  readonly lastColumnId: number;
  /** The name mapping property with the new fields' entries appended. */
  readonly nameMapping: string;
  /** The new top-level columns, in order. */
  readonly added: readonly string[];
  /** What the commit asserts about the table it changes. */
  readonly base: { readonly schemaId: number; readonly lastColumnId: number };
}

/** `t` with every nested id renumbered from `next()` (a struct's own fields first, then their children). */
function freshType(t: IcebergType, next: () => number): IcebergType {
  switch (t.kind) {
    case 'struct':
      return { kind: 'struct', fields: freshFields(t.fields, next) };
    case 'list': {
      const elementId = next();
      return { ...t, elementId, element: freshType(t.element, next) };
    }
    case 'map': {
      const keyId = next();
      const valueId = next();
      return { ...t, keyId, valueId, key: freshType(t.key, next), value: freshType(t.value, next) };
    }
    default:
      return t;
  }
}

function freshFields(fields: readonly NestedField[], next: () => number): NestedField[] {
  const ids = fields.map(() => next());
  return fields.map((f, i) => ({ ...f, id: ids[i] as number, required: false, type: freshType(f.type, next) }));
}

/**
 * The schema update that adds the fields of `live` (the live Hive table's fresh conversion) whose
 * names the table's current schema lacks; null when it has them all.
 */
export function schemaAddition(m: TableMetadata, live: Schema): SchemaAddition | null {
  const current = m.schemas.find((s) => s.schemaId === m.currentSchemaId);
  if (current === undefined) return null;
  const have = new Set(current.fields.map((f) => f.name.toLowerCase()));
  const extra = live.fields.filter((f) => !have.has(f.name.toLowerCase()));
  if (extra.length === 0) return null;
  let last = m.lastColumnId;
  const fresh = freshFields(extra, () => ++last);
  const schema: Schema = {
    schemaId: Math.max(...m.schemas.map((s) => s.schemaId)) + 1,
    fields: [...current.fields, ...fresh],
    ...(current.identifierFieldIds !== undefined ? { identifierFieldIds: current.identifierFieldIds } : {}),
  };
  const before = m.properties[TableProperty.NAME_MAPPING_DEFAULT];
  const appended = JSON.parse(nameMappingToJson(buildNameMapping({ schemaId: schema.schemaId, fields: fresh }))) as unknown[];
  const mapping =
    before === undefined
      ? nameMappingToJson(buildNameMapping(schema))
      : JSON.stringify([...(JSON.parse(before) as unknown[]), ...appended]);
  return {
    schema,
    lastColumnId: last,
    nameMapping: mapping,
    added: fresh.map((f) => f.name),
    base: { schemaId: m.currentSchemaId, lastColumnId: m.lastColumnId },
  };
}

/** `base` with the addition's schema current, its last column id and name mapping. */
export function withSchemaAddition(base: TableMetadata, a: SchemaAddition): TableMetadata {
  return {
    ...base,
    schemas: [...base.schemas, a.schema],
    currentSchemaId: a.schema.schemaId,
    lastColumnId: a.lastColumnId,
    properties: { ...base.properties, [TableProperty.NAME_MAPPING_DEFAULT]: a.nameMapping },
  };
}
