// Manifest list writer: one `manifest_file` record per manifest, with the snapshot's id and
// sequence number that the manifests' ADDED entries inherit, and the Avro file metadata
// ManifestListWriter writes (snapshot-id, parent-snapshot-id — the literal "null" without a
// parent, as Java and PyIceberg write it — sequence-number, format-version).
import type { ManifestFileEntry } from '../../core/iceberg/manifest';
import { FORMAT_VERSION, ManifestListMetadataKey } from '../../core/iceberg/spec-constants';
import type { AvroCodec, OutputFile } from './container';
import { AvroContainerWriter } from './container';
import { manifestFileSchema } from './schemas';

export interface ManifestListInput {
  readonly path: string;
  readonly file: OutputFile;
  readonly snapshotId: bigint;
  readonly parentSnapshotId: bigint | null;
  readonly sequenceNumber: number;
  readonly manifests: readonly ManifestFileEntry[];
  readonly codec?: AvroCodec;
}

export function manifestListMetadata(snapshotId: bigint, parentSnapshotId: bigint | null, sequenceNumber: number): Record<string, string> {
  return {
    [ManifestListMetadataKey.SNAPSHOT_ID]: snapshotId.toString(),
    [ManifestListMetadataKey.PARENT_SNAPSHOT_ID]: parentSnapshotId === null ? 'null' : parentSnapshotId.toString(),
    [ManifestListMetadataKey.SEQUENCE_NUMBER]: String(sequenceNumber),
    [ManifestListMetadataKey.FORMAT_VERSION]: String(FORMAT_VERSION),
  };
}

const buf = (b: Uint8Array | undefined): Buffer | null => (b === undefined ? null : Buffer.from(b));

/** Write the manifest list; returns its exact length. */
export async function writeManifestList(input: ManifestListInput): Promise<{ length: number }> {
  const writer = new AvroContainerWriter(
    input.file,
    manifestFileSchema(),
    manifestListMetadata(input.snapshotId, input.parentSnapshotId, input.sequenceNumber),
    {
      path: input.path,
      codec: input.codec ?? 'deflate',
    },
  );
  for (const m of input.manifests) {
    await writer.append({
      manifest_path: m.path,
      manifest_length: m.length,
      partition_spec_id: m.partitionSpecId,
      content: m.content,
      sequence_number: m.sequenceNumber,
      min_sequence_number: m.minSequenceNumber,
      added_snapshot_id: m.addedSnapshotId,
      added_files_count: m.addedFilesCount,
      existing_files_count: m.existingFilesCount,
      deleted_files_count: m.deletedFilesCount,
      added_rows_count: m.addedRowsCount,
      existing_rows_count: m.existingRowsCount,
      deleted_rows_count: m.deletedRowsCount,
      partitions: m.partitions.map((p) => ({
        contains_null: p.containsNull,
        contains_nan: p.containsNan,
        lower_bound: buf(p.lowerBound),
        upper_bound: buf(p.upperBound),
      })),
      key_metadata: null,
    });
  }
  return writer.close();
}
