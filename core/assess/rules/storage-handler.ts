// Rule: tables served by a storage handler (HBase, JDBC, Kafka, Druid…), already-Iceberg tables and
// other table formats (Delta, Hudi) are not file tables to migrate: skip (docs/design/hive-metastore.md §5). Pure; no I/O.
import { STORAGE_HANDLER_PARAM } from '../../hive/formats';
import type { Rule } from '../types';
import { AssessCode, finding } from '../types';

const ICEBERG_HANDLER = /iceberg/i;

export const alreadyIcebergRule: Rule = (t) => {
  const p = t.table.parameters;
  const type = (p['table_type'] ?? '').toUpperCase();
  if (type === 'ICEBERG' || ICEBERG_HANDLER.test(p[STORAGE_HANDLER_PARAM] ?? '')) {
    return [
      finding(
        AssessCode.ALREADY_ICEBERG,
        'skip',
        `table_type=${p['table_type'] ?? ''}, metadata_location=${p['metadata_location'] ?? '(unset)'}`,
        'nothing to do: already an Iceberg table',
      ),
    ];
  }
  if (type === 'DELTA' || type === 'HUDI' || (p['spark.sql.sources.provider'] ?? '').toLowerCase() === 'delta') {
    return [
      finding(AssessCode.NON_HIVE_TABLE, 'skip', `table_type=${p['table_type'] ?? ''}`, 'migrate Delta/Hudi tables with their own tooling'),
    ];
  }
  return [];
};

export const storageHandlerRule: Rule = (t) => {
  const h = t.table.parameters[STORAGE_HANDLER_PARAM] ?? '';
  if (h === '' || ICEBERG_HANDLER.test(h)) return [];
  return [
    finding(
      AssessCode.STORAGE_HANDLER,
      'skip',
      `${STORAGE_HANDLER_PARAM}=${h}`,
      'not a file table: keep it in Hive or move it with the handler system’s own tools',
    ),
  ];
};
