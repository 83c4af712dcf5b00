// Plan diff for `migrate plan --diff old.json new.json`: tables added, removed, moved between
// waves, and class or fingerprint changes. Pure; no I/O; every list sorted by table id.
import type { PlanFile } from './plan-file';
import type { NotPlannedReason, TableId } from './types';
import type { TableClass } from '../assess/types';
import { compareIds } from './compare-ids';

type PlanLike = Pick<PlanFile, 'waves' | 'notPlanned'>;

export interface PlanDiff {
  readonly added: readonly { readonly id: TableId; readonly wave: number }[];
  /** `reason` is why the new plan does not plan it, or null when the table is gone from the inventory. */
  readonly removed: readonly { readonly id: TableId; readonly wave: number; readonly reason: NotPlannedReason | null }[];
  readonly moved: readonly { readonly id: TableId; readonly from: number; readonly to: number }[];
  readonly classChanged: readonly { readonly id: TableId; readonly from: TableClass; readonly to: TableClass }[];
  /** HMS changed under the table between the two plans. */
  readonly fingerprintChanged: readonly TableId[];
}

interface Placed {
  readonly wave: number;
  readonly class: TableClass;
  readonly fingerprint: string;
}

function placements(plan: PlanLike): Map<TableId, Placed> {
  const out = new Map<TableId, Placed>();
  for (const w of plan.waves) for (const t of w.tables) out.set(t.id, { wave: w.number, class: t.class, fingerprint: t.fingerprint });
  return out;
}

export function diffPlans(before: PlanLike, after: PlanLike): PlanDiff {
  const a = placements(before);
  const b = placements(after);
  const reasons = new Map(after.notPlanned.map((n) => [n.id, n.reason]));
  const ids = [...new Set([...a.keys(), ...b.keys()])].sort(compareIds);
  const diff = { added: [], removed: [], moved: [], classChanged: [], fingerprintChanged: [] } as {
    -readonly [K in keyof PlanDiff]: PlanDiff[K] extends readonly (infer E)[] ? E[] : never;
  };
  for (const id of ids) {
    const old = a.get(id);
    const now = b.get(id);
    if (old === undefined) diff.added.push({ id, wave: now!.wave });
    else if (now === undefined) diff.removed.push({ id, wave: old.wave, reason: reasons.get(id) ?? null });
    else {
      if (old.wave !== now.wave) diff.moved.push({ id, from: old.wave, to: now.wave });
      if (old.class !== now.class) diff.classChanged.push({ id, from: old.class, to: now.class });
      if (old.fingerprint !== now.fingerprint) diff.fingerprintChanged.push(id);
    }
  }
  return diff;
}

/** True when the two plans place the same tables in the same waves with the same classes and fingerprints. */
export function isEmptyDiff(d: PlanDiff): boolean {
  return d.added.length + d.removed.length + d.moved.length + d.classChanged.length + d.fingerprintChanged.length === 0;
}
