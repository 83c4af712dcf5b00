// The cutover fence of a register-mode table, pure: the deterministic name the
// Hive table is moved aside to, the fenced form of the Hive object (EXTERNAL, so HMS's rename moves
// no directory, with markers that say what it was) and the way back from it. After the rename a
// writer using the old name — add_partition(s), INSERT, ALTER — gets "table not found". No I/O;
// the HMS calls are ops/cutover.ts over the HmsTableWriter port.
import type { HiveTable, TableInventory } from '../hive/model';
import { sha256Hex } from '../hash';

export const FENCED_SUFFIX = '__him_fenced';
/** Hive's identifier limit (HMS 3 and 4 store 256, Hive's parser and many tools stop at 128): the fenced name stays within it. */
export const MAX_HIVE_NAME = 128;

/** Markers on the fenced object: whose it is and what its table type and EXTERNAL parameter were. */
export const FENCE_MARK = {
  of: 'him.fenced.of',
  tableType: 'him.fenced.table-type',
  external: 'him.fenced.external',
} as const;
/** The EXTERNAL parameter was absent on the original. */
const UNSET = '<unset>';

/**
 * `<name>__him_fenced`, lower-cased as HMS stores names; a name too long for that keeps a prefix
 * and an 8-hex digest of the whole name, so two long names never share a fenced name.
 */
export function fencedName(name: string): string {
  const n = name.toLowerCase();
  if (n.length + FENCED_SUFFIX.length <= MAX_HIVE_NAME) return `${n}${FENCED_SUFFIX}`;
  const digest = sha256Hex(n).slice(0, 8);
  return `${n.slice(0, MAX_HIVE_NAME - FENCED_SUFFIX.length - digest.length - 1)}_${digest}${FENCED_SUFFIX}`;
}

/** The table fenced by this tool for `tableId` (db.name)? */
export const isFencedFor = (t: HiveTable, tableId: string): boolean => t.parameters[FENCE_MARK.of] === tableId.toLowerCase();

/**
 * Step 1 of the fence, under the table's own name: made EXTERNAL (so the rename of step 2 moves no
 * directory, and nothing can drop its files) and marked with what it was. Already marked: as is.
 */
export function markedForFence(live: HiveTable, tableId: string): HiveTable {
  if (isFencedFor(live, tableId)) return live;
  return {
    ...live,
    tableType: 'EXTERNAL_TABLE',
    parameters: {
      ...live.parameters,
      EXTERNAL: 'TRUE',
      [FENCE_MARK.of]: tableId.toLowerCase(),
      [FENCE_MARK.tableType]: live.tableType,
      [FENCE_MARK.external]: live.parameters.EXTERNAL ?? UNSET,
    },
  };
}

/** Step 2: the marked object under the fenced name. */
export const renamedForFence = (marked: HiveTable): HiveTable => ({ ...marked, name: fencedName(marked.name) });

/**
 * The fenced (or only marked) object seen as the table it was: its name, table type and EXTERNAL
 * parameter back, the markers gone — what unfencing writes back, and what the final sync and the
 * state record see as the Hive table.
 */
export function unfencedForm(fenced: HiveTable, name: string): HiveTable {
  const p = { ...fenced.parameters };
  const tableType = p[FENCE_MARK.tableType] ?? fenced.tableType;
  const external = p[FENCE_MARK.external];
  delete p[FENCE_MARK.of];
  delete p[FENCE_MARK.tableType];
  delete p[FENCE_MARK.external];
  if (external === UNSET) delete p.EXTERNAL;
  else if (external !== undefined) p.EXTERNAL = external;
  return { ...fenced, name, tableType, parameters: p };
}

export const unfencedInventory = (fenced: TableInventory, name: string): TableInventory => ({
  ...fenced,
  table: unfencedForm(fenced.table, name),
});

/**
 * What a rename must not change: the table's location and each partition's. Returns the
 * differences (empty when none) between `before` and `after`, over the partitions of `before`.
 */
export function locationChanges(before: TableInventory, after: TableInventory): string[] {
  const out: string[] = [];
  if (before.table.sd.location !== after.table.sd.location)
    out.push(`table location ${String(before.table.sd.location)} → ${String(after.table.sd.location)}`);
  const now = new Map(after.partitions.map((p) => [p.name, p.sd.location]));
  for (const p of before.partitions) {
    const loc = now.get(p.name);
    if (loc === undefined) out.push(`partition ${p.name} missing`);
    else if (loc !== p.sd.location) out.push(`partition ${p.name} location ${String(p.sd.location)} → ${String(loc)}`);
  }
  return out;
}

/** Where a table stands on the fence, from what HMS holds under its name and under the fenced name. */
export type FencePosition = 'open' | 'marked' | 'fenced' | 'conflict' | 'missing';

export function fencePosition(tableId: string, byName: HiveTable | undefined, byFencedName: HiveTable | undefined): FencePosition {
  if (byFencedName !== undefined && !isFencedFor(byFencedName, tableId)) return 'conflict';
  if (byName !== undefined && byFencedName !== undefined) return 'conflict';
  if (byFencedName !== undefined) return 'fenced';
  if (byName === undefined) return 'missing';
  return isFencedFor(byName, tableId) ? 'marked' : 'open';
}
