// Rule: Hive bucketing has no Iceberg equivalent (docs/design/hive-metastore.md §5: bucket hashing differs from
// bucket[N]); rewrite, unless the operator opts in to migrating as unbucketed. Pure; no I/O.
import type { Rule } from '../types';
import { AssessCode, finding, isView } from '../types';

export const bucketedRule: Rule = (t, o) => {
  const sd = t.table.sd;
  if (isView(t) || sd.numBuckets <= 0 || sd.bucketColumns.length === 0) return [];
  const evidence = `numBuckets=${sd.numBuckets}, bucketCols=[${sd.bucketColumns.join(', ')}]`;
  if (o.allowUnbucketed) {
    return [
      finding(
        AssessCode.BUCKETED_MIGRATED_UNBUCKETED,
        'warn',
        evidence,
        'migrates as unbucketed (assess.allowUnbucketed): bucket joins and bucket pruning are lost',
      ),
    ];
  }
  return [
    finding(
      AssessCode.BUCKETED,
      'rewrite',
      evidence,
      'rewrite with an Iceberg bucket[N] partition spec, or set plan.assess.allowUnbucketed to migrate unbucketed',
    ),
  ];
};
