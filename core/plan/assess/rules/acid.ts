// Rule: full ACID and insert-only (micro-managed) tables need a rewrite (hms.md §5: base_N/delta_*
// directories, ACID row columns, validity from HMS write ids). Pure; no I/O.
import type { Rule } from '../types';
import { AssessCode, finding, paramTrue } from '../types';

export const acidRule: Rule = (t) => {
  const p = t.table.parameters;
  if (!paramTrue(p['transactional'])) return [];
  const props = (p['transactional_properties'] ?? 'default').trim().toLowerCase();
  const evidence = `transactional=${p['transactional'] ?? ''}, transactional_properties=${p['transactional_properties'] ?? '(unset)'}`;
  if (props === 'insert_only') {
    return [
      finding(
        AssessCode.INSERT_ONLY_TABLE,
        'rewrite',
        evidence,
        'rewrite with CTAS/INSERT from Hive (valid write ids decide which delta_N_N files are live)',
      ),
    ];
  }
  return [
    finding(
      AssessCode.ACID_TABLE,
      'rewrite',
      evidence,
      'rewrite with CTAS/INSERT from Hive after a major compaction; ACID deltas cannot be registered metadata-only',
    ),
  ];
};
