// Apply's stale-plan pre-check, before any workflow starts: every table of the plan that holds
// nothing of this plan yet is read from HMS (the backing DB when configured: batched SQL) and its
// target name looked up in the catalog (one listing per target namespace); the verdict per table
// is core/plan/stale.ts. Reads are batched per database and bounded in parallel (plans have
// thousands of tables).
import { chunks, mapLimit } from '../../adapters/hms/thrift/limits';
import type { IcebergCatalog } from '../../core/catalog/catalog';
import { formatTableIdent } from '../../core/catalog/catalog';
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, MigrationError } from '../../core/errors';
import { dbOf, nameOf, targetOf } from '../../core/convert/plan-conversion';
import type { HmsReader, TableInventory } from '../../core/hive/model';
import { TableType } from '../../core/hive/model';
import type { PlanFile } from '../../core/plan/plan-file';
import type { StaleTable } from '../../core/plan/stale';
import { staleOf } from '../../core/plan/stale';
import { nothingToRollBack } from '../../core/state/status';
import type { StateStore } from '../../core/state/store';
import { openCatalog, openWarehouseReader } from '../runtime/runtime';
import { withLiveWriteIds } from '../../ops/gate';

/** Tables per HMS read (one getTables call) and reads in flight at once. */
const BATCH = 200;
const PARALLEL = 4;

export interface StaleCheck {
  /** Tables checked (those of the plan that hold nothing of this plan yet). */
  readonly checked: number;
  readonly stale: readonly StaleTable[];
  readonly ms: number;
}

type Entry = PlanFile['waves'][number]['tables'][number];

const isView = (t: TableInventory): boolean =>
  t.table.tableType === TableType.VIRTUAL_VIEW || t.table.tableType === TableType.MATERIALIZED_VIEW;

const notFound = (e: unknown): boolean => e instanceof MigrationError && e.code === ErrorCode.HMS_NOT_FOUND;

/**
 * One batch of a database's tables. A reader that refuses the whole batch when one table (or the
 * database) is gone (Thrift: HMS_NOT_FOUND) is asked table by table, a missing one left out.
 */
async function readBatch(hms: HmsReader, db: string, names: readonly string[]): Promise<TableInventory[]> {
  try {
    return await hms.getTables(db, names);
  } catch (e) {
    if (!notFound(e) || names.length === 1) {
      if (notFound(e)) return [];
      throw e;
    }
    const one = await mapLimit(names, PARALLEL, (n) => readBatch(hms, db, [n]));
    return one.flat();
  }
}

/** Every table of `entries` as HMS has it now, by id; a dropped table is absent. */
async function readLive(hms: HmsReader, entries: readonly Entry[]): Promise<Map<string, TableInventory>> {
  const byDb = new Map<string, string[]>();
  for (const e of entries) byDb.set(dbOf(e.id), [...(byDb.get(dbOf(e.id)) ?? []), nameOf(e.id)]);
  const reads = [...byDb].flatMap(([db, names]) => chunks(names, BATCH).map((part) => [db, part] as const));
  const got = await mapLimit(reads, PARALLEL, ([db, part]) => readBatch(hms, db, part));
  // As apply's own gate reads a table (ops/gate.ts): an insert-only table with its live write
  // ids, which decide whether its metadata can be converted in place (INSERT_ONLY_METADATA) — without
  // them every insert-only table would look changed (rewrite-required).
  const read = await mapLimit(got.flat(), PARALLEL, (inv) => withLiveWriteIds(hms, inv));
  const live = new Map<string, TableInventory>();
  for (const inv of read) live.set(`${inv.table.database}.${inv.table.name}`.toLowerCase(), inv);
  return live;
}

/** The formatted target identifiers that are already taken in the catalog (one listing per target namespace). */
async function takenTargets(catalog: IcebergCatalog, ids: readonly string[], prefix: string): Promise<Set<string>> {
  const namespaces = new Map<string, readonly string[]>();
  for (const id of ids) {
    const t = targetOf(id, prefix);
    namespaces.set(t.namespace.join('.'), t.namespace);
  }
  const listed = await mapLimit([...namespaces.values()], PARALLEL, async (ns) =>
    (await catalog.namespaceExists(ns)) ? catalog.listTables(ns) : [],
  );
  return new Set(listed.flat().map((t) => formatTableIdent({ namespace: t.namespace, name: t.name.toLowerCase() })));
}

/**
 * The stale tables of `plan`. A table whose record in this plan holds something of ours (in flight,
 * migrated, cut over, or a failed undo) is not checked: its catalog entry is this plan's own.
 */
export async function checkStale(config: MigrateConfig, state: StateStore, plan: PlanFile): Promise<StaleCheck> {
  const t0 = Date.now();
  const ours = new Set((await state.listTableSummaries(plan.hash)).filter((r) => !nothingToRollBack(r)).map((r) => r.tableId));
  const entries = plan.waves.flatMap((w) => w.tables).filter((e) => !ours.has(e.id));
  if (entries.length === 0) return { checked: 0, stale: [], ms: Date.now() - t0 };
  const prefix = plan.target?.namespacePrefix ?? config.catalog?.namespacePrefix ?? '';
  const { reader } = await openWarehouseReader(config);
  let live: Map<string, TableInventory>;
  try {
    live = await readLive(reader, entries);
  } finally {
    await reader.close();
  }
  const catalog = await openCatalog(config);
  let taken: Set<string>;
  try {
    taken = await takenTargets(
      catalog,
      entries.map((e) => e.id),
      prefix,
    );
  } finally {
    await catalog.close?.();
  }
  const stale = entries.flatMap((e) => {
    const inv = live.get(e.id);
    const target = formatTableIdent(targetOf(e.id, prefix));
    const takenBy = inv !== undefined && isView(inv) ? null : taken.has(target) ? target : null;
    return staleOf(e.id, e, inv, takenBy);
  });
  return { checked: entries.length, stale, ms: Date.now() - t0 };
}
