// The read-back proof of a batch of migrated tables (docs/migrating.md, "Read-back"): each table's
// current snapshot loaded from the catalog and its live data files read from the manifests, a
// deterministic sample of them (core/validate/readback-spec.ts), one Spark job for the batch
// (jobs/readback.py through readback-job.ts), and per table its evidence: the files sampled, both
// sides' rows and checksums, the engine, the job, the time. Shared by apply (ops/readback.ts)
// and `migrate validate` (app/validate.ts). A table whose files cannot be listed gets an `error`
// evidence of its own; the job's failure is READBACK_FAILED for the whole batch.
import { conversionFor } from '../core/convert/plan-conversion';
import type { PlanFile } from '../core/plan/plan-file';
import type { ReadBackEvidence, ReadBackTableInput, ReadBackTableResult } from '../core/validate/readback-spec';
import { readBackEqual, readBackSpec } from '../core/validate/readback-spec';
import type { ReadBackDeps, ReadBackSettings, ReadBackTarget } from '../core/engine-port/checks';
import { runReadBackJob } from './readback-job';
import { snapshotFiles } from './sync-read';

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e)).slice(0, 1000);

/** Every live data file of the table's current snapshot, as its manifests name them. */
async function liveFiles(deps: ReadBackDeps, plan: PlanFile, t: ReadBackTarget): Promise<string[]> {
  if (t.rec.original === null) throw new Error('no saved original');
  const p = conversionFor(plan, t.rec.tableId, t.rec.original, deps.namespacePrefix, deps.toolVersion);
  const loaded = await deps.catalog.loadTable(t.ident);
  const m = loaded.metadata;
  const snapshot = m.currentSnapshotId === null ? null : (m.snapshots.find((s) => s.snapshotId === m.currentSnapshotId) ?? null);
  const { files } = await snapshotFiles(deps.storeFor([]), p, m, snapshot);
  return files.map((f) => f.path);
}

function evidenceOf(jobId: string, files: readonly string[], r: ReadBackTableResult | undefined): ReadBackEvidence {
  if (r === undefined || r.status !== 'checked' || r.iceberg === undefined || r.hive === undefined)
    return { engine: 'spark', jobId, files, error: r?.error ?? 'the job reported nothing for this table', seconds: r?.seconds ?? 0 };
  return { engine: 'spark', jobId, files, iceberg: r.iceberg, hive: r.hive, equal: readBackEqual(r), seconds: r.seconds ?? 0 };
}

/**
 * The batch's evidence by table id. Tables the job cannot read as Hive does are `skipped` with the
 * reason (never failed: the proof is not made for them, and the record says so).
 */
export async function proveReadBack(
  deps: ReadBackDeps,
  plan: PlanFile,
  targets: readonly ReadBackTarget[],
  s: ReadBackSettings,
): Promise<Map<string, ReadBackEvidence>> {
  const out = new Map<string, ReadBackEvidence>();
  const inputs: ReadBackTableInput[] = [];
  for (const t of targets) {
    try {
      const files = await liveFiles(deps, plan, t);
      const iceberg = { namespace: t.ident.namespace.join('.'), name: t.ident.name };
      inputs.push({ tableId: t.rec.tableId, inventory: t.rec.original!, iceberg, files });
    } catch (e) {
      out.set(t.rec.tableId, { engine: 'spark', jobId: '', files: [], error: `listing its files: ${message(e)}`, seconds: 0 });
    }
  }
  const built = readBackSpec({
    planHash: plan.hash,
    filesPerTable: s.filesPerTable,
    catalogName: plan.targetCatalog,
    catalogProperties: s.catalogProperties,
    tables: inputs,
  });
  for (const [id, why] of built.skipped) out.set(id, { skipped: why });
  const spec = built.spec;
  if (spec === null) return out;
  const label = spec.tables.length === 1 ? spec.tables[0]!.tableId : `${spec.tables.length} tables`;
  const res = await runReadBackJob(spec, label, s.job);
  const byId = new Map((res.tables ?? []).map((r) => [r.tableId, r]));
  for (const t of spec.tables) {
    const r = res.status === 'checked' ? byId.get(t.tableId) : { tableId: t.tableId, status: 'failed' as const, error: res.error };
    out.set(t.tableId, evidenceOf(spec.jobId, t.files, r));
  }
  return out;
}
