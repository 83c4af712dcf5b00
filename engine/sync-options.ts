// What a sync of one migrated table is given (engine/sync-table.ts syncTable, and sync-validate.ts
// for its validation): the table as planned and where the catalog holds it, and the options. Types only.
import type { TableIdent } from '../core/catalog/catalog';
import type { DataFileFormat, PreparedConversion } from '../core/convert/prepare';
import type { Reader } from '../core/readers/encodings';
import type { FooterReader } from '../core/storage/file-stats';

/** The table to sync: as planned, and its catalog identifier. */
export interface SyncTarget {
  readonly prepared: PreparedConversion;
  readonly ident: TableIdent;
}

export interface SyncOptions {
  readonly footerConcurrency?: number;
  readonly footers?: Partial<Record<DataFileFormat, FooterReader>>;
  /** The new snapshot's timestamp (epoch ms); raised above the table's last update when needed. */
  readonly now: () => number;
  /** Crash-test hook at every step boundary (`SYNC_FAILPOINTS`; ops/context.ts failpoint). */
  readonly failpoint?: (name: string) => void;
  /**
   * The snapshot the table's record knows. When the table is in sync on another snapshot of ours (a
   * killed run committed it and did not record it), that snapshot is validated like a fresh commit
   * before it is handed back for recording.
   */
  readonly recordedSnapshotId?: string | null;
  /** The readers that must read the added files as Hive does (`readers.required`, default all): reader-guard.ts. */
  readonly readersRequired?: readonly Reader[];
}
