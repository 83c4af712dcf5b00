// A table's lifecycle as data: every state change a step records (StateStore.recordStep: the record
// and its audit event in one transaction), one row each — the step, the statuses it may start from,
// the status it leaves, its audit action, what the event names, the record fields it sets, the
// detail keys of its event, the store's fence and the idempotency key. `planTransition` checks a
// step against its row and builds the record update and the audit event in one place (the one
// recording function is engine/record-transition.ts). The order of the forward statuses is
// ./status.ts. Pure; no I/O.
import type { ActorSource, AuditEventInput } from '../audit/chain';
import { AuditAction as A } from '../audit/chain';
import { ErrorCode, MigrationError } from '../errors';
import type { TableRecord, TableStatus, TableUpdate } from './store';

/** Every status a table record can have (core/state/store.ts TableStatus; checked exhaustive below). */
export const TABLE_STATUSES = [
  'pending',
  'original-saved',
  'written',
  'registered',
  'migrated',
  'fenced',
  'cutover',
  'skipped',
  'failed',
  'rolled-back',
  'view-created',
] as const satisfies readonly TableStatus[];
type Unlisted = Exclude<TableStatus, (typeof TABLE_STATUSES)[number]>;
const _everyStatus: [Unlisted] extends [never] ? true : never = true;
void _everyStatus;

/** Where apply, rollback or cutover ends a table; leaving one is a listed re-entry (REENTRIES). */
export const TERMINAL_STATUSES = ['skipped', 'failed', 'rolled-back', 'cutover'] as const satisfies readonly TableStatus[];

export type TableStep =
  | 'save-original'
  | 'write-metadata'
  | 'register'
  | 'validate'
  | 'validate-refused'
  | 'fail'
  | 'read-back'
  | 'read-back-fail'
  | 'rewrite-save-original'
  | 'rewrite'
  | 'rewrite-drop'
  | 'view-skip'
  | 'view-create'
  | 'view-validate'
  | 'sync'
  | 'fence'
  | 'cutover'
  | 'unfence'
  | 'put-back'
  | 'roll-back'
  | 'rewrite-roll-back'
  | 'view-roll-back'
  | 'repair';

type Field = Exclude<keyof TableUpdate, 'status'>;

export interface Transition {
  readonly step: TableStep;
  /** Where the step records it. */
  readonly by: string;
  /** The statuses the record may be in when the step reads it. */
  readonly from: readonly TableStatus[];
  /** The status it leaves; null: the status stays (evidence, bookkeeping with its event). */
  readonly to: TableStatus | null;
  readonly action: A;
  /** What the event names: the Hive table (`hms:<db.table>`), or a name the step gives (`<catalog>:<ns>.<name>`). */
  readonly object: 'hms' | 'target';
  /** The record fields it sets besides the status: exactly these. */
  readonly sets: readonly Field[];
  /** The keys of the event's details; `?`: only some of its events carry it. */
  readonly details: readonly string[];
  /** The store's compare-and-swap: only while this workflow run owns the record, only while the record is at the snapshot the step read, or none. */
  readonly fence: 'run' | 'snapshot' | null;
  /** The idempotency key (core/audit/idempotency.ts): the step's (run, activity, action, object), with the snapshot recorded for `snapshot`. */
  readonly key: 'step' | 'snapshot';
}

const INFLIGHT = ['original-saved', 'written', 'registered'] as const;
/** A table apply runs again: failed, or rolled back (app/apply/apply.ts); a view also from skipped. */
const AGAIN = ['failed', 'rolled-back'] as const;
const FAILED = ['errorCode', 'errorMessage', 'ownerRun'] as const;
const READ_BACK = ['ok', 'code?', 'skipped?', 'engine?', 'jobId?', 'files?', 'iceberg?', 'hive?', 'equal?', 'seconds?', 'error?'];
const REWRITE_FACTS = ['jobId', 'location', 'target', 'source', 'written', 'bytesWritten', 'seconds'];
const FENCE_DETAILS = ['mode', 'fence', 'why?', 'from?', 'to?', 'tableType?', 'location?', 'partitions?', 'steps?'];
const SYNC_DETAILS = ['target', 'snapshotId', 'parentSnapshotId', 'operation', 'commit', 'filesAdded', 'filesRemoved'];
const PUT_BACK = ['ours', 'head', 'metadataLocation', 'snapshots', 'partitionsAdded', 'partitionsAlreadyVisible', 'addedByThisRun'];

const t = (x: Omit<Transition, 'key'> & { key?: Transition['key'] }): Transition => ({ key: 'step', ...x });

/** Every transition a table's record makes with an audit event, in lifecycle order. */
// prettier-ignore
export const TRANSITIONS: readonly Transition[] = [
  // apply, metadata-only path (ops/table.ts)
  t({ step: 'save-original', by: 'ops/table.ts snapshotOriginal', from: ['pending', 'failed'], to: 'original-saved', action: A.TABLE_ORIGINAL_SAVED, object: 'hms', sets: ['original', 'originalDigest', 'locationKey'], details: ['partitions'], fence: 'run' }),
  t({ step: 'write-metadata', by: 'ops/table.ts writeMetadata', from: ['original-saved', ...AGAIN], to: 'written', action: A.TABLE_METADATA_WRITTEN, object: 'hms', sets: ['metadataLocation', 'snapshotId', 'writtenFiles', 'target'], details: ['metadataLocation', 'dataFiles', 'records', 'files'], fence: 'run' }),
  t({ step: 'register', by: 'ops/table.ts registerTable', from: ['written'], to: 'registered', action: A.TABLE_REGISTERED, object: 'target', sets: [], details: ['metadataLocation', 'outcome', 'inPlace?', 'hiveOriginal?'], fence: 'run' }),
  t({ step: 'validate', by: 'ops/table.ts validateTable', from: ['registered'], to: 'migrated', action: A.TABLE_VALIDATED, object: 'hms', sets: ['validation'], details: ['ok', 'snapshotId', 'rows', 'files', 'findings', 'sincePlan'], fence: 'run' }),
  t({ step: 'validate-refused', by: 'ops/table.ts validateTable', from: ['registered'], to: null, action: A.TABLE_VALIDATED, object: 'hms', sets: ['validation'], details: ['ok', 'snapshotId', 'rows', 'files', 'findings', 'sincePlan'], fence: 'run' }),
  // apply, rewrite path (ops/rewrite.ts)
  t({ step: 'rewrite-save-original', by: 'ops/rewrite.ts rewriteTable', from: ['pending', 'failed'], to: 'original-saved', action: A.TABLE_ORIGINAL_SAVED, object: 'hms', sets: ['original', 'originalDigest'], details: ['partitions', 'path'], fence: null }),
  t({ step: 'rewrite', by: 'ops/rewrite.ts rewriteTable', from: ['original-saved', ...AGAIN], to: 'migrated', action: A.TABLE_REWRITTEN, object: 'hms', sets: ['target', 'snapshotId', 'writtenFiles', 'validation'], details: [...REWRITE_FACTS, 'files', 'resumed'], fence: 'run' }),
  t({ step: 'rewrite-drop', by: 'ops/rewrite.ts dropRewrite (undo, rollback)', from: ['pending', 'original-saved', 'migrated', ...AGAIN], to: null, action: A.TABLE_REWRITE_DROPPED, object: 'hms', sets: ['writtenFiles', 'snapshotId'], details: ['dropped', 'deleted', 'location', 'jobId'], fence: null }),
  // apply, views (ops/views.ts)
  t({ step: 'view-skip', by: 'ops/views.ts createIcebergView', from: ['original-saved', 'skipped', ...AGAIN], to: 'skipped', action: A.VIEW_SKIPPED, object: 'hms', sets: ['errorCode', 'errorMessage'], details: ['code', 'message'], fence: 'run' }),
  t({ step: 'view-create', by: 'ops/views.ts createIcebergView', from: ['original-saved', 'skipped', ...AGAIN], to: 'view-created', action: A.VIEW_CREATED, object: 'target', sets: ['target', 'validation'], details: ['outcome', 'metadataLocation', 'dialects', 'warnings'], fence: 'run' }),
  t({ step: 'view-validate', by: 'ops/views.ts validateIcebergView', from: ['view-created'], to: null, action: A.VIEW_VALIDATED, object: 'hms', sets: ['validation'], details: ['ok', 'dialects', 'differences', 'spark'], fence: 'run' }),
  // apply's end: the read-back proof (ops/readback.ts) and a failed table (ops/undo.ts)
  t({ step: 'read-back', by: 'ops/readback.ts readBackTables', from: ['migrated'], to: null, action: A.TABLE_READ_BACK, object: 'hms', sets: ['validation'], details: READ_BACK, fence: null }),
  t({ step: 'read-back-fail', by: 'ops/readback.ts markReadBackFailed', from: ['migrated'], to: 'failed', action: A.TABLE_FAILED, object: 'hms', sets: FAILED, details: ['code', 'message', 'step', 'leftovers'], fence: null }),
  t({ step: 'fail', by: 'ops/undo.ts markFailed', from: ['pending', ...INFLIGHT, 'migrated', 'skipped', 'rolled-back', 'view-created'], to: 'failed', action: A.TABLE_FAILED, object: 'hms', sets: FAILED, details: ['code', 'message', 'leftovers'], fence: null }),
  // sync (engine/sync-record.ts: `migrate sync`, the syncTable activity, cutover's final sync)
  t({ step: 'sync', by: 'engine/sync-record.ts recordSync', from: ['migrated', 'fenced'], to: null, action: A.TABLE_SYNCED, object: 'hms', sets: ['metadataLocation', 'snapshotId', 'writtenFiles', 'original', 'originalDigest', 'sync'], details: [...SYNC_DETAILS, 'recordsAdded', 'recordsRemoved', 'metadataLocation', 'validation', 'columnsAdded?', 'hmsDigest'], fence: 'snapshot', key: 'snapshot' }),
  // cutover (ops/cutover.ts)
  t({ step: 'fence', by: 'ops/cutover.ts fenceTable', from: ['migrated'], to: 'fenced', action: A.TABLE_FENCED, object: 'hms', sets: [], details: FENCE_DETAILS, fence: null }),
  t({ step: 'cutover', by: 'ops/cutover.ts markCutOver', from: ['fenced'], to: 'cutover', action: A.TABLE_CUTOVER, object: 'hms', sets: [], details: ['snapshotId', 'metadataLocation', 'mode', 'validation'], fence: null }),
  // rollback (ops/cutover.ts unfence, ops/put-back.ts, ops/undo.ts, ops/views.ts)
  t({ step: 'unfence', by: 'ops/cutover.ts unfenceTable', from: ['migrated', 'fenced', 'cutover'], to: 'migrated', action: A.TABLE_UNFENCED, object: 'hms', sets: [], details: ['mode', 'from', 'name?', 'tableType?', 'steps?'], fence: null }),
  t({ step: 'put-back', by: 'ops/put-back.ts putBackTable', from: ['registered', 'migrated', 'failed'], to: null, action: A.TABLE_PUT_BACK, object: 'hms', sets: ['original', 'originalDigest', 'snapshotId'], details: [...PUT_BACK, 'files', 'records', 'digest'], fence: null }),
  t({ step: 'roll-back', by: 'ops/undo.ts rollbackTable', from: [...INFLIGHT, 'migrated', 'failed'], to: 'rolled-back', action: A.TABLE_ROLLED_BACK, object: 'hms', sets: ['writtenFiles'], details: ['verified', 'metadataFilesDeleted', 'putBack?'], fence: null }),
  t({ step: 'rewrite-roll-back', by: 'ops/undo.ts rollbackRewrite', from: ['original-saved', 'migrated', 'failed'], to: 'rolled-back', action: A.TABLE_ROLLED_BACK, object: 'hms', sets: ['writtenFiles'], details: ['verified', 'path', 'dropped', 'deleted'], fence: null }),
  t({ step: 'view-roll-back', by: 'ops/views.ts rollbackView', from: ['view-created'], to: 'rolled-back', action: A.TABLE_ROLLED_BACK, object: 'hms', sets: [], details: ['verified', 'view'], fence: null }),
  // `migrate repair` (ops/repair.ts): an orphan's leftovers removed, its record closed
  t({ step: 'repair', by: 'ops/repair.ts repairOne', from: [...INFLIGHT, 'failed'], to: 'failed', action: A.TABLE_REPAIRED, object: 'hms', sets: ['errorCode', 'errorMessage', 'writtenFiles'], details: ['previousStatus', 'previousCode', 'filesDeleted', 'entry'], fence: null }),
];

/**
 * The transitions that leave a terminal status for another, and why: apply again after a failure or
 * a rollback (app/apply/apply.ts re-runs such a plan), a skipped view created when its inputs have Iceberg
 * names now, the end of a table apply runs again, rollback of a failed table whose undo did not
 * finish, and rollback's unfence of a cut-over table. Nothing else leaves one.
 */
export const REENTRIES: Readonly<Partial<Record<TableStep, string>>> = {
  'save-original': 'apply again: a table that failed before its original was saved',
  'rewrite-save-original': 'apply again: a rewrite-path table that failed before its original was saved',
  'write-metadata': 'apply again: a failed or rolled-back table (its original stays saved)',
  rewrite: 'apply again: a failed or rolled-back rewrite-path table',
  'view-skip': 'apply again: a failed or rolled-back view that still cannot be created',
  'view-create': 'apply again: a skipped, failed or rolled-back view',
  fail: 'apply again: a skipped view or a rolled-back table whose steps failed',
  'roll-back': 'rollback of a failed table whose undo did not finish (COMPENSATION_INCOMPLETE)',
  'rewrite-roll-back': 'rollback of a failed rewrite-path table whose undo did not finish',
  unfence: 'rollback of a cut-over table: Hive back under its name first',
};

export function transitionOf(step: TableStep): Transition {
  const found = TRANSITIONS.find((x) => x.step === step);
  if (found === undefined) throw refused(step, '?', `no transition named ${step}`);
  return found;
}

/** What a step hands in: the fields it sets, the event's object (for `target` transitions), digests and details. */
export interface TransitionFacts {
  readonly set?: Omit<TableUpdate, 'status'>;
  readonly target?: string;
  readonly before: string | null;
  readonly after: string | null;
  readonly details: Readonly<Record<string, unknown>>;
}

/** Who records, and when: the event's actor and instant, the workflow run (the store's run fence), the idempotency key. */
export interface Recorder {
  readonly at: string;
  readonly actor: string;
  readonly actorSource?: ActorSource;
  readonly run?: string;
  /** An activity's key (ops/context.ts stepKey); unset or null: the event has none. */
  readonly key?: (action: string, object: string, discriminator?: string | null) => string | null;
}

/** The StateStore.recordStep call of one transition. */
export interface PlannedTransition {
  readonly update: TableUpdate;
  readonly event: AuditEventInput;
  readonly opts?: { readonly run?: string; readonly snapshotId?: string | null };
}

function refused(step: string, tableId: string, why: string): MigrationError {
  return new MigrationError(
    ErrorCode.TABLE_TRANSITION_REFUSED,
    `${tableId}: step ${step} ${why} (core/state/lifecycle.ts); nothing recorded`,
    { tableId, step },
    { retryable: false },
  );
}

const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x) => b.includes(x));

/** Refuse details that do not match the row: a listed key missing, or a key the row does not list. */
function checkDetails(tr: Transition, tableId: string, details: Readonly<Record<string, unknown>>): void {
  const keys = tr.details.map((k) => k.replace(/\?$/, ''));
  const missing = tr.details.filter((k) => !k.endsWith('?') && !(k in details));
  const extra = Object.keys(details).filter((k) => !keys.includes(k));
  if (missing.length > 0 || extra.length > 0)
    throw refused(
      tr.step,
      tableId,
      `recorded details that its row does not list (missing ${missing.join(', ') || '-'}; unlisted ${extra.join(', ') || '-'})`,
    );
}

/**
 * TABLE_TRANSITION_REFUSED when `step` cannot start from the record's status: what an operation
 * checks before it acts (ops/context.ts `check`), and planTransition again when it records.
 */
export function assertCanStart(ref: { readonly tableId: string }, rec: Pick<TableRecord, 'status'>, step: TableStep): void {
  const tr = transitionOf(step);
  if (!tr.from.includes(rec.status))
    throw refused(step, ref.tableId, `cannot start from status ${rec.status} (it starts from ${tr.from.join(', ')})`);
}

/**
 * Check `step` against its row for a record at `rec.status` (as the step read it) and build the
 * record update and the audit event. TABLE_TRANSITION_REFUSED (nothing recorded) when the record's
 * status is not one the row starts from, or the fields, object or details differ from the row.
 */
export function planTransition(
  ref: { readonly planHash: string; readonly tableId: string },
  rec: Pick<TableRecord, 'status' | 'snapshotId'>,
  step: TableStep,
  facts: TransitionFacts,
  who: Recorder,
): PlannedTransition {
  const tr = transitionOf(step);
  const id = ref.tableId;
  assertCanStart(ref, rec, step);
  const set = facts.set ?? {};
  if ('status' in set) throw refused(step, id, 'set the status itself (its row decides it)');
  const fields = Object.keys(set).filter((k) => set[k as Field] !== undefined);
  if (!same(fields, tr.sets))
    throw refused(step, id, `set ${fields.join(', ') || 'nothing'} where its row sets ${tr.sets.join(', ') || 'nothing'}`);
  if ((tr.object === 'target') !== (facts.target !== undefined))
    throw refused(step, id, `named its event's object against its row (${tr.object})`);
  checkDetails(tr, id, facts.details);
  const update: TableUpdate = tr.to === null ? set : { ...set, status: tr.to };
  const object = facts.target ?? `hms:${id}`;
  const key = (tr.key === 'snapshot' ? who.key?.(tr.action, object, update.snapshotId ?? null) : who.key?.(tr.action, object)) ?? null;
  const event: AuditEventInput = {
    at: who.at,
    actor: who.actor,
    ...(who.actorSource === undefined ? {} : { actorSource: who.actorSource }),
    action: tr.action,
    object,
    planHash: ref.planHash,
    beforeDigest: facts.before,
    afterDigest: facts.after,
    details: facts.details,
    ...(key === null ? {} : { idempotencyKey: key }),
  };
  const opts =
    tr.fence === 'run'
      ? who.run === undefined
        ? undefined
        : { run: who.run }
      : tr.fence === 'snapshot'
        ? { snapshotId: rec.snapshotId ?? null }
        : undefined;
  return { update, event, ...(opts === undefined ? {} : { opts }) };
}
