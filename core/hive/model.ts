// The Hive Metastore model every inventory path produces (Thrift and backing DB alike, deep-equal
// for the same warehouse). Pure; no I/O. Wire shapes (generated Thrift types, SQL rows) are mapped
// into this at the adapter; nothing above adapters/ sees them.
import type { ValidWriteIds } from './acid';

/** Table kinds as HMS stores them in TBLS.TBL_TYPE / Table.tableType. */
export const TableType = {
  MANAGED: 'MANAGED_TABLE',
  EXTERNAL: 'EXTERNAL_TABLE',
  VIRTUAL_VIEW: 'VIRTUAL_VIEW',
  MATERIALIZED_VIEW: 'MATERIALIZED_VIEW',
} as const;
export type TableType = (typeof TableType)[keyof typeof TableType];

/** File formats recognised from input format + serde (core/hive/formats.ts decides). */
export const FileFormat = {
  PARQUET: 'parquet',
  ORC: 'orc',
  AVRO: 'avro',
  TEXT: 'text',
  CSV: 'csv',
  JSON: 'json',
  SEQUENCEFILE: 'sequencefile',
  RCFILE: 'rcfile',
  OTHER: 'other',
} as const;
export type FileFormat = (typeof FileFormat)[keyof typeof FileFormat];

export type Params = Readonly<Record<string, string>>;

export interface HiveColumn {
  readonly name: string;
  /** The Hive type string exactly as stored (parse with core/hive/types.ts). */
  readonly type: string;
  readonly comment: string | null;
}

export interface SerDe {
  readonly name: string | null;
  readonly serializationLib: string | null;
  readonly parameters: Params;
}

export interface SortColumn {
  readonly column: string;
  /** 1 = ascending, 0 = descending (Hive's Order.order). */
  readonly order: number;
}

export interface SkewedInfo {
  readonly columnNames: readonly string[];
  readonly values: readonly (readonly string[])[];
  /** Skewed value tuple → subdirectory location; tuples kept as arrays (never joined strings). */
  readonly locations: readonly { readonly values: readonly string[]; readonly location: string }[];
}

export interface StorageDescriptor {
  readonly columns: readonly HiveColumn[];
  readonly location: string | null;
  readonly inputFormat: string | null;
  readonly outputFormat: string | null;
  readonly compressed: boolean;
  readonly numBuckets: number;
  readonly serde: SerDe;
  readonly bucketColumns: readonly string[];
  readonly sortColumns: readonly SortColumn[];
  readonly parameters: Params;
  readonly skewed: SkewedInfo | null;
  readonly storedAsSubDirectories: boolean;
}

export interface HivePartition {
  /** Values in partition-key order, unescaped; `__HIVE_DEFAULT_PARTITION__` becomes null. */
  readonly values: readonly (string | null)[];
  /** The partition name as HMS lists it (escaped, `k1=v1/k2=v2`). */
  readonly name: string;
  readonly createTime: number;
  readonly lastAccessTime: number;
  readonly sd: StorageDescriptor;
  readonly parameters: Params;
}

export interface HiveTable {
  readonly database: string;
  readonly name: string;
  readonly owner: string | null;
  readonly ownerType: 'USER' | 'ROLE' | 'GROUP' | null;
  readonly createTime: number;
  readonly lastAccessTime: number;
  readonly retention: number;
  readonly tableType: TableType | string;
  readonly sd: StorageDescriptor;
  readonly partitionKeys: readonly HiveColumn[];
  readonly parameters: Params;
  readonly viewOriginalText: string | null;
  readonly viewExpandedText: string | null;
  readonly temporary: boolean;
}

export interface HiveDatabase {
  readonly name: string;
  readonly description: string | null;
  readonly locationUri: string | null;
  readonly parameters: Params;
  readonly owner: string | null;
  readonly ownerType: 'USER' | 'ROLE' | 'GROUP' | null;
}

/** One table with its partitions, as inventory returns it (partitions sorted by name). */
export interface TableInventory {
  readonly table: HiveTable;
  readonly partitions: readonly HivePartition[];
  /**
   * Insert-only ACID tables: the metastore's valid write ids when the table was read (plan's walk and
   * apply's live read attach them through `HmsReader.getValidWriteIds`); which base_/delta_
   * directories convert follows from them (core/hive/acid.ts). Absent for every other table.
   */
  readonly writeIds?: ValidWriteIds;
}

/** The unit the inventory streams: a database, then its tables one by one. */
export interface WarehouseInventory {
  readonly databases: readonly HiveDatabase[];
  readonly tables: readonly TableInventory[];
}

/** Hive's marker for a null partition value (hive.exec.default.partition.name). */
export const HIVE_DEFAULT_PARTITION = '__HIVE_DEFAULT_PARTITION__';

/** The one HMS write a rollback's put-back needs: add partitions, metadata-only (adapters/hms/thrift/writer.ts). */
export interface HmsPartitionWriter {
  /** Returns how many HMS added; a partition that exists already fails the call (AlreadyExistsException). */
  addPartitions(database: string, table: string, partitions: readonly HivePartition[]): Promise<number>;
}

/** Port implemented by adapters/hms/thrift and adapters/hms/db. */
/** The HMS write cutover needs (adapters/hms/thrift/writer.ts): replace a table object — a rename when `table.name` differs from `name`. */
export interface HmsTableWriter {
  alterTable(database: string, name: string, table: HiveTable, environment?: Readonly<Record<string, string>>): Promise<void>;
}

export interface HmsReader {
  listDatabases(): Promise<string[]>;
  getDatabase(name: string): Promise<HiveDatabase>;
  listTables(database: string): Promise<string[]>;
  /** Tables with their partitions, in the order of `names`; unknown names → HMS_NOT_FOUND. */
  getTables(database: string, names: readonly string[]): Promise<TableInventory[]>;
  /**
   * The table's valid write ids now (get_open_txns, then get_valid_write_ids with that snapshot).
   * Thrift only: the backing-DB reader refuses with ACID_WRITE_IDS_UNAVAILABLE.
   */
  getValidWriteIds(database: string, table: string): Promise<ValidWriteIds>;
  close(): Promise<void>;
}
