// Rule: partitions whose columns differ from the table's (a different CD) are mapped by name into
// one Iceberg schema (warn); a same-named column whose partition type cannot be promoted to the
// table's type (Iceberg spec "Schema Evolution", through nested structs, lists and maps:
// core/hive/promotion.ts) would be misread, so that needs a rewrite (docs/design/hive-metastore.md §5). Pure; no I/O.
import type { HiveColumn } from '../../hive/model';
import { promotionProblem } from '../../hive/promotion';
import type { AssessFinding, Rule } from '../types';
import { AssessCode, finding, isView } from '../types';

const norm = (type: string): string =>
  type
    .replace(/\s+/g, '')
    .toLowerCase()
    .replace(/^integer$/, 'int');
const sig = (cols: readonly HiveColumn[]): string => cols.map((c) => `${c.name.toLowerCase()}:${norm(c.type)}`).join(',');

export const schemaDriftRule: Rule = (t) => {
  if (isView(t)) return [];
  const table = sig(t.table.sd.columns);
  const byName = new Map(t.table.sd.columns.map((c) => [c.name.toLowerCase(), c.type]));
  const drifted = t.partitions.filter((p) => p.sd.columns.length > 0 && sig(p.sd.columns) !== table);
  if (drifted.length === 0) return [];
  const out: AssessFinding[] = [];
  const ev = drifted
    .slice(0, 3)
    .map((p) => `${p.name}: (${sig(p.sd.columns)})`)
    .join('; ');
  out.push(
    finding(
      AssessCode.PARTITION_SCHEMA_DRIFT,
      'warn',
      `${drifted.length} partition(s) differ from the table schema (${table}): ${ev}`,
      'the drifted partitions are mapped by name onto the table schema (schema.name-mapping.default); check positional ORC files',
    ),
  );
  for (const p of drifted) {
    for (const c of p.sd.columns) {
      const want = byName.get(c.name.toLowerCase());
      const bad = want === undefined ? null : promotionProblem(c.type, want);
      if (want !== undefined && bad !== null) {
        const inside = bad.path === '' ? '' : ` (at ${c.name}${bad.path}: ${bad.from} cannot be read as ${bad.to})`;
        out.push(
          finding(
            AssessCode.PARTITION_TYPE_INCOMPATIBLE,
            'rewrite',
            `partition ${p.name} column ${c.name} is ${c.type}, the table says ${want}${inside}`,
            `rewrite partition ${p.name} with ${c.name} cast to ${want}`,
            c.name,
          ),
        );
      }
    }
  }
  return out;
};
