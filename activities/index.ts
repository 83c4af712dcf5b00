// createActivities(deps): the steps the workflows run, merged from one factory per stage — plan
// outline and approvals (below), a table's forward steps (table.ts), their inverses and rollback
// (undo.ts), nightly validation (validation.ts), a migrated table's sync (sync.ts), cutover and
// unfence (cutover.ts over fence.ts) — over the ports in ActivityDeps (context.ts).
// A MigrationError becomes an ApplicationFailure whose type is the code and nonRetryable =
// !retryable. Every step is idempotent, and heartbeats while it runs so a killed worker's step is
// retried within the heartbeat timeout.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { AuditAction as A } from '../core/audit/chain';
import { ErrorCode, MigrationError } from '../core/errors';
import type { ActivityDeps } from './context';
import { activityContext, lastHeartbeatDetails } from './context';
import { tableActivities } from './table';
import { undoActivities } from './undo';
import { syncActivities } from './sync';
import { cutoverActivities } from './cutover';
import { viewActivities } from './views';
import { validationActivities } from './validation';
import { rewriteActivities } from './rewrite';
import { readBackActivities } from './readback';

export type { ActivityDeps, TableRef } from './context';
export type { BatchSyncOutcome, TableSyncOutcome } from './sync';
export type { CutoverStep } from './cutover';
export { failpoint, fingerprintOf } from './context';

export interface PlanOutline {
  readonly planHash: string;
  readonly targetCatalog: string;
  readonly waves: readonly {
    readonly number: number;
    readonly tables: number;
    readonly teams: readonly string[];
    readonly files: number;
    readonly bytes: number;
    readonly expectedSeconds: number;
  }[];
}

export type TableOutcome =
  | { readonly tableId: string; readonly status: 'migrated' }
  /** Views hold no data: nothing is converted; they are planned only to order what reads them. */
  | { readonly tableId: string; readonly status: 'skipped'; readonly reason: string }
  /** `ended`: the table workflow ended without an outcome of its own (terminated, timed out). */
  | { readonly tableId: string; readonly status: 'failed'; readonly code: string; readonly message: string; readonly ended?: boolean };

export function createActivities(deps: ActivityDeps) {
  const c = activityContext(deps);
  const planActs = {
    async planOutline(planHash: string): Promise<PlanOutline> {
      const p = await c.plan(planHash);
      return {
        planHash,
        targetCatalog: p.targetCatalog,
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
      const p = await c.plan(planHash);
      const w = p.waves.find((x) => x.number === wave);
      if (w === undefined)
        throw new MigrationError(
          ErrorCode.WAVE_UNKNOWN,
          `plan ${planHash.slice(0, 12)} has no wave ${wave}`,
          { wave },
          { retryable: false },
        );
      return w.tables.map((t) => t.id);
    },

    async recordApproval(planHash: string, wave: number, by: string): Promise<void> {
      await c.audit(A.WAVE_APPROVED, `wave:${wave}`, planHash, null, null, { wave }, by);
    },
  };
  return {
    ...planActs,
    ...tableActivities(c),
    ...undoActivities(c),
    ...validationActivities(c),
    ...syncActivities(c),
    ...cutoverActivities(c),
    ...viewActivities(c),
    ...rewriteActivities(c),
    ...readBackActivities(c),
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
