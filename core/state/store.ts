// The state store port: plans, one record per (plan, table) and the append-only audit chain, as
// activities and the CLI use them. Pure; no I/O. Adapter: adapters/state/postgres.ts (Postgres).
// The order of a table's statuses is core/state/status.ts.
import type { AuditAnchor } from '../audit/anchor';
import type { AuditEvent, AuditEventInput } from '../audit/chain';
import type { TableInventory } from '../hive/model';
import type { PlanFile } from '../plan/plan-file';
import type { SyncMark } from '../sync/lag';

/**
 * `fenced` and `cutover` follow `migrated` (`migrate cutover`: the Hive writers fenced, then the
 * final sync and validation done and Iceberg declared the table); core/state/status.ts.
 */
export type TableStatus =
  | 'pending'
  | 'original-saved'
  | 'written'
  | 'registered'
  | 'migrated'
  | 'fenced'
  | 'cutover'
  | 'skipped'
  | 'failed'
  | 'rolled-back'
  /** A Hive view created as an Iceberg view (ops/views.ts); rollback drops it. */
  | 'view-created';

/** One metadata file the write step created (or found identical) for a table. */
export interface WrittenFileRecord {
  readonly path: string;
  readonly bytes: number;
  readonly outcome: string;
}

export interface TableRecord {
  readonly planHash: string;
  readonly tableId: string;
  readonly wave: number;
  readonly status: TableStatus;
  readonly original: TableInventory | null;
  readonly originalDigest: string | null;
  readonly target: string | null;
  readonly metadataLocation: string | null;
  readonly snapshotId: string | null;
  readonly writtenFiles: readonly WrittenFileRecord[] | null;
  readonly validation: unknown;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  /** The comparable key of the table's location (core/assess/shared-locations.ts), set with the original. */
  readonly locationKey?: string | null;
  /**
   * The table workflow run whose forward steps may move this record (set by its first step,
   * cleared when the table ends failed): a step of a terminated run that is still running on some
   * worker cannot bring a failed table back to life.
   */
  readonly ownerRun?: string | null;
  /** What the last `migrate sync` of the table found and did (core/sync/lag.ts), null before the first. */
  readonly sync?: SyncMark | null;
}

/** A record without its heavy parts (saved original, written files, validation): what `migrate status` lists. */
export type TableSummary = Pick<
  TableRecord,
  'planHash' | 'tableId' | 'wave' | 'status' | 'snapshotId' | 'errorCode' | 'errorMessage' | 'sync'
> &
  Partial<Pick<TableRecord, 'target' | 'metadataLocation'>> & {
    /** When the record last changed (ISO-8601); absent from stores that do not keep it. */
    readonly updatedAt?: string;
  };

export type TableUpdate = Partial<Omit<TableRecord, 'planHash' | 'tableId' | 'wave'>>;

/** Another table holding a location claim (see `tablesSharingLocation`). */
export interface LocationClaim {
  readonly planHash: string;
  readonly tableId: string;
  readonly status: string;
}

/** A submitted plan as `migrate plans` lists it. */
export interface StoredPlan {
  readonly planHash: string;
  /** The plan's createdAt (when `migrate plan` made it) and when apply first stored it. */
  readonly createdAt: string;
  readonly submittedAt: string;
  readonly waves: number;
  readonly tables: number;
  /** Its tables counted by status (pending, migrated, rolled-back, …). */
  readonly statuses: Readonly<Record<string, number>>;
}

/**
 * One table's outcome of a sync workflow, paged out of the workflow into the state store
 * (workflows/sync.ts, patch `sync-paged-outcomes`): the workflow carries only counts, and
 * `migrate sync` reads these back by the workflow id (app/sync/workflow.ts).
 */
export interface SyncOutcomeRow {
  readonly tableId: string;
  /** Its place in the order the sync's tables finished (0-based, across continue-as-new). */
  readonly seq: number;
  /** When its outcome came back (workflow time, ISO-8601). */
  readonly at: string;
  /** The outcome as the sync workflow got it (core/engine-port/sync.ts TableSyncOutcome). */
  readonly outcome: unknown;
}

export interface StateStore {
  /** Store the plan and one pending record per table; a plan already stored is kept as it was. */
  submitPlan(plan: PlanFile): Promise<{ created: boolean }>;
  /** PLAN_INVALID when the plan was never submitted. */
  getPlan(planHash: string): Promise<PlanFile>;
  /** Resolve a unique prefix of a plan hash (users type the first 12 characters). */
  resolvePlan(prefix: string): Promise<string>;
  /** Every submitted plan, newest first: its header facts and its tables counted by status (`migrate plans`). */
  listPlans(): Promise<StoredPlan[]>;

  /** PLAN_UNKNOWN_TABLE when the table is not in the plan. */
  getTable(planHash: string, tableId: string): Promise<TableRecord>;
  /** Every record of the plan (ordered by wave, table), or of one wave (ordered by table). */
  listTables(planHash: string, wave?: number): Promise<TableRecord[]>;
  /** Every record of the plan without its heavy parts (ordered by wave, table): one light query for `migrate status`. */
  listTableSummaries(planHash: string): Promise<TableSummary[]>;
  /**
   * Other tables (any plan) whose location equals, contains or lies inside `locationKey` and that
   * hold something of this tool's (a saved original onwards, or a failed undo): two tables sharing
   * a location must never be converted (LOCATION_SHARED).
   */
  tablesSharingLocation(locationKey: string, self: { planHash: string; tableId: string }): Promise<LocationClaim[]>;
  /** Change a record without an audit event (bookkeeping only: owner run, written files, skipped). */
  updateTable(planHash: string, tableId: string, u: TableUpdate): Promise<void>;
  /**
   * A table's state change and its audit event, in one transaction (both or neither). With `run`,
   * only while that workflow run owns the record (else TABLE_RUN_FENCED, nothing recorded). With
   * `snapshotId` (sync), only while the record is still at that snapshot (else SYNC_RECORD_MOVED,
   * nothing recorded: another attempt of the same sync recorded first).
   */
  recordStep(
    planHash: string,
    tableId: string,
    u: TableUpdate,
    e: AuditEventInput,
    opts?: { run?: string; snapshotId?: string | null },
  ): Promise<AuditEvent>;

  /** Register a validation run (idempotent); returns the previous run of the same plan, if any. */
  startValidationRun(runId: string, planHash: string): Promise<{ previousRunId: string | null }>;
  /** One table's result rows for a run (a retried check replaces its rows). */
  putValidationRows(runId: string, tableId: string, rows: readonly unknown[]): Promise<void>;
  getValidationRows(runId: string): Promise<unknown[]>;
  finishValidationRun(runId: string, status: string, resultsLocation: string): Promise<void>;

  /**
   * A sync workflow's finished outcomes, keyed by (workflow id, table): writing the same rows again
   * (a retried activity) changes nothing.
   */
  putSyncOutcomes(workflowId: string, planHash: string, rows: readonly SyncOutcomeRow[]): Promise<void>;
  /** One page of a sync workflow's outcomes in finish order: those after `afterSeq` (default: from the first), at most `limit`. */
  readSyncOutcomes(workflowId: string, page?: { readonly afterSeq?: number; readonly limit?: number }): Promise<SyncOutcomeRow[]>;

  /**
   * Append one event to the chain (serialised: one writer at a time). An event whose
   * `idempotencyKey` is already in the chain is not appended again: the existing one is returned
   * (and with recordStep, the state change is not made: the earlier attempt made it).
   */
  appendAudit(e: AuditEventInput): Promise<AuditEvent>;
  /** The chain's newest event, or null when it is empty (the worker refuses to start keyed in front of an unkeyed head). */
  auditHead(): Promise<AuditEvent | null>;
  /** The whole chain in seq order (paged). */
  readAudit(pageSize?: number): AsyncGenerator<AuditEvent>;
  /** Where each new chain head is anchored, if anywhere (for `audit verify`). */
  readonly anchor: AuditAnchor | undefined;
  close(): Promise<void>;
}
