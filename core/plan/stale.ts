// Apply's pre-check of a whole plan before any workflow starts (as a saved Terraform plan is refused
// when the state moved under it): per table, is it still in HMS, does it still convert as planned
// (its pin or fingerprint: core/plan/source-check.ts), and is its target name still free in the
// catalog. The reads are app/apply/stale.ts; the verdict and the PLAN_STALE error are here. Pure; no I/O.
import { ErrorCode, MigrationError } from '../errors';
import type { TableInventory } from '../hive/model';
import type { PlannedSource } from './source-check';
import { sourceChange } from './source-check';

export type StaleReason = 'dropped' | 'changed' | 'target-taken';

export interface StaleTable {
  readonly tableId: string;
  readonly reason: StaleReason;
  /** What changed, in one line (the SOURCE_CHANGED message, or the catalog entry that holds the name). */
  readonly detail: string;
}

/** The most tables the message lists (the context carries them all). */
const MAX_LISTED = 25;

/**
 * What makes one planned table stale: gone from HMS, changed in a way that changes its conversion,
 * or its target name already taken in the catalog (`takenBy`: the entry, e.g. `ns.table`; null when free).
 */
export function staleOf(tableId: string, planned: PlannedSource, live: TableInventory | undefined, takenBy: string | null): StaleTable[] {
  const out: StaleTable[] = [];
  if (live === undefined) out.push({ tableId, reason: 'dropped', detail: `${tableId} no longer exists in HMS` });
  else {
    const changed = sourceChange(tableId, planned, live);
    if (changed !== null) out.push({ tableId, reason: 'changed', detail: changed.message });
  }
  if (takenBy !== null)
    out.push({
      tableId,
      reason: 'target-taken',
      detail: `the target ${takenBy} is already registered in the catalog (by another plan or another tool, after this plan was made)`,
    });
  return out;
}

/** The PLAN_STALE refusal naming every stale table and what changed (exit 2: nothing was started). */
export function planStaleError(planId: string, stale: readonly StaleTable[], checked: number): MigrationError {
  const tables = new Set(stale.map((s) => s.tableId)).size;
  const listed = stale
    .slice(0, MAX_LISTED)
    .map((s) => `  ${s.tableId}: ${s.reason}: ${s.detail}`)
    .join('\n');
  const more = stale.length > MAX_LISTED ? `\n  … and ${stale.length - MAX_LISTED} more (--json lists them all)` : '';
  return new MigrationError(
    ErrorCode.PLAN_STALE,
    `plan ${planId} is stale: ${tables} of its ${checked} table(s) changed since it was made; nothing was started:\n${listed}${more}`,
    { plan: planId, checked, stale: stale.map((s) => ({ ...s })) },
    { retryable: false },
  );
}

/** Every stale finding counted per reason (the --accept-stale warning and the JSON summary). */
export function staleCounts(stale: readonly StaleTable[]): Record<StaleReason, number> {
  const n: Record<StaleReason, number> = { dropped: 0, changed: 0, 'target-taken': 0 };
  for (const s of stale) n[s.reason]++;
  return n;
}
