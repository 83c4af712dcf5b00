// Assessment vocabulary: a table's class, risk and kind; stable finding codes, each finding's effect on the table's class, its
// severity, evidence and remediation; the rule signature and options. Pure; no I/O.
import { TableType } from '../hive/model';
import type { TableInventory } from '../hive/model';
import type { LocationFence } from '../storage/location-fence';

/** The assessment's verdict on a table: how it can migrate, if at all. */
export const TableClass = {
  MIGRATE: 'migrate',
  MIGRATE_WITH_WARNINGS: 'migrate-with-warnings',
  REWRITE_REQUIRED: 'rewrite-required',
  SKIP: 'skip',
} as const;
export type TableClass = (typeof TableClass)[keyof typeof TableClass];

export type Risk = 'low' | 'medium' | 'high';
export type TableKind = 'table' | 'view';

/** Stable codes: tests, reports and users key on these; add, never rename. */
export const AssessCode = {
  ACID_TABLE: 'ACID_TABLE',
  INSERT_ONLY_TABLE: 'INSERT_ONLY_TABLE',
  UNSUPPORTED_FORMAT: 'UNSUPPORTED_FORMAT',
  PARTITION_UNSUPPORTED_FORMAT: 'PARTITION_UNSUPPORTED_FORMAT',
  BUCKETED: 'BUCKETED',
  BUCKETED_MIGRATED_UNBUCKETED: 'BUCKETED_MIGRATED_UNBUCKETED',
  SKEWED_SUBDIRECTORIES: 'SKEWED_SUBDIRECTORIES',
  MANAGED_TABLE: 'MANAGED_TABLE',
  PARTITION_OUTSIDE_LOCATION: 'PARTITION_OUTSIDE_LOCATION',
  PARTITION_SCHEMA_DRIFT: 'PARTITION_SCHEMA_DRIFT',
  PARTITION_TYPE_INCOMPATIBLE: 'PARTITION_TYPE_INCOMPATIBLE',
  TYPE_UNSUPPORTED: 'TYPE_UNSUPPORTED',
  TYPE_INVALID: 'TYPE_INVALID',
  TYPE_WIDENED: 'TYPE_WIDENED',
  INT96_TIMESTAMP: 'INT96_TIMESTAMP',
  STORAGE_HANDLER: 'STORAGE_HANDLER',
  ALREADY_ICEBERG: 'ALREADY_ICEBERG',
  NON_HIVE_TABLE: 'NON_HIVE_TABLE',
  EMPTY_TABLE: 'EMPTY_TABLE',
  VIEW: 'VIEW',
  VIEW_SQL_UNPARSEABLE: 'VIEW_SQL_UNPARSEABLE',
  MATERIALIZED_VIEW: 'MATERIALIZED_VIEW',
  TEMPORARY_TABLE: 'TEMPORARY_TABLE',
  STATS_MISSING: 'STATS_MISSING',
  /** Storage sample: a location holds sub-directories (skew, list bucketing, ACID layouts). */
  DATA_IN_SUBDIRECTORIES: 'DATA_IN_SUBDIRECTORIES',
  /** Storage sample: the table's files could not be read, so the two checks above were not made. */
  STORAGE_NOT_SAMPLED: 'STORAGE_NOT_SAMPLED',
  /**
   * Target catalog: it already holds the name `apply` would register the table under (an earlier
   * plan migrated it, or the name was registered outside this tool). Registering would conflict.
   */
  IN_TARGET_CATALOG: 'IN_TARGET_CATALOG',
  /**
   * Whole inventory: the table's (or one of its partitions') location equals, contains or lies
   * inside another table's. Each table would import the other's files (or write metadata into them).
   */
  LOCATION_SHARED: 'LOCATION_SHARED',
  /** The table or a partition has no location, an empty one, or a relative path. */
  LOCATION_INVALID: 'LOCATION_INVALID',
  /** The table's or a partition's location overlaps where this tool writes its own objects (audit anchors, validation results). */
  LOCATION_RESERVED: 'LOCATION_RESERVED',
  /**
   * The table's or a partition's location is outside the location fence: a scheme other than s3/s3a/s3n
   * (hdfs:, gs:, http:, …), or a local path (file:, bare /…) not under storage.localRoots.
   */
  LOCATION_NOT_ALLOWED: 'LOCATION_NOT_ALLOWED',
  /** A partition value does not parse as its partition column's declared type (e.g. int `abc`). */
  PARTITION_VALUE_INVALID: 'PARTITION_VALUE_INVALID',
  /** Storage sample: a zero-byte data file; apply leaves it out and lists it in the validation record. */
  FILE_EMPTY: 'FILE_EMPTY',
  /** Storage sample: a data file whose name readers cannot open from a manifest (`;`, `?`, `#`, control characters). */
  FILE_NAME_UNREADABLE: 'FILE_NAME_UNREADABLE',
  /** Storage sample: a data file whose footer cannot be read; apply would fail the table on it. */
  FILE_UNREADABLE: 'FILE_UNREADABLE',
  /** Storage listing: HMS fast stats were absent or zero, so files and bytes come from the listing. */
  SIZE_FROM_STORAGE: 'SIZE_FROM_STORAGE',
  /**
   * Reader limit (legal metadata a common reader mis-handles): a Hive `double` column whose Parquet
   * files store FLOAT (a partition still declaring float, or a sampled footer). Iceberg promotes
   * float → double and PyIceberg and Spark read it; Trino 476 fails range and equality predicates on
   * the column ("Corrupted statistics") unless `parquet_ignore_statistics` is set. docs/readers.md.
   */
  READER_FLOAT_AS_DOUBLE: 'READER_FLOAT_AS_DOUBLE',
  /**
   * Reader limit: a partition column with NULL partitions (`__HIVE_DEFAULT_PARTITION__`). The migrated
   * files do not hold the column (Hive layout), so there are no column metrics for it; Trino 476 then
   * returns the NULL partitions' rows for `col <> v`, `NOT IN`, `NOT (col = v)` (even with `col IS
   * NOT NULL` added), and PyIceberg's `!=` does too. Effect info. docs/readers.md.
   */
  READER_NULL_PARTITION_NOT_EQUAL: 'READER_NULL_PARTITION_NOT_EQUAL',
  /**
   * Insert-only ACID table whose valid write ids were read: converted metadata-only from the files of
   * committed writes (the newest valid base_ and the deltas above it); aborted and open writes left out.
   */
  INSERT_ONLY_METADATA: 'INSERT_ONLY_METADATA',
  /** Insert-only ACID table with a write open when it was read: apply refuses it (ACID_WRITE_OPEN) until the write ends. */
  INSERT_ONLY_WRITE_OPEN: 'INSERT_ONLY_WRITE_OPEN',
  /**
   * A view reads a table or view that does not migrate (skip or rewrite-required in this plan, or —
   * at apply — neither migrated by this plan nor in the target catalog): it stays a Hive view.
   */
  VIEW_BASE_NOT_MIGRATED: 'VIEW_BASE_NOT_MIGRATED',
  /** A view whose SQL or columns do not translate (no text, a type without an Iceberg type, a table reference out of place): it stays a Hive view. */
  VIEW_NOT_TRANSLATABLE: 'VIEW_NOT_TRANSLATABLE',
  /** A view calling a function Spark does not have (a permanent Hive UDF, a Hive-only built-in): it stays a Hive view. */
  VIEW_FUNCTION_UNSUPPORTED: 'VIEW_FUNCTION_UNSUPPORTED',
  /**
   * Warning at apply: the view's SQL does not translate to Trino's (a function, operator or clause
   * whose result differs, core/view/translate-trino.ts): the Iceberg view is created with its hive
   * and spark representations only, and Trino cannot read it. Recorded on the table and audited.
   */
  VIEW_TRINO_UNTRANSLATED: 'VIEW_TRINO_UNTRANSLATED',
  /** The target catalog serves no Iceberg views (Hive, JDBC): the view stays a Hive view (apply skips it with this code). */
  VIEW_CATALOG_UNSUPPORTED: 'VIEW_CATALOG_UNSUPPORTED',
  /**
   * Reader limit: a sampled Parquet footer has a top-level column the Hive table does not declare (a
   * column dropped from the table, an extra writer column). Hive, Spark and Trino skip it; PyIceberg
   * 0.12 fails the whole read ("Could not find field with name: …"). Effect warn. docs/readers.md.
   */
  READER_UNDECLARED_FILE_COLUMN: 'READER_UNDECLARED_FILE_COLUMN',
  /**
   * Storage sample: the sampled files carry Iceberg field ids (an Iceberg writer's files, put into
   * Hive by a rollback or copied in) that agree with each other and with the Hive columns; apply
   * adopts them into the schema (readers resolve such files by id). Effect info.
   */
  FIELD_IDS_ADOPTED: 'FIELD_IDS_ADOPTED',
  /**
   * Storage sample: the sampled files carry field ids that cannot hold in one schema (one id for two
   * columns, two ids for one column, a group id'd where Hive has a primitive). Metadata-only would
   * make readers read one column as another; apply refuses it (FIELD_IDS_INCONSISTENT). Effect rewrite.
   */
  FIELD_IDS_INCONSISTENT: 'FIELD_IDS_INCONSISTENT',
  /**
   * Reader matrix (core/readers/matrix.ts): a sampled file holds an encoding a required reader
   * (`readers.required`) reads wrong. Not metadata-only: rewrite-required (the rewrite job reads it).
   */
  READER_MISREAD: 'READER_MISREAD',
  /** Reader matrix: a reader fails on a sampled file's encoding, or a reader not required reads it wrong. Effect warn. */
  READER_ENCODING_LIMIT: 'READER_ENCODING_LIMIT',
  /** Reader matrix: a sampled file's encoding has no measured row. Effect info. */
  READER_ENCODING_UNMEASURED: 'READER_ENCODING_UNMEASURED',
} as const;
export type AssessCode = (typeof AssessCode)[keyof typeof AssessCode];

/**
 * What a finding does to the class: the strongest effect wins (skip > rewrite > warn > info).
 * `info` leaves the class at migrate.
 */
export type Effect = 'skip' | 'rewrite' | 'warn' | 'info';
export type Severity = 'info' | 'warn' | 'error';

const SEVERITY: Readonly<Record<Effect, Severity>> = { skip: 'info', rewrite: 'error', warn: 'warn', info: 'info' };

export interface AssessFinding {
  readonly code: AssessCode;
  readonly effect: Effect;
  readonly severity: Severity;
  /** The facts that triggered the rule (param values, column and partition names). */
  readonly evidence: string;
  readonly remediation: string;
  /** The column concerned, for type findings. */
  readonly column?: string;
  /** SIZE_FROM_STORAGE: what the listing found (`complete` false: it stopped at its bound, a lower bound). */
  readonly size?: StorageSize;
}

/** Files and bytes of a table as listed in storage. */
export interface StorageSize {
  readonly files: number;
  readonly bytes: number;
  readonly complete: boolean;
}

export function finding(code: AssessCode, effect: Effect, evidence: string, remediation: string, column?: string): AssessFinding {
  return { code, effect, severity: SEVERITY[effect], evidence, remediation, ...(column === undefined ? {} : { column }) };
}

export interface AssessOptions {
  /**
   * Bucketed tables migrate as unbucketed (Trino's behaviour since trinodb/trino#18103) instead of
   * rewrite-required. Off by default: queries relying on Hive bucketing silently lose it.
   */
  readonly allowUnbucketed: boolean;
  /**
   * The plan takes the rewrite path (`plan --rewrite`): a rewrite-required table the job can take
   * migrates, so a view over it is not VIEW_BASE_NOT_MIGRATED. Off for `assess` and plain plans.
   */
  readonly rewrite?: boolean;
  /** Locations this tool writes its own objects to (audit anchors, validation results): no table may overlap them. */
  readonly reservedLocations?: readonly { readonly what: string; readonly location: string }[];
  /** Where table files may be (object stores; local paths under storage.localRoots): LOCATION_NOT_ALLOWED outside. Unset: not checked. */
  readonly locationFence?: LocationFence;
}

export const DEFAULT_ASSESS_OPTIONS: AssessOptions = { allowUnbucketed: false };

export type Rule = (t: TableInventory, options: AssessOptions) => AssessFinding[];

/** Hive reads booleans case-insensitively ("TRUE", "true"). */
export function paramTrue(v: string | undefined): boolean {
  return (v ?? '').trim().toLowerCase() === 'true';
}

export function isView(t: TableInventory): boolean {
  return t.table.tableType === TableType.VIRTUAL_VIEW || t.table.tableType === TableType.MATERIALIZED_VIEW;
}
