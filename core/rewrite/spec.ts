// The rewrite path's pure decisions: which rewrite-required tables the shipped Spark job reads as
// Hive does, the job's id and the new table's own location, and the job spec (jobs/rewrite.py reads
// it: source storage, target, catalog properties). Pure; no I/O. Secrets never go in a spec.
import { ErrorCode, MigrationError } from '../errors';
import type { HiveColumn, TableInventory } from '../hive/model';
import { sha256Hex } from '../hash';
import type { AssessFinding } from '../assess/types';
import { AssessCode } from '../assess/types';

export const REWRITE_SPEC_VERSION = 1;
/** The table property the job sets on the table it creates: its job id (jobs/rewrite.py MARKER). */
export const REWRITE_MARKER = 'him.rewrite.job-id';

/** Serde libraries the job reads (jobs/rewrite.py), by the reader it uses. */
export const REWRITE_SERDES: Readonly<Record<string, 'text' | 'csv' | 'json' | 'parquet' | 'orc'>> = {
  'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe': 'text',
  'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe2': 'text',
  'org.apache.hadoop.hive.serde2.OpenCSVSerde': 'csv',
  'org.apache.hive.hcatalog.data.JsonSerDe': 'json',
  'org.apache.hadoop.hive.serde2.JsonSerDe': 'json',
  'org.openx.data.jsonserde.JsonSerDe': 'json',
  'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe': 'parquet',
  'org.apache.hadoop.hive.ql.io.orc.OrcSerde': 'orc',
};

/** Findings a rewrite resolves (the job reads the files whatever their layout); any other rewrite finding keeps the table out. */
const REWRITE_RESOLVES: ReadonlySet<string> = new Set<string>([
  AssessCode.UNSUPPORTED_FORMAT,
  AssessCode.PARTITION_UNSUPPORTED_FORMAT,
  AssessCode.BUCKETED,
  AssessCode.DATA_IN_SUBDIRECTORIES,
  AssessCode.SKEWED_SUBDIRECTORIES,
  AssessCode.PARTITION_TYPE_INCOMPATIBLE,
  AssessCode.PARTITION_SCHEMA_DRIFT,
  AssessCode.READER_MISREAD,
]);

/** Why the job cannot take this table (null: it can). Checked at plan time and again, live, before the job starts. */
export function rewriteRefusal(inv: TableInventory): string | null {
  const lib = inv.table.sd.serde.serializationLib ?? '';
  if (REWRITE_SERDES[lib] === undefined) return `serde ${lib || '(none)'} is not one the rewrite job reads`;
  const other = inv.partitions.find((p) => (p.sd.serde.serializationLib ?? lib) !== lib);
  if (other !== undefined) return `partition ${other.name} uses serde ${other.sd.serde.serializationLib ?? ''}, the table ${lib}`;
  const p = { ...inv.table.sd.serde.parameters, ...inv.table.parameters };
  if (Number(p['skip.header.line.count'] ?? '0') > 1)
    return `skip.header.line.count=${p['skip.header.line.count'] ?? ''} (0 or 1 supported)`;
  if (Number(p['skip.footer.line.count'] ?? '0') > 0) return 'skip.footer.line.count is not supported';
  if ((p['escape.delim'] ?? '') !== '') return 'escape.delim is not supported';
  if ((p['line.delim'] ?? '\n') !== '\n') return 'a line.delim other than \\n is not supported';
  if (inv.table.sd.location === null) return 'the table has no location';
  return null;
}

/** A rewrite-required table the job can take: every rewrite finding is one a rewrite resolves, and nothing skips it. */
export function rewritable(inv: TableInventory, findings: readonly AssessFinding[]): boolean {
  if (findings.some((f) => f.effect === 'skip')) return false;
  if (findings.some((f) => f.effect === 'rewrite' && !REWRITE_RESOLVES.has(f.code))) return false;
  return rewriteRefusal(inv) === null;
}

/** Deterministic per (plan, table): a retried or re-run activity finds the same job's table and location. */
export function rewriteJobId(planHash: string, tableId: string): string {
  return sha256Hex(`him-rewrite\n${planHash}\n${tableId}`).slice(0, 16);
}

/** The new table's own location: under `warehouse`, named with the job id, so nothing else writes there. */
export function rewriteLocation(warehouse: string, namespace: string, name: string, jobId: string): string {
  const root = warehouse.replace(/^s3a:\/\//, 's3://').replace(/\/+$/, '');
  return `${root}/${namespace}/${name}-${jobId}`;
}

export interface RewriteSpec {
  readonly version: typeof REWRITE_SPEC_VERSION;
  readonly jobId: string;
  readonly source: {
    readonly table: string;
    readonly columns: readonly { name: string; type: string }[];
    readonly partitionKeys: readonly { name: string; type: string }[];
    readonly serde: string;
    readonly serdeParams: Readonly<Record<string, string>>;
    readonly tableParams: Readonly<Record<string, string>>;
    readonly locations: readonly { location: string; values: readonly (string | null)[] }[];
  };
  readonly target: {
    readonly namespace: string;
    readonly name: string;
    readonly location: string;
    readonly properties: Record<string, string>;
  };
  readonly catalog: { readonly name: string; readonly properties: Readonly<Record<string, string>> };
}

const cols = (c: readonly HiveColumn[]): { name: string; type: string }[] => c.map((x) => ({ name: x.name, type: x.type }));
const HIVE_DEFAULT_PARTITION = '__HIVE_DEFAULT_PARTITION__';

export interface SpecInput {
  readonly inv: TableInventory;
  readonly planHash: string;
  readonly tableId: string;
  readonly target: { readonly namespace: string; readonly name: string };
  readonly warehouse: string;
  readonly catalogProperties: Readonly<Record<string, string>>;
}

/** The job's spec; REWRITE_UNSUPPORTED when the live table is one the job cannot read. */
export function rewriteSpec(i: SpecInput): RewriteSpec {
  const why = rewriteRefusal(i.inv);
  if (why !== null)
    throw new MigrationError(ErrorCode.REWRITE_UNSUPPORTED, `${i.tableId}: ${why}`, { tableId: i.tableId }, { retryable: false });
  const jobId = rewriteJobId(i.planHash, i.tableId);
  return {
    version: REWRITE_SPEC_VERSION,
    jobId,
    source: rewriteSource(i.inv, i.tableId),
    target: {
      namespace: i.target.namespace,
      name: i.target.name,
      location: rewriteLocation(i.warehouse, i.target.namespace, i.target.name, jobId),
      properties: { 'him.rewrite.source': `hms:${i.tableId}`, 'him.rewrite.plan': i.planHash },
    },
    catalog: { name: 'him_target', properties: { ...i.catalogProperties } },
  };
}

/** A Hive table's storage as the job's readers take it (jobs/rewrite.py read_source); also the view check's inputs. */
export function rewriteSource(inv: TableInventory, tableId: string): RewriteSpec['source'] {
  const t = inv.table;
  const locations =
    t.partitionKeys.length === 0
      ? [{ location: t.sd.location ?? '', values: [] }]
      : inv.partitions.map((p) => ({
          location: p.sd.location ?? '',
          values: p.values.map((v) => (v === HIVE_DEFAULT_PARTITION ? null : v)),
        }));
  return {
    table: tableId,
    columns: cols(t.sd.columns),
    partitionKeys: cols(t.partitionKeys),
    serde: t.sd.serde.serializationLib ?? '',
    serdeParams: { ...t.sd.serde.parameters },
    tableParams: { ...t.parameters },
    locations,
  };
}
