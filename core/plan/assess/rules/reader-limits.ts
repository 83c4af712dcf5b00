// Rule: metadata that is legal Iceberg but that a common reader mis-handles (docs/readers.md keeps
// the matrix). Today one case, measured on the stack with Trino 476: a Hive `double` column whose
// Parquet files store FLOAT. Iceberg's float → double promotion makes it legal and PyIceberg and
// Spark read it, but Trino's Parquet row-group filter takes the file's float statistics for the
// table's double and fails any predicate on the column ("Corrupted statistics", ICEBERG_BAD_DATA).
// HMS tells when a partition still declares the column float (this rule); when the partition was
// altered too (ALTER ... CASCADE) only the footers tell (the storage sample, app/plan/storage-sample.ts,
// uses `floatAsDoubleFinding` too). Pure; no I/O.
import type { AssessFinding, Rule } from '../types';
import { AssessCode, finding, isView } from '../types';

const isDouble = (type: string): boolean => type.trim().toLowerCase() === 'double';
const isFloat = (type: string): boolean => type.trim().toLowerCase() === 'float';

/** Top-level columns the table declares `double` (lower-case names). */
export function doubleColumns(columns: readonly { readonly name: string; readonly type: string }[]): Set<string> {
  return new Set(columns.filter((c) => isDouble(c.type)).map((c) => c.name.toLowerCase()));
}

/** The READER_FLOAT_AS_DOUBLE finding for `columns`, with where the FLOAT was seen. */
export function floatAsDoubleFinding(columns: readonly string[], seen: string): AssessFinding {
  const cols = columns.join(', ');
  return finding(
    AssessCode.READER_FLOAT_AS_DOUBLE,
    'warn',
    `column(s) ${cols} are double in the table but stored as FLOAT in Parquet (${seen})`,
    `migrates as is (Iceberg promotes float to double; PyIceberg and Spark read it). Trino fails any predicate on ${cols} ` +
      `with "Corrupted statistics" (measured with Trino 476): run such queries with SET SESSION <catalog>.parquet_ignore_statistics = true, ` +
      `or rewrite the files with the column as double (docs/readers.md)`,
    columns[0],
  );
}

export const readerLimitsRule: Rule = (t) => {
  if (isView(t)) return [];
  const doubles = doubleColumns(t.table.sd.columns);
  if (doubles.size === 0) return [];
  const cols: string[] = [];
  const parts: string[] = [];
  for (const p of t.partitions) {
    const hit = p.sd.columns.filter((c) => isFloat(c.type) && doubles.has(c.name.toLowerCase()));
    if (hit.length === 0) continue;
    parts.push(p.name);
    for (const c of hit) if (!cols.includes(c.name.toLowerCase())) cols.push(c.name.toLowerCase());
  }
  if (cols.length === 0) return [];
  const some = `${parts.slice(0, 3).join(', ')}${parts.length > 3 ? ` (+${parts.length - 3})` : ''}`;
  return [floatAsDoubleFinding(cols, `HMS: partition(s) ${some} declare float`)];
};
