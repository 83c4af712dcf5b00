// In-memory activities for the workflow tests: each typed as its real counterpart (activities/),
// every call recorded in order as `<activity> <table or wave>`, the defaults a plan in which every
// step succeeds, and any activity replaced per test (a step that fails with a code, a slow one).
// Failures are what the worker makes of a MigrationError: an ApplicationFailure whose type is the code.
import { ApplicationFailure } from '@temporalio/common';
import type { Activities, PlanOutline } from '../../../activities/index';
import type { ApprovalRules } from '../../../core/audit/approval';
import { applyBatchActivities } from '../../../activities/apply-batch';
import type { Ctx, TableRef } from '../../../ops/context';
import { lastHeartbeatDetails } from '../../../activities/runtime';
import { Context } from '@temporalio/activity';

export interface World {
  readonly waves: readonly { readonly number: number; readonly tables: readonly { readonly id: string; readonly team?: string }[] }[];
  readonly approval?: ApprovalRules;
  /** Tables whose write step finds a view. */
  readonly views?: readonly string[];
  /** Tables the plan puts on the rewrite path. */
  readonly rewrite?: readonly string[];
}

export interface Call {
  readonly name: keyof Activities;
  readonly args: readonly unknown[];
  /** The table (or `wave n`) the call is about, for the order assertions. */
  readonly subject: string;
}

/** An activity failure as the worker reports a MigrationError: coded, retryable or not. */
export function coded(code: string, opts: { retryable?: boolean; message?: string } = {}): ApplicationFailure {
  return ApplicationFailure.create({ type: code, message: opts.message ?? `${code} (test)`, nonRetryable: opts.retryable !== true });
}

export const PLAN = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2';

let plans = 0;
/**
 * A plan hash of its own (a new plan id, so new plan, wave and table workflow ids): a test's
 * workflows never meet those another test left running in the same environment.
 */
export function freshPlan(): string {
  const prefix = `${(++plans).toString(16).padStart(4, '0')}${(process.pid % 0xffff).toString(16).padStart(4, '0')}`;
  return prefix + PLAN.slice(prefix.length);
}

function subjectOf(args: readonly unknown[]): string {
  const [a, b] = args;
  if (typeof a === 'object' && a !== null && 'tableId' in a) return String((a as { tableId: string }).tableId);
  if (typeof b === 'string') return b;
  if (typeof b === 'number') return `wave ${b}`;
  if (Array.isArray(b)) return b.join(',');
  return '';
}

type Impl = Partial<Activities>;

function defaults(world: World): Impl {
  const wave = (n: number) => {
    const w = world.waves.find((x) => x.number === n);
    if (w === undefined) throw coded('WAVE_UNKNOWN');
    return w;
  };
  const team = (t: { team?: string }) => t.team ?? 'unowned';
  return {
    planOutline: async (planHash) =>
      ({
        planHash,
        targetCatalog: 'test',
        ...(world.approval === undefined ? {} : { approval: world.approval }),
        waves: world.waves.map((w) => ({
          number: w.number,
          tables: w.tables.length,
          teams: [...new Set(w.tables.map(team))].sort(),
          files: 0,
          bytes: 0,
          expectedSeconds: 0,
        })),
      }) satisfies PlanOutline,
    waveTables: async (_p, n) => wave(n).tables.map((t) => t.id),
    waveMembers: async (_p, n) => wave(n).tables.map((t) => ({ id: t.id, team: team(t) })),
    recordApproval: async () => undefined,
    recordApprovalRefused: async () => undefined,
    saveOriginalAndWrite: async (ref) =>
      world.views?.includes(ref.tableId)
        ? { view: true }
        : world.rewrite?.includes(ref.tableId)
          ? { view: false, rewrite: true }
          : { view: false, metadataLocation: `s3://w/${ref.tableId}/metadata/00000.metadata.json`, dataFiles: 1, records: 1 },
    registerTable: async () => ({ outcome: 'registered' }),
    validateTable: async () => ({ ok: true, snapshotId: '1' }),
    deleteMetadata: async () => ({ deleted: 1 }),
    unregisterTable: async () => ({ outcome: 'unregistered' }),
    markFailed: async () => undefined,
    markSkipped: async () => undefined,
    createIcebergView: async (ref) => ({ created: true, target: `test:${ref.tableId}` }),
    validateIcebergView: async (ref) => ({ ok: true, metadataLocation: `s3://w/${ref.tableId}/view.json` }),
    dropIcebergView: async () => ({ outcome: 'dropped' }),
    readBackBatches: async () => [],
    readBackTables: async () => ({ failures: [] }),
    markReadBackFailed: async () => undefined,
  };
}

/** The activities a worker registers for one test, and the calls they received. */
export class Fakes {
  readonly calls: Call[] = [];
  readonly activities: Impl;

  constructor(world: World, overrides: Impl = {}, hooks: { failpoint?: (name: string, tableId: string) => void } = {}) {
    const all: Record<string, unknown> = { ...defaults(world), ...overrides };
    // A batch is the real applyTables over these fakes' steps (each step call recorded as its own).
    const step = (name: string) => (ref: TableRef) => (this.activities as Record<string, (r: TableRef) => Promise<never>>)[name]!(ref);
    all.applyTables ??= applyBatchActivities(
      { failpoint: hooks.failpoint ?? (() => undefined) } as unknown as Ctx,
      { saveOriginalAndWrite: step('saveOriginalAndWrite'), registerTable: step('registerTable'), validateTable: step('validateTable') },
      {
        deleteMetadata: step('deleteMetadata'),
        unregisterTable: step('unregisterTable'),
        markFailed: (ref: TableRef, code: string, message: string) =>
          (this.activities.markFailed as (r: TableRef, c: string, m: string) => Promise<void>)(ref, code, message),
      } as never,
    ).applyTables;
    // As the worker runs it (activities/index.ts): heartbeating its last details while it runs.
    const batch = all.applyTables as (...a: unknown[]) => Promise<unknown>;
    all.applyTables = async (...a: unknown[]) => {
      const ctx = Context.current();
      const timer = setInterval(() => ctx.heartbeat(lastHeartbeatDetails.get(ctx)), 200);
      try {
        return await batch(...a);
      } finally {
        clearInterval(timer);
      }
    };
    this.activities = Object.fromEntries(
      Object.entries(all).map(([name, fn]) => [
        name,
        (...args: unknown[]) => {
          this.calls.push({ name: name as keyof Activities, args, subject: subjectOf(args) });
          return (fn as (...a: unknown[]) => Promise<unknown>)(...args);
        },
      ]),
    ) as Impl;
  }

  /** `<activity> <subject>` of every call, in order, optionally only these activities. */
  seq(...names: (keyof Activities)[]): string[] {
    return this.calls.filter((c) => names.length === 0 || names.includes(c.name)).map((c) => `${c.name} ${c.subject}`.trim());
  }

  /** The calls of one activity. */
  of(name: keyof Activities): Call[] {
    return this.calls.filter((c) => c.name === name);
  }
}
