// Rule: transactional tables (docs/design/hive-metastore.md §5). Insert-only (micro-managed) tables whose valid write ids
// were read convert metadata-only from the files of committed writes (core/hive/acid.ts); without
// them (the backing-DB reader) they stay rewrite-required. Full ACID tables stay refused: their files
// carry the ACID row struct (operation, originalTransaction, bucket, rowId, currentTransaction, row),
// which readers other than Hive see as those columns, and a major compaction keeps that struct.
// Pure; no I/O.
import { FULL_ACID_REMEDIATION } from '../../hive/acid';
import type { Rule } from '../types';
import { AssessCode, finding, paramTrue } from '../types';

const ids = (xs: readonly number[]): string => (xs.length === 0 ? 'none' : xs.join(', '));

export const acidRule: Rule = (t) => {
  const p = t.table.parameters;
  if (!paramTrue(p['transactional'])) return [];
  const props = (p['transactional_properties'] ?? 'default').trim().toLowerCase();
  const evidence = `transactional=${p['transactional'] ?? ''}, transactional_properties=${p['transactional_properties'] ?? '(unset)'}`;
  if (props !== 'insert_only') return [finding(AssessCode.ACID_TABLE, 'rewrite', evidence, FULL_ACID_REMEDIATION)];
  const w = t.writeIds;
  if (w === undefined) {
    return [
      finding(
        AssessCode.INSERT_ONLY_TABLE,
        'rewrite',
        `${evidence}; its valid write ids were not read (the backing-DB reader cannot answer get_valid_write_ids)`,
        'plan through the Thrift reader (no hms.db, or --source thrift): with the valid write ids the table converts metadata-only from the files of committed writes',
      ),
    ];
  }
  const out = [
    finding(
      AssessCode.INSERT_ONLY_METADATA,
      'info',
      `${evidence}; write ids: high watermark ${w.highWatermark}, aborted ${ids(w.aborted)}, open ${ids(w.open)}`,
      "none: converted metadata-only from the committed writes' base_/delta_ directories; the files of aborted and open writes are left out",
    ),
  ];
  if (w.open.length > 0)
    out.push(
      finding(
        AssessCode.INSERT_ONLY_WRITE_OPEN,
        'warn',
        `write id(s) ${ids(w.open)} open (a transaction is writing to the table)`,
        'apply refuses the table (ACID_WRITE_OPEN) while a write is open: let it commit or abort (SHOW TRANSACTIONS in Hive), then apply',
      ),
    );
  return out;
};
