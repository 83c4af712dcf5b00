// The metadata.json wire form (key names per TableMetadataParser/SnapshotParser, spec Appendix C)
// and its strict reader. Pure; no I/O. Readers must reject format versions they do not support:
// anything but 2 → ICEBERG_FORMAT_VERSION_UNSUPPORTED; a missing required v2 field or a dangling
// reference → ICEBERG_METADATA_INVALID naming the path.
import { z } from 'zod';
import { ErrorCode, MigrationError } from '../errors';
import type { JsonValue } from './json';
import { parseJson, stringifyJson } from './json';
import type { Snapshot, SnapshotRef, SnapshotSummary, SortOrder, TableMetadata } from './metadata';
import { schemaFromJson, schemaToJson, specFromJson, specToJson } from './schema-json';
import { FORMAT_VERSION, MAIN_BRANCH, NO_SNAPSHOT_ID } from './spec-constants';
import { highestFieldId } from './types';

const long = z.union([z.number().int(), z.bigint()]).transform((v) => BigInt(v));
const int = z.number().int();
const nonNeg = int.nonnegative();

const sortFieldWire = z.object({
  transform: z.string(),
  'source-id': int,
  direction: z.enum(['asc', 'desc']),
  'null-order': z.enum(['nulls-first', 'nulls-last']),
});
const refWire = z.object({
  'snapshot-id': long,
  type: z.enum(['branch', 'tag']),
  'min-snapshots-to-keep': int.optional(),
  'max-snapshot-age-ms': int.optional(),
  'max-ref-age-ms': int.optional(),
});
const snapshotWire = z.object({
  'snapshot-id': long,
  'parent-snapshot-id': long.nullable().optional(),
  'sequence-number': nonNeg,
  'timestamp-ms': int,
  'manifest-list': z.string().min(1),
  summary: z.record(z.string(), z.string()).refine((s) => ['append', 'replace', 'overwrite', 'delete'].includes(s.operation ?? ''), {
    message: 'summary.operation must be one of append, replace, overwrite, delete',
  }),
  'schema-id': int.optional(),
});

/** Required v2 keys (spec "Table Metadata Fields" column v2 = required). */
const metadataWire = z.object({
  'format-version': z.literal(FORMAT_VERSION),
  'table-uuid': z.string().regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/),
  location: z.string().min(1),
  'last-sequence-number': nonNeg,
  'last-updated-ms': int,
  'last-column-id': nonNeg,
  schemas: z.array(z.unknown()).min(1),
  'current-schema-id': int,
  'partition-specs': z.array(z.unknown()).min(1),
  'default-spec-id': int,
  'last-partition-id': int,
  'sort-orders': z.array(z.object({ 'order-id': nonNeg, fields: z.array(sortFieldWire) })).min(1),
  'default-sort-order-id': int,
  properties: z.record(z.string(), z.string()).optional(),
  'current-snapshot-id': long.nullable().optional(),
  snapshots: z.array(snapshotWire).optional(),
  'snapshot-log': z.array(z.object({ 'timestamp-ms': int, 'snapshot-id': long })).optional(),
  'metadata-log': z.array(z.object({ 'timestamp-ms': int, 'metadata-file': z.string() })).optional(),
  refs: z.record(z.string(), refWire).optional(),
  statistics: z.array(z.unknown()).optional(),
  'partition-statistics': z.array(z.unknown()).optional(),
});

function invalid(message: string, path: string): never {
  throw new MigrationError(ErrorCode.ICEBERG_METADATA_INVALID, `invalid metadata.json: ${message}`, { path });
}

function refToWire(r: SnapshotRef): Record<string, unknown> {
  return {
    'snapshot-id': r.snapshotId,
    type: r.type,
    'min-snapshots-to-keep': r.minSnapshotsToKeep,
    'max-snapshot-age-ms': r.maxSnapshotAgeMs,
    'max-ref-age-ms': r.maxRefAgeMs,
  };
}

export function snapshotToWire(s: Snapshot): Record<string, unknown> {
  return {
    'snapshot-id': s.snapshotId,
    'parent-snapshot-id': s.parentSnapshotId,
    'sequence-number': s.sequenceNumber,
    'timestamp-ms': s.timestampMs,
    'manifest-list': s.manifestList,
    summary: s.summary,
    'schema-id': s.schemaId,
  };
}

function sortOrderToWire(o: SortOrder): Record<string, unknown> {
  return {
    'order-id': o.orderId,
    fields: o.fields.map((f) => ({ transform: f.transform, 'source-id': f.sourceId, direction: f.direction, 'null-order': f.nullOrder })),
  };
}

/** The wire object, keys in Java's TableMetadataParser order (undefined members are dropped on write). */
export function toMetadataWire(m: TableMetadata): Record<string, unknown> {
  return {
    'format-version': m.formatVersion,
    'table-uuid': m.tableUuid,
    location: m.location,
    'last-sequence-number': m.lastSequenceNumber,
    'last-updated-ms': m.lastUpdatedMs,
    'last-column-id': m.lastColumnId,
    'current-schema-id': m.currentSchemaId,
    schemas: m.schemas.map(schemaToJson),
    'default-spec-id': m.defaultSpecId,
    'partition-specs': m.partitionSpecs.map(specToJson),
    'last-partition-id': m.lastPartitionId,
    'default-sort-order-id': m.defaultSortOrderId,
    'sort-orders': m.sortOrders.map(sortOrderToWire),
    properties: m.properties,
    'current-snapshot-id': m.currentSnapshotId ?? NO_SNAPSHOT_ID,
    refs: Object.fromEntries(Object.entries(m.refs).map(([k, r]) => [k, refToWire(r)])),
    snapshots: m.snapshots.map(snapshotToWire),
    statistics: [],
    'partition-statistics': [],
    'snapshot-log': m.snapshotLog.map((e) => ({ 'timestamp-ms': e.timestampMs, 'snapshot-id': e.snapshotId })),
    'metadata-log': m.metadataLog.map((e) => ({ 'timestamp-ms': e.timestampMs, 'metadata-file': e.metadataFile })),
  };
}

/** metadata.json text: pretty, deterministic, longs exact. */
export function toMetadataJson(m: TableMetadata): string {
  return `${stringifyJson(toMetadataWire(m))}\n`;
}

function checkReferences(m: TableMetadata): void {
  if (!m.schemas.some((s) => s.schemaId === m.currentSchemaId))
    invalid(`current-schema-id ${m.currentSchemaId} names no schema`, 'current-schema-id');
  if (!m.partitionSpecs.some((s) => s.specId === m.defaultSpecId))
    invalid(`default-spec-id ${m.defaultSpecId} names no partition spec`, 'default-spec-id');
  if (!m.sortOrders.some((o) => o.orderId === m.defaultSortOrderId))
    invalid(`default-sort-order-id ${m.defaultSortOrderId} names no sort order`, 'default-sort-order-id');
  for (const s of m.schemas)
    if (highestFieldId(s.fields) > m.lastColumnId)
      invalid(`schema ${s.schemaId} has a field id above last-column-id ${m.lastColumnId}`, 'last-column-id');
  for (const s of m.partitionSpecs)
    for (const f of s.fields)
      if (f.fieldId > m.lastPartitionId)
        invalid(`partition field ${f.fieldId} is above last-partition-id ${m.lastPartitionId}`, 'last-partition-id');
  const ids = new Set(m.snapshots.map((s) => s.snapshotId));
  if (m.currentSnapshotId !== null && !ids.has(m.currentSnapshotId))
    invalid(`current-snapshot-id ${m.currentSnapshotId} names no snapshot`, 'current-snapshot-id');
  const main = m.refs[MAIN_BRANCH];
  if (main !== undefined && main.snapshotId !== m.currentSnapshotId)
    invalid('refs.main.snapshot-id differs from current-snapshot-id', 'refs.main');
  for (const [name, r] of Object.entries(m.refs)) if (!ids.has(r.snapshotId)) invalid(`ref '${name}' names no snapshot`, `refs.${name}`);
  for (const s of m.snapshots)
    if (s.sequenceNumber > m.lastSequenceNumber)
      invalid(`snapshot ${s.snapshotId} has a sequence number above last-sequence-number`, 'snapshots');
}

/** Parse and validate a v2 metadata.json (text). */
export function fromMetadataJson(text: string): TableMetadata {
  const raw: JsonValue = parseJson(text);
  const fv =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw) && !(typeof raw === 'bigint')
      ? (raw as Record<string, JsonValue>)['format-version']
      : undefined;
  if (fv !== FORMAT_VERSION) {
    throw new MigrationError(
      ErrorCode.ICEBERG_FORMAT_VERSION_UNSUPPORTED,
      `metadata format-version ${String(fv)} is not supported (only ${FORMAT_VERSION})`,
      { formatVersion: fv === undefined ? null : String(fv) },
    );
  }
  const parsed = metadataWire.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    invalid(`${issue?.path.join('.') || '<root>'}: ${issue?.message ?? 'invalid'}`, issue?.path.join('.') ?? '');
  }
  const w = parsed.data;
  const current = w['current-snapshot-id'];
  const m: TableMetadata = {
    formatVersion: FORMAT_VERSION,
    tableUuid: w['table-uuid'],
    location: w.location,
    lastSequenceNumber: w['last-sequence-number'],
    lastUpdatedMs: w['last-updated-ms'],
    lastColumnId: w['last-column-id'],
    schemas: w.schemas.map(schemaFromJson),
    currentSchemaId: w['current-schema-id'],
    partitionSpecs: w['partition-specs'].map(specFromJson),
    defaultSpecId: w['default-spec-id'],
    lastPartitionId: w['last-partition-id'],
    sortOrders: w['sort-orders'].map((o) => ({
      orderId: o['order-id'],
      fields: o.fields.map((f) => ({
        transform: f.transform,
        sourceId: f['source-id'],
        direction: f.direction,
        nullOrder: f['null-order'],
      })),
    })),
    defaultSortOrderId: w['default-sort-order-id'],
    properties: w.properties ?? {},
    currentSnapshotId: current === undefined || current === null || current === NO_SNAPSHOT_ID ? null : current,
    snapshots: (w.snapshots ?? []).map(
      (s): Snapshot => ({
        snapshotId: s['snapshot-id'],
        ...(s['parent-snapshot-id'] === undefined || s['parent-snapshot-id'] === null ? {} : { parentSnapshotId: s['parent-snapshot-id'] }),
        sequenceNumber: s['sequence-number'],
        timestampMs: s['timestamp-ms'],
        manifestList: s['manifest-list'],
        summary: s.summary as SnapshotSummary,
        ...(s['schema-id'] === undefined ? {} : { schemaId: s['schema-id'] }),
      }),
    ),
    snapshotLog: (w['snapshot-log'] ?? []).map((e) => ({ timestampMs: e['timestamp-ms'], snapshotId: e['snapshot-id'] })),
    metadataLog: (w['metadata-log'] ?? []).map((e) => ({ timestampMs: e['timestamp-ms'], metadataFile: e['metadata-file'] })),
    refs: Object.fromEntries(
      Object.entries(w.refs ?? {}).map(([k, r]): [string, SnapshotRef] => [
        k,
        {
          snapshotId: r['snapshot-id'],
          type: r.type,
          ...(r['min-snapshots-to-keep'] === undefined ? {} : { minSnapshotsToKeep: r['min-snapshots-to-keep'] }),
          ...(r['max-snapshot-age-ms'] === undefined ? {} : { maxSnapshotAgeMs: r['max-snapshot-age-ms'] }),
          ...(r['max-ref-age-ms'] === undefined ? {} : { maxRefAgeMs: r['max-ref-age-ms'] }),
        },
      ]),
    ),
  };
  checkReferences(m);
  return m;
}
