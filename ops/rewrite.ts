// The rewrite path of one table: the shipped Spark job reads the Hive table and
// writes a NEW Iceberg table under the target name (CTAS, committed once by Iceberg's staged create),
// then checks rows and content checksums on both sides. The activity starts the job as a child
// process (deps.engine.runRewriteJob), heartbeats its progress, kills it on cancel, and records the
// data files it wrote. Idempotent: the job id and the table's own location are fixed per (plan,
// table); a retry finds the table committed with our marker (the job resumes at its checks) or
// nothing committed (the killed run's files under that location are deleted first). Its inverse
// drops the table (no purge) and deletes only what the job wrote there — never the source.
import { fenceRefusal } from '../core/storage/location-fence';
import { digestOf } from '../core/audit/chain';
import { formatTableIdent } from '../core/catalog/catalog';
import type { TableIdent } from '../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../core/errors';
import type { TableInventory } from '../core/hive/model';
import { REWRITE_MARKER, rewriteJobId, rewriteLocation, rewriteSpec } from '../core/rewrite/spec';
import type { RewriteSpec } from '../core/rewrite/spec';
import type { TableRecord } from '../core/state/store';
import type { RewriteResult } from '../core/engine-port/jobs';
import type { Ctx, TableRef } from './context';
import { fingerprintOf } from './context';
import { pinnedLive } from './live';

/** What a rewrite record keeps under `validation.rewrite` (the job's result without its file list). */
export interface RewriteFacts {
  readonly jobId: string;
  readonly location: string;
  readonly target: string;
  readonly source: { rows: number; checksum: string };
  readonly written: { rows: number; checksum: string };
  readonly bytesWritten: number;
  readonly seconds: number;
}

export const rewriteFactsOf = (rec: TableRecord): RewriteFacts | null =>
  ((rec.validation as { rewrite?: RewriteFacts } | null)?.rewrite ?? null) as RewriteFacts | null;

function notConfigured(tableId: string): MigrationError {
  return new MigrationError(
    ErrorCode.REWRITE_NOT_CONFIGURED,
    `${tableId} takes the rewrite path, but this worker has no rewrite: configuration (the spark-submit command line)`,
    { tableId },
    { retryable: false },
  );
}

/** The table live from HMS, as the plan pinned it (ops/live.ts), inside the worker's location fence. */
async function liveSource(c: Ctx, ref: TableRef): Promise<TableInventory> {
  const { inv } = await pinnedLive(c, ref, false);
  // The job would read the table's locations: the worker's location fence first (an edited plan cannot route /etc to Spark).
  const fenced = fenceRefusal(ref.tableId, inv, c.deps.assessOptions?.locationFence, 'the rewrite job was not started');
  if (fenced !== null) throw fenced;
  return inv;
}

/** Delete every object under the job's own location (only the job writes there); the source is never under it. */
async function deleteJobLocation(c: Ctx, location: string, keep: (path: string) => boolean = () => false): Promise<number> {
  const dir = `${location}/`;
  const store = c.deps.storeFor([dir]);
  let n = 0;
  for await (const e of store.list(dir, { recursive: true })) {
    if (e.kind !== 'file' || !e.path.startsWith(dir) || keep(e.path)) continue;
    await store.delete(e.path);
    n++;
  }
  return n;
}

/** Our table under the target name: 'ours' (this job's marker), 'absent', or someone else's. */
async function targetState(c: Ctx, ident: TableIdent, jobId: string): Promise<'ours' | 'absent' | 'foreign'> {
  if (!(await c.deps.catalog.tableExists(ident))) return 'absent';
  const t = await c.deps.catalog.loadTable(ident);
  return t.metadata.properties?.[REWRITE_MARKER] === jobId ? 'ours' : 'foreign';
}

function taken(tableId: string, ident: TableIdent): MigrationError {
  return new MigrationError(
    ErrorCode.REWRITE_TARGET_TAKEN,
    `${tableId}: ${formatTableIdent(ident)} exists and was not written by this plan's rewrite job; nothing was written`,
    { tableId },
    { retryable: false },
  );
}

async function startJob(c: Ctx, ref: TableRef, spec: RewriteSpec): Promise<RewriteResult> {
  const r = c.deps.rewrite;
  if (r === undefined) throw notConfigured(ref.tableId);
  const running = c.runtime.current();
  let last: Record<string, unknown> = { event: 'submitted' };
  const beat = setInterval(() => running?.heartbeat({ job: spec.jobId, ...last }), 5_000);
  try {
    return await c.deps.engine.runRewriteJob(spec, {
      command: r.command,
      env: r.env,
      workDir: r.workDir,
      timeoutMs: r.timeoutMinutes * 60_000,
      ...(running === undefined ? {} : { signal: running.signal }),
      onEvent: (e) => {
        last = e;
        running?.heartbeat({ job: spec.jobId, ...e });
        // Crash tests: the worker dies while the job writes (the job lives on in its own process group).
        if (e.event === 'writing') c.failpoint('rewrite-during-job', ref.tableId);
      },
    });
  } finally {
    clearInterval(beat);
  }
}

/** The job ran: a foreign target or a refused spec are final; unequal sides drop what it wrote. */
async function checkResult(c: Ctx, ref: TableRef, ident: TableIdent, spec: RewriteSpec, res: RewriteResult): Promise<RewriteFacts> {
  if (res.status === 'target-taken') throw taken(ref.tableId, ident);
  if (res.status === 'bad-spec')
    throw new MigrationError(
      ErrorCode.REWRITE_UNSUPPORTED,
      `${ref.tableId}: ${res.error ?? ''}`,
      { tableId: ref.tableId },
      { retryable: false },
    );
  const facts: RewriteFacts = {
    jobId: spec.jobId,
    location: spec.target.location,
    target: `${c.deps.catalog.name}:${formatTableIdent(ident)}`,
    source: res.source ?? { rows: -1, checksum: '' },
    written: res.written ?? { rows: -2, checksum: '' },
    bytesWritten: res.bytesWritten ?? 0,
    seconds: res.seconds ?? 0,
  };
  if (res.match === true && facts.source.rows === facts.written.rows && facts.source.checksum === facts.written.checksum) return facts;
  await c.deps.catalog.dropTable(ident);
  await deleteJobLocation(c, spec.target.location);
  throw new MigrationError(
    ErrorCode.REWRITE_MISMATCH,
    `${ref.tableId}: the rewritten table differs from Hive (rows ${facts.source.rows} → ${facts.written.rows}, checksum ${facts.source.checksum.slice(0, 12)} → ${facts.written.checksum.slice(0, 12)}); it was dropped and its files deleted`,
    { tableId: ref.tableId, ...facts },
    { retryable: false },
  );
}

/** The forward step: save the original, run the job (or resume it), record the table migrated with its files. */
async function rewriteTable(c: Ctx, ref: TableRef): Promise<{ status: string; rows: number; bytesWritten: number }> {
  const { deps } = c;
  if (deps.rewrite === undefined) throw notConfigured(ref.tableId);
  await c.assertTarget(ref);
  const run = c.run();
  let rec = await deps.state.getTable(ref.planHash, ref.tableId);
  if (run !== undefined && rec.ownerRun !== run) await deps.state.updateTable(ref.planHash, ref.tableId, { ownerRun: run });
  const done = rewriteFactsOf(rec);
  if (rec.status === 'migrated' && done !== null) return { status: 'migrated', rows: done.written.rows, bytesWritten: done.bytesWritten };
  if (rec.original === null) {
    c.check(ref, rec, 'rewrite-save-original');
    const inv = await liveSource(c, ref);
    const digest = fingerprintOf(inv);
    await c.record(ref, rec, 'rewrite-save-original', {
      set: { original: inv, originalDigest: digest },
      before: null,
      after: digest,
      details: { partitions: inv.partitions.length, path: 'rewrite' },
    });
    rec = await deps.state.getTable(ref.planHash, ref.tableId);
  }
  const ident = c.target(ref.tableId);
  const spec = rewriteSpec({
    inv: rec.original as TableInventory,
    planHash: ref.planHash,
    tableId: ref.tableId,
    target: { namespace: ident.namespace.join('.'), name: ident.name },
    warehouse: deps.rewrite.warehouse,
    catalogProperties: deps.rewrite.catalogProperties,
  });
  // A job a killed worker left running stops first: then the catalog says whether it committed.
  await deps.engine.stopRewriteJob(deps.rewrite.workDir, spec.jobId);
  const state = await targetState(c, ident, spec.jobId);
  if (state === 'foreign') throw taken(ref.tableId, ident);
  // Nothing committed: whatever a killed earlier run of this job left under its own location goes first.
  if (state === 'absent') await deleteJobLocation(c, spec.target.location);
  c.failpoint('rewrite-before-job', ref.tableId);
  const res = await startJob(c, ref, spec);
  const facts = await checkResult(c, ref, ident, spec, res);
  const files = (res.files ?? []).map((f) => ({ path: f.path, bytes: f.bytes, outcome: 'rewritten' }));
  await c.record(ref, rec, 'rewrite', {
    set: { target: facts.target, snapshotId: res.snapshotId ?? null, writtenFiles: files, validation: { rewrite: facts } },
    before: rec.originalDigest,
    after: digestOf(files),
    details: { ...facts, files: files.length, resumed: res.status === 'resumed' },
  });
  return { status: 'migrated', rows: facts.written.rows, bytesWritten: facts.bytesWritten };
}

/**
 * The inverse (a failed table's compensation, and rollback): drop the new table (no purge) when it
 * carries our marker, delete the data files the job wrote (the record's list, all under the job's own
 * location), then the rest of that location (the table's metadata, a killed run's leftovers).
 */
export async function dropRewrite(c: Ctx, ref: TableRef, by?: string): Promise<{ dropped: boolean; deleted: number }> {
  const { deps } = c;
  const rec = await deps.state.getTable(ref.planHash, ref.tableId);
  if (deps.rewrite === undefined) throw notConfigured(ref.tableId);
  const ident = c.recordedTarget(ref, rec);
  const jobId = rewriteJobId(ref.planHash, ref.tableId);
  const location = rewriteFactsOf(rec)?.location ?? rewriteLocation(deps.rewrite.warehouse, ident.namespace.join('.'), ident.name, jobId);
  await deps.engine.stopRewriteJob(deps.rewrite.workDir, jobId);
  const state = await targetState(c, ident, jobId);
  const dropped = state === 'ours' ? (await deps.catalog.dropTable(ident)).dropped : false;
  let deleted = 0;
  const store = deps.storeFor([`${location}/`]);
  for (const f of rec.writtenFiles ?? []) {
    if (!f.path.startsWith(`${location}/`)) continue; // never anything outside the job's own location
    await store.delete(f.path);
    deleted++;
  }
  deleted += await deleteJobLocation(c, location);
  await c.record(
    ref,
    rec,
    'rewrite-drop',
    {
      set: { writtenFiles: [], snapshotId: null },
      before: digestOf(rec.writtenFiles),
      after: null,
      details: { dropped, deleted, location, jobId },
    },
    by,
  );
  return { dropped, deleted };
}

/** These steps under their activity names (what the workflows call: never rename). */
export function rewriteOps(c: Ctx) {
  return {
    rewriteTable: (ref: TableRef) => rewriteTable(c, ref),
    dropRewrite: (ref: TableRef) => dropRewrite(c, ref),
  };
}
