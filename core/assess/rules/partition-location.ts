// Rule: partitions outside the table location register fine (absolute paths) but location-scoped
// maintenance (orphan cleanup, purge) will not cover them (docs/design/hive-metastore.md §5). Pure; no I/O.
import type { Rule } from '../types';
import { AssessCode, finding, isView } from '../types';

const trimSlash = (s: string): string => s.replace(/\/+$/, '');

export const partitionLocationRule: Rule = (t) => {
  const base = t.table.sd.location;
  if (isView(t) || base === null || base === '') return [];
  const root = `${trimSlash(base)}/`;
  const outside = t.partitions.filter((p) => p.sd.location !== null && !`${trimSlash(p.sd.location)}/`.startsWith(root));
  if (outside.length === 0) return [];
  const ev = outside
    .slice(0, 5)
    .map((p) => `${p.name} at ${p.sd.location ?? ''}`)
    .join('; ');
  return [
    finding(
      AssessCode.PARTITION_OUTSIDE_LOCATION,
      'warn',
      `${outside.length} partition(s) outside ${base}: ${ev}`,
      'expect orphan-file cleanup and purge to skip these paths; move them under the table location if that matters',
    ),
  ];
};
