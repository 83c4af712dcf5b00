// Rule: only Parquet, ORC and Avro files can be registered (docs/design/hive-metastore.md §5, TableMigrationUtil); a table
// or any partition in another format needs a rewrite. Storage-handler tables are left to their own
// rule. Pure; no I/O.
import { detectFormat, STORAGE_HANDLER_PARAM } from '../../hive/formats';
import { FileFormat } from '../../hive/model';
import type { AssessFinding, Rule } from '../types';
import { AssessCode, finding, isView } from '../types';

const REGISTRABLE: ReadonlySet<string> = new Set([FileFormat.PARQUET, FileFormat.ORC, FileFormat.AVRO]);
const REMEDY = 'rewrite into Parquet (CTAS into an Iceberg table); Iceberg has no data-file format for it';

export const formatRule: Rule = (t) => {
  if (isView(t) || (t.table.parameters[STORAGE_HANDLER_PARAM] ?? '') !== '') return [];
  const out: AssessFinding[] = [];
  const fmt = detectFormat(t.table.sd, t.table.parameters);
  if (!REGISTRABLE.has(fmt)) {
    const ev = `format ${fmt} (inputFormat ${t.table.sd.inputFormat ?? '(none)'}, serde ${t.table.sd.serde.serializationLib ?? '(none)'})`;
    out.push(finding(AssessCode.UNSUPPORTED_FORMAT, 'rewrite', ev, REMEDY));
  }
  const bad = t.partitions.filter((p) => !REGISTRABLE.has(detectFormat(p.sd, t.table.parameters)));
  if (bad.length > 0 && REGISTRABLE.has(fmt)) {
    const names = bad.slice(0, 5).map((p) => `${p.name} (${detectFormat(p.sd, t.table.parameters)})`);
    out.push(
      finding(
        AssessCode.PARTITION_UNSUPPORTED_FORMAT,
        'rewrite',
        `${bad.length} partition(s) not Parquet/ORC/Avro: ${names.join(', ')}`,
        REMEDY,
      ),
    );
  }
  return out;
};
