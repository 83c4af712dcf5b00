// The conversion engine port's shapes for a migrated table's sync (engine/sync-record.ts,
// engine/sync-table.ts, engine/sync-validate.ts, engine/storage-lag.ts): what a sync needs, what
// it reports, and cutover's final validation. Pure types.
import type { ActorSource } from '../audit/chain';
import type { CommitOutcome, IcebergCatalog } from '../catalog/catalog';
import type { HmsReader, TableInventory } from '../hive/model';
import type { Reader } from '../readers/encodings';
import type { StateStore } from '../state/store';
import type { LocationFence } from '../storage/location-fence';
import type { ObjectStore } from '../storage/object-store';
import type { WrittenFile } from './conversion';

export interface SyncRecordDeps {
  readonly state: StateStore;
  readonly hms: HmsReader;
  readonly catalog: IcebergCatalog;
  readonly storeFor: (metadataPrefixes: readonly string[]) => ObjectStore;
  readonly namespacePrefix: string;
  readonly toolVersion: string;
  /** Who the audit event names (the CLI user, or `worker:<host>:<pid>`). */
  readonly actor: { readonly actor: string; readonly actorSource?: ActorSource };
  /** The idempotency key of the audit event (an activity's: ops/context.ts stepKey); unset or null: none. */
  readonly stepKey?: (action: string, object: string, discriminator?: string | null) => string | null;
  readonly footerConcurrency?: number;
  /** `readers.required` (default all): added files a required reader misreads fail the sync (engine/reader-guard.ts). */
  readonly readersRequired?: readonly Reader[];
  readonly now?: () => Date;
  /** Crash-test hook (engine/sync-table.ts SyncOptions.failpoint). */
  readonly failpoint?: (name: string) => void;
  /**
   * Where the Hive side is read (default: the table under its own name). Cutover's final sync reads
   * the fenced table, seen as the table it was (ops/cutover.ts).
   */
  readonly readLive?: (tableId: string) => Promise<TableInventory | undefined>;
  /**
   * Where the live table's files may be (core/storage/location-fence.ts): a partition added since apply
   * outside it fails the sync (LOCATION_NOT_ALLOWED) before anything is listed. Unset: not checked.
   */
  readonly locationFence?: LocationFence;
}

export type SyncStatus = 'in-sync' | 'appended' | 'overwrote' | 'deleted';

export interface SyncResult {
  readonly status: SyncStatus;
  /** The table's current snapshot after the sync (the unchanged one when in sync). */
  readonly snapshotId: string | null;
  readonly parentSnapshotId: string | null;
  readonly metadataLocation: string;
  readonly commit: CommitOutcome | null;
  readonly filesAdded: number;
  readonly filesRemoved: number;
  readonly recordsAdded: number;
  readonly recordsRemoved: number;
  /** Distinct partitions of the added and removed files. */
  readonly partitionsAdded: number;
  readonly partitionsChanged: number;
  readonly summary: Readonly<Record<string, string>> | null;
  readonly written: readonly WrittenFile[];
  readonly validation: { readonly files: number; readonly records: number } | null;
  /** Columns Hive gained at the end that this sync's snapshot added to the schema (core/sync/schema.ts). */
  readonly columnsAdded: readonly string[];
}

/** A table's sync as both paths report it: the result without its file list (payload-sized), or the refusal's code. */
export type TableSyncOutcome =
  | { readonly table: string; readonly ok: true; readonly result: Omit<SyncResult, 'written'> }
  | { readonly table: string; readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

/** What a validation of a table's current snapshot against its Hive side found (equal, else it threw). */
export interface SyncValidation {
  readonly snapshotId: string | null;
  readonly files: number;
  readonly records: number;
}

export interface StorageLagDeps {
  readonly store: ObjectStore;
  readonly catalog: IcebergCatalog;
  readonly namespacePrefix: string;
  readonly toolVersion: string;
}
