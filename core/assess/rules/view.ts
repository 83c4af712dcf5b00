// Rule: views hold no data files; a virtual view needs an Iceberg view translation of its Hive SQL and
// is planned after what it reads; materialized views are skipped (docs/design/hive-metastore.md §5). Pure; no I/O.
import { TableType } from '../../hive/model';
import type { Rule } from '../types';
import { AssessCode, finding } from '../types';

export const viewRule: Rule = (t) => {
  if (t.table.tableType === TableType.MATERIALIZED_VIEW) {
    return [
      finding(
        AssessCode.MATERIALIZED_VIEW,
        'skip',
        'tableType=MATERIALIZED_VIEW',
        'recreate the materialized view on the Iceberg tables after they migrate',
      ),
    ];
  }
  if (t.table.tableType !== TableType.VIRTUAL_VIEW) return [];
  return [
    finding(
      AssessCode.VIEW,
      'warn',
      'tableType=VIRTUAL_VIEW',
      'translate the Hive SQL into an Iceberg view; planned after every table it reads',
    ),
  ];
};

export const temporaryRule: Rule = (t) =>
  t.table.temporary
    ? [finding(AssessCode.TEMPORARY_TABLE, 'skip', 'temporary=true', 'temporary tables are session-scoped: nothing to migrate')]
    : [];
