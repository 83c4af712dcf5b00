// The Hive input the Iceberg conversion needs: a parsed Hive type AST, structurally compatible with
// core/hive/types.ts `HiveType` (so the parser's output can be passed as is). Pure; no I/O.
// Kept as an interface here so core/iceberg does not depend on the parser's internals.

export interface HiveStructFieldAst {
  readonly name: string;
  readonly type: HiveTypeAst;
  readonly comment: string | null;
}

export type HiveTypeAst =
  | { readonly kind: 'primitive'; readonly name: string }
  | { readonly kind: 'decimal'; readonly precision: number; readonly scale: number }
  | { readonly kind: 'char'; readonly length: number }
  | { readonly kind: 'varchar'; readonly length: number }
  | { readonly kind: 'array'; readonly element: HiveTypeAst }
  | { readonly kind: 'map'; readonly key: HiveTypeAst; readonly value: HiveTypeAst }
  | { readonly kind: 'struct'; readonly fields: readonly HiveStructFieldAst[] }
  | { readonly kind: 'union'; readonly members: readonly HiveTypeAst[] };

/** A table column with its type already parsed (core/hive/types.ts parseHiveType). */
export interface HiveColumnInput {
  readonly name: string;
  readonly type: HiveTypeAst;
  readonly comment: string | null;
}

/** Short Hive spelling of a type, for messages. */
export function describeHiveType(t: HiveTypeAst): string {
  switch (t.kind) {
    case 'primitive':
      return t.name;
    case 'decimal':
      return `decimal(${t.precision},${t.scale})`;
    case 'char':
    case 'varchar':
      return `${t.kind}(${t.length})`;
    case 'array':
      return `array<${describeHiveType(t.element)}>`;
    case 'map':
      return `map<${describeHiveType(t.key)},${describeHiveType(t.value)}>`;
    case 'struct':
      return `struct<${t.fields.map((f) => `${f.name}:${describeHiveType(f.type)}`).join(',')}>`;
    case 'union':
      return `uniontype<${t.members.map(describeHiveType).join(',')}>`;
  }
}
