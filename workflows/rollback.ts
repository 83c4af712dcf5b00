// Undo one wave: its tables one at a time in reverse order (dependents first); a table that cannot
// be rolled back is reported with its code, the others still are. A table fenced by cutover is
// unfenced first (ops/cutover.ts unfenceTable), then rolled back like any other; a table whose
// Iceberg appends were put back into Hive is listed with what was put back (the rollbackTable
// activity's result: the same commands). Still-migrated views of later waves that read the wave
// refuse it (ROLLBACK_ORDER, before anything changes) unless `withDependentViews` rolls them back first.
// A wave of any size: after `tablesPerRun` tables, or when Temporal suggests it, the run continues as
// new carrying the tables still to do, in order, and the results so far in bounded form
// (./rollback-tally.ts).
import { continueAsNew, isCancellation, patched, setCurrentDetails, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Timeouts } from './common';
import { activities, failureOf, markTeams, planId, refusal, SA, UI_TRUTH_PATCH } from './common';
import type { NotListed, PutBackEntry, Refusal, RollbackTally } from './rollback-tally';
import { addPutBack, addRefused, addRolledBack, emptyTally, notListedOf } from './rollback-tally';

export interface RollbackInput {
  readonly timeouts?: Timeouts;
  readonly planHash: string;
  readonly wave: number;
  readonly force: boolean;
  readonly by: string;
  /** Roll back the still-migrated views of later waves that read the wave first; unset: such views refuse the rollback (ROLLBACK_ORDER). */
  readonly withDependentViews?: boolean;
  /** Tables (and views) one run rolls back before it continues as new (default ROLLBACK_TABLES_PER_RUN). */
  readonly tablesPerRun?: number;
  /** Set by the run that continued as new: where the next one goes on. */
  readonly carried?: RollbackCarry;
}

/** What a run hands the next (continue-as-new): the work left in rollback order and the results so far. */
export interface RollbackCarry {
  /** Dependent views still to roll back first. */
  readonly views: readonly string[];
  /** The wave's tables still to roll back, dependents first. */
  readonly tables: readonly string[];
  /** Tables of the wave (the first run's count). */
  readonly total: number;
  /** Every dependent view the first run found (rolled back first). */
  readonly dependentViews: readonly string[];
  /** Dependent views refused so far: any keeps the wave's tables where they are. */
  readonly viewsRefused: number;
  readonly tally: RollbackTally;
  /** Runs before this one. */
  readonly runs: number;
}

export interface RollbackResult {
  readonly wave: number;
  /** Listed up to a budget (rollback-tally.ts LIST_BUDGET); `counts` counts every one. */
  readonly rolledBack: readonly string[];
  readonly refused: readonly Refusal[];
  /** Tables whose Iceberg appends since ours were registered back into Hive (absent in runs before it existed). */
  readonly putBack?: readonly PutBackEntry[];
  /** Views of later waves rolled back first (--with-dependent-views; absent in runs before it existed). */
  readonly dependentViews?: readonly string[];
  /** Every outcome counted, listed or not, and the runs it took (absent in results from before continue-as-new). */
  readonly counts?: {
    readonly tables: number;
    readonly rolledBack: number;
    readonly refused: number;
    readonly putBack: number;
    readonly runs: number;
  };
  /** Outcomes counted but left out of their list (absent when every one is listed). */
  readonly notListed?: NotListed;
}

/** Workflows started before cutover existed replay without the unfence step. */
export const UNFENCE_PATCH = 'rollback-unfence-before-undo';
/** Workflows started before the rollback order existed replay without its check. */
export const ORDER_PATCH = 'rollback-dependent-views-first';
/** Workflows started before continue-as-new existed replay in one run. */
export const ROLLBACK_CONTINUE_AS_NEW_PATCH = 'rollback-continue-as-new';
/** ~12 events per table (unfence + rollback): ~3,000 events a run, under the 4,096 at which Temporal suggests continuing as new. */
export const ROLLBACK_TABLES_PER_RUN = 250;

/** The views to roll back first (empty: none read the wave), or the coded refusal that fails the workflow. */
async function viewsFirst(input: RollbackInput): Promise<string[]> {
  if (!patched(ORDER_PATCH)) return [];
  try {
    return await activities(input.timeouts).short.rollbackOrder(input.planHash, input.wave, input.withDependentViews === true);
  } catch (e) {
    const f = failureOf(e);
    throw refusal(f.code, f.message);
  }
}

/** The first run: the wave's tables, the views first, the teams on the workflow. */
async function startOf(input: RollbackInput): Promise<RollbackCarry> {
  const { short } = activities(input.timeouts);
  const truth = patched(UI_TRUTH_PATCH);
  const tables = await short.migratedTables(input.planHash, input.wave);
  const first = await viewsFirst(input);
  // The tables' teams on this workflow: a team's filter finds the rollback of its tables.
  if (truth) await markTeams(input.planHash, input.wave, tables, input.timeouts);
  // Reverse order of the wave (dependents first), one at a time: rollback is rare and careful.
  const reversed = [...tables].reverse();
  return { views: first, tables: reversed, total: tables.length, dependentViews: first, viewsRefused: 0, tally: emptyTally(), runs: 0 };
}

/**
 * Whether this run stops here and continues as new: its budget of tables spent or Temporal's
 * suggestion. Asked (and the patch marked) only then, so histories from before the patch replay unchanged.
 */
function rotateNow(spent: number, perRun: number): boolean {
  if (spent === 0 || (spent < perRun && !workflowInfo().continueAsNewSuggested)) return false;
  return patched(ROLLBACK_CONTINUE_AS_NEW_PATCH);
}

/** A table the rollback could not finish: its coded failure, or ROLLBACK_CANCELLED when the rollback was cancelled. */
function refusalOf(tableId: string, e: unknown): Refusal {
  const f = failureOf(e);
  if (!isCancellation(e)) return { tableId, ...f };
  return { tableId, code: 'ROLLBACK_CANCELLED', message: `${tableId}: not rolled back: the rollback was cancelled (${f.message})` };
}

export async function rollbackWaveWorkflow(input: RollbackInput): Promise<RollbackResult> {
  const { short } = activities(input.timeouts);
  const run = input.carried ?? (await startOf(input));
  const perRun = Math.max(1, input.tablesPerRun ?? ROLLBACK_TABLES_PER_RUN);
  const views = [...run.views];
  const tables = [...run.tables];
  const { tally } = run;
  const name = `wave ${input.wave} of plan \`${planId(input.planHash)}\``;
  let viewsRefused = run.viewsRefused;
  let spent = 0;
  const carry = (): RollbackCarry => ({ ...run, views, tables, viewsRefused, tally, runs: run.runs + 1 });
  for (let tableId = views[0]; tableId !== undefined; tableId = views[0]) {
    if (rotateNow(spent, perRun)) await continueAsNew<typeof rollbackWaveWorkflow>({ ...input, carried: carry() });
    views.shift();
    spent++;
    setCurrentDetails(`Rolling back ${name}: first the view ${tableId} that reads it`);
    try {
      await short.rollbackTable({ planHash: input.planHash, tableId }, input.force, input.by);
      addRolledBack(tally, tableId);
    } catch (e) {
      addRefused(tally, refusalOf(tableId, e));
      viewsRefused++;
    }
  }
  // A dependent view left in place keeps the wave's tables where they are.
  const blocked = viewsRefused > 0;
  for (let tableId = tables[0]; tableId !== undefined; tableId = tables[0]) {
    if (blocked) {
      tables.shift();
      addRefused(tally, {
        tableId,
        code: 'ROLLBACK_ORDER',
        message: `${tableId}: not rolled back: a view that reads the wave was refused`,
      });
      continue;
    }
    if (rotateNow(spent, perRun)) await continueAsNew<typeof rollbackWaveWorkflow>({ ...input, carried: carry() });
    tables.shift();
    spent++;
    setCurrentDetails(
      `Rolling back ${name}: ${tally.counts.rolledBack + tally.counts.refused} of ${run.total} tables done · now ${tableId}`,
    );
    try {
      // A fenced or cut-over table (migrate cutover): its Hive table back under its name first.
      if (patched(UNFENCE_PATCH)) await short.unfenceTable({ planHash: input.planHash, tableId }, input.by, input.force);
      const r = await short.rollbackTable({ planHash: input.planHash, tableId }, input.force, input.by);
      addRolledBack(tally, tableId);
      if (r.putBack !== undefined) addPutBack(tally, { tableId, ...r.putBack });
    } catch (e) {
      addRefused(tally, refusalOf(tableId, e));
    }
  }
  return finish(input, run, tally);
}

function finish(input: RollbackInput, run: RollbackCarry, tally: RollbackTally): RollbackResult {
  const status = tally.counts.refused === 0 ? 'rolled-back' : 'rollback-incomplete';
  upsertSearchAttributes([{ key: SA.status, value: status }]);
  const views = run.dependentViews.length;
  setCurrentDetails(
    `Wave ${input.wave} of plan \`${planId(input.planHash)}\` ${status}: ${tally.counts.rolledBack} of ${run.total} tables rolled back`,
  );
  const notListed = notListedOf(tally);
  return {
    wave: input.wave,
    rolledBack: tally.rolledBack,
    refused: tally.refused,
    putBack: tally.putBack,
    ...(views > 0 ? { dependentViews: run.dependentViews } : {}),
    counts: { tables: run.total, ...tally.counts, runs: run.runs + 1 },
    ...(notListed === undefined ? {} : { notListed }),
  };
}
