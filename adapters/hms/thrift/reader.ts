// ThriftHmsReader: the HmsReader port over the HMS Thrift API. Batched (get_table_objects_by_name_req,
// get_partition_names + get_partitions_by_names), version-probing (get_partitions_by_names_req on
// 4.x, the plain form on 3.1), sends INSERT_ONLY_TABLES client capabilities and no processor
// capabilities (HMS 4's transformer then leaves tables as stored: docs/design/hive-metastore.md §1.6), and bounds
// calls per second, connections and tables in flight (client.ts). Adapter code.
import { ErrorCode } from '../../../core/errors';
import type { HiveDatabase, HivePartition, HiveTable, HmsReader, TableInventory } from '../../../core/hive/model';
import { partitionValue, sortNames } from '../../../core/hive/normalize';
import { makePartName, parsePartName } from '../../../core/hive/partition-names';
import * as ttypes from '../../../thrift-idl/gen/hive_metastore_types';
import { HmsCaller } from './client';
import type { MethodStats, ThriftHmsOptions } from './client';
import { hmsError, isUnknownMethod } from './errors';
import { chunks, mapLimit } from './limits';
import { byName, toDatabase, toNumber, toPartition, toTable } from './mapping';
import type { ValidWriteIds } from '../../../core/hive/acid';
import { splitInvalid, validTxnListString } from '../../../core/hive/acid';

/** Without INSERT_ONLY_TABLES, HMS refuses to return insert-only tables ("Your client does not appear to support insert-only tables"). */
const CAPABILITIES = new ttypes.ClientCapabilities({ values: [ttypes.ClientCapability.INSERT_ONLY_TABLES] });

/** A Thrift binary field arrives as a Buffer (or a string on some protocol paths). */
const bytesOf = (b: Buffer | string | null | undefined): Uint8Array =>
  b === null || b === undefined ? new Uint8Array() : typeof b === 'string' ? Buffer.from(b, 'binary') : b;

/** get_partitions' max_parts is an i16. */
const MAX_I16 = 32_767;

export class ThriftHmsReader implements HmsReader {
  readonly caller: HmsCaller;

  /** Pass options to own a pool, or a caller to share one (e.g. with a ThriftHmsWriter). */
  constructor(options: ThriftHmsOptions | HmsCaller) {
    this.caller = options instanceof HmsCaller ? options : new HmsCaller(options);
  }

  async listDatabases(): Promise<string[]> {
    const dbs = await this.caller.read('get_all_databases', (c) => c.get_all_databases());
    return sortNames(dbs);
  }

  async getDatabase(name: string): Promise<HiveDatabase> {
    return toDatabase(await this.caller.read('get_database', (c) => c.get_database(name)));
  }

  /** Table names, sorted; an unknown database → HMS_NOT_FOUND (get_all_tables alone answers []). */
  async listTables(database: string): Promise<string[]> {
    const names = await this.caller.read('get_all_tables', (c) => c.get_all_tables(database));
    if (names.length === 0) await this.getDatabase(database);
    return sortNames(names);
  }

  /** The table objects alone, no partitions (HMS_NOT_FOUND names the first missing table). */
  async getTableObjects(database: string, names: readonly string[]): Promise<HiveTable[]> {
    const { tableBatchSize, concurrency } = this.caller.opts;
    const batches = await mapLimit(chunks(names, tableBatchSize), concurrency, (batch) => this.tableObjects(database, batch));
    // HMS lower-cases names; it leaves unknown names out of the answer.
    const found = new Map(batches.flat().map((t) => [t.tableName.toLowerCase(), t] as const));
    return names.map((n) => {
      const t = found.get(n.toLowerCase());
      if (t === undefined)
        throw hmsError(ErrorCode.HMS_NOT_FOUND, `table ${database}.${n} does not exist in ${this.caller.opts.uri}`, { database, table: n });
      return toTable(t);
    });
  }

  async getTables(database: string, names: readonly string[]): Promise<TableInventory[]> {
    const tables = await this.getTableObjects(database, names);
    return mapLimit(tables, this.caller.opts.concurrency, async (table) => ({
      table,
      partitions:
        table.partitionKeys.length === 0
          ? []
          : await this.partitions(
              table.database,
              table.name,
              table.partitionKeys.map((k) => k.name),
            ),
    }));
  }

  private async tableObjects(database: string, tblNames: string[]): Promise<ttypes.Table[]> {
    const req = new ttypes.GetTablesRequest({ dbName: database, tblNames, capabilities: CAPABILITIES });
    const res = await this.caller.read('get_table_objects_by_name_req', (c) => c.get_table_objects_by_name_req(req));
    return res.tables ?? [];
  }

  /**
   * All partitions of a table, sorted by name. Most tables are small: one get_partitions capped at
   * batch+1 answers them in one call (names made as HMS makes PART_NAME, Warehouse.makePartName).
   * A table with more: names first, then the objects in batches (bounded memory per call).
   */
  async partitions(database: string, table: string, keys: readonly string[]): Promise<HivePartition[]> {
    const batch = this.caller.opts.partitionBatchSize;
    if (batch < MAX_I16) {
      const first = await this.caller.read('get_partitions', (c) => c.get_partitions(database, table, batch + 1));
      if (first.length <= batch)
        return first.map((p) => toPartition(p, makePartName(keys, (p.values ?? []).map(partitionValue)))).sort(byName);
    }
    const names = await this.caller.read('get_partition_names', (c) => c.get_partition_names(database, table, -1));
    const batches = chunks(sortNames(names), this.caller.opts.partitionBatchSize);
    const out: HivePartition[] = [];
    // Sequential within a table: tables already run side by side (bounded concurrency).
    for (const batch of batches) out.push(...pair(batch, await this.partitionsByNames(database, table, batch)));
    return out.sort(byName);
  }

  /** get_partitions_by_names_req (4.x); on 3.1 (UNKNOWN_METHOD, probed once and cached) the plain form. */
  private async partitionsByNames(database: string, table: string, names: string[]): Promise<ttypes.Partition[]> {
    const features = this.caller.features;
    if (features.partitionsByNamesReq !== false) {
      try {
        const req = new ttypes.GetPartitionsByNamesRequest({ db_name: database, tbl_name: table, names, get_col_stats: false });
        const res = await this.caller.read('get_partitions_by_names_req', (c) => c.get_partitions_by_names_req(req));
        features.partitionsByNamesReq = true;
        return res.partitions ?? [];
      } catch (e) {
        if (!isUnknownMethod(e)) throw e;
        features.partitionsByNamesReq = false;
      }
    }
    return this.caller.read('get_partitions_by_names', (c) => c.get_partitions_by_names(database, table, names));
  }

  /** get_open_txns (the reader's snapshot, ValidReadTxnList form), then get_valid_write_ids for the table. */
  async getValidWriteIds(database: string, table: string): Promise<ValidWriteIds> {
    const txns = await this.caller.read('get_open_txns', (c) => c.get_open_txns());
    const txnIds = (txns.open_txns ?? []).map((v) => toNumber(v) as number);
    const txnSplit = splitInvalid(txnIds, bytesOf(txns.abortedBits));
    const validTxnList = validTxnListString(toNumber(txns.txn_high_water_mark) as number, txnSplit.open, txnSplit.aborted);
    const fullName = `${database}.${table}`.toLowerCase();
    const req = new ttypes.GetValidWriteIdsRequest({ fullTableNames: [fullName], validTxnList });
    const res = await this.caller.read('get_valid_write_ids', (c) => c.get_valid_write_ids(req));
    const t = (res.tblValidWriteIds ?? []).find((x) => x.fullTableName.toLowerCase() === fullName);
    if (t === undefined)
      throw hmsError(ErrorCode.HMS_BAD_METADATA, `get_valid_write_ids answered no entry for ${fullName}`, { database, table });
    const invalid = (t.invalidWriteIds ?? []).map((v) => toNumber(v) as number);
    const { open, aborted } = splitInvalid(invalid, bytesOf(t.abortedBits));
    return { table: fullName, highWatermark: toNumber(t.writeIdHighWaterMark) as number, open, aborted };
  }

  callStats(): Record<string, MethodStats> {
    return this.caller.callStats();
  }

  async close(): Promise<void> {
    this.caller.close();
    return Promise.resolve();
  }
}

/**
 * Give each returned partition the name HMS listed for it (the order of the answer is the backing
 * DB's, not ours): match on the unescaped values. A partition dropped between the two calls is
 * simply absent; one added is not asked for.
 */
function pair(names: readonly string[], parts: readonly ttypes.Partition[]): HivePartition[] {
  const byValues = new Map(names.map((n) => [JSON.stringify(parsePartName(n)), n] as const));
  return parts.map((p) => {
    const key = JSON.stringify((p.values ?? []).map(partitionValue));
    const name = byValues.get(key);
    if (name === undefined) {
      throw hmsError(
        ErrorCode.HMS_BAD_METADATA,
        `${p.dbName}.${p.tableName}: partition with values ${key} matches none of the names HMS listed`,
        { database: p.dbName, table: p.tableName, values: p.values },
      );
    }
    return toPartition(p, name);
  });
}
