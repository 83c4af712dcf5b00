// A table's status in the state store as a small state machine: the forward steps apply records in
// order, where a record stands on that path, and what comes next. Pure; no I/O.
import { ErrorCode } from '../errors';
import type { TableRecord, TableStatus } from './store';

/** The forward steps of a table in the order apply records them (ops/table.ts). */
export const FORWARD_STEPS = ['pending', 'original-saved', 'written', 'registered', 'migrated'] as const satisfies readonly TableStatus[];
export type ForwardStatus = (typeof FORWARD_STEPS)[number];

/** The cutover steps after `migrated` (ops/cutover.ts): Hive writers fenced, then Iceberg declared the table. */
export const CUTOVER_STEPS = ['migrated', 'fenced', 'cutover'] as const satisfies readonly TableStatus[];
export type CutoverStatus = (typeof CUTOVER_STEPS)[number];

const ORDER: readonly TableStatus[] = [...FORWARD_STEPS, 'fenced', 'cutover'];
const rank = (s: TableStatus): number => ORDER.indexOf(s);
const MIGRATED = FORWARD_STEPS.length - 1;

/**
 * True when a record at `current` already shows forward (or cutover) step `step` (a retry after the
 * step was recorded); a fenced or cut-over table has reached every forward step. A table off the
 * path (skipped, failed, rolled back) has reached none of them.
 */
export function reached(current: TableStatus, step: ForwardStatus | CutoverStatus): boolean {
  return rank(current) >= rank(step);
}

/** The forward step after `current`; null at the end of the path or off it. */
export function nextStep(current: TableStatus): ForwardStatus | null {
  const i = rank(current);
  return i < 0 || i >= MIGRATED ? null : (FORWARD_STEPS[i + 1] ?? null);
}

/** Between saving the original and being migrated: something of ours may be half-done. */
export function inFlight(s: TableStatus): boolean {
  const i = rank(s);
  return i > 0 && i < MIGRATED;
}

/** The cutover step after `current` (`fenced` after `migrated`, `cutover` after `fenced`); null otherwise. */
export function nextCutoverStep(current: TableStatus): 'fenced' | 'cutover' | null {
  return current === 'migrated' ? 'fenced' : current === 'fenced' ? 'cutover' : null;
}

/** A table whose Iceberg side is live (migrated, fenced or cut over): what sync, validation and rollback cover. */
export function isLive(s: TableStatus): boolean {
  return rank(s) >= MIGRATED;
}

/**
 * True when a rollback of the table's wave has nothing of ours to undo: never started, rolled back,
 * skipped (views), or failed with its compensation complete (`COMPENSATION_INCOMPLETE` keeps it in).
 */
export function nothingToRollBack(t: Pick<TableRecord, 'status' | 'errorCode'>): boolean {
  return (
    t.status === 'pending' ||
    t.status === 'rolled-back' ||
    t.status === 'skipped' ||
    (t.status === 'failed' && t.errorCode !== ErrorCode.COMPENSATION_INCOMPLETE)
  );
}
