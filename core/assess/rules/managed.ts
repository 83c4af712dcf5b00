// Rule: managed (non-external) tables: dropping the Hive table after migration deletes the data, and
// Hive's own convert refuses them (docs/design/hive-metastore.md §5). Pure; no I/O.
import { TableType } from '../../hive/model';
import type { Rule } from '../types';
import { AssessCode, finding, paramTrue } from '../types';

export const managedRule: Rule = (t) => {
  if (t.table.tableType !== TableType.MANAGED || paramTrue(t.table.parameters['transactional'])) return [];
  return [
    finding(
      AssessCode.MANAGED_TABLE,
      'warn',
      `tableType=${t.table.tableType}`,
      'set EXTERNAL=TRUE before migrating so dropping the Hive table never deletes the data files',
    ),
  ];
};
