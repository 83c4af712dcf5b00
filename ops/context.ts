// What every table operation shares: the injected ports (OpsDeps: state store, HMS, catalog,
// stores, conversion engine), the running activity as ops/runtime.ts describes it, the plan cache,
// the audit helpers, the table status check (core/state/status.ts) and the per-table
// catalog/store/conversion lookups. Knows no Temporal: activities/runtime.ts fills in the runtime.
import path from 'node:path';
import { existsSync, writeFileSync } from 'node:fs';
import type { AuditAction, AuditEventInput } from '../core/audit/chain';
import { idempotencyKey } from '../core/audit/idempotency';
import type { IcebergCatalog, TableIdent } from '../core/catalog/catalog';
import { parseTableIdent } from '../core/catalog/catalog';
import type { PreparedConversion } from '../core/convert/prepare';
import { ErrorCode, MigrationError } from '../core/errors';
import type { HmsPartitionWriter, HmsReader, HmsTableWriter } from '../core/hive/model';
import type { AssessOptions } from '../core/assess/types';
import type { PlanFile } from '../core/plan/plan-file';
import { planHash } from '../core/plan/plan-file';
import type { PlanSignerInfo } from '../core/plan/signing';
import type { ApprovalRules } from '../core/audit/approval';
import type { TargetConfig } from '../core/plan/target';
import type { ViewSqlParser } from '../core/view/view-deps';
import { targetMismatch } from '../core/plan/target';
import { tableFingerprint } from '../core/hive/fingerprint';
import type { ObjectStore } from '../core/storage/object-store';
import type { ForwardStatus } from '../core/state/status';
import { reached as reachedStep } from '../core/state/status';
import type { StateStore, TableRecord } from '../core/state/store';
import type { Recorder, TableStep, TransitionFacts } from '../core/state/lifecycle';
import { assertCanStart } from '../core/state/lifecycle';
import { recordTransition } from '../engine/record-transition';
import { conversionFor, targetOf } from '../core/convert/plan-conversion';
import { planId } from '../core/plan/ids';
import type { OpsRuntime } from './runtime';
import { outsideWorker } from './runtime';
import type { ConversionEngine } from '../core/engine-port/conversion-engine';
import type { WriteOptions } from '../core/engine-port/conversion';

/** The ports every operation is built from (the worker's assembly, app/worker/worker.ts, fills them in). */
export interface OpsDeps {
  readonly state: StateStore;
  readonly hms: HmsReader;
  /** HMS writes: cutover's fence and rollback's unfence (alter_table, register mode), rollback's put-back (add_partitions); unset: those steps refuse (a descendant entry: ROLLBACK_REFUSED, nothing put back). */
  readonly hmsWriter?: HmsTableWriter & HmsPartitionWriter;
  readonly catalog: IcebergCatalog;
  /** The work on one table: metadata writing, validation, drift checks, results file (engine/). */
  readonly engine: ConversionEngine;
  /** A store that may delete/overwrite only under `metadataPrefixes` (one per table). */
  readonly storeFor: (metadataPrefixes: readonly string[]) => ObjectStore;
  readonly namespacePrefix: string;
  /** Worker identity for the audit log. */
  readonly actor: string;
  readonly toolVersion: string;
  readonly now?: () => Date;
  readonly write?: WriteOptions;
  /** Where validation runs write their Parquet results and report (config validation.resultsLocation). */
  readonly resultsLocation?: string;
  /**
   * The assessment options apply re-checks every table with (the worker's `plan.assess`): a plan
   * file cannot widen what the worker's operators allowed.
   */
  readonly assessOptions?: AssessOptions;
  /**
   * This worker's own catalog config (`targetConfigOf(config)`): a plan that pins another target is
   * refused with TARGET_MISMATCH before any write. Unset (programmatic use): not checked.
   */
  readonly targetConfig?: TargetConfig;
  /** Reads a view's table references (adapters/sql); apply re-checks a view's SQL with it. Unset: views stay in Hive (VIEW_NOT_TRANSLATABLE). */
  readonly viewSql?: ViewSqlParser;
  /** Trino's name for the target catalog (config `views.trinoCatalog`), for each view's `trino` representation; unset or null: none. */
  readonly trinoCatalog?: string | null;
  /** The rewrite path (config `rewrite:`): the spark-submit argv, its environment, where new tables go; unset: rewrite tables fail REWRITE_NOT_CONFIGURED. */
  readonly rewrite?: {
    readonly command: readonly string[];
    readonly env: Readonly<Record<string, string>>;
    readonly warehouse: string;
    readonly catalogProperties: Readonly<Record<string, string>>;
    readonly timeoutMinutes: number;
    /** Run each created view in Spark against its Hive SQL (jobs/view_check.py); false: metadata checks only. Unset: true. */
    readonly viewCheck?: boolean;
    /** Where the job's spec, result and log files go (the worker's local disk). */
    readonly workDir: string;
  };
  /** Who may approve waves: this worker's `audit` rules, recorded in each plan's outline (core/audit/approval.ts). Unset: anyone. */
  readonly approvalRules?: ApprovalRules;
  /**
   * This worker's plan.signing verifier: every plan it loads must carry a signature it verifies (else
   * PLAN_UNSIGNED / PLAN_SIGNATURE_INVALID, whatever the client checked). Unset: plans are not checked.
   */
  readonly verifyPlan?: (plan: PlanFile) => PlanSignerInfo;
  /** The read-back proof after each wave (config `validation.readBack`; runs through `rewrite`'s command line); unset: off. */
  readonly readBack?: { readonly filesPerTable: number; readonly tablesPerJob: number };
  /** Crash-test hook (see `failpoint`); the default reads HIM_FAILPOINTS. */
  readonly failpoint?: (name: string, tableId: string) => void;
}

export interface TableRef {
  readonly planHash: string;
  readonly tableId: string;
}

/**
 * Failpoints for crash tests: `HIM_FAILPOINTS=after-write,after-register,during-validate` (and the
 * sync's step boundaries, engine/sync-table.ts SYNC_FAILPOINTS; cutover's `cutover-after-mark`,
 * `cutover-after-rename`, `cutover-before-fenced-record`, `cutover-before-mark`; rollback's put-back
 * `put-back-after-add`, `put-back-before-drop`) makes the
 * worker SIGKILL itself at that point, once per (point, table), remembered as marker files in
 * `HIM_FAILPOINT_DIR`; `stop:<point>` freezes it there instead (SIGSTOP, until SIGCONT: a worker
 * paused past its activity timeouts, e.g. apply's `before-validated-record`). Unset (always,
 * outside tests): no effect.
 */
export function failpoint(name: string, tableId: string, env: NodeJS.ProcessEnv = process.env): void {
  const points = (env.HIM_FAILPOINTS ?? '').split(',').filter(Boolean);
  const dir = env.HIM_FAILPOINT_DIR;
  const stop = points.includes(`stop:${name}`);
  if ((!points.includes(name) && !stop) || dir === undefined) return;
  const marker = path.join(dir, `${name}--${tableId}`);
  if (existsSync(marker)) return;
  writeFileSync(marker, `${process.pid}\n`);
  if (!stop) process.kill(process.pid, 'SIGKILL');
  // `stop:<name>`: the worker freezes (SIGSTOP) until the test sends SIGCONT, then goes on; `.resumed` says it did.
  process.kill(process.pid, 'SIGSTOP');
  writeFileSync(`${marker}.resumed`, `${process.pid}\n`);
}

/** The table's fingerprint exactly as `migrate plan` computed it (core/hive/fingerprint.ts). */
export const fingerprintOf = tableFingerprint;

/**
 * The idempotency key of an event the running activity appends (core/audit/idempotency.ts): the
 * workflow run, the activity id (the same for every attempt), the action and object, and
 * `discriminator` for a step that records one action on one object more than once. Null outside a
 * workflow.
 */
export function stepKeyOf(runtime: OpsRuntime): (action: string, object: string, discriminator?: string | null) => string | null {
  return (action, object, discriminator) => {
    const id = runtime.current()?.identity;
    return id === undefined ? null : idempotencyKey({ ...id, action, object, discriminator });
  };
}

/** True when the record already shows this forward step (a retry after the step was recorded; core/state/status.ts). */
export const reached = (rec: TableRecord, step: ForwardStatus): boolean => reachedStep(rec.status, step);

export type Ctx = ReturnType<typeof opsContext>;

/** Before acting: TABLE_TRANSITION_REFUSED when the record the step read cannot take `step` (core/state/lifecycle.ts). */
const check = (ref: TableRef, rec: Pick<TableRecord, 'status'>, step: TableStep): void => assertCanStart(ref, rec, step);

/** What the write step recorded: our metadata.json and the directory every file we wrote is in. */
function recorded(rec: TableRecord): { metadataLocation: string; metadataDir: string; files: readonly { path: string }[] } | null {
  if (rec.metadataLocation === null) return null;
  return {
    metadataLocation: rec.metadataLocation,
    metadataDir: rec.metadataLocation.slice(0, rec.metadataLocation.lastIndexOf('/') + 1),
    files: rec.writtenFiles ?? [],
  };
}

/** The audit event of an operation that records no transition (approvals, plan checks), with the running activity's key. */
function auditEvent(defaultActor: string, now: () => string, stepKey: ReturnType<typeof stepKeyOf>) {
  return (
    action: AuditAction,
    object: string,
    planHash: string | null,
    before: string | null,
    after: string | null,
    details: Record<string, unknown> = {},
    actor = defaultActor,
  ): AuditEventInput => {
    const key = stepKey(action, object);
    return {
      at: now(),
      actor,
      action,
      object,
      planHash,
      beforeDigest: before,
      afterDigest: after,
      details,
      ...(key === null ? {} : { idempotencyKey: key }),
    };
  };
}

/** Built once per worker (or per in-process command) from its ports and its runtime. */
export function opsContext(deps: OpsDeps, runtime: OpsRuntime = outsideWorker) {
  /** The workflow run of the running activity (undefined outside a worker: `migrate table`, tests). */
  const run = (): string | undefined => runtime.current()?.identity?.runId;
  const stepKey = stepKeyOf(runtime);
  const now = (): string => (deps.now?.() ?? new Date()).toISOString();
  const plans = new Map<string, PlanFile>();
  const plan = async (h: string): Promise<PlanFile> => {
    let p = plans.get(h);
    if (p === undefined) {
      p = await deps.state.getPlan(h);
      if (deps.verifyPlan !== undefined) checkPlan(p, h, deps.verifyPlan);
      plans.set(h, p);
    }
    return p;
  };
  const event = auditEvent(deps.actor, now, stepKey);
  const audit = (...args: Parameters<typeof event>): Promise<unknown> => deps.state.appendAudit(event(...args));
  /** Who records this activity's transitions: now, `by` (default the worker), its workflow run, its step key. */
  const recorder = (by?: string): Recorder => ({ at: now(), actor: by === undefined ? deps.actor : by, run: run(), key: stepKey });
  /** Record a table transition (its row in core/state/lifecycle.ts) of a record the step read as `rec`. */
  const record = (ref: TableRef, rec: Pick<TableRecord, 'status' | 'snapshotId'>, step: TableStep, facts: TransitionFacts, by?: string) =>
    recordTransition(deps.state, ref, rec, step, facts, recorder(by));
  const target = (tableId: string): TableIdent => targetOf(tableId, deps.namespacePrefix);
  /** The conversion of a table whose original is saved (forward steps only: undo uses recorded facts). */
  const prepared = async (ref: TableRef, rec: TableRecord): Promise<PreparedConversion> => {
    if (rec.original === null)
      throw new MigrationError(ErrorCode.INTERNAL, `${ref.tableId}: no saved original (snapshot step not run)`, { tableId: ref.tableId });
    return conversionFor(await plan(ref.planHash), ref.tableId, rec.original, deps.namespacePrefix, deps.toolVersion);
  };
  /**
   * The catalog identifier the write step recorded for this table (`<catalog>:<ns>.<name>`): undo
   * acts on it, not on what this worker's config would compute.
   */
  const recordedTarget = (ref: TableRef, rec: TableRecord): TableIdent => {
    const t = rec.target;
    return t === null ? target(ref.tableId) : parseTableIdent(t.slice(t.indexOf(':') + 1));
  };
  /** The catalog for this table: an in-place catalog learns its saved original (register replaces it, unregister puts it back). */
  const catalogOf = (ref: TableRef, rec: TableRecord): IcebergCatalog =>
    rec.original === null || deps.catalog.withSavedOriginal === undefined
      ? deps.catalog
      : deps.catalog.withSavedOriginal(recordedTarget(ref, rec), rec.original.table);
  /** Refuse a plan pinned to another target than this worker's (before any write, and before each). */
  const assertTarget = async (ref: TableRef): Promise<void> => {
    if (deps.targetConfig === undefined) return;
    const why = targetMismatch(await plan(ref.planHash), deps.targetConfig);
    if (why !== null)
      throw new MigrationError(
        ErrorCode.TARGET_MISMATCH,
        `${ref.tableId}: this worker's catalog config differs from the target plan ${planId(ref.planHash)} pins (${why}); nothing was written by this worker — run every worker of the task queue with the plan's catalog settings`,
        { tableId: ref.tableId, worker: deps.actor },
        { retryable: false },
      );
  };
  const hook = deps.failpoint ?? ((name: string, tableId: string) => failpoint(name, tableId));
  return {
    deps,
    runtime,
    run,
    stepKey,
    now,
    plan,
    event,
    audit,
    check,
    record,
    target,
    recordedTarget,
    assertTarget,
    prepared,
    catalogOf,
    recorded,
    failpoint: hook,
  };
}

/** On a signing worker: the stored plan's content matches its hash and its signature verifies with this worker's keys (non-retryable otherwise). */
export function checkPlan(p: PlanFile, h: string, verify: (plan: PlanFile) => PlanSignerInfo): PlanSignerInfo {
  try {
    if (p.hash !== h || planHash(p) !== h)
      throw new MigrationError(
        ErrorCode.PLAN_HASH_MISMATCH,
        `plan ${planId(h)} as stored in the state database does not match its hash: it was edited after it was submitted`,
        { planHash: h },
      );
    return verify(p);
  } catch (e) {
    if (e instanceof MigrationError)
      throw new MigrationError(e.code, `the worker refused plan ${planId(h)} (its own plan.signing decides): ${e.message}`, e.context, {
        retryable: false,
      });
    throw e;
  }
}
