// The conversion engine port's shapes for the checks on a migrated table: the nightly drift checks
// (engine/drift-check.ts), the read-back proof (engine/readback.ts) and a rollback's put-back plan
// (engine/put-back.ts). Pure types.
import type { IcebergCatalog, TableIdent } from '../catalog/catalog';
import type { HmsReader } from '../hive/model';
import type { TableRecord } from '../state/store';
import type { ObjectStore } from '../storage/object-store';
import type { PartitionPutBack, PutBackBlocker } from '../sync/put-back';
import type { RunJobOptions } from './jobs';

export interface DriftDeps {
  readonly hms: HmsReader;
  readonly catalog: IcebergCatalog;
  readonly storeFor: (metadataPrefixes: readonly string[]) => ObjectStore;
  readonly namespacePrefix: string;
  readonly toolVersion: string;
  readonly footerConcurrency?: number;
}

export interface ReadBackDeps {
  readonly catalog: IcebergCatalog;
  readonly storeFor: (metadataPrefixes: readonly string[]) => ObjectStore;
  readonly namespacePrefix: string;
  readonly toolVersion: string;
}

export interface ReadBackSettings {
  readonly filesPerTable: number;
  /** The Spark catalog's properties (app/runtime/rewrite-config.ts: derived from `catalog` and `storage.s3`). */
  readonly catalogProperties: Readonly<Record<string, string>>;
  readonly job: RunJobOptions;
}

/** One table of the batch: its record (saved original) and where the catalog holds it. */
export interface ReadBackTarget {
  readonly rec: TableRecord;
  readonly ident: TableIdent;
}

/** One partition in a put-back, as reported (files by path; JSON-safe). */
export interface PartitionReport {
  readonly name: string;
  readonly location: string;
  readonly files: readonly string[];
  readonly records: number;
}

/** What a rollback puts back for one table, or what blocks it (JSON-safe: activity result, --json). */
export interface PutBackSummary {
  readonly table: string;
  /** Our last snapshot and the catalog's current one. */
  readonly ours: string | null;
  readonly head: string | null;
  readonly metadataLocation: string;
  readonly snapshots: readonly { snapshotId: string; operation: string; files: number; records: number }[];
  /** Partitions Hive lacks, added metadata-only at the files' directory. */
  readonly partitionsToAdd: readonly PartitionReport[];
  /** Partitions (or the unpartitioned table, name '') whose directory already holds the appended files. */
  readonly partitionsVisible: readonly PartitionReport[];
  readonly files: number;
  readonly records: number;
  readonly blockers: readonly PutBackBlocker[];
}

export interface PutBackPlan {
  readonly summary: PutBackSummary;
  /** The partitions to add (values as Hive has them). */
  readonly add: readonly PartitionPutBack[];
}
