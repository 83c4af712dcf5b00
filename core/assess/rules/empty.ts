// Rule: an empty table (no partitions, or zero files by HMS fast stats) migrates trivially; reported
// as info so nobody wonders why nothing was registered (docs/design/hive-metastore.md §6: stats are hints). An unpartitioned
// table's numFiles=0 is only a claim: when storage is sampled, the listing confirms or replaces it
// (stats.ts withStorageSize). Pure; no I/O.
import type { Rule } from '../types';
import { AssessCode, finding, isView } from '../types';
import { tableStats } from '../stats';

export const emptyRule: Rule = (t) => {
  if (isView(t)) return [];
  const partitioned = t.table.partitionKeys.length > 0;
  if (partitioned && t.partitions.length === 0)
    return [finding(AssessCode.EMPTY_TABLE, 'info', 'partitioned with no partitions', 'none: an empty Iceberg table is created')];
  const s = tableStats(t);
  if (!partitioned && s.known && s.files === 0)
    return [
      finding(
        AssessCode.EMPTY_TABLE,
        'info',
        'numFiles=0 (HMS fast stats; storage not listed to confirm)',
        'none: an empty Iceberg table is created',
      ),
    ];
  return [];
};
