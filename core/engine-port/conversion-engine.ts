// The conversion engine port: the work on one table that activities/ and app/ hand off — write its
// Iceberg metadata (list, footers, manifests, manifest list, metadata.json), validate a conversion,
// convert a table end to end (`migrate table`), run a migrated table's nightly drift checks and its
// read-back proof, write a validation run's results file, sync a migrated table, plan a rollback's
// put-back of other engines' appends, run the Spark jobs. Pure types, like the other ports here
// (object store, catalog, state store, HMS reader); the implementation is engine/engine.ts
// `createEngine()`, constructed only by the composition root cli/compose.ts, which hands it to the
// worker's assembly (app/worker/worker.ts → ActivityDeps.engine) and to the in-process commands.
import type { IcebergCatalog, TableIdent } from '../catalog/catalog';
import type { PreparedConversion } from '../convert/prepare';
import type { HivePartition, HiveTable, TableInventory } from '../hive/model';
import type { PlanFile } from '../plan/plan-file';
import type { RewriteSpec } from '../rewrite/spec';
import type { TableRecord } from '../state/store';
import type { ObjectStore } from '../storage/object-store';
import type { StorageLag } from '../sync/lag';
import type { ValidationRow } from '../validate/drift';
import type { ReadBackEvidence, ReadBackResult, ReadBackSpec } from '../validate/readback-spec';
import type { ViewCheckResult, ViewCheckSpec } from '../view/check-spec';
import type { DriftDeps, PutBackPlan, ReadBackDeps, ReadBackSettings, ReadBackTarget } from './checks';
import type {
  ConvertTableRequest,
  ConvertTableResult,
  ValidateOptions,
  ValidationEvidence,
  WriteOptions,
  WrittenMetadata,
} from './conversion';
import type { RewriteResult, RunJobOptions } from './jobs';
import type { StorageLagDeps, SyncRecordDeps, SyncValidation, TableSyncOutcome } from './sync';

export interface ConversionEngine {
  /** Steps 2-5: write the metadata of a prepared table into its metadata directory (registers nothing). */
  writeIcebergMetadata(store: ObjectStore, p: PreparedConversion, opts?: WriteOptions): Promise<WrittenMetadata>;
  /** Step 7: the evidence that the catalog entry, our manifests and storage agree. */
  validateConversion(
    store: ObjectStore,
    catalog: IcebergCatalog,
    ident: TableIdent,
    p: PreparedConversion,
    source: { readonly table: HiveTable; readonly partitions: readonly HivePartition[] },
    opts?: ValidateOptions,
  ): Promise<ValidationEvidence>;
  /** `migrate table`: prepare, write, register and validate one table outside any workflow (a failed validation unregisters it). */
  convertTable(store: ObjectStore, catalog: IcebergCatalog, req: ConvertTableRequest): Promise<ConvertTableResult>;
  /** One migrated table's nightly checks, as rows (a check that cannot run is a `failed` row). */
  checkTableDrift(deps: DriftDeps, plan: PlanFile, rec: TableRecord, runId: string, now: () => Date): Promise<ValidationRow[]>;
  /** A validation run's results file (Parquet) under `location`; returns its path. */
  writeResults(store: ObjectStore, location: string, plan: string, runId: string, rows: readonly ValidationRow[]): Promise<string>;
  /** One migrated table's catch-up sync, audited (engine/sync-record.ts; `migrate sync --direct` and the syncTable activity). */
  syncMigratedTable(deps: SyncRecordDeps, plan: PlanFile, rec: TableRecord): Promise<TableSyncOutcome>;
  /** `status --lag --list-storage`: the files a sync of the table would add and remove now (engine/storage-lag.ts). Reads only. */
  storageLag(deps: StorageLagDeps, plan: PlanFile, tableId: string, live: TableInventory): Promise<StorageLag>;
  /** Cutover's final validation: the Hive side (deps.readLive) and the current snapshot hold the same files and rows. */
  validateSyncedTable(deps: SyncRecordDeps, plan: PlanFile, rec: TableRecord): Promise<SyncValidation>;
  /** Rollback: what the commits since ours would put back into Hive (`original`: the Hive table as saved), or what blocks it (engine/put-back.ts). Reads only. */
  planPutBack(
    store: ObjectStore,
    catalog: IcebergCatalog,
    ident: TableIdent,
    source: string,
    original: TableInventory,
  ): Promise<PutBackPlan>;
  /** The rewrite path: run the shipped Spark job for one table as a child process (engine/rewrite-job.ts). */
  runRewriteJob(spec: RewriteSpec, opts: RunJobOptions): Promise<RewriteResult>;
  /** Kill a job a killed worker left running on this host (its process group); true when there was one. */
  stopRewriteJob(workDir: string, jobId: string): Promise<boolean>;
  /** A created view's check: the Iceberg view in Spark vs its Hive SQL over the Hive files (engine/view-check-job.ts). */
  runViewCheckJob(spec: ViewCheckSpec, tableId: string, opts: RunJobOptions): Promise<ViewCheckResult>;
  /** The read-back proof: sampled files through the Iceberg tables vs the Hive reading of them (engine/readback-job.ts); `label` names the batch in errors. */
  runReadBackJob(spec: ReadBackSpec, label: string, opts: RunJobOptions): Promise<ReadBackResult>;
  /** A batch of migrated tables' read-back proof: their live files sampled, one job, the evidence by table (engine/readback.ts). */
  proveReadBack(
    deps: ReadBackDeps,
    plan: PlanFile,
    targets: readonly ReadBackTarget[],
    s: ReadBackSettings,
  ): Promise<Map<string, ReadBackEvidence>>;
}
