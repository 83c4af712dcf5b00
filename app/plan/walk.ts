// One walk over the warehouse for inventory, assess and plan: every database asked for (or all),
// its tables listed, then read with partitions in chunks (bounded memory, one progress step per
// chunk). A database dropped since it was listed is skipped (one the user named is an error), and a
// table dropped between listing and reading is left out: a live HMS changes under us.
import { ErrorCode, MigrationError } from '../../core/errors';
import { isInsertOnly } from '../../core/hive/acid';
import type { HmsReader, TableInventory } from '../../core/hive/model';

/** Tables per getTables call: bounds memory (a chunk's partitions) and paces progress. */
export const TABLE_CHUNK = 200;

export interface WalkProgress {
  update(done: number, total: number, label: string): void;
  end(): void;
}

const isNotFound = (e: unknown): e is MigrationError => e instanceof MigrationError && e.code === ErrorCode.HMS_NOT_FOUND;

/**
 * An insert-only ACID table with its valid write ids (the plan converts its committed writes only);
 * a reader that cannot answer them (the backing DB: ACID_WRITE_IDS_UNAVAILABLE) leaves them unset and
 * the assessment says so (INSERT_ONLY_TABLE, rewrite-required).
 */
export async function withWriteIds(reader: HmsReader, inv: TableInventory): Promise<TableInventory> {
  if (!isInsertOnly(inv.table.parameters)) return inv;
  try {
    return { ...inv, writeIds: await reader.getValidWriteIds(inv.table.database, inv.table.name) };
  } catch (e) {
    if (e instanceof MigrationError && e.code === ErrorCode.ACID_WRITE_IDS_UNAVAILABLE) return inv;
    throw e;
  }
}

/** getTables, leaving out tables dropped since they were listed. */
async function tablesStillThere(reader: HmsReader, db: string, names: readonly string[], writeIds: boolean): Promise<TableInventory[]> {
  let left = [...names];
  for (;;) {
    try {
      const tables = await reader.getTables(db, left);
      if (!writeIds) return tables;
      const out: TableInventory[] = [];
      for (const t of tables) out.push(await withWriteIds(reader, t));
      return out;
    } catch (e) {
      // The Thrift reader names one missing table (context.table), the DB reader all (context.tables).
      const ctx = isNotFound(e) ? e.context : {};
      const gone = [ctx.table, ...(Array.isArray(ctx.tables) ? ctx.tables : [])].filter(
        (n): n is string => typeof n === 'string' && left.includes(n),
      );
      if (gone.length === 0) throw e;
      left = left.filter((n) => !gone.includes(n));
    }
  }
}

/** Visit every table of `only` (or all databases), database by database, a chunk at a time. */
export async function walkWarehouse(
  reader: HmsReader,
  only: readonly string[],
  visit: (db: string, tables: readonly TableInventory[]) => void,
  progress?: WalkProgress,
  /** Read insert-only tables' valid write ids (plan, assess); the inventory's counts need none. */
  writeIds = true,
): Promise<{ databases: readonly string[] }> {
  // The databases walked, in order (the empty ones too): the inventory reports each.
  const names = only.length > 0 ? [...new Set(only)] : await reader.listDatabases();
  const listed: { db: string; tables: string[] }[] = [];
  for (const db of names) {
    const tables = await reader.listTables(db).catch((e: unknown) => (only.length === 0 && isNotFound(e) ? undefined : Promise.reject(e)));
    if (tables !== undefined) listed.push({ db, tables });
  }
  const total = listed.reduce((n, p) => n + p.tables.length, 0);
  let done = 0;
  try {
    for (const { db, tables } of listed) {
      for (let i = 0; i < tables.length; i += TABLE_CHUNK) {
        const chunk = tables.slice(i, i + TABLE_CHUNK);
        visit(db, await tablesStillThere(reader, db, chunk, writeIds));
        done += chunk.length;
        progress?.update(done, total, db);
      }
    }
  } finally {
    progress?.end();
  }
  return { databases: listed.map((l) => l.db) };
}

/** Every table (with partitions) of `only` (or all databases). */
export async function readWarehouse(reader: HmsReader, only: readonly string[], progress?: WalkProgress): Promise<TableInventory[]> {
  const out: TableInventory[] = [];
  await walkWarehouse(reader, only, (_db, tables) => void out.push(...tables), progress);
  return out;
}
