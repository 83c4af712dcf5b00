// Wire (JSON) shapes of schemas, types, partition specs and sort orders (spec Appendix C "JSON
// serialization"; SchemaParser/PartitionSpecParser/SortOrderParser). Pure; no I/O. The model in
// types.ts never carries these key names (docs/architecture.md "Habits" 3).
import { ErrorCode, MigrationError } from '../errors';
import type { PartitionField, PartitionSpec } from './partition-spec';
import type { IcebergType, NestedField, PrimitiveType, Schema } from './types';

export type TypeJson = string | StructJson | ListJson | MapJson;
export interface FieldJson {
  id: number;
  name: string;
  required: boolean;
  type: TypeJson;
  doc?: string;
}
export interface StructJson {
  type: 'struct';
  fields: FieldJson[];
}
export interface ListJson {
  type: 'list';
  'element-id': number;
  element: TypeJson;
  'element-required': boolean;
}
export interface MapJson {
  type: 'map';
  'key-id': number;
  key: TypeJson;
  'value-id': number;
  value: TypeJson;
  'value-required': boolean;
}
export interface SchemaJson extends StructJson {
  'schema-id': number;
  'identifier-field-ids'?: number[];
}
export interface PartitionFieldJson {
  name: string;
  transform: string;
  'source-id': number;
  'field-id': number;
}
export interface PartitionSpecJson {
  'spec-id': number;
  fields: PartitionFieldJson[];
}
export interface SortFieldJson {
  transform: string;
  'source-id': number;
  direction: 'asc' | 'desc';
  'null-order': 'nulls-first' | 'nulls-last';
}
export interface SortOrderJson {
  'order-id': number;
  fields: SortFieldJson[];
}

function bad(what: string, value: unknown): never {
  throw new MigrationError(ErrorCode.ICEBERG_METADATA_INVALID, `invalid ${what}: ${JSON.stringify(value)}`, { value });
}

export function primitiveToJson(t: PrimitiveType): string {
  if (t.kind === 'decimal') return `decimal(${t.precision}, ${t.scale})`;
  if (t.kind === 'fixed') return `fixed[${t.length}]`;
  return t.kind;
}

const SIMPLE = new Set([
  'boolean',
  'int',
  'long',
  'float',
  'double',
  'date',
  'time',
  'timestamp',
  'timestamptz',
  'string',
  'uuid',
  'binary',
]);

export function primitiveFromJson(s: string): PrimitiveType {
  if (SIMPLE.has(s)) return { kind: s } as PrimitiveType;
  const dec = /^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$/.exec(s);
  if (dec !== null) return { kind: 'decimal', precision: Number(dec[1]), scale: Number(dec[2]) };
  const fixed = /^fixed\[\s*(\d+)\s*\]$/.exec(s);
  if (fixed !== null) return { kind: 'fixed', length: Number(fixed[1]) };
  return bad('type (v2 primitive expected)', s);
}

export function typeToJson(t: IcebergType): TypeJson {
  switch (t.kind) {
    case 'struct':
      return { type: 'struct', fields: t.fields.map(fieldToJson) };
    case 'list':
      return { type: 'list', 'element-id': t.elementId, element: typeToJson(t.element), 'element-required': t.elementRequired };
    case 'map':
      return {
        type: 'map',
        'key-id': t.keyId,
        key: typeToJson(t.key),
        'value-id': t.valueId,
        value: typeToJson(t.value),
        'value-required': t.valueRequired,
      };
    default:
      return primitiveToJson(t);
  }
}

function fieldToJson(f: NestedField): FieldJson {
  const out: FieldJson = { id: f.id, name: f.name, required: f.required, type: typeToJson(f.type) };
  if (f.doc !== undefined) out.doc = f.doc;
  return out;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const int = (v: unknown, what: string): number => (typeof v === 'number' && Number.isInteger(v) ? v : bad(what, v));
const bool = (v: unknown, what: string): boolean => (typeof v === 'boolean' ? v : bad(what, v));

export function typeFromJson(j: unknown): IcebergType {
  if (typeof j === 'string') return primitiveFromJson(j);
  if (!isObj(j)) return bad('type', j);
  switch (j.type) {
    case 'struct':
      return { kind: 'struct', fields: fieldsFromJson(j.fields) };
    case 'list':
      return {
        kind: 'list',
        elementId: int(j['element-id'], 'element-id'),
        elementRequired: bool(j['element-required'], 'element-required'),
        element: typeFromJson(j.element),
      };
    case 'map':
      return {
        kind: 'map',
        keyId: int(j['key-id'], 'key-id'),
        key: typeFromJson(j.key),
        valueId: int(j['value-id'], 'value-id'),
        valueRequired: bool(j['value-required'], 'value-required'),
        value: typeFromJson(j.value),
      };
    default:
      return bad('type', j.type);
  }
}

function fieldsFromJson(j: unknown): NestedField[] {
  if (!Array.isArray(j)) return bad('fields', j);
  return j.map((f: unknown): NestedField => {
    if (!isObj(f) || typeof f.name !== 'string') return bad('field', f);
    const base = { id: int(f.id, 'field id'), name: f.name, required: bool(f.required, 'required'), type: typeFromJson(f.type) };
    return typeof f.doc === 'string' ? { ...base, doc: f.doc } : base;
  });
}

export function schemaToJson(s: Schema): SchemaJson {
  const out: SchemaJson = { type: 'struct', 'schema-id': s.schemaId, fields: s.fields.map(fieldToJson) };
  if (s.identifierFieldIds !== undefined && s.identifierFieldIds.length > 0) out['identifier-field-ids'] = [...s.identifierFieldIds];
  return out;
}

export function schemaFromJson(j: unknown): Schema {
  if (!isObj(j) || j.type !== 'struct') return bad('schema', j);
  const ids = j['identifier-field-ids'];
  const base = { schemaId: int(j['schema-id'], 'schema-id'), fields: fieldsFromJson(j.fields) };
  return Array.isArray(ids) ? { ...base, identifierFieldIds: ids.map((x) => int(x, 'identifier-field-id')) } : base;
}

export function partitionFieldsToJson(fields: readonly PartitionField[]): PartitionFieldJson[] {
  return fields.map((f) => ({ name: f.name, transform: f.transform, 'source-id': f.sourceId, 'field-id': f.fieldId }));
}

export function specToJson(s: PartitionSpec): PartitionSpecJson {
  return { 'spec-id': s.specId, fields: partitionFieldsToJson(s.fields) };
}

export function specFromJson(j: unknown): PartitionSpec {
  if (!isObj(j) || !Array.isArray(j.fields)) return bad('partition spec', j);
  return {
    specId: int(j['spec-id'], 'spec-id'),
    fields: j.fields.map((f: unknown): PartitionField => {
      if (!isObj(f) || typeof f.name !== 'string' || typeof f.transform !== 'string') return bad('partition field', f);
      return {
        name: f.name,
        transform: f.transform,
        sourceId: int(f['source-id'], 'source-id'),
        fieldId: int(f['field-id'], 'partition field-id (required in v2)'),
      };
    }),
  };
}
