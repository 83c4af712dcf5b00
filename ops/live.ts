// A table's plan entry and the table read live from HMS, checked to convert as the plan pinned it:
// the read every forward operation that saves an original starts from (ops/table.ts for the
// metadata-only path, ops/rewrite.ts for the rewrite path), each adding its own gates after it.
import { ErrorCode, MigrationError } from '../core/errors';
import type { TableInventory } from '../core/hive/model';
import { planId } from '../core/plan/ids';
import type { PlanFile } from '../core/plan/plan-file';
import { sourceChange } from '../core/plan/source-check';
import type { Ctx, TableRef } from './context';
import { withLiveWriteIds } from './gate';
import { hmsTable } from './hms-read';

export type PlanEntry = PlanFile['waves'][number]['tables'][number];

/** The table's entry in its plan (a table in no wave is refused). */
export async function planEntry(c: Ctx, ref: TableRef): Promise<PlanEntry> {
  const p = await c.plan(ref.planHash);
  const entry = p.waves.flatMap((w) => w.tables).find((t) => t.id === ref.tableId);
  if (entry === undefined)
    throw new MigrationError(
      ErrorCode.TABLE_NOT_MIGRATABLE,
      `${ref.tableId} is not in a wave of plan ${planId(ref.planHash)}`,
      { tableId: ref.tableId },
      { retryable: false },
    );
  return entry;
}

/**
 * The table read live from HMS (with `writeIds`, an insert-only ACID table with its valid write ids
 * now: the metadata-only path converts exactly its committed writes; the rewrite job reads the
 * locations itself), checked against its plan entry's pin (an unpinned version 2 entry: its
 * fingerprint): SOURCE_CHANGED naming each difference, HMS_NOT_FOUND when it was dropped.
 */
export async function pinnedLive(c: Ctx, ref: TableRef, writeIds: boolean): Promise<{ entry: PlanEntry; inv: TableInventory }> {
  const entry = await planEntry(c, ref);
  const read = await hmsTable(c.deps.hms, ref.tableId);
  const inv = read === undefined || !writeIds ? read : await withLiveWriteIds(c.deps.hms, read);
  if (inv === undefined)
    throw new MigrationError(
      ErrorCode.HMS_NOT_FOUND,
      `${ref.tableId} no longer exists in HMS (dropped after the plan was made); nothing was written`,
      { tableId: ref.tableId },
      { retryable: false },
    );
  // Pinned (version 3): the conversion must be the planned one, the partitions are taken as they are now.
  const changed = sourceChange(ref.tableId, entry, inv);
  if (changed !== null) throw changed;
  return { entry, inv };
}
