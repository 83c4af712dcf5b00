// Identity partition spec from the Hive partition keys (HiveSchemaUtil.spec). Pure; no I/O.
// One identity field per key, in key order, named after the column, field ids from 1000
// (spec "Partitioning"); an unpartitioned table has no fields and last-partition-id 999.
import { ErrorCode, MigrationError } from '../errors';
import { INITIAL_SPEC_ID, PARTITION_DATA_ID_START, UNPARTITIONED_LAST_PARTITION_ID } from './spec-constants';
import type { PrimitiveType, Schema } from './types';
import { isPrimitive } from './types';

export interface PartitionField {
  readonly sourceId: number;
  readonly fieldId: number;
  readonly name: string;
  /** Only `identity` is produced by a Hive migration; others are kept as read. */
  readonly transform: string;
}

export interface PartitionSpec {
  readonly specId: number;
  readonly fields: readonly PartitionField[];
}

export const UNPARTITIONED_SPEC: PartitionSpec = { specId: INITIAL_SPEC_ID, fields: [] };

/** Identity spec over the named top-level columns of `schema` (the Hive partition keys, in order). */
export function identitySpec(schema: Schema, partitionKeys: readonly string[]): PartitionSpec {
  const fields = partitionKeys.map((key, i): PartitionField => {
    const source = schema.fields.find((f) => f.name === key);
    if (source === undefined) {
      throw new MigrationError(ErrorCode.ICEBERG_SCHEMA_INVALID, `partition key '${key}' is not a column of the schema`, { column: key });
    }
    if (!isPrimitive(source.type)) {
      throw new MigrationError(
        ErrorCode.ICEBERG_SCHEMA_INVALID,
        `partition key '${key}' has a nested type; identity partitions need a primitive`,
        { column: key },
      );
    }
    return { sourceId: source.id, fieldId: PARTITION_DATA_ID_START + i, name: key, transform: 'identity' };
  });
  return { specId: INITIAL_SPEC_ID, fields };
}

/** `last-partition-id`: the highest partition field id, 999 when unpartitioned. */
export function lastPartitionId(specs: readonly PartitionSpec[]): number {
  let last = UNPARTITIONED_LAST_PARTITION_ID;
  for (const s of specs) for (const f of s.fields) last = Math.max(last, f.fieldId);
  return last;
}

/** The partition tuple's types (identity: the source column's type), in spec order. */
export function partitionType(schema: Schema, spec: PartitionSpec): { readonly field: PartitionField; readonly type: PrimitiveType }[] {
  return spec.fields.map((field) => {
    if (field.transform !== 'identity') {
      throw new MigrationError(
        ErrorCode.ICEBERG_SCHEMA_INVALID,
        `partition transform '${field.transform}' is not supported (identity only)`,
        { field: field.name },
      );
    }
    const source = schema.fields.find((f) => f.id === field.sourceId);
    if (source === undefined || !isPrimitive(source.type)) {
      throw new MigrationError(
        ErrorCode.ICEBERG_SCHEMA_INVALID,
        `partition field '${field.name}' has no primitive source column ${field.sourceId}`,
        { field: field.name },
      );
    }
    return { field, type: source.type };
  });
}
