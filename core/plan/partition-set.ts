// Which partitions a table gained between plan and apply, told exactly without carrying every
// partition name in the plan. The plan records per table the number of partitions, the sha256 of
// their sorted names and the newest partition's HMS createTime. At apply the partitions created
// after that instant are the candidates; the rest must hash to the recorded digest, and when they do
// the candidates are exactly the partitions added since the plan (`exact: true`). When they do not
// (a partition dropped, or one added within the same second as the plan's newest) the record says so
// (`exact: false`) and names the partitions created after the plan's newest. Both createTimes come
// from the same metastore clock. Bounded: the first MAX_NAMES names and a count. Pure; no I/O.
import { z } from 'zod';
import type { TableInventory } from '../hive/model';
import { canonicalJson, sha256Hex } from '../hash';

/** The most partition names a validation record lists (the count is always exact). */
export const MAX_NAMES = 1000;

export const plannedPartitionsSchema = z
  .object({
    count: z.number().int().nonnegative(),
    /** sha256 of the canonical JSON of the sorted partition names. */
    namesDigest: z.string().regex(/^[0-9a-f]{64}$/),
    /** The newest partition's createTime (seconds, HMS clock); 0 with no partitions. */
    newestCreateTime: z.number().int().nonnegative(),
  })
  .strict();
export type PlannedPartitions = z.output<typeof plannedPartitionsSchema>;

/** What went into the conversion compared with the plan (recorded with the validation). */
export interface SincePlan {
  readonly partitions: {
    /** null: the plan (version 2) did not record it. */
    readonly planned: number | null;
    readonly converted: number;
    /** Partitions added since the plan: the first MAX_NAMES names (sorted) and how many. */
    readonly added: { readonly count: number; readonly names: readonly string[]; readonly exact: boolean };
  };
  readonly files: { readonly planned: number; readonly converted: number };
}

const digestOf = (names: readonly string[]): string => sha256Hex(canonicalJson([...names].sort()));

export function plannedPartitions(inv: TableInventory): PlannedPartitions {
  const newest = inv.partitions.reduce((m, p) => Math.max(m, p.createTime), 0);
  return { count: inv.partitions.length, namesDigest: digestOf(inv.partitions.map((p) => p.name)), newestCreateTime: Math.max(0, newest) };
}

/** The partitions `live` has that the plan did not see; `planned` null (a version 2 plan) → none known. */
export function addedPartitions(planned: PlannedPartitions | null, live: TableInventory): SincePlan['partitions']['added'] {
  if (planned === null) return { count: 0, names: [], exact: false };
  const newer = live.partitions.filter((p) => p.createTime > planned.newestCreateTime).map((p) => p.name);
  const older = live.partitions.filter((p) => p.createTime <= planned.newestCreateTime).map((p) => p.name);
  const exact = older.length === planned.count && digestOf(older) === planned.namesDigest;
  const names = [...newer].sort();
  return { count: names.length, names: names.slice(0, MAX_NAMES), exact };
}

/** The record of one conversion against its plan entry: partitions planned, converted and added; files. */
export function sincePlan(
  entry: { readonly files: number; readonly partitions: PlannedPartitions | null },
  live: TableInventory,
  convertedFiles: number,
): SincePlan {
  return {
    partitions: {
      planned: entry.partitions === null ? null : entry.partitions.count,
      converted: live.partitions.length,
      added: addedPartitions(entry.partitions, live),
    },
    files: { planned: entry.files, converted: convertedFiles },
  };
}
