// The Iceberg type model (spec "Schemas and Data Types"), v2 types only. Pure; no I/O.
// Model shapes only: JSON key names live in schema-json.ts, Avro shapes in adapters/avro (docs/architecture.md "Habits" 3).

export type PrimitiveType =
  | { readonly kind: 'boolean' }
  | { readonly kind: 'int' }
  | { readonly kind: 'long' }
  | { readonly kind: 'float' }
  | { readonly kind: 'double' }
  | { readonly kind: 'date' }
  | { readonly kind: 'time' }
  | { readonly kind: 'timestamp' }
  | { readonly kind: 'timestamptz' }
  | { readonly kind: 'string' }
  | { readonly kind: 'uuid' }
  | { readonly kind: 'binary' }
  | { readonly kind: 'fixed'; readonly length: number }
  | { readonly kind: 'decimal'; readonly precision: number; readonly scale: number };

export type PrimitiveKind = PrimitiveType['kind'];

export interface NestedField {
  readonly id: number;
  readonly name: string;
  readonly required: boolean;
  readonly type: IcebergType;
  readonly doc?: string;
}

export interface StructType {
  readonly kind: 'struct';
  readonly fields: readonly NestedField[];
}

export interface ListType {
  readonly kind: 'list';
  readonly elementId: number;
  readonly elementRequired: boolean;
  readonly element: IcebergType;
}

export interface MapType {
  readonly kind: 'map';
  readonly keyId: number;
  readonly key: IcebergType;
  readonly valueId: number;
  readonly valueRequired: boolean;
  readonly value: IcebergType;
}

export type IcebergType = PrimitiveType | StructType | ListType | MapType;

export interface Schema {
  readonly schemaId: number;
  readonly fields: readonly NestedField[];
  readonly identifierFieldIds?: readonly number[];
}

/** Typed single values (bounds, partition values). Longs, times and timestamps are bigint (µs). */
export type PrimitiveValue = boolean | number | bigint | string | Uint8Array;

export const prim = {
  boolean: { kind: 'boolean' },
  int: { kind: 'int' },
  long: { kind: 'long' },
  float: { kind: 'float' },
  double: { kind: 'double' },
  date: { kind: 'date' },
  time: { kind: 'time' },
  timestamp: { kind: 'timestamp' },
  timestamptz: { kind: 'timestamptz' },
  string: { kind: 'string' },
  uuid: { kind: 'uuid' },
  binary: { kind: 'binary' },
} as const satisfies Record<string, PrimitiveType>;

export function decimalType(precision: number, scale: number): PrimitiveType {
  return { kind: 'decimal', precision, scale };
}

export function isPrimitive(t: IcebergType): t is PrimitiveType {
  return t.kind !== 'struct' && t.kind !== 'list' && t.kind !== 'map';
}

/** Every field id in the schema (fields, list elements, map keys/values), depth first. */
export function allFieldIds(fields: readonly NestedField[]): number[] {
  const out: number[] = [];
  const visit = (t: IcebergType): void => {
    if (t.kind === 'struct') {
      for (const f of t.fields) {
        out.push(f.id);
        visit(f.type);
      }
    } else if (t.kind === 'list') {
      out.push(t.elementId);
      visit(t.element);
    } else if (t.kind === 'map') {
      out.push(t.keyId, t.valueId);
      visit(t.key);
      visit(t.value);
    }
  };
  visit({ kind: 'struct', fields });
  return out;
}

/** The highest field id in a schema (`last-column-id`); 0 for an empty schema. */
export function highestFieldId(fields: readonly NestedField[]): number {
  return allFieldIds(fields).reduce((m, id) => Math.max(m, id), 0);
}

/** Look any struct field up by id, however deeply nested (inside structs, lists and maps). */
export function findField(fields: readonly NestedField[], id: number): NestedField | undefined {
  const inType = (t: IcebergType): NestedField | undefined =>
    t.kind === 'struct'
      ? findField(t.fields, id)
      : t.kind === 'list'
        ? inType(t.element)
        : t.kind === 'map'
          ? (inType(t.key) ?? inType(t.value))
          : undefined;
  for (const f of fields) {
    if (f.id === id) return f;
    const nested = inType(f.type);
    if (nested !== undefined) return nested;
  }
  return undefined;
}
