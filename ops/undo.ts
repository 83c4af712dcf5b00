// The inverses (docs/architecture.md "Habits" 8) and rollback. An undo does only what its forward step did, with the
// facts recorded at that step (our metadata location and the files we wrote): it never re-runs
// preparation or validation, so what refused a table cannot also refuse its cleanup. Nothing here
// touches a catalog entry whose metadata this tool did not record for the table.
import { dropRewrite, rewriteFactsOf } from './rewrite';
import { AuditAction as A, digestOf } from '../core/audit/chain';
import { formatTableIdent } from '../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../core/errors';
import type { TableRecord } from '../core/state/store';
import { isLive, nothingToRollBack } from '../core/state/status';
import type { Ctx, TableRef } from './context';
import { reached } from './context';
import { assertHmsUnchanged } from './hms-read';
import type { PutBackSummary } from '../core/engine-port/checks';
import { holder, putBackAndDrop } from './put-back';
import { rollbackView } from './views';
import { dependentViews, describeDependents, liveViewsAfter } from '../core/view/rollback-order';

/** Delete the files we recorded, newest first, each only inside our metadata directory. */
async function deleteRecorded(c: Ctx, metadataDir: string, files: readonly { path: string }[]): Promise<number> {
  const store = c.deps.storeFor([metadataDir]);
  let n = 0;
  for (const f of [...files].reverse()) {
    if (!f.path.startsWith(metadataDir))
      throw new MigrationError(ErrorCode.STORAGE_MUTATION_REFUSED, `${f.path} is outside ${metadataDir}; not deleting`, { path: f.path });
    await store.delete(f.path);
    n++;
  }
  return n;
}

/** Drop the entry for rollback; a descendant whose commits since ours are appends Hive can take is put back first (put-back.ts): its summary. */
async function unregisterForRollback(
  c: Ctx,
  ref: TableRef,
  rec: TableRecord,
  ours: string,
  force: boolean,
  by: string,
): Promise<PutBackSummary | null> {
  const ident = c.recordedTarget(ref, rec);
  const catalog = c.catalogOf(ref, rec);
  const name = `${catalog.name}:${formatTableIdent(ident)}`;
  const h = await holder(catalog, ident, ours);
  if (h.kind === 'foreign') {
    throw new MigrationError(
      ErrorCode.ROLLBACK_NOT_OURS,
      `${ref.tableId}: ${formatTableIdent(ident)} is held by an entry this tool did not register for it (metadata at ${h.location}; ours was ${ours}); left untouched, with or without --force`,
      { tableId: ref.tableId, current: h.location, ours },
      { retryable: false },
    );
  }
  if (h.kind === 'descendant') {
    const put = await putBackAndDrop(c, ref, rec, { catalog, ident, name, current: h.location, ours }, force, by);
    if (put !== null) return put;
    if (!force)
      throw new MigrationError(
        ErrorCode.ROLLBACK_REFUSED,
        `${ref.tableId}: ${formatTableIdent(ident)} has commits after ours (now at ${h.location}); rolling back would lose them. Use --force to drop the entry anyway (audited).`,
        { tableId: ref.tableId, current: h.location },
        { retryable: false },
      );
    await c.audit(A.ROLLBACK_FORCED, name, ref.planHash, digestOf(h.location), null, { ours, current: h.location }, by);
    // In place, dropping the entry puts the saved Hive table back under its name.
    await catalog.dropTable(ident);
    await c.audit(
      A.TABLE_UNREGISTERED,
      name,
      ref.planHash,
      digestOf(h.location),
      null,
      { metadataLocation: h.location, ours, forced: true },
      by,
    );
  } else if (h.kind === 'ours') {
    await catalog.unregisterTable(ident, ours);
    await c.audit(A.TABLE_UNREGISTERED, name, ref.planHash, digestOf(ours), null, { metadataLocation: ours }, by);
  } else if (catalog.inPlace === true && (await catalog.unregisterTable(ident, ours)).outcome === 'unregistered') {
    // No entry, yet something to undo: an in-place rollback that crashed after dropping the
    // Iceberg table put the Hive original back now.
    await c.audit(A.TABLE_UNREGISTERED, name, ref.planHash, digestOf(ours), null, { metadataLocation: ours, resumed: true }, by);
  }
  return null;
}

/**
 * Inverse of step 6: drop our catalog entry (never purging); absent is fine. `not-ours`: a
 * pointer catalog (REST, JDBC) holds the name with metadata this table never registered — its
 * register step failed on exactly that (CATALOG_CONFLICT: an earlier plan migrated the table,
 * or someone created it): nothing of ours to undo, and the entry is left alone.
 */
async function unregisterTable(c: Ctx, ref: TableRef): Promise<{ outcome: string }> {
  const { deps } = c;
  const rec = await deps.state.getTable(ref.planHash, ref.tableId);
  const r = c.recorded(rec);
  if (rec.original === null || r === null) return { outcome: 'absent' };
  const ident = c.recordedTarget(ref, rec);
  let outcome: string;
  try {
    ({ outcome } = await c.catalogOf(ref, rec).unregisterTable(ident, r.metadataLocation));
  } catch (e) {
    const pointerOnly = deps.catalog.withSavedOriginal === undefined; // in place (Hive), undo also restores the original
    if (e instanceof MigrationError && e.code === ErrorCode.CATALOG_CONFLICT && pointerOnly && !reached(rec, 'registered'))
      return { outcome: 'not-ours' };
    throw e;
  }
  if (outcome === 'unregistered')
    await c.audit(
      A.TABLE_UNREGISTERED,
      `${deps.catalog.name}:${formatTableIdent(ident)}`,
      ref.planHash,
      digestOf(r.metadataLocation),
      null,
      { metadataLocation: r.metadataLocation },
    );
  return { outcome };
}

/** Inverse of steps 2-5: delete the metadata files we recorded (never data; only under metadata/). */
async function deleteMetadata(c: Ctx, ref: TableRef): Promise<{ deleted: number }> {
  const { deps } = c;
  const rec = await deps.state.getTable(ref.planHash, ref.tableId);
  const r = c.recorded(rec);
  if (r === null) return { deleted: 0 };
  const deleted = await deleteRecorded(c, r.metadataDir, r.files);
  if (deleted > 0) await c.audit(A.TABLE_METADATA_DELETED, `hms:${ref.tableId}`, ref.planHash, digestOf(r.files), null, { files: deleted });
  if (r.files.length > 0) await deps.state.updateTable(ref.planHash, ref.tableId, { writtenFiles: [] });
  return { deleted };
}

/**
 * A table's end when its steps failed. The record is fenced (no owning run): a step of the ended
 * run still running somewhere records nothing. A table another run migrated (or a fenced, cut-over
 * one) stays as it is. A table this very run recorded migrated is failed too: its compensation has
 * just unregistered it and deleted its metadata (a cancellation that arrived after the validation
 * was recorded but before Temporal heard of it), so `migrated` would no longer be true.
 */
async function markFailed(c: Ctx, ref: TableRef, code: string, message: string): Promise<void> {
  const { deps } = c;
  const rec = await deps.state.getTable(ref.planHash, ref.tableId);
  const run = c.run();
  const undoneByThisRun = rec.status === 'migrated' && run !== undefined && rec.ownerRun === run;
  if (rec.status === 'failed' || (isLive(rec.status) && !undoneByThisRun)) return;
  await c.record(ref, rec, 'fail', {
    set: { errorCode: code, errorMessage: message.slice(0, 2000), ownerRun: null },
    before: null,
    after: null,
    details: { code, message: message.slice(0, 500), leftovers: (rec.writtenFiles ?? []).map((f) => f.path) },
  });
}

/**
 * Rollback of one table of a wave: unregister without purge only an entry that is ours (a
 * commit on top of ours only with --force, audited; someone else's never), delete our
 * recorded metadata, then verify the HMS object equals the saved original (a register-only
 * catalog never altered it; an in-place one has just put it back).
 */
async function rollbackTable(c: Ctx, ref: TableRef, force: boolean, by: string): Promise<RollbackTableResult> {
  const { deps } = c;
  const first = await deps.state.getTable(ref.planHash, ref.tableId);
  const r = c.recorded(first);
  if (first.status === 'rolled-back' || first.original === null) return { status: first.status };
  if (first.status === 'view-created') return rollbackView(c, ref, first, by);
  if (rewriteFactsOf(first) !== null) return rollbackRewrite(c, ref, by);
  const put = r === null ? null : await unregisterForRollback(c, ref, first, r.metadataLocation, force, by);
  // A put-back moved the saved original on (original + the partitions added): check against that.
  const rec = put === null ? first : await deps.state.getTable(ref.planHash, ref.tableId);
  const deleted = r === null ? 0 : await deleteRecorded(c, r.metadataDir, r.files);
  if (deleted > 0)
    await c.audit(A.TABLE_METADATA_DELETED, `hms:${ref.tableId}`, ref.planHash, digestOf(rec.writtenFiles), null, { files: deleted }, by);
  await assertHmsUnchanged(deps.hms, ref.tableId, rec.originalDigest, { what: 'the HMS object' });
  await c.record(
    ref,
    rec,
    'roll-back',
    {
      set: { writtenFiles: [] },
      before: r === null ? null : digestOf(r.metadataLocation),
      after: rec.originalDigest,
      details: {
        verified: true,
        metadataFilesDeleted: deleted,
        ...(put === null ? {} : { putBack: { head: put.head, files: put.files } }),
      },
    },
    by,
  );
  return { status: 'rolled-back', ...(put === null ? {} : { putBack: putBackOutcome(put) }) };
}

/**
 * Rollback of a rewrite-path table: its new table dropped and the files its job wrote deleted
 * (ops/rewrite.ts dropRewrite); the Hive table was never touched — verified, then recorded.
 */
async function rollbackRewrite(c: Ctx, ref: TableRef, by: string): Promise<RollbackTableResult> {
  const { deps } = c;
  const out = await dropRewrite(c, ref, by);
  const rec = await deps.state.getTable(ref.planHash, ref.tableId);
  await assertHmsUnchanged(deps.hms, ref.tableId, rec.originalDigest, {
    what: 'the HMS object',
    after: '; the rewritten table was dropped',
  });
  await c.record(
    ref,
    rec,
    'rewrite-roll-back',
    { set: { writtenFiles: [] }, before: null, after: rec.originalDigest, details: { verified: true, path: 'rewrite', ...out } },
    by,
  );
  return { status: 'rolled-back' };
}

/** What a rolled-back table reports to the rollback workflow. */
export interface RollbackTableResult {
  readonly status: string;
  /** Set when appends other engines made since ours were put back into Hive. */
  readonly putBack?: PutBackOutcome;
}

export interface PutBackOutcome {
  readonly snapshots: readonly string[];
  readonly partitionsAdded: readonly string[];
  readonly partitionsVisible: readonly string[];
  readonly files: number;
  readonly records: number;
}

const putBackOutcome = (s: PutBackSummary): PutBackOutcome => ({
  snapshots: s.snapshots.map((x) => x.snapshotId),
  partitionsAdded: s.partitionsToAdd.map((p) => p.name),
  partitionsVisible: s.partitionsVisible.map((p) => p.name),
  files: s.files,
  records: s.records,
});

/**
 * The tables a rollback of the wave undoes: every one with something of ours left — not those
 * never started, rolled back, skipped (views), or failed with their compensation complete.
 */
async function migratedTables(c: Ctx, planHash: string, wave: number): Promise<string[]> {
  const { deps } = c;
  const recs = await deps.state.listTables(planHash, wave);
  return recs.filter((t) => !nothingToRollBack(t)).map((t) => t.tableId);
}

/**
 * The still-migrated views of later waves that read this wave's tables (through their saved Hive
 * SQL, transitively), in the order they roll back first. Without `withDependentViews` any such view
 * refuses the whole rollback with ROLLBACK_ORDER before anything changes: the rule holds for
 * whoever starts the rollback workflow, not only `migrate rollback`.
 */
async function rollbackOrder(c: Ctx, planHash: string, wave: number, withDependentViews: boolean): Promise<string[]> {
  const { deps } = c;
  const recs = await deps.state.listTables(planHash);
  const tables = recs.filter((t) => t.wave === wave && !nothingToRollBack(t)).map((t) => t.tableId);
  const first = dependentViews(wave, tables, liveViewsAfter(recs, wave, deps.viewSql));
  if (first.length > 0 && !withDependentViews)
    throw new MigrationError(
      ErrorCode.ROLLBACK_ORDER,
      `wave ${wave} of plan ${planHash.slice(0, 12)}: still-migrated views of later waves read its tables: ${describeDependents(first)}; nothing was rolled back — roll back their waves first, or pass --with-dependent-views`,
      { wave, views: first.map((v) => v.id) },
      { retryable: false },
    );
  return first.map((v) => v.id);
}

/** These operations under the activity names the workflows call (never rename). */
export function undoOps(c: Ctx) {
  return {
    unregisterTable: (ref: TableRef): Promise<{ outcome: string }> => unregisterTable(c, ref),
    deleteMetadata: (ref: TableRef): Promise<{ deleted: number }> => deleteMetadata(c, ref),
    markFailed: (ref: TableRef, code: string, message: string): Promise<void> => markFailed(c, ref, code, message),
    rollbackTable: (ref: TableRef, force: boolean, by: string): Promise<RollbackTableResult> => rollbackTable(c, ref, force, by),
    migratedTables: (planHash: string, wave: number): Promise<string[]> => migratedTables(c, planHash, wave),
    rollbackOrder: (planHash: string, wave: number, withDependentViews: boolean): Promise<string[]> =>
      rollbackOrder(c, planHash, wave, withDependentViews),
  };
}
