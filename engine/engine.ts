// The conversion engine port: the work on one table that activities hand off — write its Iceberg
// metadata (list, footers, manifests, manifest list, metadata.json), validate a conversion, run a
// migrated table's nightly drift checks, write a validation run's results file, sync a migrated table,
// plan a rollback's put-back of other engines' appends. Activities import
// this file with `import type` only (eslint.config.mjs); the worker's assembly builds
// `createEngine()` and passes it in ActivityDeps.engine, so tests can hand in another.
import type { RewriteSpec } from '../core/rewrite/spec';
import type { RewriteResult, RunJobOptions } from './rewrite-job';
import { runRewriteJob, stopRewriteJob } from './rewrite-job';
import { runReadBackJob } from './readback-job';
import type { ReadBackDeps, ReadBackSettings, ReadBackTarget } from './readback';
import { proveReadBack } from './readback';
import { runViewCheckJob } from './view-check-job';
import type { ReadBackEvidence, ReadBackResult, ReadBackSpec } from '../core/validate/readback-spec';
import type { ViewCheckResult, ViewCheckSpec } from '../core/view/check-spec';
import type { IcebergCatalog, TableIdent } from '../core/catalog/catalog';
import type { PreparedConversion } from '../core/convert/prepare';
import type { HivePartition, HiveTable, TableInventory } from '../core/hive/model';
import type { PlanFile } from '../core/plan/plan-file';
import type { TableRecord } from '../core/state/store';
import type { ObjectStore } from '../core/storage/object-store';
import type { ValidationRow } from '../core/validate/drift';
import { writeResults } from '../adapters/results/parquet';
import type { DriftDeps } from './drift-check';
import { checkTableDrift } from './drift-check';
import type { ValidateOptions, ValidationEvidence } from './validate-conversion';
import { validateConversion } from './validate-conversion';
import type { SyncRecordDeps, TableSyncOutcome } from './sync-record';
import { syncMigratedTable, validateSyncedTable } from './sync-record';
import type { StorageLagDeps } from './storage-lag';
import { storageLag } from './storage-lag';
import type { StorageLag } from '../core/sync/lag';
import type { SyncValidation } from './sync-validate';
import type { PutBackPlan } from './put-back';
import { planPutBack } from './put-back';
import type { WriteOptions, WrittenMetadata } from './write-metadata';
import { writeIcebergMetadata } from './write-metadata';

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
  /** One migrated table's nightly checks, as rows (a check that cannot run is a `failed` row). */
  checkTableDrift(deps: DriftDeps, plan: PlanFile, rec: TableRecord, runId: string, now: () => Date): Promise<ValidationRow[]>;
  /** A validation run's results file (Parquet) under `location`; returns its path. */
  writeResults(store: ObjectStore, location: string, plan: string, runId: string, rows: readonly ValidationRow[]): Promise<string>;
  /** One migrated table's catch-up sync, audited (sync-record.ts; `migrate sync --direct` calls the same). */
  syncMigratedTable(deps: SyncRecordDeps, plan: PlanFile, rec: TableRecord): Promise<TableSyncOutcome>;
  /** `status --lag --list-storage`: the files a sync of the table would add and remove now (storage-lag.ts). Reads only. */
  storageLag(deps: StorageLagDeps, plan: PlanFile, tableId: string, live: TableInventory): Promise<StorageLag>;
  /** Cutover's final validation: the Hive side (deps.readLive) and the current snapshot hold the same files and rows. */
  validateSyncedTable(deps: SyncRecordDeps, plan: PlanFile, rec: TableRecord): Promise<SyncValidation>;
  /** Rollback: what the commits since ours would put back into Hive (`original`: the Hive table as saved), or what blocks it (put-back.ts). Reads only. */
  planPutBack(
    store: ObjectStore,
    catalog: IcebergCatalog,
    ident: TableIdent,
    source: string,
    original: TableInventory,
  ): Promise<PutBackPlan>;
  /** The rewrite path: run the shipped Spark job for one table as a child process (rewrite-job.ts). */
  runRewriteJob(spec: RewriteSpec, opts: RunJobOptions): Promise<RewriteResult>;
  /** Kill a job a killed worker left running on this host (its process group); true when there was one. */
  stopRewriteJob(workDir: string, jobId: string): Promise<boolean>;
  /** A created view's check: the Iceberg view in Spark vs its Hive SQL over the Hive files (view-check-job.ts). */
  runViewCheckJob(spec: ViewCheckSpec, tableId: string, opts: RunJobOptions): Promise<ViewCheckResult>;
  /** The read-back proof: sampled files through the Iceberg tables vs the Hive reading of them (readback-job.ts); `label` names the batch in errors. */
  runReadBackJob(spec: ReadBackSpec, label: string, opts: RunJobOptions): Promise<ReadBackResult>;
  /** A batch of migrated tables' read-back proof: their live files sampled, one job, the evidence by table (readback.ts). */
  proveReadBack(
    deps: ReadBackDeps,
    plan: PlanFile,
    targets: readonly ReadBackTarget[],
    s: ReadBackSettings,
  ): Promise<Map<string, ReadBackEvidence>>;
}

/** The engine over this repository's adapters (formats, Avro, storage listing, results Parquet). */
export function createEngine(): ConversionEngine {
  return {
    writeIcebergMetadata,
    validateConversion,
    checkTableDrift,
    writeResults,
    syncMigratedTable,
    storageLag,
    validateSyncedTable,
    planPutBack,
    runRewriteJob,
    stopRewriteJob,
    runViewCheckJob,
    runReadBackJob,
    proveReadBack,
  };
}
