// Rewrite of one manifest for a snapshot that removes files (spec "Manifests", "Sequence Number
// Inheritance"; docs/design/iceberg-spec.md §2): every live entry is kept — the removed ones as DELETED with the new
// snapshot's id, the others as EXISTING with the snapshot that added them — and both carry their
// data and file sequence numbers explicitly (inherited ones are taken from the manifest list
// record). Entries already DELETED in the source are dropped, as Java's ManifestFilterManager does.
// The records are copied as decoded, in the source's own Avro schema and file metadata, so the
// rewrite needs no knowledge of the writer.
import { ErrorCode, MigrationError } from '../../core/errors';
import type { ManifestFileEntry } from '../../core/iceberg/manifest';
import { ManifestEntryStatus } from '../../core/iceberg/spec-constants';
import type { ObjectStore } from '../../core/storage/object-store';
import type { OutputFile } from './container';
import { AvroContainerWriter } from './container';
import { readAvroContainer } from './container-reader';

interface EntryRecord {
  status: number;
  snapshot_id: bigint | null;
  sequence_number: bigint | null;
  file_sequence_number: bigint | null;
  data_file: { file_path: string; record_count: bigint | number };
}

export interface RewriteInput {
  readonly source: ManifestFileEntry;
  /** Paths (normalized by `normalize`) to mark DELETED. */
  readonly removed: ReadonlySet<string>;
  readonly normalize: (path: string) => string;
  readonly snapshotId: bigint;
  readonly sequenceNumber: number;
  readonly path: string;
  readonly file: OutputFile;
}

const big = (v: bigint | number | null | undefined, fallback: number | bigint): bigint => BigInt(v ?? fallback);

/** The rewritten manifest's manifest-list record (counts recomputed; partition summaries kept: same files). */
export async function rewriteManifest(store: ObjectStore, input: RewriteInput): Promise<ManifestFileEntry> {
  const { size } = await store.head(input.source.path);
  const c = readAvroContainer(input.source.path, await store.readRange(input.source.path, 0, size));
  const metadata = Object.fromEntries(Object.entries(c.metadata).filter(([k]) => !k.startsWith('avro.')));
  const writer = new AvroContainerWriter(input.file, c.schema, metadata, { path: input.path, codec: 'deflate' });
  const counts = { existing: 0, deleted: 0, existingRows: 0, deletedRows: 0 };
  let minSeq = Number.MAX_SAFE_INTEGER;
  for (const r of c.records as EntryRecord[]) {
    if (r.status === ManifestEntryStatus.DELETED) continue;
    const inherited = r.status === ManifestEntryStatus.ADDED;
    const seq = big(r.sequence_number, inherited ? input.source.sequenceNumber : 0);
    const fileSeq = big(r.file_sequence_number, inherited ? input.source.sequenceNumber : seq);
    const gone = input.removed.has(input.normalize(r.data_file.file_path));
    const rows = Number(r.data_file.record_count);
    if (gone) {
      counts.deleted++;
      counts.deletedRows += rows;
    } else {
      counts.existing++;
      counts.existingRows += rows;
      minSeq = Math.min(minSeq, Number(seq));
    }
    await writer.append({
      ...r,
      status: gone ? ManifestEntryStatus.DELETED : ManifestEntryStatus.EXISTING,
      snapshot_id: gone ? input.snapshotId : big(r.snapshot_id, input.source.addedSnapshotId),
      sequence_number: seq,
      file_sequence_number: fileSeq,
    });
  }
  if (counts.deleted !== input.removed.size)
    throw new MigrationError(
      ErrorCode.ICEBERG_METADATA_INVALID,
      `${input.source.path}: ${input.removed.size} file(s) to remove, ${counts.deleted} found live in it`,
      { manifest: input.source.path },
    );
  const { length } = await writer.close();
  return {
    path: input.path,
    length,
    partitionSpecId: input.source.partitionSpecId,
    content: 0,
    sequenceNumber: input.sequenceNumber,
    minSequenceNumber: minSeq === Number.MAX_SAFE_INTEGER ? input.sequenceNumber : minSeq,
    addedSnapshotId: input.snapshotId,
    addedFilesCount: 0,
    addedRowsCount: 0,
    existingFilesCount: counts.existing,
    existingRowsCount: counts.existingRows,
    deletedFilesCount: counts.deleted,
    deletedRowsCount: counts.deletedRows,
    partitions: input.source.partitions,
  };
}
