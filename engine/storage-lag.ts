// `migrate status --lag --list-storage`: how far a migrated table is behind Hive, exactly — every
// location of the live table listed as a sync lists it (engine/sync-read.ts listHive) and compared
// with the files of the table's current snapshot (readCurrent): the files a sync would add and
// remove. Reads only; HMS tells only which partitions exist, so without this listing a file added to
// an existing partition stays invisible whenever its writer leaves the partition's statistics as
// they were.
import { conversionFor, targetOf } from '../core/convert/plan-conversion';
import type { TableInventory } from '../core/hive/model';
import type { PlanFile } from '../core/plan/plan-file';
import { diffFiles } from '../core/sync/diff';
import type { StorageLag } from '../core/sync/lag';
import { listHive, readCurrent } from './sync-read';
import type { StorageLagDeps } from '../core/engine-port/sync';

/** The files a sync of `tableId` (of `plan`, Hive as `live` is now) would add and remove. */
export async function storageLag(d: StorageLagDeps, plan: PlanFile, tableId: string, live: TableInventory): Promise<StorageLag> {
  const prepared = conversionFor(plan, tableId, live, d.namespacePrefix, d.toolVersion);
  const current = await readCurrent(d.store, d.catalog, targetOf(tableId, d.namespacePrefix), prepared);
  const diff = diffFiles(prepared.source, current.files, await listHive(d.store, prepared));
  return { filesAdded: diff.added.length, filesRemoved: diff.removed.length };
}
