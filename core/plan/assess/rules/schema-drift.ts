// Rule: partitions whose columns differ from the table's (a different CD) are mapped by name into
// one Iceberg schema; type changes or positional ORC evolution can mis-map (hms.md §5). Pure; no I/O.
import type { HiveColumn } from '../../../hive/model';
import type { Rule } from '../types';
import { AssessCode, finding, isView } from '../types';

const sig = (cols: readonly HiveColumn[]): string => cols.map((c) => `${c.name.toLowerCase()}:${c.type.replace(/\s+/g, '').toLowerCase()}`).join(',');

export const schemaDriftRule: Rule = (t) => {
  if (isView(t)) return [];
  const table = sig(t.table.sd.columns);
  const drifted = t.partitions.filter((p) => p.sd.columns.length > 0 && sig(p.sd.columns) !== table);
  if (drifted.length === 0) return [];
  const ev = drifted.slice(0, 3).map((p) => `${p.name}: (${sig(p.sd.columns)})`).join('; ');
  return [finding(AssessCode.PARTITION_SCHEMA_DRIFT, 'warn', `${drifted.length} partition(s) differ from the table schema (${table}): ${ev}`, 'check the drifted partitions map by name onto the table schema (schema.name-mapping.default); rewrite them if a type changed incompatibly')];
};
