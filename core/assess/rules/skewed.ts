// Rule: skewed / list-bucketed tables keep files in sub-directories that non-recursive listers miss
// (docs/design/hive-metastore.md §5). Pure; no I/O.
import type { Rule } from '../types';
import { AssessCode, finding, isView } from '../types';

export const skewedRule: Rule = (t) => {
  const sd = t.table.sd;
  const skewed = sd.skewed !== null && sd.skewed.columnNames.length > 0;
  if (isView(t) || (!skewed && !sd.storedAsSubDirectories)) return [];
  const cols = sd.skewed?.columnNames.join(', ') ?? '';
  const evidence = `skewed on [${cols}], storedAsSubDirectories=${String(sd.storedAsSubDirectories)}`;
  return [
    finding(
      AssessCode.SKEWED_SUBDIRECTORIES,
      'warn',
      evidence,
      'list files recursively (skewed-value sub-directories and HIVE_DEFAULT_LIST_BUCKETING_DIR_NAME) when registering',
    ),
  ];
};
