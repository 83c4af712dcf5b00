// One migrated table's sync, from its state record to the audited commit: the per-table logic the
// in-process `migrate sync --direct` (app/sync/direct.ts) and the worker's `syncTable` activity
// (activities/sync.ts, through ActivityDeps.engine) share. HMS read live → the plan's conversion pin
// must still hold (core/plan/source-check.ts: SOURCE_CHANGED naming the change) → register-mode
// only (an in-place table's Hive name is the Iceberg table) → sync (sync-table.ts) → on a commit,
// the record's metadata location and snapshot move on and a `table.synced` audit event is written
// in the same transaction (the `sync` row of core/state/lifecycle.ts, engine/record-transition.ts). Columns Hive gained at the end go in as a schema
// update with the snapshot (core/plan/source-check.ts syncSourceChange; the event names them). A rerun after a crash finds its own files and
// the catalog answers already-committed: the record and audit follow once.
import { digestOf } from '../core/audit/chain';
import { formatTableIdent } from '../core/catalog/catalog';
import { conversionFor, dbOf, nameOf, targetOf } from '../core/convert/plan-conversion';
import { ErrorCode, MigrationError } from '../core/errors';
import { tableFingerprint } from '../core/hive/fingerprint';
import type { TableInventory } from '../core/hive/model';
import type { PlanFile } from '../core/plan/plan-file';
import { syncSourceChange } from '../core/plan/source-check';
import type { TableRecord } from '../core/state/store';
import type { SyncMark } from '../core/sync/lag';
import { syncMarkOf } from '../core/sync/lag';
import type { SyncRecordDeps, SyncResult, SyncValidation, TableSyncOutcome } from '../core/engine-port/sync';
import { syncTable } from './sync-table';
import { validateCurrent } from './sync-validate';
import { recordTransition } from './record-transition';
import type { LocationFence } from '../core/storage/location-fence';
import { fenceRefusal } from '../core/storage/location-fence';

/**
 * Sync the table of `rec` (migrated, of `plan`). A refusal (a MigrationError that is not retryable:
 * SYNC_FOREIGN_COMMITS, SOURCE_CHANGED, …) is an outcome; a retryable error is thrown (the
 * activity's retry, or the direct caller, decides).
 */
export async function syncMigratedTable(d: SyncRecordDeps, plan: PlanFile, rec: TableRecord): Promise<TableSyncOutcome> {
  try {
    const { written: _written, ...result } = await syncRecord(d, plan, rec).catch(async (e: unknown) => {
      // The table moved while we prepared: when the mover was another attempt of this sync, the rerun on
      // the fresh record finds its snapshot (in sync, ours) and reports it; a foreign commit is refused then.
      if (!(e instanceof MigrationError) || e.code !== ErrorCode.CATALOG_CONFLICT) throw e;
      return syncRecord(d, plan, await d.state.getTable(rec.planHash, rec.tableId));
    });
    return { table: rec.tableId, ok: true, result };
  } catch (e) {
    if (!(e instanceof MigrationError) || e.retryable) throw e;
    const error = { code: e.code, message: e.message };
    // The refusal shows in `migrate status` (bookkeeping: nothing of the table changed).
    await d.state.updateTable(rec.planHash, rec.tableId, { sync: syncMarkOf(d.now?.() ?? new Date(), { error }, null, rec.sync) });
    return { table: rec.tableId, ok: false, error };
  }
}

/** The live Hive table of `rec`, its conversion pin checked against the plan's; register mode only. */
async function liveSource(d: SyncRecordDeps, plan: PlanFile, rec: TableRecord): Promise<TableInventory> {
  const [live] =
    d.readLive === undefined ? await d.hms.getTables(dbOf(rec.tableId), [nameOf(rec.tableId)]) : [await d.readLive(rec.tableId)];
  if (live === undefined)
    throw new MigrationError(ErrorCode.HMS_NOT_FOUND, `${rec.tableId} is not in HMS any more`, { table: rec.tableId });
  const entry = plan.waves.flatMap((w) => w.tables).find((t) => t.id === rec.tableId);
  if (entry === undefined) throw new MigrationError(ErrorCode.PLAN_UNKNOWN_TABLE, `${rec.tableId} is not in the plan`);
  // Columns added at the end are accepted (a schema update with the snapshot); any other change of the conversion is SOURCE_CHANGED.
  const changed = syncSourceChange(rec.tableId, { fingerprint: entry.fingerprint, pin: entry.pin }, live);
  if (changed.error !== null) throw changed.error;
  if (d.catalog.hiveOriginalPlace(nameOf(rec.tableId), live.table).kind !== 'untouched')
    throw new MigrationError(
      ErrorCode.USAGE,
      `${rec.tableId} was converted in place: its Hive name is the Iceberg table, so no Hive writer can change it; there is nothing to sync`,
      { table: rec.tableId },
    );
  assertFenced(rec.tableId, live, d.locationFence);
  return live;
}

/** The live table and every partition (those added since apply too) inside the location fence, or LOCATION_NOT_ALLOWED. */
export function assertFenced(tableId: string, live: TableInventory, fence: LocationFence | undefined): void {
  const refused = fenceRefusal(tableId, live, fence, 'the sync listed and wrote nothing');
  if (refused !== null) throw refused;
}

async function syncRecord(d: SyncRecordDeps, plan: PlanFile, rec: TableRecord): Promise<SyncResult> {
  const live = await liveSource(d, plan, rec);
  const prepared = conversionFor(plan, rec.tableId, live, d.namespacePrefix, d.toolVersion);
  const ident = targetOf(rec.tableId, d.namespacePrefix);
  const now = (): Date => d.now?.() ?? new Date();
  const result = await syncTable(
    d.storeFor([prepared.metadataDir]),
    d.catalog,
    { prepared, ident },
    {
      now: () => now().getTime(),
      footerConcurrency: d.footerConcurrency,
      readersRequired: d.readersRequired,
      failpoint: d.failpoint,
      recordedSnapshotId: rec.snapshotId ?? null,
    },
  );
  // In sync on a snapshot the record does not know: our own commit of a run killed before it
  // recorded (the engine refuses a snapshot that is not ours and validated it like a fresh commit),
  // so the record catches up now.
  const unrecorded = result.commit === null && result.snapshotId !== rec.snapshotId;
  const mark = syncMarkOf(now(), unrecorded ? { ...result, commit: 'found-committed' } : result, live.partitions.length, rec.sync);
  if (result.commit === null && !unrecorded) {
    // In sync: only the mark moves (bookkeeping: when it was checked; nothing of the table changed).
    await d.state.updateTable(rec.planHash, rec.tableId, { sync: mark });
    return result;
  }
  d.failpoint?.('sync-before-record');
  try {
    // The mark goes in the same compare-and-swap recordStep as the snapshot (one attempt records both).
    await recordSync(d, rec, live, result, `${d.catalog.name}:${formatTableIdent(ident)}`, mark);
  } catch (e) {
    // Another attempt of this sync (its worker stalled past the heartbeat timeout, the retry ran beside it) recorded first.
    if (!(e instanceof MigrationError) || e.code !== ErrorCode.SYNC_RECORD_MOVED) throw e;
    if ((await d.state.getTable(rec.planHash, rec.tableId)).snapshotId !== result.snapshotId) throw e;
  }
  d.failpoint?.('sync-after-record');
  return result;
}

/**
 * Cutover's final validation of a synced table: the Hive listing (read through `readLive`) equals
 * the current snapshot's live files, and the footers' row counts summed equal its total-records.
 * SYNC_VALIDATION_FAILED otherwise (engine/sync-table.ts `validateCurrent`).
 */
export async function validateSyncedTable(d: SyncRecordDeps, plan: PlanFile, rec: TableRecord): Promise<SyncValidation> {
  const live = await liveSource(d, plan, rec);
  const prepared = conversionFor(plan, rec.tableId, live, d.namespacePrefix, d.toolVersion);
  const ident = targetOf(rec.tableId, d.namespacePrefix);
  return validateCurrent(
    d.storeFor([prepared.metadataDir]),
    d.catalog,
    { prepared, ident },
    { now: () => Date.now(), footerConcurrency: d.footerConcurrency },
  );
}

/**
 * The record follows the table — metadata location, snapshot, our files, and the saved original:
 * the Hive table as synced (register mode never alters it, so rollback's "unchanged since saved"
 * check and the nightly HMS comparison are against what the Iceberg table now holds) — and the
 * commit is audited, in one transaction.
 */
async function recordSync(
  d: SyncRecordDeps,
  rec: TableRecord,
  live: TableInventory,
  r: SyncResult,
  target: string,
  mark: SyncMark,
): Promise<void> {
  const details = {
    target,
    snapshotId: r.snapshotId,
    parentSnapshotId: r.parentSnapshotId,
    operation: r.summary?.operation ?? null,
    // In sync on our own unrecorded snapshot: a killed run committed it, this one records it.
    commit: r.commit ?? 'found-committed',
    filesAdded: r.filesAdded,
    filesRemoved: r.filesRemoved,
    recordsAdded: r.recordsAdded,
    recordsRemoved: r.recordsRemoved,
    metadataLocation: r.metadataLocation,
    validation: r.validation,
    ...(r.columnsAdded.length > 0 ? { columnsAdded: r.columnsAdded } : {}),
    hmsDigest: tableFingerprint(live),
  };
  const written = [...(rec.writtenFiles ?? []), ...r.written.filter((w) => !(rec.writtenFiles ?? []).some((o) => o.path === w.path))];
  // Compare-and-swap on the record (its row's fence): exactly one attempt records (and audits) this
  // snapshot; the idempotency key carries the snapshot recorded.
  await recordTransition(
    d.state,
    rec,
    rec,
    'sync',
    {
      set: {
        metadataLocation: r.metadataLocation,
        snapshotId: r.snapshotId,
        writtenFiles: written,
        original: live,
        originalDigest: tableFingerprint(live),
        sync: mark,
      },
      before: rec.originalDigest,
      after: digestOf(details),
      details,
    },
    {
      at: (d.now?.() ?? new Date()).toISOString(),
      actor: d.actor.actor,
      ...(d.actor.actorSource === undefined ? {} : { actorSource: d.actor.actorSource }),
      ...(d.stepKey === undefined ? {} : { key: d.stepKey }),
    },
  );
}
