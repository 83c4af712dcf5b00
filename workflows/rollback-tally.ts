// The results of one wave's rollback across its runs (continue-as-new): every outcome counted, and
// the tables rolled back, refused and put back listed up to a character budget per list, so the input
// a run carries to the next and the final result stay far under Temporal's payload limit (2 MB,
// docs/design/temporal-rules.md §2 (g)) whatever the wave's size. Deterministic; types only from outside.
import type { PutBackOutcome } from '../activities/index';

export interface Refusal {
  readonly tableId: string;
  readonly code: string;
  readonly message: string;
}

export type PutBackEntry = { readonly tableId: string } & PutBackOutcome;

/** Outcomes counted but not listed, once their list reached its budget. */
export interface NotListed {
  readonly rolledBack: number;
  /** Refusals left out, by code. */
  readonly refused: Readonly<Record<string, number>>;
  readonly putBack: number;
}

/** Characters of JSON each list holds at most: together ~1.5 MB, the rest of the result is small. */
export const LIST_BUDGET = { rolledBack: 1_000_000, refused: 250_000, putBack: 250_000 } as const;

type ListName = keyof typeof LIST_BUDGET;

/** What runs carry to each other and the last one returns (plain JSON: it travels as workflow input). */
export interface RollbackTally {
  readonly rolledBack: string[];
  readonly refused: Refusal[];
  readonly putBack: PutBackEntry[];
  readonly counts: Record<ListName, number>;
  /** Characters listed so far per list. */
  readonly chars: Record<ListName, number>;
  readonly notListed: { rolledBack: number; refused: Record<string, number>; putBack: number };
}

export function emptyTally(): RollbackTally {
  return {
    rolledBack: [],
    refused: [],
    putBack: [],
    counts: { rolledBack: 0, refused: 0, putBack: 0 },
    chars: { rolledBack: 0, refused: 0, putBack: 0 },
    notListed: { rolledBack: 0, refused: {}, putBack: 0 },
  };
}

/** Whether an entry of `size` characters still fits its list; counts it either way. */
function admit(t: RollbackTally, list: ListName, size: number): boolean {
  t.counts[list] += 1;
  if (t.chars[list] + size > LIST_BUDGET[list]) return false;
  t.chars[list] += size;
  return true;
}

export function addRolledBack(t: RollbackTally, tableId: string): void {
  if (admit(t, 'rolledBack', JSON.stringify(tableId).length + 1)) t.rolledBack.push(tableId);
  else t.notListed.rolledBack += 1;
}

export function addRefused(t: RollbackTally, r: Refusal): void {
  if (admit(t, 'refused', JSON.stringify(r).length + 1)) t.refused.push(r);
  else t.notListed.refused[r.code] = (t.notListed.refused[r.code] ?? 0) + 1;
}

export function addPutBack(t: RollbackTally, p: PutBackEntry): void {
  if (admit(t, 'putBack', JSON.stringify(p).length + 1)) t.putBack.push(p);
  else t.notListed.putBack += 1;
}

/** The outcomes left out of the lists, or undefined when every one is listed. */
export function notListedOf(t: RollbackTally): NotListed | undefined {
  const n = t.notListed;
  return n.rolledBack + n.putBack + Object.keys(n.refused).length === 0 ? undefined : n;
}
