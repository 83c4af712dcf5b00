// Rule: metadata that is legal Iceberg but that a common reader mis-handles (docs/readers.md keeps
// the matrix), both measured on the stack with Trino 476.
// 1. NULL partitions: the Hive files do not hold partition columns, so the manifests carry no column
// metrics for them (as Iceberg's own migrate procedure); Trino then keeps the NULL partition's rows for
// `col <> v` (Iceberg's notEqual matches null partition values and Trino does not filter again).
// 2. A Hive `double` column whose
// Parquet files store FLOAT. Iceberg's float → double promotion makes it legal and PyIceberg and
// Spark read it, but Trino's Parquet row-group filter takes the file's float statistics for the
// table's double and fails range and equality predicates on the column that the Iceberg file bounds
// do not settle ("Corrupted statistics", ICEBERG_BAD_DATA).
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
    `migrates as is (Iceberg promotes float to double; PyIceberg and Spark read it). Trino fails range and equality predicates on ${cols} ` +
      `that a file's bounds do not settle, with "Corrupted statistics" (measured with Trino 476): run such queries with SET SESSION <catalog>.parquet_ignore_statistics = true, ` +
      `or rewrite the files with the column as double (docs/readers.md)`,
    columns[0],
  );
}

/** The READER_UNDECLARED_FILE_COLUMN finding: file columns the table does not declare, where seen. */
export function undeclaredFileColumnFinding(columns: readonly string[], seen: string): AssessFinding {
  const cols = columns.join(', ');
  return finding(
    AssessCode.READER_UNDECLARED_FILE_COLUMN,
    'warn',
    `file column(s) ${cols} are not columns of the Hive table (${seen})`,
    `migrates as is: the name mapping does not name them, so Hive, Spark and Trino skip them (measured with Spark 4.0.5 and Trino 476); ` +
      `PyIceberg 0.12 fails every read of the table ("Could not find field with name: ${columns[0]}"). For PyIceberg users rewrite the ` +
      `files without the column(s), or read with Spark or Trino (docs/readers.md)`,
    columns[0],
  );
}

/** Top-level file column names (as spelled) that are neither a table column nor a partition key, case-insensitively. */
export function undeclaredColumns(fileColumns: readonly string[], t: Parameters<Rule>[0]): string[] {
  const declared = new Set([...t.table.sd.columns, ...t.table.partitionKeys].map((c) => c.name.toLowerCase()));
  return fileColumns.filter((n) => !declared.has(n.toLowerCase()) && !/^_col\d+$/.test(n));
}

const HIVE_NULL = '__HIVE_DEFAULT_PARTITION__';

function nullPartitionFinding(t: Parameters<Rule>[0]): AssessFinding[] {
  const keys = t.table.partitionKeys.map((k) => k.name.toLowerCase());
  const cols = keys.filter((_, i) => t.partitions.some((p) => p.values[i] === null || p.values[i] === HIVE_NULL));
  if (cols.length === 0) return [];
  const n = t.partitions.filter((p) => p.values.some((v) => v === null || v === HIVE_NULL)).length;
  const c = cols[0] as string;
  return [
    finding(
      AssessCode.READER_NULL_PARTITION_NOT_EQUAL,
      // info, not warn: NULL partitions are common, the metadata is what Iceberg's own migrate writes,
      // and nothing about the migration changes; the reader's users need the note, not the reviewer a class.
      'info',
      `partition column(s) ${cols.join(', ')} have NULL partitions (${n} partition(s) with __HIVE_DEFAULT_PARTITION__)`,
      `migrates as is; Spark filters correctly. Trino (measured with Trino 476) and PyIceberg return the NULL partitions' rows for ` +
        `${c} <> 'v', ${c} NOT IN (...) and NOT (${c} = 'v'), even with ${c} IS NOT NULL added: in Trino write coalesce(${c}, '<none>') <> 'v' (docs/readers.md)`,
      c,
    ),
  ];
}

export const readerLimitsRule: Rule = (t) => {
  if (isView(t)) return [];
  return [...nullPartitionFinding(t), ...floatPartitionFinding(t)];
};

function floatPartitionFinding(t: Parameters<Rule>[0]): AssessFinding[] {
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
}
