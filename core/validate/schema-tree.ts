// Validation of the Iceberg schema against the Hive columns, the whole type tree: every Hive column
// (data and partition) has a top-level field, each nested struct field, list element and map
// key/value has its counterpart, the kinds are the ones the conversion makes of the Hive types
// (core/iceberg/schema.ts: tinyint/smallint/int → int, bigint → long, char/varchar/string → string,
// timestamp → timestamp or timestamptz), decimals keep precision and scale, and nullability is as
// converted (every column, nested field, list element and map value optional; map keys required).
// Iceberg fields Hive does not have are reported too (a struct field in Iceberg only). Names match
// case-insensitively, as Hive's do. Pure; no I/O.
import { ErrorCode, MigrationError } from '../errors';
import type { HiveType } from '../hive/types';
import { formatHiveType, parseHiveType } from '../hive/types';
import type { IcebergType, NestedField, Schema } from '../iceberg/types';
import type { ValidationFinding } from './compare';

export interface HiveColumnSpec {
  readonly name: string;
  readonly type: string;
}

const PRIMITIVE_KIND: Readonly<Record<string, readonly string[]>> = {
  boolean: ['boolean'],
  tinyint: ['int'],
  smallint: ['int'],
  int: ['int'],
  bigint: ['long'],
  float: ['float'],
  double: ['double'],
  string: ['string'],
  binary: ['binary'],
  date: ['date'],
  timestamp: ['timestamp', 'timestamptz'],
  'timestamp with local time zone': ['timestamptz'],
};

const icebergName = (t: IcebergType): string =>
  t.kind === 'decimal' ? `decimal(${t.precision},${t.scale})` : t.kind === 'fixed' ? `fixed[${t.length}]` : t.kind;

function mismatch(path: string, message: string, expected: string, actual: string): ValidationFinding {
  return { code: ErrorCode.VALIDATION_SCHEMA_MISMATCH, check: 'schema', message, expected, actual, path };
}

function kindOk(h: HiveType, t: IcebergType): boolean {
  switch (h.kind) {
    case 'primitive':
      return (PRIMITIVE_KIND[h.name] ?? []).includes(t.kind);
    case 'decimal':
      return t.kind === 'decimal' && t.precision === h.precision && t.scale === h.scale;
    case 'char':
    case 'varchar':
      return t.kind === 'string';
    case 'array':
      return t.kind === 'list';
    case 'map':
      return t.kind === 'map';
    case 'struct':
      return t.kind === 'struct';
    case 'union':
      return false;
  }
}

function optional(path: string, required: boolean, out: ValidationFinding[], want = false): void {
  if (required !== want)
    out.push(
      mismatch(
        path,
        `'${path}' is ${required ? 'required' : 'optional'} in the Iceberg schema; the conversion makes it ${want ? 'required' : 'optional'}`,
        want ? 'required' : 'optional',
        required ? 'required' : 'optional',
      ),
    );
}

function structFields(path: string, hive: HiveType & { kind: 'struct' }, fields: readonly NestedField[], out: ValidationFinding[]): void {
  const byName = new Map(fields.map((f) => [f.name.toLowerCase(), f]));
  for (const hf of hive.fields) {
    const p = `${path}.${hf.name}`;
    const f = byName.get(hf.name.toLowerCase());
    byName.delete(hf.name.toLowerCase());
    if (f === undefined) out.push(mismatch(p, `Hive field '${p}' has no field in the Iceberg schema`, formatHiveType(hf.type), 'absent'));
    else {
      optional(p, f.required, out);
      compareType(p, hf.type, f.type, out);
    }
  }
  for (const f of byName.values())
    out.push(
      mismatch(`${path}.${f.name}`, `Iceberg field '${path}.${f.name}' has no field in the Hive type`, 'absent', icebergName(f.type)),
    );
}

function compareType(path: string, h: HiveType, t: IcebergType, out: ValidationFinding[]): void {
  if (!kindOk(h, t)) {
    out.push(
      mismatch(
        path,
        `'${path}' is ${formatHiveType(h)} in Hive but ${icebergName(t)} in the Iceberg schema`,
        formatHiveType(h),
        icebergName(t),
      ),
    );
    return;
  }
  if (h.kind === 'struct' && t.kind === 'struct') structFields(path, h, t.fields, out);
  else if (h.kind === 'array' && t.kind === 'list') {
    optional(`${path}.element`, t.elementRequired, out);
    compareType(`${path}.element`, h.element, t.element, out);
  } else if (h.kind === 'map' && t.kind === 'map') {
    compareType(`${path}.key`, h.key, t.key, out);
    optional(`${path}.value`, t.valueRequired, out);
    compareType(`${path}.value`, h.value, t.value, out);
  }
}

/**
 * Every Hive column against the Iceberg schema, through the whole type tree. A Hive type that does
 * not parse is checked by name only (planning already refused such tables; this never throws).
 */
export function compareSchemaTree(hiveColumns: readonly HiveColumnSpec[], schema: Schema): ValidationFinding[] {
  const out: ValidationFinding[] = [];
  const byName = new Map(schema.fields.map((f) => [f.name.toLowerCase(), f]));
  for (const c of hiveColumns) {
    const f = byName.get(c.name.toLowerCase());
    if (f === undefined) {
      out.push(mismatch(c.name, `Hive column '${c.name}' has no field in the Iceberg schema`, c.name, 'absent'));
      continue;
    }
    let h: HiveType;
    try {
      h = parseHiveType(c.type, c.name);
    } catch (e) {
      if (e instanceof MigrationError) continue;
      throw e;
    }
    optional(c.name, f.required, out);
    compareType(c.name, h, f.type, out);
  }
  return out;
}
