// `schema.name-mapping.default`: the name → field-id mapping readers use for files written without
// field ids (every Hive file). Pure; no I/O. Model here, wire JSON in nameMappingToJson.
// Layout as MappingUtil.create (spec "Name Mapping Serialization", docs/design/iceberg-spec.md §4): one entry per
// field, nested `fields` for structs, a list's child is named `element`, a map's `key` and `value`.
// Lookup is case-sensitive, so the exact spellings found in file footers (mixed case, Hive 1.x ORC
// `_colN` positional names) are added as extra names.
import { footerTree, hiveMatcher, walkFooter } from './footer-paths';
import type { IcebergType, NestedField, Schema } from './types';

export interface MappedField {
  readonly fieldId: number;
  readonly names: readonly string[];
  readonly fields?: readonly MappedField[];
}
export type NameMapping = readonly MappedField[];

/** Extra names per field id (beyond the schema name), e.g. from footerAliases. */
export type ExtraNames = ReadonlyMap<number, readonly string[]>;

function names(primary: string, id: number, extra: ExtraNames): string[] {
  const out = [primary];
  for (const n of extra.get(id) ?? []) if (!out.includes(n)) out.push(n);
  return out;
}

function children(t: IcebergType, extra: ExtraNames): MappedField[] | undefined {
  switch (t.kind) {
    case 'struct':
      return mapFields(t.fields, extra);
    case 'list':
      return [entry(t.elementId, 'element', t.element, extra)];
    case 'map':
      return [entry(t.keyId, 'key', t.key, extra), entry(t.valueId, 'value', t.value, extra)];
    default:
      return undefined;
  }
}

function entry(id: number, name: string, t: IcebergType, extra: ExtraNames): MappedField {
  const nested = children(t, extra);
  const base = { fieldId: id, names: names(name, id, extra) };
  return nested === undefined ? base : { ...base, fields: nested };
}

function mapFields(fields: readonly NestedField[], extra: ExtraNames): MappedField[] {
  return fields.map((f) => entry(f.id, f.name, f.type, extra));
}

/** The mapping for every field of `schema` (nested too), with `extra` names appended per id. */
export function buildNameMapping(schema: Schema, extra: ExtraNames = new Map()): NameMapping {
  return mapFields(schema.fields, extra);
}

interface NameMappingWire {
  'field-id': number;
  names: string[];
  fields?: NameMappingWire[];
}

function toWire(f: MappedField): NameMappingWire {
  const w: NameMappingWire = { 'field-id': f.fieldId, names: [...f.names] };
  if (f.fields !== undefined) w.fields = f.fields.map(toWire);
  return w;
}

function fromWire(w: NameMappingWire): MappedField {
  const base = { fieldId: w['field-id'], names: [...w.names] };
  return w.fields === undefined ? base : { ...base, fields: w.fields.map(fromWire) };
}

/** The property value read back (what nameMappingToJson wrote, or Java's NameMappingParser). */
export function nameMappingFromJson(json: string): NameMapping {
  return (JSON.parse(json) as NameMappingWire[]).map(fromWire);
}

/** The property value: a JSON array, as NameMappingParser writes it. */
export function nameMappingToJson(mapping: NameMapping): string {
  return JSON.stringify(mapping.map(toWire));
}

/**
 * Aliases for the column names found in a file footer. `footerColumns` are the file's column paths
 * (top level first element; nested levels after it). A name that matches a schema field
 * case-insensitively but not exactly becomes an alias — at the top level, inside structs, and inside
 * a list's element and a map's key/value (through Parquet's wrapper levels: footer-paths.ts); a
 * top-level `_colN` names the N-th data column (`dataColumnCount` excludes the partition columns,
 * which Hive never writes into files).
 */
export function footerAliases(
  schema: Schema,
  dataColumnCount: number,
  footerColumns: readonly (readonly string[])[],
  into = new Map<number, string[]>(),
): Map<number, string[]> {
  walkFooter(footerTree(footerColumns), schema.fields, {
    match: hiveMatcher(dataColumnCount),
    matched: (name, field) => {
      if (field.name === name) return;
      const list = into.get(field.id) ?? [];
      if (!list.includes(name)) list.push(name);
      into.set(field.id, list);
    },
  });
  return into;
}
