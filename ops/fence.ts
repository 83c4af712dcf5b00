// The Hive side of cutover in register mode: fence — the table made EXTERNAL and
// marked (so HMS's rename moves no directory), then renamed to its fenced name (core/cutover/fence.ts),
// the table's and partitions' locations checked unchanged — and its inverse, unfence. Each call reads
// where the table stands first (open, marked, fenced), so a step killed halfway resumes where it
// stopped, and one already done does nothing. Data files are never touched.
import { fencePosition, fencedName, locationChanges, markedForFence, renamedForFence, unfencedForm } from '../core/cutover/fence';
import type { FencePosition } from '../core/cutover/fence';
import { dbOf, nameOf } from '../core/convert/plan-conversion';
import { ErrorCode, MigrationError } from '../core/errors';
import type { HmsTableWriter, TableInventory } from '../core/hive/model';
import type { Ctx } from './context';

/** HMS asked not to recompute statistics when we alter (the table's stats stay as Hive wrote them). */
const NO_STATS = { DO_NOT_UPDATE_STATS: 'true' } as const;

export interface FenceSide {
  readonly byName: TableInventory | undefined;
  readonly byFencedName: TableInventory | undefined;
  readonly position: FencePosition;
}

/** One table with its partitions, or undefined when HMS does not have it. */
async function readTable(c: Ctx, db: string, name: string): Promise<TableInventory | undefined> {
  try {
    const [t] = await c.deps.hms.getTables(db, [name]);
    return t;
  } catch (e) {
    if (e instanceof MigrationError && e.code === ErrorCode.HMS_NOT_FOUND) return undefined;
    throw e;
  }
}

/** What HMS holds under the table's name and its fenced name, and where that puts the fence. */
export async function fenceSide(c: Ctx, tableId: string): Promise<FenceSide> {
  const db = dbOf(tableId);
  const byName = await readTable(c, db, nameOf(tableId));
  const byFencedName = await readTable(c, db, fencedName(nameOf(tableId)));
  return { byName, byFencedName, position: fencePosition(tableId, byName?.table, byFencedName?.table) };
}

function writerOf(c: Ctx): HmsTableWriter {
  const w = c.deps.hmsWriter;
  if (w === undefined)
    throw new MigrationError(
      ErrorCode.INTERNAL,
      'this worker has no HMS writer (ActivityDeps.hmsWriter): it cannot fence or unfence a Hive table',
      {},
      { retryable: false },
    );
  return w;
}

function refuse(tableId: string, side: FenceSide, doing: string): MigrationError {
  const db = dbOf(tableId);
  const names = `${db}.${nameOf(tableId)} ${side.byName === undefined ? 'absent' : 'present'}, ${db}.${fencedName(nameOf(tableId))} ${side.byFencedName === undefined ? 'absent' : 'present'}`;
  if (side.position === 'missing')
    return new MigrationError(
      ErrorCode.HMS_NOT_FOUND,
      `${tableId}: cannot ${doing}: HMS has neither name (${names})`,
      { tableId },
      { retryable: false },
    );
  return new MigrationError(
    ErrorCode.CUTOVER_FENCE_CONFLICT,
    `${tableId}: cannot ${doing}: ${names}${side.byFencedName !== undefined && side.position === 'conflict' && side.byName === undefined ? ' (the fenced name holds a table this tool did not fence)' : ''}; nothing was changed`,
    { tableId, position: side.position },
    { retryable: false },
  );
}

function assertUnmoved(tableId: string, before: TableInventory, after: TableInventory | undefined, doing: string): void {
  const changes = after === undefined ? ['the table is gone'] : locationChanges(before, after);
  if (changes.length > 0)
    throw new MigrationError(
      ErrorCode.CUTOVER_FENCE_CONFLICT,
      `${tableId}: after ${doing}: ${changes.slice(0, 5).join('; ')}${changes.length > 5 ? ` (+${changes.length - 5})` : ''}`,
      { tableId, changes: changes.slice(0, 100) },
      { retryable: false },
    );
}

/**
 * Fence the Hive table of `tableId`: mark it (EXTERNAL, what it was in parameters), rename it to its
 * fenced name, check nothing moved. Returns the fenced table as HMS now has it and what was done.
 */
export async function fenceHiveTable(c: Ctx, tableId: string): Promise<{ fenced: TableInventory; steps: string[] }> {
  const db = dbOf(tableId);
  const name = nameOf(tableId);
  let side = await fenceSide(c, tableId);
  const steps: string[] = [];
  if (side.position === 'conflict' || side.position === 'missing') throw refuse(tableId, side, 'fence it');
  if (side.position === 'open') {
    await writerOf(c).alterTable(db, name, markedForFence((side.byName as TableInventory).table, tableId), NO_STATS);
    steps.push('marked');
    c.failpoint('cutover-after-mark', tableId);
    side = await fenceSide(c, tableId);
  }
  if (side.position === 'marked') {
    const before = side.byName as TableInventory;
    // EXTERNAL now, so HMS renames the entry only: no directory moves (HiveAlterHandler moves managed tables' data).
    await writerOf(c).alterTable(db, name, renamedForFence(before.table), NO_STATS);
    steps.push('renamed');
    c.failpoint('cutover-after-rename', tableId);
    side = await fenceSide(c, tableId);
    assertUnmoved(tableId, before, side.byFencedName, 'the rename');
  }
  if (side.position !== 'fenced') throw refuse(tableId, side, 'fence it');
  return { fenced: side.byFencedName as TableInventory, steps };
}

/** Put the fenced Hive table back under its name, as it was (table type and EXTERNAL restored, markers gone); nothing to do when it is there already. */
export async function unfenceHiveTable(c: Ctx, tableId: string): Promise<{ restored: TableInventory; steps: string[] }> {
  const db = dbOf(tableId);
  const name = nameOf(tableId);
  let side = await fenceSide(c, tableId);
  const steps: string[] = [];
  if (side.position === 'conflict' || side.position === 'missing') throw refuse(tableId, side, 'unfence it');
  if (side.position === 'fenced') {
    const before = side.byFencedName as TableInventory;
    // The fenced table is EXTERNAL, so the rename back moves nothing; the saved type returns with it.
    await writerOf(c).alterTable(db, fencedName(name), unfencedForm(before.table, name), NO_STATS);
    steps.push('renamed-back');
    side = await fenceSide(c, tableId);
    assertUnmoved(tableId, before, side.byName, 'the rename back');
  } else if (side.position === 'marked') {
    await writerOf(c).alterTable(db, name, unfencedForm((side.byName as TableInventory).table, name), NO_STATS);
    steps.push('unmarked');
    side = await fenceSide(c, tableId);
  }
  if (side.position !== 'open') throw refuse(tableId, side, 'unfence it');
  return { restored: side.byName as TableInventory, steps };
}
