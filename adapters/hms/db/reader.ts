// HmsReader over the HMS backing database (schema: docs/design/hive-metastore.md §4): the same core/hive model as the
// Thrift path, from batched SQL. Driver-neutral: a SqlSession supplies the connection (postgres.ts,
// mysql.ts); queries.ts runs the statements. Tables here; partitions and storage descriptors by the
// Postgres JSON path (pg-json.ts) or the portable row path (row-path.ts). Every raw → model rule is
// in core/hive/normalize.ts.
import { ErrorCode, MigrationError } from '../../../core/errors';
import type { ValidWriteIds } from '../../../core/hive/acid';
import type {
  HiveColumn,
  HiveDatabase,
  HivePartition,
  HiveTable,
  HmsReader,
  StorageDescriptor,
  TableInventory,
} from '../../../core/hive/model';
import { databaseOwnerType, nullable, sortNames, sortPartitions, sqlNumber, tableOwnerType } from '../../../core/hive/normalize';
import { partitionsJson, storageDescriptorsJson } from './pg-json';
import type { CdCache } from './pg-json';
import { DbQueries } from './queries';
import { partitionsByRows, storageDescriptorsByRows } from './row-path';
import { columnsOf, groupBy, id, paramsOf, str } from './rows';
import type { Id } from './rows';
import type { HmsDbOptions, Row, SqlSession } from './session';

interface TableRow {
  readonly tblId: Id;
  readonly sdId: Id | null;
  readonly row: Row;
}

/** What getTables read for its tables, by TBL_ID / SD_ID. */
interface TableParts {
  readonly tableParams: Map<Id, Row[]>;
  readonly partKeys: Map<Id, Row[]>;
  readonly sds: Map<Id, StorageDescriptor>;
  readonly partitions: Map<Id, HivePartition[]>;
}

function inventoryOf(dbName: string, n: string, t: TableRow, parts: TableParts): TableInventory {
  const sd = t.sdId === null ? undefined : parts.sds.get(t.sdId);
  if (sd === undefined)
    throw new MigrationError(ErrorCode.HMS_BAD_METADATA, `${dbName}.${n}: no storage descriptor in the HMS backing DB`, {
      database: dbName,
      table: n,
    });
  const table: HiveTable = {
    database: dbName,
    name: String(t.row.TBL_NAME),
    owner: str(t.row.OWNER),
    ownerType: tableOwnerType(str(t.row.OWNER_TYPE)),
    createTime: sqlNumber(t.row.CREATE_TIME),
    lastAccessTime: sqlNumber(t.row.LAST_ACCESS_TIME),
    retention: sqlNumber(t.row.RETENTION),
    tableType: String(t.row.TBL_TYPE ?? ''),
    sd,
    partitionKeys: columnsOf(parts.partKeys.get(t.tblId), 'PKEY'),
    parameters: paramsOf(parts.tableParams.get(t.tblId)),
    viewOriginalText: nullable(str(t.row.VIEW_ORIGINAL_TEXT)),
    viewExpandedText: nullable(str(t.row.VIEW_EXPANDED_TEXT)),
    // Temporary tables live in one HiveServer2 session and never reach the backing DB.
    temporary: false,
  };
  return { table, partitions: sortPartitions(parts.partitions.get(t.tblId) ?? []) };
}

export class BackingDbReader implements HmsReader {
  private readonly db: DbQueries;

  constructor(
    private readonly session: SqlSession,
    opts: HmsDbOptions = {},
  ) {
    this.db = new DbQueries(session, opts);
  }

  /**
   * Refused: the valid write ids are the metastore's TxnHandler computation over TXNS, TXN_TO_WRITE_ID
   * and the snapshot of open transactions; reading those tables directly would re-implement it.
   */
  getValidWriteIds(database: string, table: string): Promise<ValidWriteIds> {
    return Promise.reject(
      new MigrationError(
        ErrorCode.ACID_WRITE_IDS_UNAVAILABLE,
        `${database}.${table} is an insert-only ACID table: its valid write ids need the metastore's Thrift API (get_valid_write_ids); the backing-DB reader cannot answer them`,
        { database, table },
        { retryable: false },
      ),
    );
  }

  async listDatabases(): Promise<string[]> {
    const rows = await this.db.q('listDatabases', 'SELECT "NAME" FROM "DBS" WHERE "CTLG_NAME" = ?', [this.db.opts.catalog]);
    return sortNames(rows.map((r) => String(r.NAME)));
  }

  private async dbRow(name: string): Promise<Row> {
    // HMS lower-cases database and table names (normalizeIdentifier); so do lookups here.
    const rows = await this.db.q(
      'getDatabase',
      'SELECT "DB_ID", "NAME", "DESC", "DB_LOCATION_URI", "OWNER_NAME", "OWNER_TYPE" FROM "DBS" WHERE "NAME" = ? AND "CTLG_NAME" = ?',
      [name.trim().toLowerCase(), this.db.opts.catalog],
    );
    const row = rows[0];
    if (row === undefined)
      throw new MigrationError(ErrorCode.HMS_NOT_FOUND, `database '${name}' not found in the HMS backing DB`, { database: name });
    return row;
  }

  async getDatabase(name: string): Promise<HiveDatabase> {
    const row = await this.dbRow(name);
    const params = await this.db.q('getDatabase', 'SELECT "PARAM_KEY", "PARAM_VALUE" FROM "DATABASE_PARAMS" WHERE "DB_ID" = ?', [
      row.DB_ID,
    ]);
    return {
      name: String(row.NAME),
      description: str(row.DESC),
      locationUri: str(row.DB_LOCATION_URI),
      parameters: paramsOf(params),
      owner: str(row.OWNER_NAME),
      ownerType: databaseOwnerType(str(row.OWNER_TYPE)),
    };
  }

  async listTables(database: string): Promise<string[]> {
    const db = await this.dbRow(database);
    const rows = await this.db.q('listTables', 'SELECT "TBL_NAME" FROM "TBLS" WHERE "DB_ID" = ?', [db.DB_ID]);
    return sortNames(rows.map((r) => String(r.TBL_NAME)));
  }

  /** The TBLS rows of these (lower-cased) names, by name; HMS_NOT_FOUND names every missing one. */
  private async tableRows(db: Row, database: string, wanted: readonly string[]): Promise<Map<string, TableRow>> {
    const rows = await this.db.qIn(
      'getTables',
      'SELECT "TBL_ID", "SD_ID", "TBL_NAME", "TBL_TYPE", "OWNER", "OWNER_TYPE", "CREATE_TIME", "LAST_ACCESS_TIME", "RETENTION", "VIEW_ORIGINAL_TEXT", "VIEW_EXPANDED_TEXT" FROM "TBLS" WHERE "DB_ID" = ? AND "TBL_NAME" IN ({in})',
      wanted,
      [db.DB_ID],
    );
    const byName = new Map(
      rows.map((r) => [String(r.TBL_NAME), { tblId: id(r.TBL_ID), sdId: r.SD_ID == null ? null : id(r.SD_ID), row: r } satisfies TableRow]),
    );
    const missing = wanted.filter((n) => !byName.has(n));
    if (missing.length > 0) {
      throw new MigrationError(ErrorCode.HMS_NOT_FOUND, `table(s) not found in database '${database}': ${missing.join(', ')}`, {
        database,
        tables: missing,
      });
    }
    return byName;
  }

  /** Parameters, partition keys, storage descriptors and partitions of these tables, one kind after another. */
  private async tableParts(tables: readonly TableRow[]): Promise<TableParts> {
    const tblIds = tables.map((t) => t.tblId);
    const cdCache: CdCache = new Map<Id, HiveColumn[]>();
    const pg = this.session.backend === 'postgres';
    const tableParams = groupBy(
      await this.db.qIn('getTables', 'SELECT "TBL_ID", "PARAM_KEY", "PARAM_VALUE" FROM "TABLE_PARAMS" WHERE "TBL_ID" IN ({in})', tblIds),
      'TBL_ID',
    );
    const partKeys = groupBy(
      await this.db.qIn(
        'getTables',
        'SELECT "TBL_ID", "PKEY_NAME", "PKEY_TYPE", "PKEY_COMMENT", "INTEGER_IDX" FROM "PARTITION_KEYS" WHERE "TBL_ID" IN ({in})',
        tblIds,
      ),
      'TBL_ID',
    );
    const sdIds = tables.flatMap((t) => (t.sdId === null ? [] : [t.sdId]));
    const sds = pg ? await storageDescriptorsJson(this.db, sdIds, cdCache) : await storageDescriptorsByRows(this.db, sdIds);
    const partitions = pg ? await partitionsJson(this.db, tblIds, cdCache) : await partitionsByRows(this.db, tblIds);
    return { tableParams, partKeys, sds, partitions };
  }

  async getTables(database: string, names: readonly string[]): Promise<TableInventory[]> {
    const db = await this.dbRow(database);
    const wanted = names.map((n) => n.trim().toLowerCase());
    const byName = await this.tableRows(db, database, wanted);
    const parts = await this.tableParts([...byName.values()]);
    const dbName = String(db.NAME);
    return wanted.map((n) => inventoryOf(dbName, n, byName.get(n) as TableRow, parts));
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
