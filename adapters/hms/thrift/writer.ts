// ThriftHmsWriter: the HMS writes later steps need (register, restore, alter), taking core/hive
// model objects. Writes are retried only when the connection could not be opened (client.ts).
// Never deletes data: drop_table and drop_database always send deleteData=false, and no method
// takes such a flag. Adapter code.
import type { HiveDatabase, HivePartition, HiveTable } from '../../../core/hive/model';
import * as ttypes from '../../../thrift-idl/gen/hive_metastore_types';
import { HmsCaller } from './client';
import type { ThriftHmsOptions } from './client';
import { fromDatabase, fromPartition, fromTable } from './mapping';
import { chunks } from './limits';

export class ThriftHmsWriter {
  readonly caller: HmsCaller;

  /** Pass options to own a pool, or a caller to share one with a ThriftHmsReader. */
  constructor(options: ThriftHmsOptions | HmsCaller) {
    this.caller = options instanceof HmsCaller ? options : new HmsCaller(options);
  }

  async createDatabase(db: HiveDatabase): Promise<void> {
    const d = fromDatabase(db);
    await this.caller.write('create_database', (c) => c.create_database(d));
  }

  /** Only an empty database (cascade=false), never its data (deleteData=false). */
  async dropDatabase(name: string): Promise<void> {
    await this.caller.write('drop_database', (c) => c.drop_database(name, false, false));
  }

  async createTable(table: HiveTable): Promise<void> {
    const t = fromTable(table);
    await this.caller.write('create_table', (c) => c.create_table(t));
  }

  /** Unregister a table; its files stay where they are (deleteData=false, always). */
  async dropTable(database: string, name: string): Promise<void> {
    await this.caller.write('drop_table', (c) => c.drop_table(database, name, false));
  }

  /**
   * Replace the table object. `environment` becomes the EnvironmentContext (e.g.
   * `{ DO_NOT_UPDATE_STATS: 'true' }` so HMS does not recompute statistics).
   */
  async alterTable(database: string, name: string, table: HiveTable, environment: Readonly<Record<string, string>> = {}): Promise<void> {
    const t = fromTable(table);
    const env = new ttypes.EnvironmentContext({ properties: { ...environment } });
    await this.caller.write('alter_table_with_environment_context', (c) => c.alter_table_with_environment_context(database, name, t, env));
  }

  /** Add partitions in batches of partitionBatchSize; returns how many HMS added. */
  async addPartitions(database: string, table: string, partitions: readonly HivePartition[]): Promise<number> {
    let added = 0;
    for (const batch of chunks(partitions, this.caller.opts.partitionBatchSize)) {
      const parts = batch.map((p) => fromPartition(database, table, p));
      added += await this.caller.write('add_partitions', (c) => c.add_partitions(parts));
    }
    return added;
  }

  /** A server configuration value (e.g. metastore.warehouse.dir), or `fallback` when unset. */
  async getConfigValue(name: string, fallback: string): Promise<string> {
    return this.caller.read('get_config_value', (c) => c.get_config_value(name, fallback));
  }

  async close(): Promise<void> {
    this.caller.close();
    return Promise.resolve();
  }
}
