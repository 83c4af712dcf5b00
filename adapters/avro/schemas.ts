// Avro writer schemas of manifests and manifest lists, exactly as Java's V2Metadata writes them:
// field ids on every field (`field-id`, and `element-id` on arrays), optional fields as
// ["null", T] with default null, int-keyed maps as arrays of `k<key>_v<value>` records with
// logicalType "map", nested records named r<fieldId> (spec Appendix A; docs/design/iceberg-spec.md §2.1).
// These are plain JSON objects: the file header must carry them verbatim (docs/design/iceberg-spec.md §9: avsc drops
// field ids when it re-exports a parsed Type).
import { partitionType } from '../../core/iceberg/partition-spec';
import type { PartitionSpec } from '../../core/iceberg/partition-spec';
import { decimalRequiredBytes } from '../../core/iceberg/bounds';
import {
  AvroRecordName,
  DataFileField as D,
  FieldSummaryField as S,
  ManifestEntryField as E,
  ManifestFileField as M,
} from '../../core/iceberg/spec-constants';
import type { PrimitiveType, Schema } from '../../core/iceberg/types';

export type AvroSchema = string | Record<string, unknown> | AvroSchema[];

const field = (name: string, type: AvroSchema, id: number): Record<string, unknown> => ({ name, type, 'field-id': id });
const optional = (name: string, type: AvroSchema, id: number): Record<string, unknown> => ({
  name,
  type: ['null', type],
  default: null,
  'field-id': id,
});

/** Array of k/v records standing for map<int, V> (AvroSchemaUtil.createMap). */
function intMap(keyId: number, valueId: number, value: AvroSchema): Record<string, unknown> {
  return {
    type: 'array',
    items: { type: 'record', name: `k${keyId}_v${valueId}`, fields: [field('key', 'int', keyId), field('value', value, valueId)] },
    logicalType: 'map',
  };
}

const list = (elementId: number, items: AvroSchema): Record<string, unknown> => ({ type: 'array', items, 'element-id': elementId });

/** Avro-compatible name (AvroSchemaUtil.makeCompatibleName; non-ASCII is escaped too, as avsc requires ASCII). */
export function avroName(name: string): string {
  const esc = (c: string, i: number): string => {
    if (/[A-Za-z_]/.test(c) || (i > 0 && /[0-9]/.test(c))) return c;
    if (/[0-9]/.test(c)) return `_${c}`;
    return `_x${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()}`;
  };
  return Array.from(name, esc).join('') || '_';
}

/**
 * Avro type of a primitive (TypeToSchema). Fixed types need unique names: Java defines
 * `decimal_9_2` once and refers to it by name afterwards, but PyIceberg 0.12 cannot resolve a
 * named reference ("Type not recognized: decimal_9_2"), so a repeated fixed type is defined again
 * under `<name>_<fieldId>` (readers resolve fields by id, and a fixed decodes by its size).
 */
export function primitiveAvro(t: PrimitiveType, defined: Set<string>, fieldId: number): AvroSchema {
  const named = (name: string, def: Record<string, unknown>): AvroSchema => {
    const unique = defined.has(name) ? `${name}_${fieldId}` : name;
    defined.add(unique);
    return { ...def, name: unique };
  };
  switch (t.kind) {
    case 'boolean':
    case 'int':
    case 'long':
    case 'float':
    case 'double':
    case 'string':
      return t.kind;
    case 'binary':
      return 'bytes';
    case 'date':
      return { type: 'int', logicalType: 'date' };
    case 'time':
      return { type: 'long', logicalType: 'time-micros' };
    case 'timestamp':
      return { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': false };
    case 'timestamptz':
      return { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': true };
    case 'uuid':
      return named('uuid_fixed', { type: 'fixed', size: 16, logicalType: 'uuid' });
    case 'fixed':
      return named(`fixed_${t.length}`, { type: 'fixed', size: t.length });
    case 'decimal':
      return named(`decimal_${t.precision}_${t.scale}`, {
        type: 'fixed',
        size: decimalRequiredBytes(t.precision),
        logicalType: 'decimal',
        precision: t.precision,
        scale: t.scale,
      });
  }
}

/** The r102 partition record: one optional field per partition field, typed by the transform result. */
export function partitionRecord(schema: Schema, spec: PartitionSpec): Record<string, unknown> {
  const defined = new Set<string>();
  return {
    type: 'record',
    name: AvroRecordName.PARTITION,
    fields: partitionType(schema, spec).map(({ field: f, type }) =>
      optional(avroName(f.name), primitiveAvro(type, defined, f.fieldId), f.fieldId),
    ),
  };
}

/** data_file (r2), v2 writer field order (V2Metadata.fileType). */
export function dataFileRecord(schema: Schema, spec: PartitionSpec): Record<string, unknown> {
  return {
    type: 'record',
    name: AvroRecordName.DATA_FILE,
    fields: [
      field('content', 'int', D.CONTENT),
      field('file_path', 'string', D.FILE_PATH),
      field('file_format', 'string', D.FILE_FORMAT),
      field('partition', partitionRecord(schema, spec), D.PARTITION),
      field('record_count', 'long', D.RECORD_COUNT),
      field('file_size_in_bytes', 'long', D.FILE_SIZE_IN_BYTES),
      optional('column_sizes', intMap(D.COLUMN_SIZES_KEY, D.COLUMN_SIZES_VALUE, 'long'), D.COLUMN_SIZES),
      optional('value_counts', intMap(D.VALUE_COUNTS_KEY, D.VALUE_COUNTS_VALUE, 'long'), D.VALUE_COUNTS),
      optional('null_value_counts', intMap(D.NULL_VALUE_COUNTS_KEY, D.NULL_VALUE_COUNTS_VALUE, 'long'), D.NULL_VALUE_COUNTS),
      optional('nan_value_counts', intMap(D.NAN_VALUE_COUNTS_KEY, D.NAN_VALUE_COUNTS_VALUE, 'long'), D.NAN_VALUE_COUNTS),
      optional('lower_bounds', intMap(D.LOWER_BOUNDS_KEY, D.LOWER_BOUNDS_VALUE, 'bytes'), D.LOWER_BOUNDS),
      optional('upper_bounds', intMap(D.UPPER_BOUNDS_KEY, D.UPPER_BOUNDS_VALUE, 'bytes'), D.UPPER_BOUNDS),
      optional('key_metadata', 'bytes', D.KEY_METADATA),
      optional('split_offsets', list(D.SPLIT_OFFSETS_ELEMENT, 'long'), D.SPLIT_OFFSETS),
      optional('equality_ids', list(D.EQUALITY_IDS_ELEMENT, 'int'), D.EQUALITY_IDS),
      optional('sort_order_id', 'int', D.SORT_ORDER_ID),
      optional('referenced_data_file', 'string', D.REFERENCED_DATA_FILE),
    ],
  };
}

/** manifest_entry (spec "Manifests"; V2Metadata.entrySchema). */
export function manifestEntrySchema(schema: Schema, spec: PartitionSpec): Record<string, unknown> {
  return {
    type: 'record',
    name: AvroRecordName.MANIFEST_ENTRY,
    fields: [
      field('status', 'int', E.STATUS),
      optional('snapshot_id', 'long', E.SNAPSHOT_ID),
      optional('sequence_number', 'long', E.SEQUENCE_NUMBER),
      optional('file_sequence_number', 'long', E.FILE_SEQUENCE_NUMBER),
      field('data_file', dataFileRecord(schema, spec), E.DATA_FILE),
    ],
  };
}

/** manifest_file (spec "Manifest Lists"; V2Metadata.MANIFEST_LIST_SCHEMA). */
export function manifestFileSchema(): Record<string, unknown> {
  const summary = {
    type: 'record',
    name: AvroRecordName.FIELD_SUMMARY,
    fields: [
      field('contains_null', 'boolean', S.CONTAINS_NULL),
      optional('contains_nan', 'boolean', S.CONTAINS_NAN),
      optional('lower_bound', 'bytes', S.LOWER_BOUND),
      optional('upper_bound', 'bytes', S.UPPER_BOUND),
    ],
  };
  return {
    type: 'record',
    name: AvroRecordName.MANIFEST_FILE,
    fields: [
      field('manifest_path', 'string', M.MANIFEST_PATH),
      field('manifest_length', 'long', M.MANIFEST_LENGTH),
      field('partition_spec_id', 'int', M.PARTITION_SPEC_ID),
      field('content', 'int', M.CONTENT),
      field('sequence_number', 'long', M.SEQUENCE_NUMBER),
      field('min_sequence_number', 'long', M.MIN_SEQUENCE_NUMBER),
      field('added_snapshot_id', 'long', M.ADDED_SNAPSHOT_ID),
      field('added_files_count', 'int', M.ADDED_FILES_COUNT),
      field('existing_files_count', 'int', M.EXISTING_FILES_COUNT),
      field('deleted_files_count', 'int', M.DELETED_FILES_COUNT),
      field('added_rows_count', 'long', M.ADDED_ROWS_COUNT),
      field('existing_rows_count', 'long', M.EXISTING_ROWS_COUNT),
      field('deleted_rows_count', 'long', M.DELETED_ROWS_COUNT),
      optional('partitions', list(M.PARTITIONS_ELEMENT, summary), M.PARTITIONS),
      optional('key_metadata', 'bytes', M.KEY_METADATA),
    ],
  };
}
