// How far a migrated table's Iceberg side is behind its Hive side, as `migrate status` shows it:
// the mark each sync leaves on the table's record (when it ran, what it found and committed, the
// snapshot after it) and the live lag check (`migrate status --lag`): Hive's partitions now
// against the partitions of the last synced state (the record's saved original), files counted in
// the partitions Hive has that the last sync did not see. Also where a table stands (migrated,
// syncing, or any other status, e.g. cut over) and the counts per wave. Pure; no I/O.
import type { HivePartition, TableInventory } from '../hive/model';

/** What one sync of a table left on its record (`TableRecord.sync`). */
export interface SyncMark {
  /** When the sync ran (ISO-8601). */
  readonly at: string;
  readonly outcome: 'committed' | 'in-sync' | 'refused';
  /** The table's snapshot after the sync (unchanged when in sync or refused). */
  readonly snapshotId: string | null;
  readonly filesAdded: number;
  readonly filesRemoved: number;
  readonly partitionsAdded: number;
  readonly partitionsChanged: number;
  /** Hive's partition count the sync saw (null when refused before reading Hive). */
  readonly hivePartitions: number | null;
  /** The last time a sync of this table committed a snapshot (this one or an earlier one). */
  readonly lastCommitAt: string | null;
  /** The refusal's code and message (outcome `refused`). */
  readonly error?: { readonly code: string; readonly message: string };
}

/** The live check: Hive now against the last synced state. */
export interface TableLag {
  readonly checkedAt: string;
  /** Partitions Hive has that the last synced state does not (the first names, sorted, and how many). */
  readonly partitionsNew: { readonly count: number; readonly names: readonly string[] };
  /** Partitions of the last synced state Hive no longer has. */
  readonly partitionsDropped: { readonly count: number; readonly names: readonly string[] };
  /** Partitions in both whose location or file statistics (numFiles, totalSize) differ: rewritten since (e.g. INSERT OVERWRITE). */
  readonly partitionsChanged: { readonly count: number; readonly names: readonly string[] };
  /** Files listed under the new partitions. */
  readonly filesInNewPartitions: number;
  /**
   * With `--list-storage`: every location of the table listed and compared with the table's current
   * snapshot, as a sync would: the files it would add and remove. Null when storage was not listed.
   */
  readonly storage: StorageLag | null;
  /**
   * True only when storage was listed (`storage` is then the whole lag). From HMS alone a file added
   * to an existing partition is invisible when its writer does not update the partition's
   * statistics (writers other than Hive rarely do), so an HMS-only check is never exact.
   */
  readonly exact: boolean;
}

/** What listing every location of a migrated table found against its current snapshot. */
export interface StorageLag {
  readonly filesAdded: number;
  readonly filesRemoved: number;
}

/** Where a table stands: migrated (never synced), syncing (synced at least once), or its record status as it is (cut over, failed, …). */
export type TablePhase = 'migrated' | 'syncing' | (string & {});

/** The most partition names a lag lists per kind (the counts are always whole). */
export const LAG_NAMES = 20;

export function tablePhase(status: string, mark: SyncMark | null | undefined): TablePhase {
  if (status !== 'migrated') return status;
  return mark === null || mark === undefined ? 'migrated' : 'syncing';
}

/** The mark a sync leaves, from its result (`previous`: the record's mark before it, for lastCommitAt). */
export function syncMarkOf(
  at: Date,
  r:
    | {
        readonly commit: string | null;
        readonly snapshotId: string | null;
        readonly filesAdded: number;
        readonly filesRemoved: number;
        readonly partitionsAdded: number;
        readonly partitionsChanged: number;
      }
    | { readonly error: { readonly code: string; readonly message: string } },
  hivePartitions: number | null,
  previous: SyncMark | null | undefined,
): SyncMark {
  const iso = at.toISOString();
  if ('error' in r)
    return {
      at: iso,
      outcome: 'refused',
      snapshotId: previous?.snapshotId ?? null,
      filesAdded: 0,
      filesRemoved: 0,
      partitionsAdded: 0,
      partitionsChanged: 0,
      hivePartitions,
      lastCommitAt: previous?.lastCommitAt ?? null,
      error: r.error,
    };
  const committed = r.commit !== null;
  return {
    at: iso,
    outcome: committed ? 'committed' : 'in-sync',
    snapshotId: r.snapshotId,
    filesAdded: r.filesAdded,
    filesRemoved: r.filesRemoved,
    partitionsAdded: r.partitionsAdded,
    partitionsChanged: r.partitionsChanged,
    hivePartitions,
    lastCommitAt: committed ? iso : (previous?.lastCommitAt ?? null),
  };
}

const statsOf = (p: HivePartition): string => `${p.sd.location ?? ''}|${p.parameters.numFiles ?? ''}|${p.parameters.totalSize ?? ''}`;

const named = (names: string[]): { count: number; names: string[] } => ({ count: names.length, names: names.sort().slice(0, LAG_NAMES) });

/** Hive's partitions now against `synced` (the last synced state); `filesInNew` counts the files under the new ones. */
export function partitionLag(
  synced: Pick<TableInventory, 'partitions'>,
  live: Pick<TableInventory, 'partitions'>,
  filesInNew: number,
  at: Date,
  storage: StorageLag | null = null,
): TableLag {
  const before = new Map(synced.partitions.map((p) => [p.name, statsOf(p)]));
  const now = new Set(live.partitions.map((p) => p.name));
  const fresh = live.partitions.filter((p) => !before.has(p.name)).map((p) => p.name);
  const changed = live.partitions.filter((p) => before.has(p.name) && before.get(p.name) !== statsOf(p)).map((p) => p.name);
  const dropped = synced.partitions.filter((p) => !now.has(p.name)).map((p) => p.name);
  return {
    checkedAt: at.toISOString(),
    partitionsNew: named(fresh),
    partitionsDropped: named(dropped),
    partitionsChanged: named(changed),
    filesInNewPartitions: filesInNew,
    storage,
    exact: storage !== null,
  };
}

/** The partitions of `live` that `synced` does not have (the ones whose files the lag counts). */
export function newPartitions(synced: Pick<TableInventory, 'partitions'>, live: Pick<TableInventory, 'partitions'>): HivePartition[] {
  const before = new Set(synced.partitions.map((p) => p.name));
  return live.partitions.filter((p) => !before.has(p.name));
}

/** True when the lag shows anything behind. */
export const isBehind = (l: TableLag): boolean =>
  l.partitionsNew.count +
    l.partitionsDropped.count +
    l.partitionsChanged.count +
    (l.storage?.filesAdded ?? 0) +
    (l.storage?.filesRemoved ?? 0) >
  0;

/** One table's line in the status (what the state store and, with --lag, the live check say). */
export interface TableStatusRow {
  readonly table: string;
  readonly wave: number;
  readonly status: string;
  readonly phase: TablePhase;
  readonly snapshotId: string | null;
  readonly lastSync: SyncMark | null;
  /** With --lag: the live check (null when it could not run for this table: `lagError`). */
  readonly lag?: TableLag | null;
  readonly lagError?: { readonly code: string; readonly message: string };
  readonly error?: { readonly code: string; readonly message: string };
  /** The Iceberg identifier it is (or was) registered under, and its current metadata file (null before). */
  readonly target?: string | null;
  readonly metadataLocation?: string | null;
  /** When its record last changed. */
  readonly updatedAt?: string;
  /** Its table workflow (core/plan/ids.ts tableWorkflowId) and, when Temporal answered, its last run. */
  readonly workflowId?: string;
  readonly run?: TableRun;
}

/** A table workflow's last run as Temporal lists it: times, duration (closed runs) and its page in the Temporal UI. */
export interface TableRun {
  readonly runId: string;
  readonly status: string;
  readonly startedAt: string;
  readonly closedAt: string | null;
  readonly durationMs: number | null;
  readonly ui: string | null;
}

export interface WaveTableCounts {
  readonly wave: number;
  readonly tables: number;
  readonly migrated: number;
  readonly syncing: number;
  /** Of the tables the live check ran for (--lag): how many are behind, and by how much in all. */
  readonly behind: number | null;
  readonly partitionsBehind: number | null;
  readonly filesBehind: number | null;
  /** Every other phase by name (cutover, failed, rolled-back, pending, …). */
  readonly other: Readonly<Record<string, number>>;
}

export function waveCounts(rows: readonly TableStatusRow[]): WaveTableCounts[] {
  const waves = [...new Set(rows.map((r) => r.wave))].sort((a, b) => a - b);
  return waves.map((wave) => {
    const in_ = rows.filter((r) => r.wave === wave);
    const checked = in_.filter((r) => r.lag !== undefined && r.lag !== null).map((r) => r.lag as TableLag);
    const lagged = checked.length > 0 || in_.some((r) => r.lag !== undefined);
    const other: Record<string, number> = {};
    for (const r of in_) if (r.phase !== 'migrated' && r.phase !== 'syncing') other[r.phase] = (other[r.phase] ?? 0) + 1;
    const sum = (f: (l: TableLag) => number): number => checked.reduce((s, l) => s + f(l), 0);
    return {
      wave,
      tables: in_.length,
      migrated: in_.filter((r) => r.phase === 'migrated').length,
      syncing: in_.filter((r) => r.phase === 'syncing').length,
      behind: lagged ? checked.filter(isBehind).length : null,
      partitionsBehind: lagged ? sum((l) => l.partitionsNew.count + l.partitionsDropped.count + l.partitionsChanged.count) : null,
      filesBehind: lagged ? sum((l) => l.filesInNewPartitions) : null,
      other,
    };
  });
}
