// `migrate cutover`'s steps per table, each an activity that first finds out
// whether it already happened (a retried or killed step ends as one clean run): fence the Hive
// writers (register mode: ops/fence.ts; in place the name already serves the Iceberg table:
// recorded as a fence that was not needed) → the final sync (engine/sync-record.ts, reading the
// fenced table) → the final validation (Hive files and rows = the current snapshot's) → mark the
// table cut over. And rollback's first step on such a table: unfence. Each state change and its
// audit event are one transition (core/state/lifecycle.ts).
import { digestOf } from '../core/audit/chain';
import { fencedName, unfencedInventory } from '../core/cutover/fence';
import { dbOf, nameOf } from '../core/convert/plan-conversion';
import { ErrorCode, MigrationError } from '../core/errors';
import type { TableInventory } from '../core/hive/model';
import { isLive } from '../core/state/status';
import type { TableRecord } from '../core/state/store';
import type { SyncValidation } from '../core/engine-port/sync';
import type { Ctx, TableRef } from './context';
import { fenceHiveTable, fenceSide, unfenceHiveTable } from './fence';
import { refuseBlockedRollback } from './put-back';

export type CutoverStep = { readonly done: 'now' | 'already' | 'not-needed'; readonly detail: string };

/** In place, the table's Hive name is the Iceberg table: no Hive writer reaches the data through it. */
const inPlace = (c: Ctx, rec: TableRecord): boolean =>
  rec.original !== null && c.deps.catalog.hiveOriginalPlace(nameOf(rec.tableId), rec.original.table).kind !== 'untouched';

function notMigrated(rec: TableRecord, doing: string): MigrationError {
  return new MigrationError(
    ErrorCode.CUTOVER_NOT_MIGRATED,
    `${rec.tableId} is ${rec.status}${rec.errorCode !== null ? ` (${rec.errorCode})` : ''}: only a migrated table is ${doing}`,
    { tableId: rec.tableId, status: rec.status },
    { retryable: false },
  );
}

/** Step 1: fence Hive writers; `fenced` recorded with a `table.fenced` event. */
async function fenceTable(c: Ctx, ref: TableRef, by: string): Promise<CutoverStep> {
  const rec = await c.deps.state.getTable(ref.planHash, ref.tableId);
  if (rec.status === 'fenced' || rec.status === 'cutover') return { done: 'already', detail: rec.status };
  if (rec.status !== 'migrated') throw notMigrated(rec, 'fenced');
  if (inPlace(c, rec)) {
    const why = 'converted in place: the Hive name already serves the Iceberg table, so there is no Hive table to fence';
    await c.record(
      ref,
      rec,
      'fence',
      { before: rec.originalDigest, after: rec.originalDigest, details: { mode: 'in-place', fence: 'none', why } },
      by,
    );
    return { done: 'not-needed', detail: why };
  }
  const { fenced, steps } = await fenceHiveTable(c, ref.tableId);
  c.failpoint('cutover-before-fenced-record', ref.tableId);
  const to = `${dbOf(ref.tableId)}.${fencedName(nameOf(ref.tableId))}`;
  const details = {
    mode: 'register',
    fence: 'renamed',
    from: ref.tableId,
    to,
    tableType: rec.original?.table.tableType ?? null,
    location: fenced.table.sd.location,
    partitions: fenced.partitions.length,
    steps,
  };
  await c.record(ref, rec, 'fence', { before: rec.originalDigest, after: digestOf(fenced.table), details }, by);
  return { done: 'now', detail: `renamed to ${to}` };
}

/** The fenced Hive table read as the table it was (what sync and the record see). */
const fencedReader =
  (c: Ctx) =>
  async (tableId: string): Promise<TableInventory | undefined> => {
    const side = await fenceSide(c, tableId);
    return side.position === 'fenced' && side.byFencedName !== undefined
      ? unfencedInventory(side.byFencedName, nameOf(tableId))
      : undefined;
  };

/** The record of a table between fence and cutover, or why a step has nothing to do. */
async function fencedRecord(c: Ctx, ref: TableRef, doing: string): Promise<TableRecord | CutoverStep> {
  const rec = await c.deps.state.getTable(ref.planHash, ref.tableId);
  if (rec.status === 'cutover') return { done: 'already', detail: 'cut over' };
  if (rec.status !== 'fenced') throw notMigrated(rec, doing);
  if (inPlace(c, rec)) return { done: 'not-needed', detail: 'converted in place: no Hive side to sync from' };
  return rec;
}

const syncDeps = (c: Ctx, tableId: string) => ({
  ...c.deps,
  actor: { actor: c.deps.actor },
  stepKey: c.stepKey,
  footerConcurrency: c.deps.write?.footerConcurrency,
  readersRequired: c.deps.write?.readersRequired,
  locationFence: c.deps.assessOptions?.locationFence,
  failpoint: (name: string) => c.failpoint(name, tableId),
  readLive: fencedReader(c),
});

/** Step 2: the final sync from the fenced Hive table (a `table.synced` event when it commits, as sync's). */
async function finalSync(c: Ctx, ref: TableRef): Promise<CutoverStep> {
  const rec = await fencedRecord(c, ref, 'synced for cutover');
  if (!('tableId' in rec)) return rec;
  const o = await c.deps.engine.syncMigratedTable(syncDeps(c, ref.tableId), await c.plan(ref.planHash), rec);
  if (!o.ok)
    throw new MigrationError(
      o.error.code as ErrorCode,
      `${ref.tableId}: final sync: ${o.error.message}`,
      { tableId: ref.tableId },
      { retryable: false },
    );
  const r = o.result;
  return { done: r.commit === null ? 'already' : 'now', detail: `${r.status}, snapshot ${r.snapshotId ?? 'none'}` };
}

/** Step 3: the Hive side and the current snapshot hold the same files and rows (SYNC_VALIDATION_FAILED otherwise). */
async function finalValidation(c: Ctx, ref: TableRef): Promise<SyncValidation | CutoverStep> {
  const rec = await fencedRecord(c, ref, 'validated for cutover');
  if (!('tableId' in rec)) return rec;
  return c.deps.engine.validateSyncedTable(syncDeps(c, ref.tableId), await c.plan(ref.planHash), rec);
}

/** Step 4: `cutover` recorded with its `table.cutover` event (the snapshot Iceberg takes over from, the final check). */
async function markCutOver(c: Ctx, ref: TableRef, validation: SyncValidation | CutoverStep, by: string): Promise<CutoverStep> {
  const rec = await c.deps.state.getTable(ref.planHash, ref.tableId);
  if (rec.status === 'cutover') return { done: 'already', detail: 'cut over' };
  if (rec.status !== 'fenced') throw notMigrated(rec, 'cut over');
  c.failpoint('cutover-before-mark', ref.tableId);
  const details = {
    snapshotId: rec.snapshotId,
    metadataLocation: rec.metadataLocation,
    mode: inPlace(c, rec) ? 'in-place' : 'register',
    validation,
  };
  await c.record(ref, rec, 'cutover', { before: rec.originalDigest, after: digestOf(rec.metadataLocation), details }, by);
  return { done: 'now', detail: `snapshot ${rec.snapshotId ?? 'none'}` };
}

/**
 * Rollback's first step on a fenced or cut-over table (or a migrated one whose fence a killed
 * cutover set but never recorded): the Hive table back under its name, the record `migrated` again.
 */
async function unfenceTable(c: Ctx, ref: TableRef, by: string, force = false): Promise<CutoverStep> {
  const rec = await c.deps.state.getTable(ref.planHash, ref.tableId);
  const recorded = rec.status === 'fenced' || rec.status === 'cutover';
  if (!recorded && (rec.status !== 'migrated' || inPlace(c, rec))) return { done: 'not-needed', detail: rec.status };
  // Still `migrated`, yet a cutover killed between its rename and its record may have left the fence in HMS.
  if (!recorded && !['marked', 'fenced'].includes((await fenceSide(c, ref.tableId)).position))
    return { done: 'not-needed', detail: rec.status };
  if (inPlace(c, rec)) {
    await c.record(ref, rec, 'unfence', { before: null, after: rec.originalDigest, details: { mode: 'in-place', from: rec.status } }, by);
    return { done: 'not-needed', detail: 'converted in place: nothing was fenced' };
  }
  // A rollback that would be refused leaves the table fenced: Iceberg stays the only writable side.
  await refuseBlockedRollback(c, ref, rec, force);
  const { restored, steps } = await unfenceHiveTable(c, ref.tableId);
  const details = { mode: 'register', from: rec.status, name: ref.tableId, tableType: restored.table.tableType, steps };
  await c.record(ref, rec, 'unfence', { before: null, after: digestOf(restored.table), details }, by);
  return { done: steps.length > 0 ? 'now' : 'already', detail: steps.join(', ') || 'already under its name' };
}

/**
 * The tables of the wave a cutover covers, in plan order (named ones only, when `tables` is given),
 * and the named ones it refuses: not in the wave, or not live (CUTOVER_NOT_MIGRATED).
 */
async function cutoverScope(c: Ctx, planHash: string, wave: number, tables: readonly string[]) {
  const recs = await c.deps.state.listTables(planHash, wave);
  const order = (await c.plan(planHash)).waves.find((w) => w.number === wave)?.tables.map((t) => t.id) ?? [];
  const asked = (id: string): boolean => tables.length === 0 || tables.includes(id);
  const live = order.filter((id) => asked(id) && recs.some((r) => r.tableId === id && isLive(r.status)));
  const refused = tables
    .filter((id) => !live.includes(id))
    .map((id) => {
      const r = recs.find((x) => x.tableId === id);
      return r === undefined
        ? { tableId: id, code: ErrorCode.USAGE as string, message: `${id} is not a table of wave ${wave}` }
        : { tableId: id, code: ErrorCode.CUTOVER_NOT_MIGRATED as string, message: notMigrated(r, 'cut over').message };
    });
  return { tables: live, refused };
}

/** These steps under their activity names (what the workflows call: never rename). */
export function cutoverOps(c: Ctx) {
  return {
    cutoverScope: (planHash: string, wave: number, tables: readonly string[]) => cutoverScope(c, planHash, wave, tables),
    fenceTable: (ref: TableRef, by: string): Promise<CutoverStep> => fenceTable(c, ref, by),
    finalSync: (ref: TableRef): Promise<CutoverStep> => finalSync(c, ref),
    finalValidation: (ref: TableRef): Promise<SyncValidation | CutoverStep> => finalValidation(c, ref),
    markCutOver: (ref: TableRef, validation: SyncValidation | CutoverStep, by: string): Promise<CutoverStep> =>
      markCutOver(c, ref, validation, by),
    unfenceTable: (ref: TableRef, by: string, force?: boolean): Promise<CutoverStep> => unfenceTable(c, ref, by, force),
  };
}
