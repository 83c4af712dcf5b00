// Hive → Iceberg schema conversion with fresh field ids. Pure; no I/O.
// Rules: apache/iceberg hive-metastore HiveSchemaConverter/HiveSchemaUtil with autoConvert on
// (docs/design/iceberg-spec.md §3): tinyint/smallint → int, char/varchar → string, bigint → long, timestamp →
// timestamp (timestamptz with the option), `timestamp with local time zone` → timestamptz; nested
// fields, list elements and map values optional, map keys required (Iceberg keys always are); every
// top-level column optional with the Hive comment as doc. Partition keys follow the data columns.
// uniontype, interval_* and void are refused with a coded finding naming the column path.
//
// Id order = Java's TypeUtil.assignFreshIds (AssignFreshIds.struct): at each struct all of its own
// fields are numbered first, then each child type is visited in field order; a list numbers its
// element, a map its key then value, before descending. Example (docs/design/iceberg-spec.md §3): `a int,
// s struct<x,y>, m map<string,struct<p>>`, partition `dt` → a=1 s=2 m=3 dt=4 x=5 y=6 key=7 value=8 p=9.
import { ErrorCode, MigrationError } from '../errors';
import type { HiveColumnInput, HiveTypeAst } from './hive-input';
import { describeHiveType } from './hive-input';
import { INITIAL_SCHEMA_ID } from './spec-constants';
import type { IcebergType, NestedField, PrimitiveType, Schema } from './types';
import { highestFieldId, prim } from './types';

export interface SchemaConversionOptions {
  /** Hive `timestamp` becomes Iceberg `timestamp` (default, HiveSchemaUtil/Trino) or `timestamptz` (Spark). */
  readonly timestamp?: 'timestamp' | 'timestamptz';
}

export const SchemaFindingCode = {
  /** No Iceberg type exists for this Hive type; the table cannot be converted. */
  TYPE_UNSUPPORTED: ErrorCode.ICEBERG_TYPE_UNSUPPORTED,
  /** Duplicate (case-insensitive) or empty names; the table cannot be converted. */
  SCHEMA_INVALID: ErrorCode.ICEBERG_SCHEMA_INVALID,
  /** Converted, but a Hive semantic is not carried over (widened ints, CHAR padding, varchar length). */
  TYPE_WIDENED: 'ICEBERG_TYPE_WIDENED',
} as const;
export type SchemaFindingCode = (typeof SchemaFindingCode)[keyof typeof SchemaFindingCode];

export interface SchemaFinding {
  readonly code: SchemaFindingCode;
  readonly severity: 'error' | 'info';
  /** Dotted path of the column (`s.x`, `m.value.p`, `arr.element`). */
  readonly column: string;
  readonly hiveType: string;
  readonly message: string;
}

export type SchemaConversion =
  | { readonly ok: true; readonly schema: Schema; readonly lastColumnId: number; readonly findings: readonly SchemaFinding[] }
  | { readonly ok: false; readonly findings: readonly SchemaFinding[] };

/** A type with no ids yet: ids are assigned in a second pass, in AssignFreshIds order. */
type Draft =
  | { readonly kind: 'primitive'; readonly type: PrimitiveType }
  | { readonly kind: 'struct'; readonly fields: readonly DraftField[] }
  | { readonly kind: 'list'; readonly element: Draft }
  | { readonly kind: 'map'; readonly key: Draft; readonly value: Draft };

interface DraftField {
  readonly name: string;
  readonly type: Draft;
  readonly doc: string | null;
}

const SIMPLE: Readonly<Record<string, PrimitiveType>> = {
  boolean: prim.boolean,
  tinyint: prim.int,
  smallint: prim.int,
  int: prim.int,
  integer: prim.int,
  bigint: prim.long,
  float: prim.float,
  double: prim.double,
  string: prim.string,
  binary: prim.binary,
  date: prim.date,
  'timestamp with local time zone': prim.timestamptz,
};
const WIDENED = new Set(['tinyint', 'smallint']);

class Converter {
  readonly findings: SchemaFinding[] = [];
  constructor(private readonly options: SchemaConversionOptions) {}

  private add(code: SchemaFindingCode, column: string, t: HiveTypeAst | null, message: string): void {
    const severity = code === SchemaFindingCode.TYPE_WIDENED ? 'info' : 'error';
    this.findings.push({ code, severity, column, hiveType: t === null ? '' : describeHiveType(t), message });
  }

  convert(t: HiveTypeAst, path: string): Draft | null {
    switch (t.kind) {
      case 'primitive':
        return this.primitive(t.name, t, path);
      case 'decimal':
        return { kind: 'primitive', type: { kind: 'decimal', precision: t.precision, scale: t.scale } };
      case 'char':
      case 'varchar':
        this.add(
          SchemaFindingCode.TYPE_WIDENED,
          path,
          t,
          `${describeHiveType(t)} becomes string: ${t.kind === 'char' ? 'fixed length and trailing-space padding are' : 'the length limit is'} not carried over`,
        );
        return { kind: 'primitive', type: prim.string };
      case 'array': {
        const element = this.convert(t.element, `${path}.element`);
        return element === null ? null : { kind: 'list', element };
      }
      case 'map': {
        const key = this.convert(t.key, `${path}.key`);
        const value = this.convert(t.value, `${path}.value`);
        return key === null || value === null ? null : { kind: 'map', key, value };
      }
      case 'struct':
        return this.struct(t.fields, path);
      case 'union':
        this.add(
          SchemaFindingCode.TYPE_UNSUPPORTED,
          path,
          t,
          `column '${path}' has type ${describeHiveType(t)}: Iceberg has no union type`,
        );
        return null;
    }
  }

  private primitive(name: string, t: HiveTypeAst, path: string): Draft | null {
    if (name === 'timestamp')
      return { kind: 'primitive', type: this.options.timestamp === 'timestamptz' ? prim.timestamptz : prim.timestamp };
    const mapped = SIMPLE[name];
    if (mapped === undefined) {
      this.add(SchemaFindingCode.TYPE_UNSUPPORTED, path, t, `column '${path}' has type ${name}: unsupported Hive type for Iceberg tables`);
      return null;
    }
    if (WIDENED.has(name)) this.add(SchemaFindingCode.TYPE_WIDENED, path, t, `${name} becomes int`);
    return { kind: 'primitive', type: mapped };
  }

  struct(fields: readonly { name: string; type: HiveTypeAst; comment: string | null }[], prefix: string | null): Draft | null {
    const out: DraftField[] = [];
    const seen = new Map<string, string>();
    let failed = false;
    for (const f of fields) {
      const path = prefix === null ? f.name : `${prefix}.${f.name}`;
      const lower = f.name.toLowerCase();
      if (f.name === '') {
        this.add(SchemaFindingCode.SCHEMA_INVALID, path, f.type, `empty column name in '${prefix ?? '<table>'}'`);
        failed = true;
      } else if (seen.has(lower)) {
        this.add(
          SchemaFindingCode.SCHEMA_INVALID,
          path,
          f.type,
          `column '${path}' duplicates '${seen.get(lower) ?? ''}' (names are compared case-insensitively)`,
        );
        failed = true;
      }
      seen.set(lower, f.name);
      const type = this.convert(f.type, path);
      if (type === null) failed = true;
      else out.push({ name: f.name, type, doc: f.comment === null || f.comment === '' ? null : f.comment });
    }
    return failed ? null : { kind: 'struct', fields: out };
  }
}

/** Assign ids in Java's AssignFreshIds order; `next` holds the last assigned id. */
function assignStruct(fields: readonly DraftField[], next: { id: number }): NestedField[] {
  const ids = fields.map(() => ++next.id);
  return fields.map((f, i) => {
    const type = assignType(f.type, next);
    const base = { id: ids[i] ?? 0, name: f.name, required: false, type };
    return f.doc === null ? base : { ...base, doc: f.doc };
  });
}

function assignType(d: Draft, next: { id: number }): IcebergType {
  switch (d.kind) {
    case 'primitive':
      return d.type;
    case 'struct':
      return { kind: 'struct', fields: assignStruct(d.fields, next) };
    case 'list': {
      const elementId = ++next.id;
      return { kind: 'list', elementId, elementRequired: false, element: assignType(d.element, next) };
    }
    case 'map': {
      const keyId = ++next.id;
      const valueId = ++next.id;
      const key = assignType(d.key, next);
      return { kind: 'map', keyId, key, valueId, valueRequired: false, value: assignType(d.value, next) };
    }
  }
}

/**
 * Convert a Hive table's columns (data columns, then partition keys) into an Iceberg schema with
 * schema-id 0 and fresh ids from 1. Never throws: unsupported types come back as findings.
 */
export function convertHiveSchema(
  columns: readonly HiveColumnInput[],
  partitionKeys: readonly HiveColumnInput[],
  options: SchemaConversionOptions = {},
): SchemaConversion {
  const c = new Converter(options);
  const root = c.struct([...columns, ...partitionKeys], null);
  if (root === null || root.kind !== 'struct') return { ok: false, findings: c.findings };
  const fields = assignStruct(root.fields, { id: 0 });
  return { ok: true, schema: { schemaId: INITIAL_SCHEMA_ID, fields }, lastColumnId: highestFieldId(fields), findings: c.findings };
}

/** As convertHiveSchema, but a refusal throws the first error finding's code, all findings in context. */
export function convertHiveSchemaOrThrow(
  columns: readonly HiveColumnInput[],
  partitionKeys: readonly HiveColumnInput[],
  options: SchemaConversionOptions = {},
): Extract<SchemaConversion, { ok: true }> {
  const r = convertHiveSchema(columns, partitionKeys, options);
  if (r.ok) return r;
  const first = r.findings.find((f) => f.severity === 'error');
  const code = first?.code === ErrorCode.ICEBERG_SCHEMA_INVALID ? ErrorCode.ICEBERG_SCHEMA_INVALID : ErrorCode.ICEBERG_TYPE_UNSUPPORTED;
  throw new MigrationError(
    code,
    r.findings
      .filter((f) => f.severity === 'error')
      .map((f) => f.message)
      .join('; '),
    {
      columns: r.findings.filter((f) => f.severity === 'error').map((f) => f.column),
      findings: r.findings,
    },
  );
}
