// createActivities(deps): the steps the workflows run, as thin shims over the table operations of
// ops/ (built once here with the Temporal runtime, activities/runtime.ts) — a table's forward steps
// (ops/table.ts), views, the rewrite path, nightly validation, the read-back proof, cutover and
// unfence — plus what still lives here: plan outline and approvals (below), the inverses and
// rollback (undo.ts, put-back.ts), a migrated table's sync (sync.ts) and apply in batches
// (apply-batch.ts). `workerActivities` maps a MigrationError to an ApplicationFailure whose type is
// the code and nonRetryable = !retryable, and heartbeats while a step runs so a killed worker's step
// is retried within the heartbeat timeout. Every step is idempotent.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { AuditAction as A } from '../core/audit/chain';
import type { ActorSource } from '../core/audit/chain';
import type { ApprovalRules } from '../core/audit/approval';
import { approvalRulesOf } from '../core/audit/approval';
import type { PlanFile } from '../core/plan/plan-file';
import type { PlanSignerInfo } from '../core/plan/signing';
import { ErrorCode, MigrationError } from '../core/errors';
import { planId } from '../core/plan/ids';
import type { OpsDeps } from '../ops/context';
import type { Ctx } from '../ops/context';
import { checkPlan, opsContext } from '../ops/context';
import { tableOps, tableSteps } from '../ops/table';
import { siblingCheck } from '../ops/siblings';
import { lastHeartbeatDetails, temporalRuntime } from './runtime';
import { applyBatchActivities } from './apply-batch';
import { undoOps } from '../ops/undo';
import { syncActivities } from './sync';
import { cutoverOps } from '../ops/cutover';
import { viewOps } from '../ops/views';
import { validationOps } from '../ops/validation';
import { rewriteOps } from '../ops/rewrite';
import { readBackOps } from '../ops/readback';

/** The ports the activities are built from: the operations' (ops/context.ts). */
export type ActivityDeps = OpsDeps;
export type { TableRef } from '../ops/context';
export type { BatchSyncOutcome, SyncOutcomeRow, TableSyncOutcome } from './sync';
export type { BatchTableOutcome, TableOutcome } from './outcome';
export type { PutBackOutcome, RollbackTableResult } from '../ops/undo';
export type { CutoverStep } from '../ops/cutover';
export { failpoint, fingerprintOf } from '../ops/context';

export interface PlanOutline {
  readonly planHash: string;
  readonly targetCatalog: string;
  /** The worker's approval rules for this plan (absent from outlines of older workers: anyone approves). */
  readonly approval?: ApprovalRules;
  /** Who signed the plan, as the worker verified it (absent when the worker does not require signing). */
  readonly signer?: PlanSignerInfo;
  readonly waves: readonly {
    readonly number: number;
    readonly tables: number;
    readonly teams: readonly string[];
    readonly files: number;
    readonly bytes: number;
    readonly expectedSeconds: number;
  }[];
}

export function createActivities(deps: ActivityDeps) {
  const c = opsContext(deps, temporalRuntime);
  /** The plan's wave `wave`, or WAVE_UNKNOWN (not retryable). */
  const waveOf = async (planHash: string, wave: number) => {
    const w = (await c.plan(planHash)).waves.find((x) => x.number === wave);
    if (w === undefined)
      throw new MigrationError(ErrorCode.WAVE_UNKNOWN, `plan ${planId(planHash)} has no wave ${wave}`, { wave }, { retryable: false });
    return w;
  };
  const planActs = {
    async planOutline(planHash: string): Promise<PlanOutline> {
      const { p, signer } = await verifiedPlan(c, deps, planHash);
      return {
        planHash,
        targetCatalog: p.targetCatalog,
        approval: deps.approvalRules ?? approvalRulesOf(undefined),
        ...(signer === undefined ? {} : { signer }),
        waves: p.waves.map((w) => ({
          number: w.number,
          tables: w.tables.length,
          teams: [...new Set(w.tables.map((t) => t.team ?? 'unowned'))].sort(),
          files: w.estimates.files,
          bytes: w.estimates.bytes,
          expectedSeconds: w.estimates.expectedSeconds,
        })),
      };
    },

    async waveTables(planHash: string, wave: number): Promise<string[]> {
      return (await waveOf(planHash, wave)).tables.map((t) => t.id);
    },

    /** The wave's tables in plan order with their owning team (`unowned` without one), for search attributes. */
    async waveMembers(planHash: string, wave: number): Promise<{ id: string; team: string }[]> {
      return (await waveOf(planHash, wave)).tables.map((t) => ({ id: t.id, team: t.team ?? 'unowned' }));
    },

    async recordApproval(planHash: string, wave: number, by: string, source?: ActorSource): Promise<void> {
      await deps.state.appendAudit({
        ...c.event(A.WAVE_APPROVED, `wave:${wave}`, planHash, null, null, { wave }, by),
        ...(source === undefined ? {} : { actorSource: source }),
      });
    },

    /** An approval the worker's rules refused: who, from where, and why. */
    async recordApprovalRefused(planHash: string, wave: number, by: string, source: ActorSource, reason: string): Promise<void> {
      await deps.state.appendAudit({
        ...c.event(A.WAVE_APPROVAL_REFUSED, `wave:${wave}`, planHash, null, null, { wave, reason }, by),
        actorSource: source,
      });
    },
  };
  // One location check (its per-database cache) for the table steps, alone or in batches.
  const sharesNoLocation = siblingCheck(deps.hms);
  const undo = undoOps(c);
  return {
    ...planActs,
    ...tableOps(c, sharesNoLocation),
    ...applyBatchActivities(c, tableSteps(c, sharesNoLocation), undo),
    ...undo,
    ...validationOps(c),
    ...syncActivities(c),
    ...cutoverOps(c),
    ...viewOps(c),
    ...rewriteOps(c),
    ...readBackOps(c),
  };
}

export type Activities = ReturnType<typeof createActivities>;

function toFailure(e: unknown): unknown {
  if (e instanceof MigrationError) {
    return ApplicationFailure.create({
      type: e.code,
      message: e.message,
      nonRetryable: !e.retryable,
      details: [JSON.parse(JSON.stringify(e.context, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as unknown],
      cause: e,
    });
  }
  return e;
}

/** Heartbeat every quarter of the activity's heartbeat timeout while it runs; returns the stop. */
function keepAlive(): () => void {
  let ctx: Context;
  try {
    ctx = Context.current();
  } catch {
    return () => undefined; // called outside a worker (tests, `migrate table`)
  }
  const ms = ctx.info.heartbeatTimeoutMs;
  if (ms === undefined || ms <= 0) return () => undefined;
  const timer = setInterval(() => ctx.heartbeat(lastHeartbeatDetails.get(ctx)), Math.max(250, Math.floor(ms / 4)));
  return () => clearInterval(timer);
}

function wrap<Args extends unknown[], R>(fn: (...args: Args) => Promise<R>): (...args: Args) => Promise<R> {
  return async (...args: Args) => {
    const stop = keepAlive();
    try {
      return await fn(...args);
    } catch (e) {
      throw toFailure(e);
    } finally {
      stop();
    }
  };
}

/** The same functions with MigrationError mapped to ApplicationFailure (what the worker registers). */
export function workerActivities(deps: ActivityDeps): Activities {
  const acts = createActivities(deps);
  return Object.fromEntries(Object.entries(acts).map(([k, fn]) => [k, wrap(fn as (...a: unknown[]) => Promise<unknown>)])) as Activities;
}

/**
 * The plan as `planOutline` starts it: on a signing worker, its hash and signature checked with the
 * worker's own keys; the signer recorded (`plan.signature-verified`), or the refusal (`plan.refused`)
 * and a non-retryable failure that ends the plan before any wave.
 */
async function verifiedPlan(c: Ctx, deps: ActivityDeps, planHash: string): Promise<{ p: PlanFile; signer?: PlanSignerInfo }> {
  if (deps.verifyPlan === undefined) return { p: await c.plan(planHash) };
  const stored = await deps.state.getPlan(planHash);
  let signer: PlanSignerInfo;
  try {
    signer = checkPlan(stored, planHash, deps.verifyPlan);
  } catch (e) {
    if (e instanceof MigrationError)
      await c.audit(A.PLAN_REFUSED, `plan:${planHash}`, planHash, null, null, {
        code: e.code,
        reason: e.message,
        signature: stored.signature ?? null,
      });
    throw e;
  }
  await c.audit(A.PLAN_SIGNATURE_VERIFIED, `plan:${planHash}`, planHash, null, planHash, { ...signer });
  return { p: await c.plan(planHash), signer };
}
