// What the sync workflow keeps of its finished tables, in one of two shapes: every outcome in the
// workflow (histories from before patch `sync-paged-outcomes`: returned and carried across
// continue-as-new, ~0.8 kB per table), or — paged — counts, the last SYNC_STATUS_RECENT tables for
// the syncStatus query, and the outcomes written to the state store by the recordSyncOutcomes
// activity, keyed by the workflow id (stable across continue-as-new), so the workflow's payloads
// stay bounded whatever the plan's size. Deterministic; no I/O of its own.
import type { SyncOutcomeRow, TableSyncOutcome } from '../activities/index';

/** The patch that marks histories whose outcomes go to the state store (workflows started before it carry them all). */
export const SYNC_PAGED_PATCH = 'sync-paged-outcomes';
/** Finished tables the syncStatus query lists when the outcomes are paged (the newest). */
export const SYNC_STATUS_RECENT = 50;
/** A write of outcomes holds at most this many rows, or this many characters of outcome JSON (well under Temporal's 2 MB payload). */
const PAGE_ROWS = 250;
const PAGE_CHARS = 256 * 1024;

export interface SyncCounts {
  readonly inSync: number;
  readonly committed: number;
  readonly refused: number;
}

/** The counts of a paged sync so far (carried across continue-as-new). */
export interface SyncTally extends SyncCounts {
  /** Tables finished. */
  readonly done: number;
  /** Finished tables by sync status (appended, overwrote, deleted, in-sync). */
  readonly statuses: Readonly<Record<string, number>>;
  /** Refused tables by error code. */
  readonly codes: Readonly<Record<string, number>>;
  readonly filesAdded: number;
  readonly filesRemoved: number;
  readonly partitionsChanged: number;
  readonly lastSyncAt: string | null;
}

/** One synced table as the `syncStatus` query shows it (what the sync found behind and committed, or the refusal's code). */
export interface SyncTableProgress {
  readonly table: string;
  readonly ok: boolean;
  /** When its outcome came back (workflow time, ISO-8601). */
  readonly at: string;
  readonly status?: string;
  readonly snapshotId?: string | null;
  readonly filesAdded?: number;
  readonly filesRemoved?: number;
  readonly partitionsAdded?: number;
  readonly partitionsChanged?: number;
  readonly code?: string;
}

/** Where a paged sync's per-table outcomes are: the state store's rows of this workflow id (`count` of them). */
export interface SyncOutcomesRef {
  readonly workflowId: string;
  readonly count: number;
}

export interface SyncStatus extends SyncCounts {
  readonly tables: number;
  readonly done: number;
  /** Files and partitions the committed snapshots caught up so far. */
  readonly filesAdded: number;
  readonly filesRemoved: number;
  readonly partitionsChanged: number;
  /** When the last table finished (null before the first). */
  readonly lastSyncAt: string | null;
  /** The finished tables in the order they finished: every one, or with `outcomes` the newest SYNC_STATUS_RECENT. */
  readonly perTable: readonly SyncTableProgress[];
  /** Paged: refusals by code, and where every outcome is. */
  readonly codes?: Readonly<Record<string, number>>;
  readonly outcomes?: SyncOutcomesRef;
}

export const progressOf = (o: TableSyncOutcome, at: string): SyncTableProgress =>
  o.ok
    ? {
        table: o.table,
        ok: true,
        at,
        status: o.result.status,
        snapshotId: o.result.snapshotId,
        filesAdded: o.result.filesAdded,
        filesRemoved: o.result.filesRemoved,
        partitionsAdded: o.result.partitionsAdded,
        partitionsChanged: o.result.partitionsChanged,
      }
    : { table: o.table, ok: false, at, code: o.error.code };

export const countsOf = (done: readonly TableSyncOutcome[]): SyncCounts => ({
  inSync: done.filter((o) => o.ok && o.result.commit === null).length,
  committed: done.filter((o) => o.ok && o.result.commit !== null).length,
  refused: done.filter((o) => !o.ok).length,
});

/** Every outcome kept in the workflow: the shape of histories from before the paged patch. */
export class FullBook {
  readonly paged = false;
  constructor(
    readonly total: number,
    readonly done: TableSyncOutcome[],
    readonly perTable: SyncTableProgress[],
  ) {}

  record(o: TableSyncOutcome, at: string): void {
    this.done.push(o);
    this.perTable.push(progressOf(o, at));
  }

  counts(): SyncCounts {
    return countsOf(this.done);
  }

  status(): SyncStatus {
    const perTable = this.perTable;
    const sum = (f: (p: SyncTableProgress) => number | undefined): number => perTable.reduce((s, p) => s + (f(p) ?? 0), 0);
    return {
      tables: this.total,
      done: this.done.length,
      ...this.counts(),
      filesAdded: sum((p) => p.filesAdded),
      filesRemoved: sum((p) => p.filesRemoved),
      partitionsChanged: sum((p) => p.partitionsChanged),
      lastSyncAt: perTable[perTable.length - 1]?.at ?? null,
      perTable,
    };
  }

  /** What the next run is handed: every outcome and its time. */
  carry(): { done: readonly TableSyncOutcome[]; doneAt: readonly string[] } {
    return { done: this.done, doneAt: this.perTable.map((p) => p.at) };
  }
}

export const EMPTY_TALLY: SyncTally = {
  done: 0,
  inSync: 0,
  committed: 0,
  refused: 0,
  statuses: {},
  codes: {},
  filesAdded: 0,
  filesRemoved: 0,
  partitionsChanged: 0,
  lastSyncAt: null,
};

const bump = (m: Readonly<Record<string, number>>, k: string): Record<string, number> => ({ ...m, [k]: (m[k] ?? 0) + 1 });

/** The tally after one more finished table. */
export function tallied(t: SyncTally, o: TableSyncOutcome, at: string): SyncTally {
  if (!o.ok) return { ...t, done: t.done + 1, refused: t.refused + 1, codes: bump(t.codes, o.error.code), lastSyncAt: at };
  const r = o.result;
  return {
    ...t,
    done: t.done + 1,
    inSync: t.inSync + (r.commit === null ? 1 : 0),
    committed: t.committed + (r.commit === null ? 0 : 1),
    statuses: bump(t.statuses, r.status),
    filesAdded: t.filesAdded + r.filesAdded,
    filesRemoved: t.filesRemoved + r.filesRemoved,
    partitionsChanged: t.partitionsChanged + r.partitionsChanged,
    lastSyncAt: at,
  };
}

/**
 * Counts in the workflow, outcomes in the state store: each finished table gets the next `seq` and
 * waits in a buffer that `flush` writes (in pages under the payload limit) through `write` — when
 * the buffer is full, and always before continue-as-new and before the result.
 */
export class PagedBook {
  readonly paged = true;
  private buffer: SyncOutcomeRow[] = [];
  private chars = 0;
  constructor(
    readonly total: number,
    readonly workflowId: string,
    private tally: SyncTally,
    private recent: SyncTableProgress[],
    private readonly write: (rows: readonly SyncOutcomeRow[]) => Promise<void>,
  ) {}

  record(o: TableSyncOutcome, at: string): void {
    this.buffer.push({ tableId: o.table, seq: this.tally.done, at, outcome: o });
    this.chars += JSON.stringify(o).length;
    this.tally = tallied(this.tally, o, at);
    this.recent = [...this.recent, progressOf(o, at)].slice(-SYNC_STATUS_RECENT);
  }

  counts(): SyncCounts {
    return { inSync: this.tally.inSync, committed: this.tally.committed, refused: this.tally.refused };
  }

  get outcomes(): SyncOutcomesRef {
    return { workflowId: this.workflowId, count: this.tally.done };
  }

  status(): SyncStatus {
    const t = this.tally;
    return {
      tables: this.total,
      done: t.done,
      ...this.counts(),
      filesAdded: t.filesAdded,
      filesRemoved: t.filesRemoved,
      partitionsChanged: t.partitionsChanged,
      lastSyncAt: t.lastSyncAt,
      perTable: this.recent,
      codes: t.codes,
      outcomes: this.outcomes,
    };
  }

  /** Refusals by code and finished tables by status (the result's summary). */
  summary(): Pick<SyncTally, 'codes' | 'statuses'> {
    return { codes: this.tally.codes, statuses: this.tally.statuses };
  }

  /** Write the buffered outcomes: all of them with `force`, else only once a page is full. */
  async flush(force: boolean): Promise<void> {
    while (this.buffer.length > 0 && (force || this.buffer.length >= PAGE_ROWS || this.chars >= PAGE_CHARS)) {
      let n = 0;
      let chars = 0;
      while (n < this.buffer.length && n < PAGE_ROWS && (n === 0 || chars < PAGE_CHARS))
        chars += JSON.stringify((this.buffer[n++] as SyncOutcomeRow).outcome).length;
      const page = this.buffer.slice(0, n);
      await this.write(page);
      this.buffer = this.buffer.slice(n);
      this.chars -= chars;
    }
  }

  /** What the next run is handed: counts and the newest tables, nothing per table beyond them (flush first). */
  carry(): { tally: SyncTally; recent: readonly SyncTableProgress[] } {
    return { tally: this.tally, recent: this.recent };
  }
}

export type SyncBook = FullBook | PagedBook;
