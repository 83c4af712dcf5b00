// TableMetadata v2 model (spec "Table Metadata Fields", docs/design/iceberg-spec.md §1) and the builder of a new
// table's first metadata. Pure; no I/O, no clock: time and ids come in as arguments. Wire JSON in
// metadata-json.ts. The builder returns the changes it made (docs/architecture.md "Habits" 9) — REST update actions —
// for the audit trail and the dry-run diff.
import { ErrorCode, MigrationError } from '../errors';
import type { PartitionSpec } from './partition-spec';
import { lastPartitionId } from './partition-spec';
import { FORMAT_VERSION, INITIAL_SEQUENCE_NUMBER, MAIN_BRANCH, SnapshotOperation, UNSORTED_ORDER_ID } from './spec-constants';
import type { Schema } from './types';
import { highestFieldId } from './types';

export interface SortField {
  readonly transform: string;
  readonly sourceId: number;
  readonly direction: 'asc' | 'desc';
  readonly nullOrder: 'nulls-first' | 'nulls-last';
}
export interface SortOrder {
  readonly orderId: number;
  readonly fields: readonly SortField[];
}
export const UNSORTED_ORDER: SortOrder = { orderId: UNSORTED_ORDER_ID, fields: [] };

export interface SnapshotRef {
  readonly snapshotId: bigint;
  readonly type: 'branch' | 'tag';
  readonly minSnapshotsToKeep?: number;
  readonly maxSnapshotAgeMs?: number;
  readonly maxRefAgeMs?: number;
}

/** Summary values are strings on the wire and here (spec "Snapshots": string map). */
export type SnapshotSummary = { readonly operation: SnapshotOperation } & Readonly<Record<string, string>>;

export interface Snapshot {
  readonly snapshotId: bigint;
  readonly parentSnapshotId?: bigint;
  readonly sequenceNumber: number;
  readonly timestampMs: number;
  readonly manifestList: string;
  readonly summary: SnapshotSummary;
  readonly schemaId?: number;
}

export interface TableMetadata {
  readonly formatVersion: typeof FORMAT_VERSION;
  readonly tableUuid: string;
  readonly location: string;
  readonly lastSequenceNumber: number;
  readonly lastUpdatedMs: number;
  readonly lastColumnId: number;
  readonly schemas: readonly Schema[];
  readonly currentSchemaId: number;
  readonly partitionSpecs: readonly PartitionSpec[];
  readonly defaultSpecId: number;
  readonly lastPartitionId: number;
  readonly sortOrders: readonly SortOrder[];
  readonly defaultSortOrderId: number;
  readonly properties: Readonly<Record<string, string>>;
  /** null = no current snapshot (written as -1 in v2, Appendix F). */
  readonly currentSnapshotId: bigint | null;
  readonly snapshots: readonly Snapshot[];
  readonly snapshotLog: readonly { readonly timestampMs: number; readonly snapshotId: bigint }[];
  readonly metadataLog: readonly { readonly timestampMs: number; readonly metadataFile: string }[];
  readonly refs: Readonly<Record<string, SnapshotRef>>;
}

/** REST-style update actions (spec open-api `TableUpdate`), model side. */
export type TableChange =
  | { readonly action: 'assign-uuid'; readonly uuid: string }
  | { readonly action: 'upgrade-format-version'; readonly formatVersion: number }
  | { readonly action: 'add-schema'; readonly schema: Schema; readonly lastColumnId: number }
  | { readonly action: 'set-current-schema'; readonly schemaId: number }
  | { readonly action: 'add-spec'; readonly spec: PartitionSpec }
  | { readonly action: 'set-default-spec'; readonly specId: number }
  | { readonly action: 'add-sort-order'; readonly sortOrder: SortOrder }
  | { readonly action: 'set-default-sort-order'; readonly sortOrderId: number }
  | { readonly action: 'set-location'; readonly location: string }
  | { readonly action: 'set-properties'; readonly updates: Readonly<Record<string, string>> }
  | { readonly action: 'add-snapshot'; readonly snapshot: Snapshot }
  | { readonly action: 'set-snapshot-ref'; readonly refName: string; readonly ref: SnapshotRef };

/** What the append added; totals of a new table equal these. */
export interface AppendTotals {
  readonly addedDataFiles: number;
  readonly addedRecords: number;
  readonly addedFilesSize: number;
  readonly changedPartitionCount: number;
}

/**
 * The full summary of an append onto an empty table (SnapshotSummary.java keys, Appendix F): the
 * added-* counters and every total-* key, all strings. `extra` (engine-name, provenance) is merged
 * last but may not override a computed key.
 */
export function appendSummary(t: AppendTotals, extra: Readonly<Record<string, string>> = {}): SnapshotSummary {
  const computed: Record<string, string> = {
    'added-data-files': String(t.addedDataFiles),
    'added-records': String(t.addedRecords),
    'added-files-size': String(t.addedFilesSize),
    'changed-partition-count': String(t.changedPartitionCount),
    'total-records': String(t.addedRecords),
    'total-files-size': String(t.addedFilesSize),
    'total-data-files': String(t.addedDataFiles),
    'total-delete-files': '0',
    'total-position-deletes': '0',
    'total-equality-deletes': '0',
  };
  for (const k of Object.keys(extra)) {
    if (k in computed || k === 'operation')
      throw new MigrationError(ErrorCode.ICEBERG_METADATA_INVALID, `summary key '${k}' is computed and cannot be overridden`, { key: k });
  }
  return { operation: SnapshotOperation.APPEND, ...computed, ...extra };
}

export interface InitialSnapshotInput {
  readonly snapshotId: bigint;
  readonly manifestList: string;
  readonly totals: AppendTotals;
  readonly summaryExtra?: Readonly<Record<string, string>>;
}

export interface InitialMetadataInput {
  readonly uuid: string;
  readonly location: string;
  readonly schema: Schema;
  /** Defaults to the schema's highest field id. */
  readonly lastColumnId?: number;
  readonly spec: PartitionSpec;
  readonly sortOrder?: SortOrder;
  readonly properties: Readonly<Record<string, string>>;
  /** The migration's append; omitted for an empty table (no current snapshot). */
  readonly snapshot?: InitialSnapshotInput;
  /** last-updated-ms and the snapshot's timestamp-ms. */
  readonly timestampMs: number;
}

function fail(message: string, context: Record<string, unknown>): never {
  throw new MigrationError(ErrorCode.ICEBERG_METADATA_INVALID, message, context);
}

/** A new v2 table's metadata with (optionally) its first append snapshot, and the changes that make it. */
export function buildInitialMetadata(input: InitialMetadataInput): { metadata: TableMetadata; changes: TableChange[] } {
  const location = input.location.replace(/\/+$/, '');
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(location))
    fail(`table location '${input.location}' must be an absolute URI with a scheme (v2)`, { location: input.location });
  if (!Number.isInteger(input.timestampMs) || input.timestampMs <= 0)
    fail('timestampMs must be a positive integer (epoch ms)', { timestampMs: input.timestampMs });
  const highest = highestFieldId(input.schema.fields);
  const lastColumnId = input.lastColumnId ?? highest;
  if (lastColumnId < highest) fail(`last-column-id ${lastColumnId} is below the highest field id ${highest}`, { lastColumnId, highest });
  const sortOrder = input.sortOrder ?? UNSORTED_ORDER;

  const changes: TableChange[] = [
    { action: 'assign-uuid', uuid: input.uuid },
    { action: 'upgrade-format-version', formatVersion: FORMAT_VERSION },
    { action: 'add-schema', schema: input.schema, lastColumnId },
    { action: 'set-current-schema', schemaId: input.schema.schemaId },
    { action: 'add-spec', spec: input.spec },
    { action: 'set-default-spec', specId: input.spec.specId },
    { action: 'add-sort-order', sortOrder },
    { action: 'set-default-sort-order', sortOrderId: sortOrder.orderId },
    { action: 'set-location', location },
    { action: 'set-properties', updates: input.properties },
  ];

  let snapshots: Snapshot[] = [];
  let refs: Record<string, SnapshotRef> = {};
  let current: bigint | null = null;
  let seq = INITIAL_SEQUENCE_NUMBER;
  if (input.snapshot !== undefined) {
    const s = input.snapshot;
    if (s.snapshotId <= 0n || s.snapshotId >= 2n ** 63n)
      fail('snapshot id must be a positive 63-bit long', { snapshotId: s.snapshotId.toString() });
    seq = INITIAL_SEQUENCE_NUMBER + 1;
    const snapshot: Snapshot = {
      snapshotId: s.snapshotId,
      sequenceNumber: seq,
      timestampMs: input.timestampMs,
      manifestList: s.manifestList,
      summary: appendSummary(s.totals, s.summaryExtra),
      schemaId: input.schema.schemaId,
    };
    const ref: SnapshotRef = { snapshotId: s.snapshotId, type: 'branch' };
    snapshots = [snapshot];
    refs = { [MAIN_BRANCH]: ref };
    current = s.snapshotId;
    changes.push({ action: 'add-snapshot', snapshot }, { action: 'set-snapshot-ref', refName: MAIN_BRANCH, ref });
  }

  const metadata: TableMetadata = {
    formatVersion: FORMAT_VERSION,
    tableUuid: input.uuid,
    location,
    lastSequenceNumber: seq,
    lastUpdatedMs: input.timestampMs,
    lastColumnId,
    schemas: [input.schema],
    currentSchemaId: input.schema.schemaId,
    partitionSpecs: [input.spec],
    defaultSpecId: input.spec.specId,
    lastPartitionId: lastPartitionId([input.spec]),
    sortOrders: [sortOrder],
    defaultSortOrderId: sortOrder.orderId,
    properties: { ...input.properties },
    currentSnapshotId: current,
    snapshots,
    snapshotLog: current === null ? [] : [{ timestampMs: input.timestampMs, snapshotId: current }],
    metadataLog: [],
    refs,
  };
  return { metadata, changes };
}

/** `<location>/metadata/00000-<uuid>.metadata.json` (BaseMetastoreTableOperations naming). */
export function metadataFileName(location: string, version: number, uuid: string): string {
  return `${location.replace(/\/+$/, '')}/metadata/${String(version).padStart(5, '0')}-${uuid}.metadata.json`;
}
