// The read-back proof in apply (config `validation.readBack`; workflows/readback.ts runs it once a
// wave's tables have ended): which of the wave's migrated tables it covers, in batches of
// `tablesPerJob`; one engine job per batch (deps.engine.proveReadBack: the sampled files read
// through the Iceberg table and through Hive in one Spark session); each table's evidence recorded
// under `validation.readBack` with a `table.read-back` audit event; and the end of a table the proof
// failed: unregistered and its metadata deleted by the undo activities, then recorded failed here.
import { digestOf } from '../core/audit/chain';
import { ErrorCode, MigrationError } from '../core/errors';
import type { TableRecord } from '../core/state/store';
import type { ReadBackEvidence } from '../core/validate/readback-spec';
import { readBackVerdict } from '../core/validate/readback-spec';
import type { Ctx, TableRef } from './context';
import { rewriteFactsOf } from './rewrite';

/** A failed table of a batch: its code and message (the wave compensates it). */
export interface ReadBackFailure {
  readonly tableId: string;
  readonly code: string;
  readonly message: string;
}

const recordedEvidence = (rec: TableRecord): ReadBackEvidence | undefined =>
  (rec.validation as { readBack?: ReadBackEvidence } | null)?.readBack;

/** A metadata-only table the proof covers: migrated (not rewritten: its job compared checksums already; not a view: no files). */
const covered = (rec: TableRecord): boolean =>
  rec.status === 'migrated' && rewriteFactsOf(rec) === null && rec.original?.table.tableType !== 'VIRTUAL_VIEW';

async function record(c: Ctx, planHash: string, rec: TableRecord, evidence: ReadBackEvidence): Promise<void> {
  const validation = { ...((rec.validation as Record<string, unknown> | null) ?? {}), readBack: evidence };
  const verdict = readBackVerdict(rec.tableId, evidence);
  await c.record({ planHash, tableId: rec.tableId }, rec, 'read-back', {
    set: { validation },
    before: null,
    after: digestOf(evidence),
    details: { ok: verdict === null, ...(verdict === null ? {} : { code: verdict.code }), ...evidence },
  });
}

/** Run the batch's job (tables with evidence already recorded — a retry — are not read again). */
async function readBackTables(c: Ctx, planHash: string, tableIds: readonly string[]): Promise<{ failures: ReadBackFailure[] }> {
  const { deps } = c;
  const rb = deps.readBack;
  const r = deps.rewrite;
  if (rb === undefined) return { failures: [] };
  if (r === undefined)
    throw new MigrationError(
      ErrorCode.READBACK_FAILED,
      'validation.readBack needs the rewrite section’s spark-submit command line (rewrite.command)',
      {},
      { retryable: false },
    );
  const recs = await Promise.all(tableIds.map((id) => deps.state.getTable(planHash, id)));
  const todo = recs.filter((rec) => covered(rec) && recordedEvidence(rec) === undefined);
  const running = c.runtime.current();
  const found = await deps.engine.proveReadBack(
    deps,
    await c.plan(planHash),
    todo.map((rec) => ({ rec, ident: c.recordedTarget({ planHash, tableId: rec.tableId }, rec) })),
    {
      filesPerTable: rb.filesPerTable,
      catalogProperties: r.catalogProperties,
      job: {
        command: r.command,
        env: r.env,
        workDir: r.workDir,
        timeoutMs: r.timeoutMinutes * 60_000,
        ...(running === undefined ? {} : { signal: running.signal }),
        onEvent: (e) => running?.heartbeat({ readBack: true, ...e }),
      },
    },
  );
  for (const rec of todo) {
    const e = found.get(rec.tableId);
    if (e !== undefined) await record(c, planHash, rec, e);
  }
  const failures: ReadBackFailure[] = [];
  for (const rec of recs) {
    const e = found.get(rec.tableId) ?? (rec.status === 'migrated' ? recordedEvidence(rec) : undefined);
    const v = e === undefined ? null : readBackVerdict(rec.tableId, e);
    if (v !== null) failures.push({ tableId: rec.tableId, ...v });
  }
  return { failures };
}

/**
 * The end of a table the proof failed, after the undo activities unregistered it and deleted its
 * metadata: recorded failed with the code (a migrated table leaves `migrated` only this way in apply).
 */
async function markReadBackFailed(c: Ctx, ref: TableRef, code: string, message: string): Promise<void> {
  const rec = await c.deps.state.getTable(ref.planHash, ref.tableId);
  if (rec.status !== 'migrated') return;
  await c.record(ref, rec, 'read-back-fail', {
    set: { errorCode: code, errorMessage: message.slice(0, 2000), ownerRun: null },
    before: null,
    after: null,
    details: { code, message: message.slice(0, 500), step: 'read-back', leftovers: (rec.writtenFiles ?? []).map((f) => f.path) },
  });
}

export function readBackOps(c: Ctx) {
  return {
    /** The wave's migrated tables the proof has not covered yet, in batches of `tablesPerJob`; [] when it is off. */
    async readBackBatches(planHash: string, wave: number): Promise<string[][]> {
      const rb = c.deps.readBack;
      if (rb === undefined) return [];
      const ids = (await c.deps.state.listTables(planHash, wave))
        .filter((r) => covered(r) && recordedEvidence(r) === undefined)
        .map((r) => r.tableId);
      const out: string[][] = [];
      for (let i = 0; i < ids.length; i += rb.tablesPerJob) out.push(ids.slice(i, i + rb.tablesPerJob));
      return out;
    },
    readBackTables: (planHash: string, tableIds: readonly string[]) => readBackTables(c, planHash, tableIds),
    markReadBackFailed: (ref: TableRef, code: string, message: string) => markReadBackFailed(c, ref, code, message),
  };
}
