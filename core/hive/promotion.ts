// Can files written with one Hive type be read as another through the Iceberg table's schema and
// name mapping? Iceberg's schema evolution rules (spec "Schema Evolution"), applied through nested
// types: struct fields are matched by name (case-insensitive, as the name mapping's aliases make
// them), so fields added, dropped or reordered are fine (an added field reads NULL from old files, a
// dropped one is not read); primitives may only widen as the spec allows (int → long, float →
// double, decimal precision widening at the same scale), and Hive's own spellings that become the
// same Iceberg type widen too (tinyint → smallint → int; varchar(n) → string). Everything else —
// narrowing, a kind change, a union — needs a rewrite. Pure; no I/O.
import { MigrationError } from '../errors';
import type { HiveType } from './types';
import { formatHiveType, parseHiveType } from './types';

/** Why `from` cannot be read as `to`: the dotted path inside the column and both types there. */
export interface PromotionProblem {
  /** Path below the column: '' for the column itself, else `.b`, `.element`, `.key`, `.value.x`. */
  readonly path: string;
  readonly from: string;
  readonly to: string;
}

const INTS = ['tinyint', 'smallint', 'int', 'bigint'] as const;

function intRank(t: HiveType): number {
  return t.kind === 'primitive' ? (INTS as readonly string[]).indexOf(t.name) : -1;
}

function primitiveOk(from: HiveType, to: HiveType): boolean {
  const a = intRank(from);
  const b = intRank(to);
  if (a >= 0 && b >= 0) return a <= b;
  if (from.kind === 'primitive' && to.kind === 'primitive') return from.name === to.name || (from.name === 'float' && to.name === 'double');
  if (from.kind === 'decimal' && to.kind === 'decimal') return from.scale === to.scale && from.precision <= to.precision;
  if (from.kind === 'char' && to.kind === 'char') return from.length === to.length;
  // varchar is read as Iceberg string whatever its length; a wider (or no) limit on the table side.
  if (from.kind === 'varchar')
    return (to.kind === 'varchar' && from.length <= to.length) || (to.kind === 'primitive' && to.name === 'string');
  return false;
}

function problem(path: string, from: HiveType, to: HiveType): PromotionProblem {
  return { path, from: formatHiveType(from), to: formatHiveType(to) };
}

function structProblem(path: string, from: HiveType & { kind: 'struct' }, to: HiveType & { kind: 'struct' }): PromotionProblem | null {
  const byName = new Map(to.fields.map((f) => [f.name.toLowerCase(), f.type]));
  for (const f of from.fields) {
    const want = byName.get(f.name.toLowerCase());
    // A field the table no longer has is not read; one the file lacks reads NULL (all optional).
    if (want === undefined) continue;
    const p = typeProblem(`${path}.${f.name}`, f.type, want);
    if (p !== null) return p;
  }
  return null;
}

function typeProblem(path: string, from: HiveType, to: HiveType): PromotionProblem | null {
  if (from.kind === 'struct' || to.kind === 'struct')
    return from.kind === 'struct' && to.kind === 'struct' ? structProblem(path, from, to) : problem(path, from, to);
  if (from.kind === 'array' || to.kind === 'array')
    return from.kind === 'array' && to.kind === 'array'
      ? typeProblem(`${path}.element`, from.element, to.element)
      : problem(path, from, to);
  if (from.kind === 'map' || to.kind === 'map') {
    if (from.kind !== 'map' || to.kind !== 'map') return problem(path, from, to);
    return typeProblem(`${path}.key`, from.key, to.key) ?? typeProblem(`${path}.value`, from.value, to.value);
  }
  if (from.kind === 'union' || to.kind === 'union') return formatHiveType(from) === formatHiveType(to) ? null : problem(path, from, to);
  return primitiveOk(from, to) ? null : problem(path, from, to);
}

/**
 * The first place where data written as `from` cannot be read as `to`, or null when it can. Type
 * strings that do not parse are compared as written (equal after whitespace and case → fine).
 */
export function promotionProblem(from: string, to: string): PromotionProblem | null {
  let a: HiveType;
  let b: HiveType;
  try {
    a = parseHiveType(from);
    b = parseHiveType(to);
  } catch (e) {
    if (!(e instanceof MigrationError)) throw e;
    const norm = (s: string): string => s.replace(/\s+/g, '').toLowerCase();
    return norm(from) === norm(to) ? null : { path: '', from, to };
  }
  return typeProblem('', a, b);
}

/** Can files written with `from` be read as `to`? */
export function promotable(from: string, to: string): boolean {
  return promotionProblem(from, to) === null;
}
