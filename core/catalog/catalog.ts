// The Iceberg catalog port: what a migration asks of a catalog (REST, Hive in place, JDBC), plus
// the pure rules every adapter shares — identifiers, the register outcome decision and the
// vended-credential holder. Pure; no I/O. Adapters: adapters/catalog/*.
//
// Steps are declared with their inverses (docs/architecture.md "Habits" 8): createNamespace/dropNamespace,
// registerTable/unregisterTable. No operation can ask for a purge: dropping a table only removes
// the catalog entry (docs/architecture.md "Never delete data"; docs/design/iceberg-spec.md §7, §9.5).
import type { HiveTable } from '../hive/model';
import { ErrorCode, MigrationError } from '../errors';
import type { Snapshot, TableMetadata } from '../iceberg/metadata';
import type { Schema } from '../iceberg/types';

/** A namespace: one or more levels (REST encodes multi-level names with 0x1F). */
export type Namespace = readonly string[];

export interface TableIdent {
  readonly namespace: Namespace;
  readonly name: string;
}

/**
 * Storage credentials a catalog vended for one table (REST `storage-credentials` / `config`).
 * The secret map is reachable only through `properties()`; JSON and `util.inspect` show key names
 * only, so a credential never lands in a log line, an error context or a Temporal payload.
 */
export class VendedCredentials {
  readonly #properties: Readonly<Record<string, string>>;
  constructor(
    /** Storage prefix the credentials are valid for ('' = the whole table). */
    readonly prefix: string,
    properties: Readonly<Record<string, string>>,
  ) {
    this.#properties = { ...properties };
  }
  /** The secret properties (`s3.access-key-id`, `s3.secret-access-key`, `s3.session-token`, …). */
  properties(): Readonly<Record<string, string>> {
    return this.#properties;
  }
  toJSON(): { prefix: string; keys: string[] } {
    return { prefix: this.prefix, keys: Object.keys(this.#properties).sort() };
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `VendedCredentials(${JSON.stringify(this.toJSON())})`;
  }
}

export interface LoadedTable {
  readonly ident: TableIdent;
  readonly metadataLocation: string;
  readonly metadata: TableMetadata;
  /** Non-secret table config the catalog returned (credential keys removed). */
  readonly config: Readonly<Record<string, string>>;
  /** Credentials for the table's storage, when the catalog vended any. */
  readonly credentials?: VendedCredentials;
}

/** `registered`: this call created the entry; `already-registered`: it pointed at our file already (a retry). */
export type RegisterOutcome = 'registered' | 'already-registered';
/**
 * A new snapshot on an existing table, committed with optimistic concurrency: it lands only while
 * the table still is the `base` we read (same metadata file, table uuid and `main` snapshot).
 * Manifests and the manifest list are written before (create-only, by the engine); how the new
 * table metadata reaches the catalog depends on the catalog: a REST server receives the snapshot
 * as `add-snapshot` + `set-snapshot-ref` updates and writes its own metadata.json
 * (`writesOwnMetadata`); JDBC and Hive point at the metadata file we wrote at `metadataLocation`.
 */
export interface SnapshotCommit {
  readonly base: { readonly metadataLocation: string; readonly tableUuid: string; readonly snapshotId: bigint | null };
  readonly snapshot: Snapshot;
  /** The whole new metadata: base + snapshot, `main` at it (what `metadataLocation` holds). */
  readonly metadata: TableMetadata;
  /** Where the engine wrote `metadata` (unused, and not written, when the catalog writes its own). */
  readonly metadataLocation: string;
  /**
   * Set when `metadata` also carries a schema update (sync's added columns: a new current schema,
   * last-column-id and name mapping): the base's schema id and last column id the commit asserts.
   * A catalog that writes its own metadata sends the schema with the snapshot (REST: add-schema,
   * set-current-schema, set-properties); the others swap to `metadata`, which holds it.
   */
  readonly schemaChange?: { readonly schemaId: number; readonly lastColumnId: number };
}

/** `committed`: this call moved the table; `already-committed`: it was at our snapshot already (a retry). */
export type CommitOutcome = 'committed' | 'already-committed';

/** Has `loaded` our commit: its `main` is our snapshot (REST) or it points at our metadata file (JDBC, Hive). */
export function holdsCommit(loaded: LoadedTable, c: SnapshotCommit): boolean {
  return loaded.metadataLocation === c.metadataLocation || loaded.metadata.currentSnapshotId === c.snapshot.snapshotId;
}

/** The CATALOG_CONFLICT of a commit whose base moved: someone else committed in between; nothing changed. */
export function commitConflict(ident: TableIdent, c: SnapshotCommit, now: string | null): MigrationError {
  return new MigrationError(
    ErrorCode.CATALOG_CONFLICT,
    `${formatTableIdent(ident)} moved on since it was read (now ${now ?? 'absent'}, read at ${c.base.metadataLocation}): another commit landed first; nothing was committed — run sync again`,
    { table: formatTableIdent(ident), base: c.base.metadataLocation, current: now, snapshotId: c.snapshot.snapshotId.toString() },
  );
}

/** `unregistered`: this call removed the entry; `absent`: nothing to remove (a retry, or never registered). */
export type UnregisterOutcome = 'unregistered' | 'absent';

/**
 * Where the Hive original of a converted table is while the Iceberg table holds its name (asked of
 * the catalog: only an in-place catalog moves it).
 */
export type HiveOriginalPlace =
  /** Not converted in place: the Hive table keeps its name and form (register-only catalogs). */
  | { readonly kind: 'untouched' }
  /** In place, unpartitioned: the HMS object at the source name was altered into the Iceberg form (it is the catalog entry). */
  | { readonly kind: 'altered' }
  /**
   * In place, partitioned: the original waits aside under `name` in the same database, changed on
   * the way (made EXTERNAL, renamed); `asOriginal` shows what is there as the saved original it was.
   */
  | { readonly kind: 'aside'; readonly name: string; asOriginal(aside: HiveTable): HiveTable };

/** The neutral answer of a catalog that never touches the Hive table. */
export const HIVE_ORIGINAL_UNTOUCHED: HiveOriginalPlace = Object.freeze({ kind: 'untouched' });

export interface IcebergCatalog {
  /** Catalog name, for messages and audit records. */
  readonly name: string;

  namespaceExists(ns: Namespace): Promise<boolean>;
  /** Create the namespace; an existing one is an idempotent success (`created: false`). */
  createNamespace(ns: Namespace, properties?: Readonly<Record<string, string>>): Promise<{ created: boolean }>;
  /** Inverse of createNamespace: drop an empty namespace; absent → `dropped: false`; not empty → CATALOG_CONFLICT. */
  dropNamespace(ns: Namespace): Promise<{ dropped: boolean }>;
  listNamespaces(parent?: Namespace): Promise<Namespace[]>;

  listTables(ns: Namespace): Promise<TableIdent[]>;
  tableExists(ident: TableIdent): Promise<boolean>;
  /** CATALOG_NOT_FOUND when the table (or its namespace) does not exist. */
  loadTable(ident: TableIdent): Promise<LoadedTable>;

  /**
   * Register an existing metadata file under `ident` with assert-create semantics: an entry that
   * already points at the same `metadataLocation` is success (`already-registered`); one that points
   * elsewhere is CATALOG_CONFLICT. A server error or timeout is resolved by reloading and comparing,
   * never by cleaning up.
   */
  registerTable(ident: TableIdent, metadataLocation: string): Promise<{ outcome: RegisterOutcome; table: LoadedTable }>;
  /**
   * Inverse of registerTable: drop the entry (never purging) only while it still points at
   * `metadataLocation`; an entry moved on by later commits is CATALOG_CONFLICT (someone wrote to it).
   */
  unregisterTable(ident: TableIdent, metadataLocation: string): Promise<{ outcome: UnregisterOutcome }>;
  /**
   * Commit a snapshot onto the table at `commit.base` (compare-and-swap): the table moved on →
   * CATALOG_CONFLICT and nothing changed; already at our snapshot → `already-committed`. A server
   * error or timeout is resolved by reloading and comparing, never by a blind retry.
   */
  commitTable(ident: TableIdent, commit: SnapshotCommit): Promise<{ outcome: CommitOutcome; table: LoadedTable }>;
  /** True when the catalog writes the new metadata.json itself from the commit (REST). */
  readonly writesOwnMetadata?: boolean;
  /** Drop the catalog entry; data and metadata files stay (purge is never requested). */
  dropTable(ident: TableIdent): Promise<{ dropped: boolean }>;
  /**
   * True for a catalog that converts in place (the Hive catalog in mode `in-place`): register
   * replaces the Hive table at the source name, unregister/drop put it back, and a partitioned
   * original waits aside meanwhile. Absent or false: only new entries are registered.
   */
  readonly inPlace?: boolean;
  /**
   * Where this catalog keeps the Hive original `original` of the table it registers as `name` (the
   * source table's name) while converted: `untouched` unless the catalog converts in place.
   */
  hiveOriginalPlace(name: string, original: HiveTable): HiveOriginalPlace;
  /** An in-place catalog knowing the saved original of the Hive table at `ident`; others return themselves. */
  withSavedOriginal?(ident: TableIdent, original: HiveTable): IcebergCatalog;
  /** Release connections (CLI commands end with it; a worker keeps its catalog). */
  close?(): Promise<void>;
  /** Iceberg views (view spec v1), when the catalog serves them (REST); absent: views stay in Hive. */
  readonly views?: IcebergViewCatalog;
}

/** One SQL representation of a view version (view spec v1 "SQL representation"). */
export interface ViewRepresentation {
  readonly sql: string;
  /** `hive`, `spark`, … (the spec leaves dialect names to engines; lower-case by convention). */
  readonly dialect: string;
}

/** What this tool asks a catalog to create: one view version with its schema. */
export interface ViewDefinition {
  readonly schema: Schema;
  readonly representations: readonly ViewRepresentation[];
  /** Where unqualified names in the SQL resolve (view spec `default-namespace`, required). */
  readonly defaultNamespace: Namespace;
  /** The catalog unqualified and two-part names resolve in (`default-catalog`); null: the view's own. */
  readonly defaultCatalog: string | null;
  readonly summary: Readonly<Record<string, string>>;
  /** View properties: our ownership marker (core/view/iceberg-view.ts). */
  readonly properties: Readonly<Record<string, string>>;
}

export interface LoadedView {
  readonly ident: TableIdent;
  readonly metadataLocation: string;
  readonly viewUuid: string;
  readonly properties: Readonly<Record<string, string>>;
  /** The current version's schema and representations. */
  readonly schema: Schema;
  readonly representations: readonly ViewRepresentation[];
  readonly defaultNamespace: Namespace;
  readonly defaultCatalog: string | null;
}

/**
 * The view operations of a catalog. Create is assert-create: an existing view is returned as
 * `exists` (the caller decides whether it is ours by its marker). Drop removes the entry only.
 */
export interface IcebergViewCatalog {
  viewExists(ident: TableIdent): Promise<boolean>;
  /** CATALOG_NOT_FOUND when the view (or its namespace) does not exist. */
  loadView(ident: TableIdent): Promise<LoadedView>;
  createView(ident: TableIdent, view: ViewDefinition): Promise<{ outcome: 'created' | 'exists'; view: LoadedView }>;
  dropView(ident: TableIdent): Promise<{ dropped: boolean }>;
}

// No control characters: 0x1F separates REST namespace levels (docs/design/iceberg-spec.md §6).
// eslint-disable-next-line no-control-regex
const LEVEL = /^[^\u0000-\u001f]+$/;

/** Validated identifier; a level must be non-empty and free of control characters (0x1F is the REST separator). */
export function tableIdent(namespace: Namespace, name: string): TableIdent {
  checkNamespace(namespace);
  if (!LEVEL.test(name)) throw new MigrationError(ErrorCode.USAGE, `invalid table name '${name}'`, { name });
  return { namespace: [...namespace], name };
}

export function checkNamespace(ns: Namespace): void {
  if (ns.length === 0 || !ns.every((l) => LEVEL.test(l))) {
    throw new MigrationError(
      ErrorCode.USAGE,
      `invalid namespace ${JSON.stringify(ns)}: one or more non-empty levels without control characters`,
      { namespace: [...ns] },
    );
  }
}

/** `a.b.tbl` → namespace [a, b], name tbl (the last dot splits, as PyIceberg and Spark do). */
export function parseTableIdent(text: string): TableIdent {
  const parts = text.split('.');
  const name = parts.pop() ?? '';
  if (parts.length === 0) throw new MigrationError(ErrorCode.USAGE, `table '${text}' must be <namespace>.<table>`, { table: text });
  return tableIdent(parts, name);
}

export function formatTableIdent(ident: TableIdent): string {
  return [...ident.namespace, ident.name].join('.');
}

/**
 * What an existing entry means for a register of `wanted` (assert-create with idempotent retry):
 * the same metadata file → `already-registered`; anything else → CATALOG_CONFLICT naming both.
 */
export function existingEntryOutcome(ident: TableIdent, existingLocation: string, wanted: string): 'already-registered' {
  if (existingLocation === wanted) return 'already-registered';
  throw new MigrationError(
    ErrorCode.CATALOG_CONFLICT,
    `table ${formatTableIdent(ident)} is already registered with metadata ${existingLocation}, not ${wanted}`,
    { table: formatTableIdent(ident), existing: existingLocation, wanted },
  );
}

/**
 * Pick vended credentials for `location` (docs/design/iceberg-spec.md §6): the longest `storage-credentials` prefix
 * that `location` starts with; none → the table `config` entries that are storage credentials.
 */
export function pickCredentials(
  location: string,
  storage: readonly { prefix: string; config: Readonly<Record<string, string>> }[],
  config: Readonly<Record<string, string>>,
): VendedCredentials | undefined {
  const best = storage.filter((s) => location.startsWith(s.prefix)).sort((a, b) => b.prefix.length - a.prefix.length)[0];
  if (best !== undefined) return new VendedCredentials(best.prefix, best.config);
  const secret = Object.fromEntries(Object.entries(config).filter(([k]) => isCredentialKey(k)));
  return Object.keys(secret).length === 0 ? undefined : new VendedCredentials('', secret);
}

/** Keys of LoadTableResult.config that are secrets (never copied into the non-secret config). */
export function isCredentialKey(key: string): boolean {
  return (
    /(^|\.)(access-key-id|secret-access-key|session-token|token|sas-token[^.]*|oauth2\.token|credential)$/i.test(key) ||
    key.startsWith('adls.sas-token') ||
    key === 'gcs.oauth2.token'
  );
}
