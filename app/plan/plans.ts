// `migrate plans` (every submitted plan with where it stands: the state store's tables and its plan
// workflow's last run in Temporal) and `migrate show` (a saved plan — a file, or a submitted plan by
// id — re-rendered: its report and graph from the plan alone, as `migrate plan` wrote them).
import { existsSync } from 'node:fs';
import { WorkflowNotFoundError } from '@temporalio/client';
import { mapLimit } from '../../adapters/hms/thrift/limits';
import type { MigrateConfig } from '../../core/config/schema';
import { canonicalJson } from '../../core/hash';
import { planId, planWorkflowId } from '../../core/plan/ids';
import type { PlanFile } from '../../core/plan/plan-file';
import { parsePlan } from '../../core/plan/plan-file';
import type { StoredPlan } from '../../core/state/store';
import { SA } from '../../workflows/index';
import { CALL_MS, planArg, temporalError } from '../apply/plan-workflow';
import { readPlanFile } from './plan-input';
import { renderReviewOutputs, writeAll } from './build';
import { openState, openTemporal } from '../runtime/runtime';
import type { TemporalHandle } from '../runtime/runtime';

/** Plan workflows described at once. */
const PARALLEL = 8;

export interface LastRun {
  readonly workflowId: string;
  /** Temporal's execution status (RUNNING, COMPLETED, CANCELLED, …). */
  readonly execution: string;
  readonly startedAt: string;
  readonly closedAt: string | null;
}

export interface ListedPlan extends StoredPlan {
  readonly id: string;
  /** Where the plan stands: its workflow's MigrationStatus (succeeded, failed, running, …), `rolled back` / `partly rolled back` from its tables, or `not started`. */
  readonly state: string;
  readonly lastRun: LastRun | null;
}

/** A plan's state from its last run and its tables: a rolled-back wave outranks the run's own ending. */
export function planState(run: { status: string | null; execution: string } | null, statuses: Readonly<Record<string, number>>): string {
  const total = Object.values(statuses).reduce((n, c) => n + c, 0);
  const rolled = statuses['rolled-back'] ?? 0;
  if (rolled > 0) return rolled === total ? 'rolled back' : 'partly rolled back';
  if (run === null) return 'not started';
  return run.status ?? run.execution.toLowerCase();
}

async function lastRunOf(tmp: TemporalHandle, hash: string): Promise<{ run: LastRun; status: string | null } | null> {
  const h = tmp.client.workflow.getHandle(planWorkflowId(hash));
  try {
    const d = await tmp.deadline(CALL_MS, () => h.describe());
    const status = d.typedSearchAttributes.get(SA.status) ?? null;
    const run = {
      workflowId: h.workflowId,
      execution: d.status.name,
      startedAt: d.startTime.toISOString(),
      closedAt: d.closeTime?.toISOString() ?? null,
    };
    return { run, status: d.status.name === 'RUNNING' || d.status.name === 'COMPLETED' ? status : d.status.name.toLowerCase() };
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return null;
    throw temporalError(e, tmp, `describe ${h.workflowId}`);
  }
}

/** Every submitted plan, newest first, with its state and last run. */
export async function listPlans(config: MigrateConfig): Promise<ListedPlan[]> {
  const state = await openState(config);
  let stored: StoredPlan[];
  try {
    stored = await state.listPlans();
  } finally {
    await state.close();
  }
  const tmp = await openTemporal(config);
  try {
    return await mapLimit(stored, PARALLEL, async (p) => {
      const last = await lastRunOf(tmp, p.planHash);
      const st = planState(last === null ? null : { status: last.status, execution: last.run.execution }, p.statuses);
      return { ...p, id: planId(p.planHash), state: st, lastRun: last?.run ?? null };
    });
  } finally {
    await tmp.close();
  }
}

/** A saved plan: an existing file, else a submitted plan's id (its hash checked as apply checks a file's). */
export async function loadSavedPlan(config: () => Promise<MigrateConfig>, ref: string): Promise<PlanFile> {
  if (existsSync(ref) || ref.endsWith('.json')) return readPlanFile(ref);
  const prefix = planArg(ref);
  const state = await openState(await config());
  try {
    return parsePlan(canonicalJson(await state.getPlan(await state.resolvePlan(prefix))));
  } finally {
    await state.close();
  }
}

export interface ShowOutputs {
  readonly report?: string;
  readonly html?: string;
  readonly graph?: string;
}

/** The plan's report (Markdown, or HTML), and graph, written as `migrate plan` wrote them; the files written. */
export async function writeShown(plan: PlanFile, o: ShowOutputs): Promise<string[]> {
  const files = [
    ...(await renderReviewOutputs(plan, { report: o.report, graph: o.graph })),
    ...(o.html === undefined ? [] : await renderReviewOutputs(plan, { report: o.html })),
  ];
  return writeAll(files);
}

/** The Markdown report as text (`migrate show` without an output file). */
export async function reportText(plan: PlanFile): Promise<string> {
  const [md] = await renderReviewOutputs(plan, { report: 'report.md' });
  return md?.[1] ?? '';
}
