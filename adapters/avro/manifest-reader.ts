// Reading back manifest lists and manifests (ours or any v2 writer's) for validation: the data
// files a snapshot holds, with path, size, record count and the partition tuple as typed values.
import { bigIntFromBytes } from '../../core/iceberg/bounds';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { ManifestFileEntry } from '../../core/iceberg/manifest';
import type { PartitionSpec } from '../../core/iceberg/partition-spec';
import { partitionType } from '../../core/iceberg/partition-spec';
import type { PrimitiveType, PrimitiveValue, Schema } from '../../core/iceberg/types';
import type { ObjectStore } from '../../core/storage/object-store';
import type { SnapshotEntry } from '../../core/sync/put-back';
import { readAvroContainer } from './container-reader';
import { avroName } from './schemas';

export interface ManifestListRecord {
  readonly path: string;
  readonly length: number;
  readonly content: number;
  readonly partitionSpecId: number;
  readonly addedSnapshotId: bigint;
  readonly addedFilesCount: number;
  readonly addedRowsCount: bigint;
}

/** A manifest entry as read back (the model lives in core: core/sync/put-back.ts `SnapshotEntry`). */
export type ManifestDataFile = SnapshotEntry;

/** A manifest or manifest list read whole in one GET when it is at most this size (most are: 10,000 entries ≈ 1–3 MB); larger ones take a second. */
const ONE_READ_BYTES = 4 << 20;

/** The whole file: one suffix-range GET that also tells the size (no HEAD first); a bigger file is read again from 0. */
async function readAll(store: ObjectStore, path: string): Promise<Uint8Array> {
  const { bytes, size } = await store.readTail(path, ONE_READ_BYTES);
  return bytes.length === size ? bytes : store.readRange(path, 0, size);
}

const num = (v: unknown): number => (typeof v === 'bigint' ? Number(v) : (v as number));

export async function readManifestList(store: ObjectStore, path: string): Promise<ManifestListRecord[]> {
  const c = readAvroContainer(path, await readAll(store, path));
  return c.records.map((r) => {
    const m = r as Record<string, unknown>;
    return {
      path: m.manifest_path as string,
      length: num(m.manifest_length),
      content: num(m.content ?? 0),
      partitionSpecId: num(m.partition_spec_id ?? 0),
      addedSnapshotId: BigInt(m.added_snapshot_id as bigint),
      addedFilesCount: num(m.added_files_count ?? m.added_data_files_count ?? 0),
      addedRowsCount: BigInt((m.added_rows_count as bigint | number | undefined) ?? 0),
    };
  });
}

function fromAvro(type: PrimitiveType, v: unknown): PrimitiveValue | null {
  if (v === null || v === undefined) return null;
  switch (type.kind) {
    case 'decimal':
      return bigIntFromBytes(new Uint8Array(v as Buffer));
    case 'binary':
    case 'fixed':
    case 'uuid':
      return new Uint8Array(v as Buffer);
    case 'long':
    case 'timestamp':
    case 'timestamptz':
    case 'time':
      return BigInt(v as bigint);
    default:
      return v as PrimitiveValue;
  }
}

export async function readManifest(store: ObjectStore, path: string, schema: Schema, spec: PartitionSpec): Promise<ManifestDataFile[]> {
  const c = readAvroContainer(path, await readAll(store, path));
  const types = partitionType(schema, spec);
  return c.records.map((r) => {
    const e = r as { status: number; data_file: Record<string, unknown> };
    const df = e.data_file;
    if (df === undefined)
      throw new MigrationError(ErrorCode.ICEBERG_METADATA_INVALID, `${path}: manifest entry without data_file`, { path });
    const part = (df.partition ?? {}) as Record<string, unknown>;
    return {
      status: e.status,
      content: num(df.content ?? 0),
      filePath: df.file_path as string,
      fileFormat: df.file_format as string,
      recordCount: num(df.record_count),
      fileSizeInBytes: num(df.file_size_in_bytes),
      partition: types.map(({ field, type }) => fromAvro(type, part[avroName(field.name)] ?? part[field.name])),
    };
  });
}

const bytesOf = (v: unknown): Uint8Array | undefined => (v === null || v === undefined ? undefined : new Uint8Array(v as Buffer));

/**
 * The manifest list's records in full (sequence numbers, counts, partition summaries), as a new
 * manifest list carries them over unchanged. A delete manifest (content 1) is refused: a table of
 * ours never has one.
 */
export async function readManifestFiles(store: ObjectStore, path: string): Promise<ManifestFileEntry[]> {
  const c = readAvroContainer(path, await readAll(store, path));
  return c.records.map((r) => {
    const m = r as Record<string, unknown>;
    if (num(m.content ?? 0) !== 0)
      throw new MigrationError(ErrorCode.ICEBERG_METADATA_INVALID, `${path}: ${String(m.manifest_path)} is a delete manifest`, { path });
    const parts = (m.partitions ?? []) as Record<string, unknown>[];
    return {
      path: m.manifest_path as string,
      length: num(m.manifest_length),
      partitionSpecId: num(m.partition_spec_id),
      content: 0,
      sequenceNumber: num(m.sequence_number),
      minSequenceNumber: num(m.min_sequence_number),
      addedSnapshotId: BigInt(m.added_snapshot_id as bigint),
      addedFilesCount: num(m.added_files_count ?? m.added_data_files_count ?? 0),
      existingFilesCount: num(m.existing_files_count ?? m.existing_data_files_count ?? 0),
      deletedFilesCount: num(m.deleted_files_count ?? m.deleted_data_files_count ?? 0),
      addedRowsCount: num(m.added_rows_count ?? 0),
      existingRowsCount: num(m.existing_rows_count ?? 0),
      deletedRowsCount: num(m.deleted_rows_count ?? 0),
      partitions: parts.map((p) => {
        const lower = bytesOf(p.lower_bound);
        const upper = bytesOf(p.upper_bound);
        return {
          containsNull: p.contains_null === true,
          containsNan: p.contains_nan === true,
          ...(lower === undefined ? {} : { lowerBound: lower }),
          ...(upper === undefined ? {} : { upperBound: upper }),
        };
      }),
    };
  });
}
