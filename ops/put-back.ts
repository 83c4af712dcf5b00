// Rollback's put-back: a register-mode table whose Iceberg entry holds appends
// other engines made after our last snapshot gets those files back into Hive before the entry is
// dropped. The plan comes from the engine (engine/put-back.ts: every commit since ours an append of
// Parquet/ORC data files under our spec, each file where Hive reads it; else ROLLBACK_BLOCKED with
// the blocking snapshots, nothing changed). Then, metadata-only: the partitions Hive lacks are added
// at the files' directory (Thrift add_partitions through ActivityDeps.hmsWriter); the live Hive
// table minus exactly those partitions must still equal the saved original; the record's saved
// original becomes the table as put back (so rollback's "HMS equals the saved original" check holds
// for original + added partitions) and its snapshot id the head put back, with the `table.put-back`
// audit event, in one transaction. Idempotent: a rerun finds partitions it added (same location)
// and skips them, and a record already at this head is not recorded twice.
import { AuditAction as A, digestOf } from '../core/audit/chain';
import type { IcebergCatalog, TableIdent } from '../core/catalog/catalog';
import { formatTableIdent } from '../core/catalog/catalog';
import { dbOf, nameOf } from '../core/convert/plan-conversion';
import { ErrorCode, MigrationError } from '../core/errors';
import type { HivePartition, TableInventory } from '../core/hive/model';
import type { TableRecord } from '../core/state/store';
import { samePath } from '../core/sync/diff';
import type { PartitionPutBack } from '../core/sync/put-back';
import { hivePartitionOf, putBackBlocked } from '../core/sync/put-back';
import type { PutBackSummary } from '../core/engine-port/checks';
import type { Ctx, TableRef } from './context';
import { fingerprintOf } from './context';
import { hmsTable } from './hms-read';

const sameValues = (a: readonly (string | null)[], b: readonly (string | null)[]): boolean =>
  a.length === b.length && a.every((v, i) => v === b[i]);
const trim = (s: string | null): string => samePath(s ?? '').replace(/\/+$/, '');

async function liveTable(c: Ctx, tableId: string): Promise<TableInventory> {
  const live = await hmsTable(c.deps.hms, tableId);
  if (live === undefined)
    throw new MigrationError(ErrorCode.HMS_NOT_FOUND, `${tableId} is not in HMS any more; nothing put back`, { tableId });
  return live;
}

/** The partitions of `add` Hive does not have yet; one it has at another location blocks (someone else added it). */
function missing(tableId: string, live: TableInventory, add: readonly PartitionPutBack[]): PartitionPutBack[] {
  const out: PartitionPutBack[] = [];
  for (const g of add) {
    const there = live.partitions.find((p) => sameValues(p.values, g.values));
    if (there === undefined) out.push(g);
    else if (trim(there.sd.location) !== trim(g.location))
      throw putBackBlocked(tableId, [
        {
          snapshotId: [...new Set(g.files.map((f) => f.snapshotId))].join(','),
          operation: 'append',
          reason: `partition ${there.name} appeared in Hive at ${String(there.sd.location)} while its appended files are in ${g.location}`,
        },
      ]);
  }
  return out;
}

/** Hive now = the saved original + exactly the partitions put back (SOURCE_CHANGED otherwise: someone else changed it). */
function verifyAdded(tableId: string, rec: TableRecord, live: TableInventory, add: readonly PartitionPutBack[]): void {
  const isAdded = (p: HivePartition): boolean =>
    add.some((g) => sameValues(g.values, p.values) && trim(g.location) === trim(p.sd.location));
  const rest = fingerprintOf({ table: live.table, partitions: live.partitions.filter((p) => !isAdded(p)) });
  const present = add.filter((g) =>
    live.partitions.some((p) => sameValues(g.values, p.values) && trim(g.location) === trim(p.sd.location)),
  );
  if (rest !== rec.originalDigest || present.length !== add.length)
    throw new MigrationError(
      ErrorCode.SOURCE_CHANGED,
      `${tableId}: after putting back ${add.length} partition(s), the Hive table is not the saved original plus exactly those (${present.length} of them present; the rest ${rest === rec.originalDigest ? 'equals' : 'differs from'} the saved original)`,
      { tableId, added: add.map((g) => g.name), present: present.length },
      { retryable: false },
    );
}

/**
 * Put back what the entry at `ident` holds since our snapshot (see the module comment). Returns the
 * summary; ROLLBACK_BLOCKED (nothing changed) when a commit or file cannot be put back.
 */
export async function putBackTable(
  c: Ctx,
  ref: TableRef,
  rec: TableRecord,
  target: { catalog: IcebergCatalog; ident: TableIdent },
  by: string,
): Promise<PutBackSummary> {
  const { deps } = c;
  const original = rec.original;
  if (original === null) throw new MigrationError(ErrorCode.INTERNAL, `${ref.tableId}: no saved original`, { tableId: ref.tableId });
  const plan = await deps.engine.planPutBack(deps.storeFor([]), target.catalog, target.ident, ref.tableId, original);
  const s = plan.summary;
  if (s.blockers.length > 0) throw putBackBlocked(ref.tableId, s.blockers);
  if (rec.snapshotId !== null && rec.snapshotId === s.head) return s; // recorded by an earlier run of this rollback
  const writer = deps.hmsWriter;
  if (writer === undefined)
    throw new MigrationError(ErrorCode.INTERNAL, 'this worker has no HMS writer for the put-back', { tableId: ref.tableId });
  const toAdd = missing(ref.tableId, await liveTable(c, ref.tableId), plan.add);
  const createTime = Math.floor((deps.now?.() ?? new Date()).getTime() / 1000);
  if (toAdd.length > 0)
    await writer.addPartitions(
      dbOf(ref.tableId),
      nameOf(ref.tableId),
      toAdd.map((g) => hivePartitionOf(original.table, g, createTime)),
    );
  c.failpoint('put-back-after-add', ref.tableId);
  const live = await liveTable(c, ref.tableId);
  verifyAdded(ref.tableId, rec, live, plan.add);
  const details = {
    ours: s.ours,
    head: s.head,
    metadataLocation: s.metadataLocation,
    snapshots: s.snapshots.map((x) => x.snapshotId),
    partitionsAdded: s.partitionsToAdd.map((p) => ({ name: p.name, location: p.location, files: p.files.length, records: p.records })),
    partitionsAlreadyVisible: s.partitionsVisible.map((p) => ({ name: p.name, files: p.files.length, records: p.records })),
    addedByThisRun: toAdd.length,
    files: s.files,
    records: s.records,
  };
  await c.record(
    ref,
    rec,
    'put-back',
    {
      set: { original: live, originalDigest: fingerprintOf(live), snapshotId: s.head },
      before: rec.originalDigest,
      after: fingerprintOf(live),
      details: { ...details, digest: digestOf(details) },
    },
    by,
  );
  return s;
}

/**
 * A descendant entry at rollback: put its appends back into Hive, then drop the entry without purge
 * (audited). null when there is no put-back to do here — an in-place catalog (its Hive name is the
 * Iceberg table), a worker without an HMS writer, or a blocked put-back under --force (the caller
 * drops the entry without putting anything back); blocked without --force throws ROLLBACK_BLOCKED.
 */
export async function putBackAndDrop(
  c: Ctx,
  ref: TableRef,
  rec: TableRecord,
  target: { catalog: IcebergCatalog; ident: TableIdent; name: string; current: string | undefined; ours: string },
  force: boolean,
  by: string,
): Promise<PutBackSummary | null> {
  if (target.catalog.inPlace === true || c.deps.hmsWriter === undefined) return null;
  let s: PutBackSummary;
  try {
    s = await putBackTable(c, ref, rec, target, by);
  } catch (e) {
    if (force && e instanceof MigrationError && e.code === ErrorCode.ROLLBACK_BLOCKED) return null;
    throw e;
  }
  c.failpoint('put-back-before-drop', ref.tableId);
  // Never purge: the data files (ours, Hive's and now the put-back ones) stay; only the entry goes.
  await target.catalog.dropTable(target.ident);
  await c.audit(
    A.TABLE_UNREGISTERED,
    target.name,
    ref.planHash,
    digestOf(target.current),
    null,
    {
      metadataLocation: target.current,
      ours: target.ours,
      putBack: { head: s.head, files: s.files, partitionsAdded: s.partitionsToAdd.length },
    },
    by,
  );
  return s;
}

/**
 * Who holds the target name: `ours` (our recorded metadata), `descendant` (a commit on top of
 * ours: its metadata log lists ours), `foreign` (anything else) or `absent`.
 */
export async function holder(
  catalog: IcebergCatalog,
  ident: TableIdent,
  ours: string,
): Promise<{ kind: 'ours' | 'descendant' | 'foreign' | 'absent'; location?: string }> {
  if (!(await catalog.tableExists(ident))) return { kind: 'absent' };
  const loaded = await catalog.loadTable(ident);
  if (loaded.metadataLocation === ours) return { kind: 'ours', location: ours };
  const descends = loaded.metadata.metadataLog.some((e) => e.metadataFile === ours);
  return { kind: descends ? 'descendant' : 'foreign', location: loaded.metadataLocation };
}

/**
 * Rollback's refusal decided before anything moves (a fenced or cut-over table is unfenced first,
 * and must stay fenced when its rollback would be refused): the name held by an entry that is not
 * ours or our descendant → ROLLBACK_NOT_OURS; without --force, a descendant whose commits since ours
 * cannot be put back → ROLLBACK_BLOCKED with the blocking snapshots. Reads only.
 */
export async function refuseBlockedRollback(c: Ctx, ref: TableRef, rec: TableRecord, force: boolean): Promise<void> {
  const ours = c.recorded(rec)?.metadataLocation;
  if (ours === undefined || rec.original === null) return;
  const ident = c.recordedTarget(ref, rec);
  const catalog = c.catalogOf(ref, rec);
  const h = await holder(catalog, ident, ours);
  if (h.kind === 'foreign')
    throw new MigrationError(
      ErrorCode.ROLLBACK_NOT_OURS,
      `${ref.tableId}: ${formatTableIdent(ident)} is held by an entry this tool did not register for it (metadata at ${h.location}; ours was ${ours}); the table stays fenced`,
      { tableId: ref.tableId, current: h.location, ours },
      { retryable: false },
    );
  if (h.kind !== 'descendant' || force || catalog.inPlace === true) return;
  const plan = await c.deps.engine.planPutBack(c.deps.storeFor([]), catalog, ident, ref.tableId, rec.original);
  if (plan.summary.blockers.length > 0) throw putBackBlocked(ref.tableId, plan.summary.blockers);
}
