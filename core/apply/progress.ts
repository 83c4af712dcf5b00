// What `apply --wait` prints while a plan runs: the events between two snapshots of it (the plan
// workflow's status query and the state store's table records). Pure; the caller polls
// (app/apply/progress.ts) and renders (cli/commands/apply.ts).
import type { TableStatus } from '../state/store';

/** Statuses after which apply does nothing more to a table (rollback and cutover are other commands). */
export const TERMINAL: ReadonlySet<TableStatus> = new Set<TableStatus>(['migrated', 'skipped', 'failed', 'view-created']);

export interface ProgressTable {
  readonly tableId: string;
  readonly wave: number;
  readonly status: TableStatus;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
}

export interface ProgressWave {
  readonly wave: number;
  readonly status: string;
  readonly migrated: number;
  readonly skipped: number;
  readonly failed: number;
}

export interface ProgressSnapshot {
  /** The plan id (core/plan/ids.ts). */
  readonly plan: string;
  readonly state: string;
  readonly currentWave: number | null;
  /** Waves that have ended, in order. */
  readonly waves: readonly ProgressWave[];
  readonly tables: readonly ProgressTable[];
}

export type ProgressEvent =
  | { readonly event: 'wave-started'; readonly wave: number; readonly tables: number }
  | { readonly event: 'approval-needed'; readonly plan: string; readonly wave: number }
  | {
      readonly event: 'table';
      readonly wave: number;
      readonly table: string;
      readonly status: TableStatus;
      readonly code?: string;
      readonly message?: string;
    }
  | ({ readonly event: 'wave-ended' } & ProgressWave);

const tablesOf = (s: ProgressSnapshot, wave: number): number => s.tables.filter((t) => t.wave === wave).length;

/** The waves `s` shows as started: ended ones, the current one unless it waits for approval, any with a table past pending. */
function startedWaves(s: ProgressSnapshot | undefined): Set<number> {
  const out = new Set<number>();
  if (s === undefined) return out;
  for (const w of s.waves) out.add(w.wave);
  if (s.currentWave !== null && s.state !== 'waiting-approval') out.add(s.currentWave);
  for (const t of s.tables) if (t.status !== 'pending') out.add(t.wave);
  return out;
}

/** The events from `prev` (undefined: nothing printed yet) to `next`, in the order they happened. */
export function progressEvents(prev: ProgressSnapshot | undefined, next: ProgressSnapshot): ProgressEvent[] {
  const out: ProgressEvent[] = [];
  const wave = next.currentWave;
  const waveChanged = wave !== null && wave !== prev?.currentWave;
  const nowWaiting = next.state === 'waiting-approval' && (prev?.state !== 'waiting-approval' || waveChanged);
  if (wave !== null && nowWaiting) out.push({ event: 'approval-needed', plan: next.plan, wave });
  // A wave that started and ended between two polls is still reported as started, before its tables.
  const known = startedWaves(prev);
  for (const w of [...startedWaves(next)].filter((x) => !known.has(x)).sort((a, b) => a - b))
    out.push({ event: 'wave-started', wave: w, tables: tablesOf(next, w) });
  const before = new Map((prev?.tables ?? []).map((t) => [t.tableId, t.status]));
  for (const t of next.tables) {
    if (!TERMINAL.has(t.status) || before.get(t.tableId) === t.status) continue;
    out.push({
      event: 'table',
      wave: t.wave,
      table: t.tableId,
      status: t.status,
      ...(t.errorCode === null ? {} : { code: t.errorCode }),
      ...(t.errorMessage === null || t.status !== 'failed' ? {} : { message: t.errorMessage }),
    });
  }
  for (const w of next.waves.slice(prev?.waves.length ?? 0)) out.push({ event: 'wave-ended', ...w });
  return out;
}

/** One line of text per event (the approval line names the command that approves). */
export function progressLine(e: ProgressEvent, approveCommand: (plan: string, wave: number) => string): string {
  switch (e.event) {
    case 'wave-started':
      return `wave ${e.wave}: started (${e.tables} ${e.tables === 1 ? 'table' : 'tables'})`;
    case 'approval-needed':
      return `wave ${e.wave}: waiting for approval — ${approveCommand(e.plan, e.wave)}`;
    case 'table':
      return `  ${e.table}: ${e.status}${e.code === undefined ? '' : ` [${e.code}]`}${e.message === undefined ? '' : ` ${e.message.split('\n')[0]}`}`;
    case 'wave-ended':
      return `wave ${e.wave}: ${e.status} — ${e.migrated} migrated, ${e.skipped} skipped, ${e.failed} failed`;
  }
}
