// `inventory`: what the Hive Metastore holds — per database, tables by kind and file format, and
// partitions — read over Thrift or straight from the backing database (app/runtime/runtime.ts).
import type { MigrateConfig } from '../../core/config/schema';
import { detectFormat } from '../../core/hive/formats';
import type { TableInventory } from '../../core/hive/model';
import { TableType } from '../../core/hive/model';
import type { HmsReader } from '../../core/hive/model';
import type { MethodStats } from '../../adapters/hms/thrift/client';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import type { HmsSource } from '../runtime/runtime';
import { openWarehouseReader } from '../runtime/runtime';
import type { WalkProgress } from './walk';
import { walkWarehouse } from './walk';

export type InventorySource = HmsSource;

export interface Counts {
  tables: number;
  partitions: number;
  /** Table type (MANAGED_TABLE, EXTERNAL_TABLE, VIRTUAL_VIEW, …) → count. */
  byKind: Record<string, number>;
  /** File format of tables that hold data (views excluded) → count. */
  byFormat: Record<string, number>;
}

export interface DatabaseCounts extends Counts {
  readonly name: string;
}

/** Calls per Thrift method with latencies (the Thrift reader's own statistics). */
export type CallStats = Record<string, MethodStats>;

export interface InventoryReport {
  readonly source: InventorySource;
  readonly endpoint: string;
  readonly elapsedMs: number;
  readonly databases: DatabaseCounts[];
  readonly totals: Counts;
  /** Thrift only: calls per method with latencies. */
  readonly calls?: CallStats;
}

export type Progress = WalkProgress;

const emptyCounts = (): Counts => ({ tables: 0, partitions: 0, byKind: {}, byFormat: {} });
const bump = (m: Record<string, number>, k: string, n = 1): void => void (m[k] = (m[k] ?? 0) + n);

function add(into: Counts, t: TableInventory): void {
  into.tables += 1;
  into.partitions += t.partitions.length;
  bump(into.byKind, t.table.tableType);
  const view = t.table.tableType === TableType.VIRTUAL_VIEW;
  if (!view) bump(into.byFormat, detectFormat(t.table.sd, t.table.parameters));
}

function merge(into: Counts, c: Counts): void {
  into.tables += c.tables;
  into.partitions += c.partitions;
  for (const [k, n] of Object.entries(c.byKind)) bump(into.byKind, k, n);
  for (const [k, n] of Object.entries(c.byFormat)) bump(into.byFormat, k, n);
}

/** Count everything `reader` sees in `only` (or every database). Unknown names → HMS_NOT_FOUND. */
export async function runInventory(
  reader: HmsReader,
  only: readonly string[],
  progress?: Progress,
): Promise<{ databases: DatabaseCounts[]; totals: Counts }> {
  const perDb = new Map<string, Counts>();
  const walked = await walkWarehouse(
    reader,
    only,
    (db, tables) => {
      const counts = perDb.get(db) ?? emptyCounts();
      perDb.set(db, counts);
      for (const t of tables) add(counts, t);
    },
    progress,
    false,
  );
  const totals = emptyCounts();
  const databases = walked.databases.map((name): DatabaseCounts => ({ name, ...(perDb.get(name) ?? emptyCounts()) }));
  for (const d of databases) merge(totals, d);
  return { databases, totals };
}

/** The inventory of the configured HMS through `source`. */
export async function inventory(
  cfg: MigrateConfig,
  o: { source: InventorySource; databases: readonly string[]; callsPerSecond: number },
  progress?: Progress,
): Promise<InventoryReport> {
  const t0 = performance.now();
  const { reader, endpoint } = await openWarehouseReader(cfg, { source: o.source, callsPerSecond: o.callsPerSecond });
  try {
    const r = await runInventory(reader, o.databases, progress);
    const calls = reader instanceof ThriftHmsReader ? reader.callStats() : undefined;
    return { source: o.source, endpoint, elapsedMs: Math.round(performance.now() - t0), ...r, ...(calls ? { calls } : {}) };
  } finally {
    await reader.close();
  }
}
