// One error base with a closed set of codes and retryability on the error (docs/architecture.md "Habits" 5).
// Pure; no I/O. Adapters translate foreign errors (Thrift, S3, HTTP, SQL) into these.
import { maskSecrets } from './mask';

export const ErrorCode = {
  /** The configuration (file, MIGRATE__* environment, --set) does not match the schema; the message names each path and where its value came from. */
  CONFIG_INVALID: 'CONFIG_INVALID',
  /** The configuration file named by --config or $MIGRATE_CONFIG does not exist. */
  CONFIG_NOT_FOUND: 'CONFIG_NOT_FOUND',
  /** A bad command line (unknown flag, missing or out-of-range argument), an unreadable input file, or a plan id never applied. */
  USAGE: 'USAGE',
  /** No connection to the Hive Metastore (refused, reset, unknown host) or its backing database (retryable). */
  HMS_UNREACHABLE: 'HMS_UNREACHABLE',
  /** A Hive Metastore call did not answer within its deadline (retryable). */
  HMS_TIMEOUT: 'HMS_TIMEOUT',
  /** The Hive Metastore answered with an exception (MetaException, InvalidOperationException, ...) or a reply that does not decode. */
  HMS_THRIFT_ERROR: 'HMS_THRIFT_ERROR',
  /** A database, table or partition the Hive Metastore does not have (NoSuchObjectException, or an unknown --database). */
  HMS_NOT_FOUND: 'HMS_NOT_FOUND',
  /** A SASL-only Hive Metastore reached with plain Thrift (no hms.thrift.kerberos), or a SASL mechanism other than Kerberos (GSSAPI). */
  HMS_UNSUPPORTED_AUTH: 'HMS_UNSUPPORTED_AUTH',
  /** The Hive Metastore returned a table or partition without what every table needs (storage descriptor, location, columns). */
  HMS_BAD_METADATA: 'HMS_BAD_METADATA',
  /** hms.thrift.kerberos is set but no usable Kerberos ticket: an empty or expired credential cache and no keytab, or a keytab without the client principal. */
  HMS_KERBEROS_NO_TICKET: 'HMS_KERBEROS_NO_TICKET',
  /** The SASL/GSSAPI handshake with the Hive Metastore failed: a service principal the KDC or the metastore does not know, a KDC that cannot be reached, a metastore without SASL, or one that offers none of hms.thrift.kerberos.protection. */
  HMS_KERBEROS_AUTH_FAILED: 'HMS_KERBEROS_AUTH_FAILED',
  /** hms.thrift.kerberos is set but this host cannot load the GSSAPI library (libgssapi_krb5.so.2) or its binding (koffi). */
  HMS_KERBEROS_UNAVAILABLE: 'HMS_KERBEROS_UNAVAILABLE',
  /** A Hive column type string that does not parse. */
  HIVE_TYPE_INVALID: 'HIVE_TYPE_INVALID',
  /** No connection to the Iceberg catalog (refused, reset, unknown host) (retryable). */
  CATALOG_UNREACHABLE: 'CATALOG_UNREACHABLE',
  /** The REST catalog answered with an HTTP status no other CATALOG_* code covers (a 4xx such as 400 or 405). */
  CATALOG_HTTP_ERROR: 'CATALOG_HTTP_ERROR',
  /** No connection to S3 or the S3-compatible server, or a request timed out after the SDK retries (retryable). */
  STORAGE_UNREACHABLE: 'STORAGE_UNREACHABLE',
  /** The object store refused the credentials (403, invalid key, bad signature) or none were found in the environment. */
  STORAGE_ACCESS_DENIED: 'STORAGE_ACCESS_DENIED',
  /** The AWS SDK's default credential chain (environment, shared profile, web identity, container, instance metadata) found no S3 credentials. */
  STORAGE_CREDENTIALS_MISSING: 'STORAGE_CREDENTIALS_MISSING',
  /** S3 temporary credentials are expired (the provider handed back expired ones, or S3 answered ExpiredToken); nothing is signed with them. */
  STORAGE_CREDENTIALS_EXPIRED: 'STORAGE_CREDENTIALS_EXPIRED',
  /** No connection to the Temporal frontend (TCP refused, unknown host, handshake or deadline), or the namespace does not exist (retryable). */
  TEMPORAL_UNREACHABLE: 'TEMPORAL_UNREACHABLE',
  /** The Temporal frontend requires a client certificate (mTLS) and none is configured (TLS alert "certificate required"). */
  TEMPORAL_TLS_CLIENT_CERT_REQUIRED: 'TEMPORAL_TLS_CLIENT_CERT_REQUIRED',
  /** The Temporal frontend refused our client certificate: issued by a CA it does not trust (alert "unknown ca"), revoked or unsuitable. */
  TEMPORAL_TLS_CLIENT_CERT_REJECTED: 'TEMPORAL_TLS_CLIENT_CERT_REJECTED',
  /** The Temporal frontend refused our client certificate as expired (alert "certificate expired"). */
  TEMPORAL_TLS_CLIENT_CERT_EXPIRED: 'TEMPORAL_TLS_CLIENT_CERT_EXPIRED',
  /** We do not trust the Temporal server's certificate: another CA than the configured one, expired, or not issued for the server name (SNI). */
  TEMPORAL_TLS_SERVER_UNTRUSTED: 'TEMPORAL_TLS_SERVER_UNTRUSTED',
  /** The TLS handshake with the Temporal frontend failed for another reason (it does not speak TLS, no common protocol or cipher). */
  TEMPORAL_TLS_HANDSHAKE_FAILED: 'TEMPORAL_TLS_HANDSHAKE_FAILED',
  /** The Temporal frontend refused our credentials (gRPC UNAUTHENTICATED or PERMISSION_DENIED): API key invalid, expired or without access to the namespace. */
  TEMPORAL_AUTH_FAILED: 'TEMPORAL_AUTH_FAILED',
  /** A running workflow's query got no answer: no worker polls its task queue. */
  TEMPORAL_NO_WORKER: 'TEMPORAL_NO_WORKER',
  /** `doctor`: the Temporal namespace lacks a search attribute the workflows set (or has it with another type); starting them would fail. */
  TEMPORAL_SEARCH_ATTRIBUTES_MISSING: 'TEMPORAL_SEARCH_ATTRIBUTES_MISSING',
  /** The plan's workflow ended without a result (failed, terminated, timed out). */
  TEMPORAL_WORKFLOW_ENDED: 'TEMPORAL_WORKFLOW_ENDED',
  /** No connection to the Postgres state database (refused, reset, terminated) (retryable). */
  STATE_DB_UNREACHABLE: 'STATE_DB_UNREACHABLE',
  /** An error nobody anticipated: a bug. The message asks for a report; the exit code is 70. */
  INTERNAL: 'INTERNAL',
  /** Planning input (tables, edges, options) or a plan file does not match its schema. */
  PLAN_INVALID: 'PLAN_INVALID',
  /** A pin, exclude or input edge names a table the planner does not know. */
  PLAN_UNKNOWN_TABLE: 'PLAN_UNKNOWN_TABLE',
  /** Wave caps that cannot hold together (zero, negative, canary larger than a wave, …). */
  PLAN_CONTRADICTORY_CAPS: 'PLAN_CONTRADICTORY_CAPS',
  /** A pin puts a table before something it depends on (or splits a dependency cycle). */
  PLAN_PIN_CONFLICT: 'PLAN_PIN_CONFLICT',
  /** A plan file's content does not match its recorded sha256 (edited after planning). */
  PLAN_HASH_MISMATCH: 'PLAN_HASH_MISMATCH',
  /** A plan file version this build cannot read or upgrade. */
  PLAN_VERSION_UNSUPPORTED: 'PLAN_VERSION_UNSUPPORTED',
  /** A lineage document (already parsed from YAML) does not match the lineage schema. */
  LINEAGE_INVALID: 'LINEAGE_INVALID',
  /** A Hive column type with no Iceberg equivalent (uniontype, interval_*, void); context names the column. */
  ICEBERG_TYPE_UNSUPPORTED: 'ICEBERG_TYPE_UNSUPPORTED',
  /** A schema that cannot become an Iceberg schema (duplicate or empty column names). */
  ICEBERG_SCHEMA_INVALID: 'ICEBERG_SCHEMA_INVALID',
  /** The table's data files carry Iceberg field ids (Iceberg-written files) that disagree: one id names different columns in different files, one column has different ids, or an id names a column of another shape than Hive declares; context names the files and columns. */
  FIELD_IDS_INCONSISTENT: 'FIELD_IDS_INCONSISTENT',
  /** A value that cannot be serialized for its Iceberg type (bound, partition value). */
  ICEBERG_VALUE_INVALID: 'ICEBERG_VALUE_INVALID',
  /** A metadata.json (or its model) that breaks the v2 spec: missing required field, bad reference. */
  ICEBERG_METADATA_INVALID: 'ICEBERG_METADATA_INVALID',
  /** A metadata.json whose format-version this build does not read (only 2). */
  ICEBERG_FORMAT_VERSION_UNSUPPORTED: 'ICEBERG_FORMAT_VERSION_UNSUPPORTED',
  /** Writing a manifest or manifest list failed (encoding or the output file). */
  ICEBERG_MANIFEST_WRITE_FAILED: 'ICEBERG_MANIFEST_WRITE_FAILED',
  /** HMS AlreadyExistsException: the database/table/partition being created exists (idempotent steps check this). */
  HMS_ALREADY_EXISTS: 'HMS_ALREADY_EXISTS',
  /** An object or prefix that does not exist (S3 NoSuchKey/NoSuchBucket, ENOENT); context names the path. */
  STORAGE_NOT_FOUND: 'STORAGE_NOT_FOUND',
  /** A conditional write lost: the object already exists (`If-None-Match: *` → 412, or EEXIST). */
  STORAGE_PRECONDITION_FAILED: 'STORAGE_PRECONDITION_FAILED',
  /** A delete or overwrite outside the migration-owned metadata prefixes ("Never delete data"). */
  STORAGE_MUTATION_REFUSED: 'STORAGE_MUTATION_REFUSED',
  /** A storage URI this build cannot address (unknown scheme, relative path, no bucket). */
  STORAGE_URI_INVALID: 'STORAGE_URI_INVALID',
  /** Any other storage failure (unexpected S3 status, EIO); context names the path. */
  STORAGE_ERROR: 'STORAGE_ERROR',
  /** A data file whose footer/tail cannot be decoded (bad magic, truncated, bad lengths); context names the file. */
  FORMAT_CORRUPT_FOOTER: 'FORMAT_CORRUPT_FOOTER',
  /** A data file feature this build cannot read (e.g. ORC zstd/lzo/lz4 tails); context names the file. */
  FORMAT_UNSUPPORTED: 'FORMAT_UNSUPPORTED',
  /** A catalog namespace or table that does not exist (REST 404 NoSuchNamespace/NoSuchTable); context names it. */
  CATALOG_NOT_FOUND: 'CATALOG_NOT_FOUND',
  /** The namespace/table being created already exists (REST 409 AlreadyExists) and that is not an idempotent success. */
  CATALOG_ALREADY_EXISTS: 'CATALOG_ALREADY_EXISTS',
  /** The catalog entry exists but points elsewhere (another metadata location), or a namespace to drop is not empty. */
  CATALOG_CONFLICT: 'CATALOG_CONFLICT',
  /** The catalog refused our credentials (401/403, OAuth2 token endpoint errors). */
  CATALOG_AUTH_FAILED: 'CATALOG_AUTH_FAILED',
  /** A catalog call did not answer within its deadline (retryable; a mutation's outcome is then unknown). */
  CATALOG_TIMEOUT: 'CATALOG_TIMEOUT',
  /** 5xx / 429 from the catalog after the retries that were safe (retryable). */
  CATALOG_SERVER_ERROR: 'CATALOG_SERVER_ERROR',
  /** A mutation (register, drop) whose outcome could not be established by reloading (retryable: reload and compare again). */
  CATALOG_COMMIT_STATE_UNKNOWN: 'CATALOG_COMMIT_STATE_UNKNOWN',
  /** The catalog cannot read the metadata file it was asked to register (reference server: 500 NotFoundException). */
  CATALOG_METADATA_UNREADABLE: 'CATALOG_METADATA_UNREADABLE',
  /** A catalog answer that is not the JSON the REST spec describes. */
  CATALOG_BAD_RESPONSE: 'CATALOG_BAD_RESPONSE',
  /** A partition location holds a sub-directory: a non-recursive conversion would leave its files out (skewed/list-bucketing, Hive-on-Tez union dirs). */
  CONVERT_SUBDIRECTORY: 'CONVERT_SUBDIRECTORY',
  /** A data file whose name readers cannot open from a manifest (`;`, `?`, `#`, control characters): the table is refused. */
  CONVERT_FILE_NAME_UNREADABLE: 'CONVERT_FILE_NAME_UNREADABLE',
  /** The Hive catalog cannot convert this table in place (HMS refuses to change partition keys with alter_table). */
  CATALOG_IN_PLACE_UNSUPPORTED: 'CATALOG_IN_PLACE_UNSUPPORTED',
  /** A bucketed table without the explicit opt-in to convert it unbucketed. */
  CONVERT_BUCKETED: 'CONVERT_BUCKETED',
  /**
   * The HMS table changed in a way that matters: since the plan, so that it would convert differently
   * (its conversion pin differs, the message names what; a version 2 plan: any change, fingerprint),
   * or since apply saved its original (in-place register, rollback).
   */
  SOURCE_CHANGED: 'SOURCE_CHANGED',
  /** Rollback refused: the Iceberg table has commits after ours (use --force, which is audited). */
  ROLLBACK_REFUSED: 'ROLLBACK_REFUSED',
  /** Rollback refused: commits since ours that cannot be put back into Hive (not an append of Parquet/ORC data files under our spec, or files where Hive would not read them); the message lists each blocking snapshot id, its operation and why. */
  ROLLBACK_BLOCKED: 'ROLLBACK_BLOCKED',
  /**
   * Rollback refused before anything changed: views of a later wave that are still migrated read
   * tables of this wave (directly or through other views); the message names them. Roll back their
   * waves first, or pass --with-dependent-views to roll them back first within this rollback.
   */
  ROLLBACK_ORDER: 'ROLLBACK_ORDER',
  /** Sync refused: the Iceberg table's current snapshot was not committed by this tool (another writer committed: it was cut over). */
  SYNC_FOREIGN_COMMITS: 'SYNC_FOREIGN_COMMITS',
  /** Sync refused: a data file kept its path but changed its size (rewritten in place); a snapshot cannot both keep and replace one path. */
  SYNC_FILE_REWRITTEN: 'SYNC_FILE_REWRITTEN',
  /** Sync refused: the table was cut over (`migrate cutover`); Iceberg is its only source now and Hive is fenced. */
  SYNC_CUT_OVER: 'SYNC_CUT_OVER',
  /** Cutover: the fence cannot be set or lifted as recorded (the fenced name is taken by another table, the name was re-created, or a rename moved a location). */
  CUTOVER_FENCE_CONFLICT: 'CUTOVER_FENCE_CONFLICT',
  /** Cutover refused for a table that is not migrated (pending, failed, rolled back) or not in the wave. */
  CUTOVER_NOT_MIGRATED: 'CUTOVER_NOT_MIGRATED',
  /** Sync: after the commit, the Hive listing and the new snapshot's files, or the footer row counts and total-records, disagree. */
  SYNC_VALIDATION_FAILED: 'SYNC_VALIDATION_FAILED',
  /** Sync: the table's record moved past the snapshot this sync started from while it recorded (a concurrent attempt recorded first). */
  SYNC_RECORD_MOVED: 'SYNC_RECORD_MOVED',
  /** Validation: the row counts (footers, snapshot summary, manifests, HMS stats) disagree. */
  VALIDATION_ROW_COUNT_MISMATCH: 'VALIDATION_ROW_COUNT_MISMATCH',
  /** Validation: the data files in storage and in our manifests differ (path, size or partition). */
  VALIDATION_FILES_MISMATCH: 'VALIDATION_FILES_MISMATCH',
  /** Validation: the catalog entry is missing or does not point at our metadata/snapshot. */
  VALIDATION_CATALOG_MISMATCH: 'VALIDATION_CATALOG_MISMATCH',
  /** Validation: a Hive column has no Iceberg field (or the types disagree). */
  VALIDATION_SCHEMA_MISMATCH: 'VALIDATION_SCHEMA_MISMATCH',
  /** Apply re-checked a table live and it is not migratable (class skip or rewrite-required); context names the findings. */
  TABLE_NOT_MIGRATABLE: 'TABLE_NOT_MIGRATABLE',
  /** A table's undo could not finish; the state store lists what is left (migrate repair removes it). */
  COMPENSATION_INCOMPLETE: 'COMPENSATION_INCOMPLETE',
  /** Rollback refused: the catalog entry is not one this tool registered for the table (left untouched, even with --force). */
  ROLLBACK_NOT_OURS: 'ROLLBACK_NOT_OURS',
  /** The table was cancelled while migrating; its steps were undone. */
  CANCELLED: 'CANCELLED',
  /** The wave's rollback was cancelled before this table was rolled back (or while it was): run the rollback again to finish it. */
  ROLLBACK_CANCELLED: 'ROLLBACK_CANCELLED',
  /** A table's workflow ended without an outcome (terminated, timed out); its state record says so. */
  TABLE_WORKFLOW_ENDED: 'TABLE_WORKFLOW_ENDED',
  /** The plan has no such wave. */
  WAVE_UNKNOWN: 'WAVE_UNKNOWN',
  /** The wave already ran: it cannot be approved (again). */
  WAVE_ALREADY_RAN: 'WAVE_ALREADY_RAN',
  /** Apply's live re-check: the table's location or a partition's is equal to or inside another table's. */
  LOCATION_SHARED: 'LOCATION_SHARED',
  /** Apply's live re-check: an empty, missing or relative table/partition location. */
  LOCATION_INVALID: 'LOCATION_INVALID',
  /** Apply's live re-check (or `migrate table`, or sync's added partitions): a table/partition location outside the location fence (not s3/s3a/s3n, or a local path not under storage.localRoots). */
  LOCATION_NOT_ALLOWED: 'LOCATION_NOT_ALLOWED',
  /** `migrate table`: the table's or a partition's location overlaps where this tool writes its own objects (audit.anchorLocation, validation.resultsLocation). */
  LOCATION_RESERVED: 'LOCATION_RESERVED',
  /** Apply's live re-check: a partition value that does not parse as its declared type. */
  PARTITION_VALUE_INVALID: 'PARTITION_VALUE_INVALID',
  /** `audit verify`: an audit event was edited, removed, reordered or re-hashed (the chain itself is broken). */
  AUDIT_CHAIN_BROKEN: 'AUDIT_CHAIN_BROKEN',
  /** `audit verify`: the chain disagrees with its external anchor (newest events deleted, table truncated/dropped, chain recomputed). */
  AUDIT_ANCHOR_MISMATCH: 'AUDIT_ANCHOR_MISMATCH',
  /** An approval by someone not on `audit.approvers` (nothing was recorded or sent). */
  AUDIT_APPROVER_REFUSED: 'AUDIT_APPROVER_REFUSED',
  /** A writer with `audit.keyEnv` refused to append to a chain whose newest event is not keyed (key never activated, or the chain downgraded); nothing recorded. */
  AUDIT_KEY_NOT_ACTIVE: 'AUDIT_KEY_NOT_ACTIVE',
  /** The state database refused the credentials of `state.url` (Postgres 28P01/28000). */
  STATE_DB_AUTH_FAILED: 'STATE_DB_AUTH_FAILED',
  /** The database named by `state.url` does not exist (Postgres 3D000). */
  STATE_DB_NOT_FOUND: 'STATE_DB_NOT_FOUND',
  /** The state database refuses writes: a read-only server or standby (25006), or a role without CREATE/INSERT (42501). */
  STATE_DB_NOT_WRITABLE: 'STATE_DB_NOT_WRITABLE',
  /** A state-database statement waited past its limit for a lock another session holds (55P03, 57014, or no answer in time): a process stalled mid-transaction; Postgres ends such a session after 30 s idle in its transaction (retryable). */
  STATE_DB_BUSY: 'STATE_DB_BUSY',
  /** Plan signing is configured and the plan file carries no signature. */
  PLAN_UNSIGNED: 'PLAN_UNSIGNED',
  /** The plan's signature does not verify (edited after signing, another key, unknown key id). */
  PLAN_SIGNATURE_INVALID: 'PLAN_SIGNATURE_INVALID',
  /** A plan file larger than the documented limit (64 MiB), or not a regular file; refused unread. */
  PLAN_TOO_LARGE: 'PLAN_TOO_LARGE',
  /** A plan with no waves: nothing to apply. */
  PLAN_EMPTY: 'PLAN_EMPTY',
  /** The worker's catalog (name, type, mode, namespace prefix) differs from the target pinned in the plan. */
  TARGET_MISMATCH: 'TARGET_MISMATCH',
  /** The plan's workflow has already ended: nothing left to approve, pause, resume or cancel; exit 2. */
  PLAN_FINISHED: 'PLAN_FINISHED',
  /** Apply's pre-check: a table of the plan changed in HMS, is gone, or its target is registered since the plan was made; nothing started; exit 2. */
  PLAN_STALE: 'PLAN_STALE',
  /** A step of a table workflow run that no longer owns the table's record (terminated, superseded): not recorded. */
  TABLE_RUN_FENCED: 'TABLE_RUN_FENCED',
  /** A step asked to record a table transition its row in core/state/lifecycle.ts does not allow (from that status, with those fields or details): not recorded. */
  TABLE_TRANSITION_REFUSED: 'TABLE_TRANSITION_REFUSED',
  /** An insert-only ACID table has a write open (a transaction not committed or aborted yet): its files are not final. */
  ACID_WRITE_OPEN: 'ACID_WRITE_OPEN',
  /** An insert-only ACID table's valid write ids could not be read (the backing-DB reader: they need the metastore's Thrift API). */
  ACID_WRITE_IDS_UNAVAILABLE: 'ACID_WRITE_IDS_UNAVAILABLE',
  /** An insert-only ACID table's directory is not a plain base_/delta_ of committed writes (compactor _v output, delete deltas, other sub-directories). */
  ACID_LAYOUT_UNSUPPORTED: 'ACID_LAYOUT_UNSUPPORTED',
  /** Apply of a Hive view: the catalog holds a view (or table) under its Iceberg name that this tool did not create for it; left untouched. */
  VIEW_NOT_OURS: 'VIEW_NOT_OURS',
  /** Apply of a Hive view: the Iceberg view read back differs from the one created (marker, schema, representations). */
  VIEW_VALIDATION_MISMATCH: 'VIEW_VALIDATION_MISMATCH',
  /** A rewrite-path table whose storage the shipped Spark job cannot read as Hive does (serde, header/footer lines, escapes). */
  REWRITE_UNSUPPORTED: 'REWRITE_UNSUPPORTED',
  /** The rewrite job (spark-submit) could not start, exited non-zero, or left no result. */
  REWRITE_JOB_FAILED: 'REWRITE_JOB_FAILED',
  /** The rewrite job's new table differs from the Hive source: row counts or content checksums not equal. */
  REWRITE_MISMATCH: 'REWRITE_MISMATCH',
  /** The rewrite target name is held by a table this plan's job did not write (no marker, or another job's). */
  REWRITE_TARGET_TAKEN: 'REWRITE_TARGET_TAKEN',
  /** A rewrite-path table in a plan, but the worker has no `rewrite:` configuration (the spark-submit command line). */
  REWRITE_NOT_CONFIGURED: 'REWRITE_NOT_CONFIGURED',
  /** Validation: a column path of a data file's footer resolves to no field id through the table's name mapping (a declared Hive column: fails; a column Hive never declared: warning). */
  VALIDATION_FOOTER_UNMAPPED: 'VALIDATION_FOOTER_UNMAPPED',
  /** Validation: a data file's embedded field id for a column is not the id the table's schema gives that column: readers, which resolve such files by id, would read another column there. */
  VALIDATION_FIELD_ID_MISMATCH: 'VALIDATION_FIELD_ID_MISMATCH',
  /** A partition declares a column with a type the table's type cannot be read as (Iceberg schema evolution, through nested types): metadata-only would misread its files. */
  CONVERT_PARTITION_TYPE_INCOMPATIBLE: 'CONVERT_PARTITION_TYPE_INCOMPATIBLE',
  /** A created view's Spark check (jobs/view_check.py) could not start, exited non-zero, left no result, or refused its spec. */
  VIEW_CHECK_FAILED: 'VIEW_CHECK_FAILED',
  /** Read-back proof: the sampled files read through the Iceberg table and through Hive's schema and partition values give different content checksums or row counts. */
  READBACK_MISMATCH: 'READBACK_MISMATCH',
  /** Read-back proof: the engine job (jobs/readback.py) could not start, exited non-zero, left no result, or refused its spec. */
  READBACK_FAILED: 'READBACK_FAILED',
  /** A data file holds an encoding the reader matrix measures a required reader (`readers.required`) reading wrong: metadata-only would serve wrong values. */
  CONVERT_READER_MISREAD: 'CONVERT_READER_MISREAD',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const RETRYABLE: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  ErrorCode.HMS_UNREACHABLE,
  ErrorCode.HMS_TIMEOUT,
  ErrorCode.CATALOG_UNREACHABLE,
  ErrorCode.CATALOG_TIMEOUT,
  ErrorCode.CATALOG_SERVER_ERROR,
  ErrorCode.CATALOG_COMMIT_STATE_UNKNOWN,
  ErrorCode.STORAGE_UNREACHABLE,
  ErrorCode.TEMPORAL_UNREACHABLE,
  ErrorCode.STATE_DB_UNREACHABLE,
  ErrorCode.STATE_DB_BUSY,
]);

export class MigrationError extends Error {
  readonly retryable: boolean;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly context: Readonly<Record<string, unknown>> = {},
    options: { retryable?: boolean; cause?: unknown } = {},
  ) {
    // Messages are printed, logged and recorded: a URI's secret never goes with them (core/mask.ts).
    super(maskSecrets(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MigrationError';
    this.retryable = options.retryable ?? RETRYABLE.has(code);
  }
}

export function isMigrationError(e: unknown): e is MigrationError {
  return e instanceof MigrationError;
}
