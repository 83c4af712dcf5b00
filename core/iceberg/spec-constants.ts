// Iceberg spec numbers, named as the spec names them, in one place (docs/architecture.md "Habits" 4). Pure; no I/O.
// Sources: apache/iceberg format/spec.md ("Manifests", "Manifest Lists", "Partitioning",
// "Table Metadata Fields", Appendix A/C/D/F) and the Java writers V2Metadata.java, PartitionSpec.java,
// TableProperties.java. We write format version 2 only.

/** spec "Table Metadata Fields": the only format version this build writes and reads. */
export const FORMAT_VERSION = 2;

/** spec "Manifest Entry Fields" (manifest_entry), field ids. */
export const ManifestEntryField = {
  STATUS: 0,
  SNAPSHOT_ID: 1,
  DATA_FILE: 2,
  SEQUENCE_NUMBER: 3,
  FILE_SEQUENCE_NUMBER: 4,
} as const;

/** spec "Manifest Entry Fields": manifest_entry.status values. */
export const ManifestEntryStatus = { EXISTING: 0, ADDED: 1, DELETED: 2 } as const;
export type ManifestEntryStatus = (typeof ManifestEntryStatus)[keyof typeof ManifestEntryStatus];

/** spec "Data File Fields" (data_file, record r2), field ids written by v2 (V2Metadata.fileType). */
export const DataFileField = {
  CONTENT: 134,
  FILE_PATH: 100,
  FILE_FORMAT: 101,
  PARTITION: 102,
  RECORD_COUNT: 103,
  FILE_SIZE_IN_BYTES: 104,
  /** v1 only; must not be written in v2. */
  BLOCK_SIZE_IN_BYTES: 105,
  COLUMN_SIZES: 108,
  COLUMN_SIZES_KEY: 117,
  COLUMN_SIZES_VALUE: 118,
  VALUE_COUNTS: 109,
  VALUE_COUNTS_KEY: 119,
  VALUE_COUNTS_VALUE: 120,
  NULL_VALUE_COUNTS: 110,
  NULL_VALUE_COUNTS_KEY: 121,
  NULL_VALUE_COUNTS_VALUE: 122,
  NAN_VALUE_COUNTS: 137,
  NAN_VALUE_COUNTS_KEY: 138,
  NAN_VALUE_COUNTS_VALUE: 139,
  LOWER_BOUNDS: 125,
  LOWER_BOUNDS_KEY: 126,
  LOWER_BOUNDS_VALUE: 127,
  UPPER_BOUNDS: 128,
  UPPER_BOUNDS_KEY: 129,
  UPPER_BOUNDS_VALUE: 130,
  KEY_METADATA: 131,
  SPLIT_OFFSETS: 132,
  SPLIT_OFFSETS_ELEMENT: 133,
  EQUALITY_IDS: 135,
  EQUALITY_IDS_ELEMENT: 136,
  SORT_ORDER_ID: 140,
  REFERENCED_DATA_FILE: 143,
} as const;

/** spec "Data File Fields": data_file.content values. */
export const DataFileContent = { DATA: 0, POSITION_DELETES: 1, EQUALITY_DELETES: 2 } as const;

/** spec "Manifest Lists" (manifest_file), field ids in the Java v2 writer order. */
export const ManifestFileField = {
  MANIFEST_PATH: 500,
  MANIFEST_LENGTH: 501,
  PARTITION_SPEC_ID: 502,
  CONTENT: 517,
  SEQUENCE_NUMBER: 515,
  MIN_SEQUENCE_NUMBER: 516,
  ADDED_SNAPSHOT_ID: 503,
  ADDED_FILES_COUNT: 504,
  EXISTING_FILES_COUNT: 505,
  DELETED_FILES_COUNT: 506,
  ADDED_ROWS_COUNT: 512,
  EXISTING_ROWS_COUNT: 513,
  DELETED_ROWS_COUNT: 514,
  PARTITIONS: 507,
  PARTITIONS_ELEMENT: 508,
  KEY_METADATA: 519,
} as const;

/** spec "Manifest Lists": field_summary (record r508) field ids. */
export const FieldSummaryField = {
  CONTAINS_NULL: 509,
  CONTAINS_NAN: 518,
  LOWER_BOUND: 510,
  UPPER_BOUND: 511,
} as const;

/** spec "Manifest Lists": manifest_file.content values. */
export const ManifestContent = { DATA: 0, DELETES: 1 } as const;

/** spec "Partitioning" / PartitionSpec.PARTITION_DATA_ID_START: first partition field id. */
export const PARTITION_DATA_ID_START = 1000;
/** PartitionSpec: last-partition-id of an unpartitioned table (PARTITION_DATA_ID_START - 1). */
export const UNPARTITIONED_LAST_PARTITION_ID = PARTITION_DATA_ID_START - 1;

/** spec "Table Metadata Fields": initial ids of a new table. */
export const INITIAL_SCHEMA_ID = 0;
export const INITIAL_SPEC_ID = 0;
/** spec "Sorting": order id 0 is reserved for the unsorted order. */
export const UNSORTED_ORDER_ID = 0;
/** spec "Sequence Numbers": a new table's last-sequence-number; the first snapshot gets 1. */
export const INITIAL_SEQUENCE_NUMBER = 0;
/** spec Appendix F: v1/v2 "no current snapshot" marker Java writes for current-snapshot-id. */
export const NO_SNAPSHOT_ID = -1n;
/** spec "Snapshot References": the implied main branch. */
export const MAIN_BRANCH = 'main';

/** spec "Manifests": Avro file metadata keys of a manifest. */
export const ManifestMetadataKey = {
  SCHEMA: 'schema',
  SCHEMA_ID: 'schema-id',
  PARTITION_SPEC: 'partition-spec',
  PARTITION_SPEC_ID: 'partition-spec-id',
  FORMAT_VERSION: 'format-version',
  CONTENT: 'content',
} as const;

/** spec "Manifest Lists" / ManifestListWriter: Avro file metadata keys of a manifest list. */
export const ManifestListMetadataKey = {
  SNAPSHOT_ID: 'snapshot-id',
  PARENT_SNAPSHOT_ID: 'parent-snapshot-id',
  SEQUENCE_NUMBER: 'sequence-number',
  FORMAT_VERSION: 'format-version',
} as const;

/** Avro record names Java gives the manifest schemas (avro/TypeToSchema.java, AvroSchemaUtil). */
export const AvroRecordName = {
  MANIFEST_ENTRY: 'manifest_entry',
  MANIFEST_FILE: 'manifest_file',
  DATA_FILE: 'r2',
  PARTITION: 'r102',
  FIELD_SUMMARY: 'r508',
} as const;

/** TableProperties names we set. */
export const TableProperty = {
  /** spec "Column Projection" / TableProperties.DEFAULT_NAME_MAPPING. */
  NAME_MAPPING_DEFAULT: 'schema.name-mapping.default',
  /** TableProperties.GC_ENABLED: false keeps purge/expiry away from the original data files. */
  GC_ENABLED: 'gc.enabled',
  /** TableProperties.DEFAULT_FILE_FORMAT. */
  DEFAULT_FILE_FORMAT: 'write.format.default',
} as const;

/** spec "Snapshots": summary operation values. */
export const SnapshotOperation = { APPEND: 'append', REPLACE: 'replace', OVERWRITE: 'overwrite', DELETE: 'delete' } as const;
export type SnapshotOperation = (typeof SnapshotOperation)[keyof typeof SnapshotOperation];

/** TableProperties.DEFAULT_WRITE_METRICS_MODE truncate(16): bound length for string/binary. */
export const DEFAULT_TRUNCATE_LENGTH = 16;

/** spec Appendix D: uuid single-value length. */
export const UUID_BYTES = 16;
