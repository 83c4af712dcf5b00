// The forward steps of one table (apply): save the HMS original after re-checking it, write our
// metadata, register, validate. Each step loads the table's record, does nothing when the record
// shows it done, checks its transition (core/state/lifecycle.ts) before it acts, and records it, so
// a retry or a worker killed mid-step ends in the same state as one clean run.
import { TableClass } from '../core/assess/types';
import { digestOf } from '../core/audit/chain';
import { formatTableIdent } from '../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../core/errors';
import type { TableInventory } from '../core/hive/model';
import type { TableRecord } from '../core/state/store';
import type { Ctx, TableRef } from './context';
import { fingerprintOf, reached } from './context';
import { assertMigratable, assertNoOpenWrite } from './gate';
import { pinnedLive, planEntry } from './live';
import { siblingCheck } from './siblings';
import { locationKey } from '../core/assess/shared-locations';
import { dbOf, nameOf } from '../core/convert/plan-conversion';
import { sincePlan } from '../core/plan/partition-set';
import { planId } from '../core/plan/ids';

const keyOf = (inv: TableInventory): string | null => (inv.table.sd.location === null ? null : locationKey(inv.table.sd.location));
const isView = (i: TableInventory): boolean => i.table.tableType === 'VIRTUAL_VIEW' || i.table.tableType === 'MATERIALIZED_VIEW';

/** For the audit trail: what an in-place conversion did to the Hive table itself. */
function inPlaceDetails(deps: Ctx['deps'], ref: TableRef, rec: TableRecord): Record<string, unknown> {
  if (deps.catalog.inPlace !== true || rec.original === null) return {};
  const place = deps.catalog.hiveOriginalPlace(nameOf(ref.tableId), rec.original.table);
  return {
    inPlace: true,
    hiveOriginal:
      place.kind === 'aside'
        ? `hms:${dbOf(ref.tableId)}.${place.name} (made EXTERNAL, renamed, partitions kept)`
        : `hms:${ref.tableId} (altered into the Iceberg form)`,
  };
}

/** No other table holding something of ours shares this table's location (LOCATION_SHARED). */
async function assertLocationOwn(deps: Ctx['deps'], ref: TableRef, inv: TableInventory): Promise<void> {
  const key = keyOf(inv);
  if (key === null) return; // the gate refused an invalid location already
  const others = await deps.state.tablesSharingLocation(key, ref);
  if (others.length === 0) return;
  const list = others.map((o) => `${o.tableId} (plan ${planId(o.planHash)}, ${o.status})`).join(', ');
  throw new MigrationError(
    ErrorCode.LOCATION_SHARED,
    `${ref.tableId}: its location ${inv.table.sd.location} is shared with ${list}; a table that shares its location cannot be converted on its own (its listing would take the other's files) — nothing was written`,
    { tableId: ref.tableId, others: others.map((o) => o.tableId) },
    { retryable: false },
  );
}

/** What the first step did: a view (nothing to write), our metadata written, or a rewrite-path table (rewriteTable next). */
export type SaveAndWrite =
  | { view: true }
  | { view: false; rewrite: true }
  | { view: false; rewrite?: false; metadataLocation: string; dataFiles: number; records: number };

/**
 * The table read live from HMS, checked to convert as the plan said (its pin; an unpinned version 2
 * entry: its fingerprint) and migratable as it is now — its own rules and its database's locations
 * (the plan's judgement is not trusted).
 */
async function liveOriginal(
  c: Ctx,
  ref: TableRef,
  sharesNoLocation: ReturnType<typeof siblingCheck>,
): Promise<{ inv: TableInventory; digest: string }> {
  const { deps } = c;
  const { inv } = await pinnedLive(c, ref, true);
  assertNoOpenWrite(ref.tableId, inv);
  assertMigratable(ref.tableId, inv, deps.assessOptions);
  if (!isView(inv)) await sharesNoLocation(ref.tableId, inv);
  return { inv, digest: fingerprintOf(inv) };
}

/**
 * Step 1: save the HMS object (once) after checking it is what the plan saw and that it is
 * migratable as it is now (the plan's judgement is not trusted).
 */
async function snapshotOriginal(
  c: Ctx,
  sharesNoLocation: ReturnType<typeof siblingCheck>,
  ref: TableRef,
): Promise<{ digest: string; view: boolean }> {
  const { deps } = c;
  await c.assertTarget(ref);
  const run = c.run();
  const rec = await deps.state.getTable(ref.planHash, ref.tableId);
  // This run owns the record's forward steps from here (a re-applied plan's new run takes over).
  if (run !== undefined && rec.ownerRun !== run) await deps.state.updateTable(ref.planHash, ref.tableId, { ownerRun: run });
  if (rec.original !== null && rec.originalDigest !== null) {
    if (!isView(rec.original)) await assertLocationOwn(deps, ref, rec.original);
    return { digest: rec.originalDigest, view: isView(rec.original) };
  }
  c.check(ref, rec, 'save-original');
  const { inv, digest } = await liveOriginal(c, ref, sharesNoLocation);
  const locationKey = isView(inv) ? null : keyOf(inv);
  await c.record(ref, rec, 'save-original', {
    set: { original: inv, originalDigest: digest, locationKey },
    before: null,
    after: digest,
    details: { partitions: inv.partitions.length },
  });
  // Checked after the claim is recorded: two tables of one location racing here both see each other.
  if (!isView(inv)) await assertLocationOwn(deps, ref, inv);
  return { digest, view: isView(inv) };
}

/**
 * Steps 1-5 as one activity (one workflow task fewer per table): save the original, then, unless
 * it is a view, write the metadata. Each half is idempotent and recorded on its own, so a retry
 * after a crash in either resumes where the record says.
 */
async function saveOriginalAndWrite(
  c: Ctx,
  sharesNoLocation: ReturnType<typeof siblingCheck>,
  ref: TableRef,
  progress?: Progress,
): Promise<SaveAndWrite> {
  // A rewrite-required table in a wave takes the rewrite path (ops/rewrite.ts): nothing written here.
  if ((await planEntry(c, ref)).class === TableClass.REWRITE_REQUIRED) return { view: false, rewrite: true };
  const snap = await snapshotOriginal(c, sharesNoLocation, ref);
  if (snap.view) return { view: true };
  return { view: false, ...(await writeMetadata(c, ref, progress)) };
}

/** Where the write step's progress goes: the activity's heartbeat, unless a batch heartbeats its outcomes instead. */
type Progress = (p: unknown) => void;

async function markSkipped(c: Ctx, ref: TableRef, reason: string): Promise<void> {
  const { deps } = c;
  await deps.state.updateTable(ref.planHash, ref.tableId, { status: 'skipped', errorCode: reason });
}

/** Steps 2-5: list, footers, manifests, manifest list, metadata.json (heartbeating progress). */
async function writeMetadata(
  c: Ctx,
  ref: TableRef,
  progress?: Progress,
): Promise<{ metadataLocation: string; dataFiles: number; records: number }> {
  const { deps } = c;
  await c.assertTarget(ref);
  const rec = await deps.state.getTable(ref.planHash, ref.tableId);
  if (!reached(rec, 'written')) c.check(ref, rec, 'write-metadata');
  const p = await c.prepared(ref, rec);
  let onProgress = progress;
  if (onProgress === undefined) {
    const running = c.runtime.current();
    onProgress = (pr) => running?.heartbeat(pr);
  }
  const w = await deps.engine.writeIcebergMetadata(deps.storeFor([p.metadataDir]), p, {
    ...deps.write,
    progressEvery: 200,
    onProgress,
  });
  const files = w.files.map((f) => ({ path: f.path, bytes: f.bytes, outcome: f.outcome }));
  const set = {
    metadataLocation: w.metadataLocation,
    snapshotId: w.snapshotId?.toString() ?? null,
    writtenFiles: files,
    target: `${(await c.plan(ref.planHash)).targetCatalog}:${formatTableIdent(c.target(ref.tableId))}`,
  };
  if (reached(rec, 'written')) await deps.state.updateTable(ref.planHash, ref.tableId, { writtenFiles: files });
  else
    await c.record(ref, rec, 'write-metadata', {
      set,
      before: null,
      after: digestOf(files),
      details: { metadataLocation: w.metadataLocation, dataFiles: w.dataFiles, records: w.records, files: files.length },
    });
  c.failpoint('after-write', ref.tableId);
  return { metadataLocation: w.metadataLocation, dataFiles: w.dataFiles, records: w.records };
}

/** Step 6: register (assert-create; a retry finds its own entry). */
async function registerTable(c: Ctx, ref: TableRef): Promise<{ outcome: string }> {
  const { deps } = c;
  await c.assertTarget(ref);
  const rec = await deps.state.getTable(ref.planHash, ref.tableId);
  if (!reached(rec, 'registered')) c.check(ref, rec, 'register');
  const p = await c.prepared(ref, rec);
  const ident = c.target(ref.tableId);
  const catalog = c.catalogOf(ref, rec);
  await catalog.createNamespace(ident.namespace);
  const { outcome } = await catalog.registerTable(ident, p.metadataLocation);
  // Recorded once: by the attempt that registered, or by the retry that found its entry after a crash.
  if (!reached(rec, 'registered')) {
    await c.record(ref, rec, 'register', {
      target: `${deps.catalog.name}:${formatTableIdent(ident)}`,
      before: null,
      after: digestOf(p.metadataLocation),
      details: { metadataLocation: p.metadataLocation, outcome, ...inPlaceDetails(deps, ref, rec) },
    });
  }
  c.failpoint('after-register', ref.tableId);
  return { outcome };
}

/** Step 7: validation decides success; the evidence is stored either way. */
async function validateTable(c: Ctx, ref: TableRef): Promise<{ ok: boolean; snapshotId: string | null }> {
  const { deps } = c;
  const rec = await deps.state.getTable(ref.planHash, ref.tableId);
  const done = recordedValidation(rec);
  // A retry after the passing validation was recorded (the worker died before Temporal heard of it):
  // the transition is made, and its evidence is the answer. Validating again could only fail a table
  // the record already calls migrated, and the table workflow's compensation would then unregister
  // it while the record still says migrated. What changed since is the read-back's and the nightly
  // validation's to find.
  if (done !== null) return done;
  if (!reached(rec, 'migrated')) c.check(ref, rec, 'validate');
  const p = await c.prepared(ref, rec);
  const original = rec.original as TableInventory;
  const ev = await deps.engine.validateConversion(
    deps.storeFor([p.metadataDir]),
    deps.catalog,
    c.target(ref.tableId),
    p,
    original,
    deps.write,
  );
  c.failpoint('during-validate', ref.tableId);
  // What went in compared with the plan: partitions added since (named), partitions and files converted.
  const since = sincePlan(await planEntry(c, ref), original, ev.files.listed);
  const validation = { ...ev, sincePlan: since };
  c.failpoint('before-validated-record', ref.tableId);
  if (!reached(rec, 'migrated')) {
    await c.record(ref, rec, ev.ok ? 'validate' : 'validate-refused', {
      set: { validation },
      before: null,
      after: digestOf(validation),
      details: {
        ok: ev.ok,
        snapshotId: ev.snapshotId,
        rows: ev.rows.footers,
        files: ev.files.listed,
        findings: ev.findings.length,
        sincePlan: since,
      },
    });
  }
  if (!ev.ok) {
    const first = ev.findings.find((f) => f.severity !== 'warning');
    throw new MigrationError(
      (first?.code ?? ErrorCode.VALIDATION_FILES_MISMATCH) as ErrorCode,
      `${ref.tableId}: validation failed: ${ev.findings
        .map((f) => f.message)
        .slice(0, 3)
        .join('; ')}`,
      { tableId: ref.tableId },
      { retryable: false },
    );
  }
  return { ok: true, snapshotId: ev.snapshotId };
}

/** A passing validation already recorded for a migrated table (or later on its path), else null. */
function recordedValidation(rec: TableRecord): { ok: true; snapshotId: string | null } | null {
  if (!reached(rec, 'migrated')) return null;
  const v = rec.validation as { ok?: unknown; snapshotId?: unknown } | null;
  if (v === null || typeof v !== 'object' || v.ok !== true) return null;
  return { ok: true, snapshotId: typeof v.snapshotId === 'string' ? v.snapshotId : null };
}

/** The forward steps as functions, for a batch of tables in one activity (activities/apply-batch.ts). */
export function tableSteps(c: Ctx, sharesNoLocation: ReturnType<typeof siblingCheck>) {
  return {
    saveOriginalAndWrite: (ref: TableRef, progress: Progress): Promise<SaveAndWrite> =>
      saveOriginalAndWrite(c, sharesNoLocation, ref, progress),
    registerTable: (ref: TableRef): Promise<{ outcome: string }> => registerTable(c, ref),
    validateTable: (ref: TableRef): Promise<{ ok: boolean; snapshotId: string | null }> => validateTable(c, ref),
  };
}

/** The forward steps under their activity names (what the workflows call: never rename). */
export function tableOps(c: Ctx, sharesNoLocation: ReturnType<typeof siblingCheck> = siblingCheck(c.deps.hms)) {
  return {
    snapshotOriginal: (ref: TableRef): Promise<{ digest: string; view: boolean }> => snapshotOriginal(c, sharesNoLocation, ref),
    saveOriginalAndWrite: (ref: TableRef): Promise<SaveAndWrite> => saveOriginalAndWrite(c, sharesNoLocation, ref),
    markSkipped: (ref: TableRef, reason: string): Promise<void> => markSkipped(c, ref, reason),
    writeMetadata: (ref: TableRef): Promise<{ metadataLocation: string; dataFiles: number; records: number }> => writeMetadata(c, ref),
    registerTable: (ref: TableRef): Promise<{ outcome: string }> => registerTable(c, ref),
    validateTable: (ref: TableRef): Promise<{ ok: boolean; snapshotId: string | null }> => validateTable(c, ref),
  };
}
