// Nightly validation of a plan's migrated tables: each table's drift checks in a sliding window,
// rows to the state store, one results file and report per run, continuing-as-new when large.
import { continueAsNew, defineQuery, setCurrentDetails, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { PlanTablesInput } from './common';
import { activities, failureOf, planId, SA } from './common';
import { SlidingWindow, windowLimit } from './window';

/** `concurrency`: tables checked at once, default 16. */
export interface NightlyInput extends PlanTablesInput {
  /** Carried across continue-as-new. */
  readonly cursor?: number;
  readonly counts?: { readonly validated: number; readonly drifted: number; readonly failed: number };
  readonly runId?: string;
}

export interface NightlyResult {
  readonly planHash: string;
  readonly runId: string;
  readonly status: 'validated' | 'drifted' | 'failed';
  readonly tables: number;
  readonly counts: { readonly validated: number; readonly drifted: number; readonly failed: number };
  readonly results: string | null;
  readonly report: string | null;
  readonly previousRunId: string | null;
}

type Checked = { tableId: string; status: 'validated' | 'drifted' | 'failed' };

export const nightlyStatusQuery = defineQuery<{
  runId: string;
  tables: number;
  checked: number;
  validated: number;
  drifted: number;
  failed: number;
}>('validationStatus');

export async function nightlyValidationWorkflow(input: NightlyInput): Promise<NightlyResult> {
  const { short, long } = activities(input.timeouts);
  const info = workflowInfo();
  // One run id across continue-as-new: the first execution's run id.
  const runId = input.runId ?? `${planId(input.planHash)}-${info.firstExecutionRunId}`;
  const scope = await short.validationScope(input.planHash, input.waves ?? [], input.tables ?? [], 'live');
  const { previousRunId } = await short.startValidationRun(input.planHash, runId);
  const counts = { validated: 0, drifted: 0, failed: 0, ...input.counts };
  let cursor = input.cursor ?? 0;
  const window = new SlidingWindow<Checked>(windowLimit(input.concurrency, 16));
  setHandler(nightlyStatusQuery, () => ({
    runId,
    tables: scope.tables.length,
    checked: counts.validated + counts.drifted + counts.failed,
    ...counts,
  }));
  upsertSearchAttributes([
    { key: SA.plan, value: planId(input.planHash) },
    { key: SA.team, value: scope.teams },
    { key: SA.status, value: 'running' },
  ]);
  const settle = async (): Promise<void> => void counts[(await window.next()).status]++;
  while (cursor < scope.tables.length || window.size > 0) {
    while (cursor < scope.tables.length && !window.full) {
      const tableId = scope.tables[cursor++] as string;
      window.add(
        tableId,
        long.checkTable(input.planHash, tableId, runId),
        (e) => ({ tableId, status: 'failed', codes: [failureOf(e).code] }) as Checked,
      );
    }
    await settle();
    setCurrentDetails(
      `Validating plan \`${planId(input.planHash)}\`: ${counts.validated + counts.drifted + counts.failed}/${scope.tables.length} tables · ${counts.drifted} drifted · ${counts.failed} failed`,
    );
    if (workflowInfo().continueAsNewSuggested && cursor < scope.tables.length) {
      while (window.size > 0) await settle();
      await continueAsNew<typeof nightlyValidationWorkflow>({ ...input, cursor, counts, runId });
    }
  }
  const published = await short.publishValidationRun(input.planHash, runId, previousRunId);
  const status = published.status as NightlyResult['status'];
  upsertSearchAttributes([{ key: SA.status, value: status }]);
  setCurrentDetails(published.summary);
  return {
    planHash: input.planHash,
    runId,
    status,
    tables: scope.tables.length,
    counts,
    results: published.results,
    report: published.report,
    previousRunId,
  };
}
