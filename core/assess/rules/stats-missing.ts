// Rule: without HMS fast stats (numFiles/totalSize, docs/design/hive-metastore.md §6) the wave caps and estimates undercount
// this table, and an empty table cannot be told from an unanalysed one. Info only. Pure; no I/O.
import type { Rule } from '../types';
import { AssessCode, finding, isView } from '../types';
import { tableStats } from '../stats';

export const statsMissingRule: Rule = (t) => {
  if (isView(t) || tableStats(t).known) return [];
  const partitioned = t.table.partitionKeys.length > 0;
  if (partitioned && t.partitions.length === 0) return [];
  const where = partitioned
    ? `${t.partitions.filter((p) => p.parameters['numFiles'] === undefined).length} of ${t.partitions.length} partitions`
    : 'the table';
  return [
    finding(
      AssessCode.STATS_MISSING,
      'info',
      `numFiles absent on ${where}`,
      'run ANALYZE TABLE … COMPUTE STATISTICS (or any DDL through HMS) so sizing and caps use real counts',
    ),
  ];
};
