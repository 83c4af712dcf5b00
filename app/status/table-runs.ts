// `migrate status --json`'s per-table Temporal facts: each table workflow's last run (status, start,
// close, duration) and its page in the Temporal UI, from one visibility listing of the plan's
// workflows (MigrationPlan), not one call per table.
import type { MigrateConfig } from '../../core/config/schema';
import { planId } from '../../core/plan/ids';
import type { TableRun, TableStatusRow } from '../../core/sync/lag';
import { openTemporal } from '../runtime/runtime';
import type { TemporalHandle } from '../runtime/runtime';

/** The most executions read from the listing (a plan's plan, wave, table and rollback runs). */
const MAX_LISTED = 100_000;

const uiPage = (tmp: TemporalHandle, workflowId: string, runId: string): string | null =>
  tmp.uiUrl === undefined
    ? null
    : `${tmp.uiUrl}/namespaces/${encodeURIComponent(tmp.namespace)}/workflows/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}/history`;

/** `rows` with each table workflow's last run (`run`), when Temporal lists it; rows as they are when it cannot be reached. */
export async function withTableRuns(config: MigrateConfig, planHash: string, rows: readonly TableStatusRow[]): Promise<TableStatusRow[]> {
  const wanted = new Set(rows.map((r) => r.workflowId).filter((id): id is string => id !== undefined));
  if (wanted.size === 0) return [...rows];
  let tmp: TemporalHandle | undefined;
  const runs = new Map<string, TableRun>();
  try {
    tmp = await openTemporal(config);
    let n = 0;
    for await (const w of tmp.client.workflow.list({ query: `MigrationPlan = '${planId(planHash)}'` })) {
      if (++n > MAX_LISTED) break;
      if (!wanted.has(w.workflowId)) continue;
      const seen = runs.get(w.workflowId);
      if (seen !== undefined && Date.parse(seen.startedAt) >= w.startTime.getTime()) continue;
      const closed = w.closeTime ?? null;
      runs.set(w.workflowId, {
        runId: w.runId,
        status: w.status.name,
        startedAt: w.startTime.toISOString(),
        closedAt: closed?.toISOString() ?? null,
        durationMs: closed === null ? null : closed.getTime() - w.startTime.getTime(),
        ui: uiPage(tmp, w.workflowId, w.runId),
      });
    }
  } catch {
    // Temporal's facts are extras here: status shows the state store's rows without them.
    return [...rows];
  } finally {
    await tmp?.close();
  }
  return rows.map((r) => {
    const run = r.workflowId === undefined ? undefined : runs.get(r.workflowId);
    return run === undefined ? r : { ...r, run };
  });
}
