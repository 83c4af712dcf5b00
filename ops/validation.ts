// Nightly validation: which tables a run covers, each table's drift checks (rows to the state
// store, counts back to the workflow), and the published results file, report and audit event —
// the report also lists orphans: metadata this tool left for tables not migrated (migrate repair).
import { rewriteFactsOf } from './rewrite';
import { AuditAction as A, digestOf } from '../core/audit/chain';
import { ErrorCode, MigrationError } from '../core/errors';
import type { ValidationRow } from '../core/validate/drift';
import { runStatus, runSummaryMarkdown } from '../core/validate/drift';
import { tableWorkflowId, planId } from '../core/plan/ids';
import type { Ctx } from './context';
import type { TableStatus } from '../core/state/store';
import { isLive } from '../core/state/status';
import { orphanSummary } from './repair';

const ignoreExisting = (e: unknown): void => {
  if (!(e instanceof MigrationError && e.code === ErrorCode.STORAGE_PRECONDITION_FAILED)) throw e;
};

/** A table whose workflow still runs is not an orphan (asked through the worker's own client). */
function isRunningOf(c: Ctx): (planHash: string, tableId: string) => Promise<boolean> {
  return async (planHash, tableId) => {
    const wave = (await c.deps.state.getTable(planHash, tableId)).wave;
    const running = c.runtime.current();
    if (running === undefined)
      throw new MigrationError(
        ErrorCode.INTERNAL,
        'the orphan scan asks the worker whether a table workflow runs: it runs in an activity only',
        {
          tableId,
        },
      );
    return running.workflowRunning(tableWorkflowId(planHash, wave, tableId));
  };
}

/** What this tool left behind for tables that did not end migrated (reported, never removed here). */
async function orphansOf(c: Ctx, planHash: string): Promise<{ orphans: number | null; markdown: string }> {
  const { deps } = c;
  try {
    const scan = {
      state: deps.state,
      catalog: deps.catalog,
      storeFor: deps.storeFor,
      namespacePrefix: deps.namespacePrefix,
      isRunning: isRunningOf(c),
      toolVersion: deps.toolVersion,
    };
    return await orphanSummary(scan, planHash);
  } catch (e) {
    // The drift results stand on their own: an orphan scan that cannot run is reported, not fatal.
    const why = e instanceof MigrationError ? `${e.code}: ${e.message}` : String(e);
    return { orphans: null, markdown: `### Orphans: not checked (${why}); run migrate repair ${planId(planHash)}\n` };
  }
}

export function validationOps(c: Ctx) {
  const { deps } = c;
  return {
    /**
     * Tables a run covers, optionally limited to waves/tables: `migrated` ones (sync: the default),
     * or with `live` also those fenced or cut over (nightly validation still checks them).
     */
    async validationScope(
      planHash: string,
      waves: readonly number[] = [],
      tables: readonly string[] = [],
      statuses: 'migrated' | 'live' = 'migrated',
    ): Promise<{ tables: string[]; teams: string[] }> {
      const p = await c.plan(planHash);
      const covered = (s: TableStatus): boolean => (statuses === 'live' ? isLive(s) : s === 'migrated');
      const recs = (await deps.state.listTables(planHash)).filter(
        // Rewritten tables (ops/rewrite.ts) are new tables: sync and the metadata-only drift checks do not apply.
        (t) =>
          covered(t.status) &&
          rewriteFactsOf(t) === null &&
          (waves.length === 0 || waves.includes(t.wave)) &&
          (tables.length === 0 || tables.includes(t.tableId)),
      );
      const team = new Map(p.waves.flatMap((w) => w.tables.map((t) => [t.id, t.team ?? 'unowned'] as const)));
      return { tables: recs.map((r) => r.tableId), teams: [...new Set(recs.map((r) => team.get(r.tableId) ?? 'unowned'))].sort() };
    },

    async startValidationRun(planHash: string, runId: string): Promise<{ previousRunId: string | null }> {
      return deps.state.startValidationRun(runId, planHash);
    },

    /** One table's checks; rows go to the state store (not the history), the counts come back. */
    async checkTable(
      planHash: string,
      tableId: string,
      runId: string,
    ): Promise<{ tableId: string; status: 'validated' | 'drifted' | 'failed'; codes: string[] }> {
      const rec = await deps.state.getTable(planHash, tableId);
      const rows = await deps.engine.checkTableDrift(
        { ...deps, footerConcurrency: deps.write?.footerConcurrency },
        await c.plan(planHash),
        rec,
        runId,
        () => deps.now?.() ?? new Date(),
      );
      await deps.state.putValidationRows(runId, tableId, rows);
      return { tableId, status: runStatus(rows), codes: [...new Set(rows.filter((r) => r.status !== 'ok').map((r) => r.code))].sort() };
    },

    /** Results file (Parquet) + Markdown report + audit event for a finished run. */
    async publishValidationRun(
      planHash: string,
      runId: string,
      previousRunId: string | null,
    ): Promise<{ status: string; results: string | null; report: string | null; summary: string; rows: number; orphans: number | null }> {
      const rows = (await deps.state.getValidationRows(runId)) as ValidationRow[];
      const status = runStatus(rows);
      const orphans = await orphansOf(c, planHash);
      const summary = `${runSummaryMarkdown(planId(planHash), runId, rows, previousRunId)}${orphans.markdown === '' ? '' : `\n${orphans.markdown}`}`;
      let results: string | null = null;
      let report: string | null = null;
      if (deps.resultsLocation !== undefined) {
        const store = deps.storeFor([]);
        // A retried publish finds its own file: keep it (same run, same rows).
        const own = `${deps.resultsLocation.replace(/\/+$/, '')}/${planId(planHash)}/${runId.replace(/[^A-Za-z0-9._-]/g, '_')}.parquet`;
        results = await deps.engine
          .writeResults(store, deps.resultsLocation, planId(planHash), runId, rows)
          .catch((e: unknown) => (ignoreExisting(e), own));
        report = results.replace(/\.parquet$/, '.md');
        await store.put(report, new TextEncoder().encode(summary), { ifNoneMatch: '*' }).catch(ignoreExisting);
      }
      await deps.state.finishValidationRun(runId, status, results ?? '');
      await c.audit(A.VALIDATION_RUN, `plan:${planHash}`, planHash, null, digestOf(rows), {
        runId,
        status,
        rows: rows.length,
        tables: new Set(rows.map((r) => r.table)).size,
        results,
        orphans: orphans.orphans,
      });
      return { status, results, report, summary, rows: rows.length, orphans: orphans.orphans };
    },
  };
}
