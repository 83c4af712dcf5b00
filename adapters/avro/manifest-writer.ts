// Manifest writer: data files stream in (an async iterable, e.g. footers as they are read) and go
// out as `manifest_entry` records, status ADDED with snapshot_id and both sequence numbers null so
// they are inherited from the manifest list (spec "Sequence Number Inheritance"). A new manifest is
// started every `maxEntriesPerManifest` files; per manifest only the partition field summaries are
// kept, so memory stays flat however many files the table has.
import { bigIntToMinimalBytes, decimalRequiredBytes, toBytes, uuidToBytes } from '../../core/iceberg/bounds';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { DataFile, WrittenManifest } from '../../core/iceberg/manifest';
import { PartitionSummaryBuilder } from '../../core/iceberg/manifest';
import type { PartitionSpec } from '../../core/iceberg/partition-spec';
import { partitionType } from '../../core/iceberg/partition-spec';
import { partitionFieldsToJson, schemaToJson } from '../../core/iceberg/schema-json';
import { FORMAT_VERSION, ManifestMetadataKey } from '../../core/iceberg/spec-constants';
import type { PrimitiveType, PrimitiveValue, Schema } from '../../core/iceberg/types';
import type { AvroCodec, OutputFile } from './container';
import { AvroContainerWriter, avroType } from './container';
import { encodeAddedEntry } from './entry-encoder';
import { avroName, manifestEntrySchema, partitionRecord } from './schemas';

export interface ManifestTarget {
  /** Absolute URI recorded in the manifest list. */
  readonly path: string;
  readonly file: OutputFile;
}

export interface ManifestWriterOptions {
  readonly schema: Schema;
  readonly spec: PartitionSpec;
  readonly maxEntriesPerManifest: number;
  readonly codec?: AvroCodec;
  /** Open manifest number `index` (0-based, in write order). */
  open(index: number): Promise<ManifestTarget>;
}

export interface ManifestWriteResult {
  readonly manifests: WrittenManifest[];
  readonly dataFiles: number;
  readonly records: number;
  readonly filesSize: number;
  /** Distinct partition tuples (snapshot summary `changed-partition-count`). */
  readonly changedPartitions: number;
}

/** Avro value of a partition value (spec Appendix A: decimal as fixed, uuid as fixed[16], binary as bytes). */
function partitionAvroValue(type: PrimitiveType, v: PrimitiveValue): unknown {
  toBytes(type, v); // validates range and kind, throws ICEBERG_VALUE_INVALID
  switch (type.kind) {
    case 'binary':
    case 'fixed':
      return Buffer.from(v as Uint8Array);
    case 'uuid':
      return Buffer.from(uuidToBytes(v as string | Uint8Array));
    case 'decimal': {
      const size = decimalRequiredBytes(type.precision);
      const min = bigIntToMinimalBytes(BigInt(v as bigint | number));
      const out = Buffer.alloc(size, (min[0] ?? 0) & 0x80 ? 0xff : 0x00);
      out.set(min, size - min.length);
      return out;
    }
    default:
      return v;
  }
}

/** The r102 partition record of one tuple, validated (ICEBERG_VALUE_INVALID names file and field). */
function partitionRecordValue(f: DataFile, parts: readonly { name: string; type: PrimitiveType }[]): Record<string, unknown> {
  if (f.partition.length !== parts.length) {
    throw new MigrationError(
      ErrorCode.ICEBERG_VALUE_INVALID,
      `data file ${f.filePath} has ${f.partition.length} partition values, the spec has ${parts.length}`,
      { file: f.filePath },
    );
  }
  const partition: Record<string, unknown> = {};
  parts.forEach((p, i) => {
    const v = f.partition[i];
    try {
      partition[p.name] = v === null || v === undefined ? null : partitionAvroValue(p.type, v);
    } catch (e) {
      throw new MigrationError(
        ErrorCode.ICEBERG_VALUE_INVALID,
        `data file ${f.filePath}: partition value of '${p.name}': ${(e as Error).message}`,
        { file: f.filePath, field: p.name },
        { cause: e },
      );
    }
  });
  return partition;
}

interface EncodedPartition {
  /** Identity of the tuple for `changed-partition-count`. */
  readonly key: string;
  /** The r102 record in Avro binary form. */
  readonly bytes: Buffer;
}

/**
 * The encoder of r102 partition records: files of one location share their partition tuple (the
 * same array), so each tuple is validated and encoded once.
 */
function partitionEncoder(
  schema: Schema,
  spec: PartitionSpec,
  parts: readonly { name: string; type: PrimitiveType }[],
): (f: DataFile) => EncodedPartition {
  const type = avroType(partitionRecord(schema, spec));
  const encoded = new WeakMap<readonly unknown[], EncodedPartition>();
  return (f) => {
    const hit = encoded.get(f.partition);
    if (hit !== undefined) return hit;
    const value = partitionRecordValue(f, parts);
    let bytes: Buffer;
    try {
      bytes = type.toBuffer(value);
    } catch (e) {
      throw new MigrationError(
        ErrorCode.ICEBERG_MANIFEST_WRITE_FAILED,
        `cannot encode the partition of ${f.filePath}: ${(e as Error).message}`,
        { file: f.filePath },
        { cause: e },
      );
    }
    const out = { key: partitionKey(f.partition), bytes };
    encoded.set(f.partition, out);
    return out;
  };
}

/** Avro file metadata of a data manifest (spec "Manifests"; schema-id written although Java omits it). */
export function manifestMetadata(schema: Schema, spec: PartitionSpec): Record<string, string> {
  return {
    [ManifestMetadataKey.SCHEMA]: JSON.stringify(schemaToJson(schema)),
    [ManifestMetadataKey.SCHEMA_ID]: String(schema.schemaId),
    [ManifestMetadataKey.PARTITION_SPEC]: JSON.stringify(partitionFieldsToJson(spec.fields)),
    [ManifestMetadataKey.PARTITION_SPEC_ID]: String(spec.specId),
    [ManifestMetadataKey.FORMAT_VERSION]: String(FORMAT_VERSION),
    [ManifestMetadataKey.CONTENT]: 'data',
  };
}

interface Open {
  readonly path: string;
  readonly writer: AvroContainerWriter;
  readonly summary: PartitionSummaryBuilder;
  files: number;
  rows: number;
}

/** Write every data file of `files` into one or more manifests; returns them in write order. */
export async function writeManifests(
  files: AsyncIterable<DataFile> | Iterable<DataFile>,
  opts: ManifestWriterOptions,
): Promise<ManifestWriteResult> {
  if (!Number.isInteger(opts.maxEntriesPerManifest) || opts.maxEntriesPerManifest < 1) {
    throw new MigrationError(ErrorCode.ICEBERG_MANIFEST_WRITE_FAILED, 'maxEntriesPerManifest must be a positive integer', {
      maxEntriesPerManifest: opts.maxEntriesPerManifest,
    });
  }
  const types = partitionType(opts.schema, opts.spec);
  const parts = types.map(({ field, type }) => ({ name: avroName(field.name), type }));
  const schema = manifestEntrySchema(opts.schema, opts.spec);
  const encodePartition = partitionEncoder(opts.schema, opts.spec, parts);
  const metadata = manifestMetadata(opts.schema, opts.spec);
  const manifests: WrittenManifest[] = [];
  const partitions = new Set<string>();
  let current: Open | null = null;
  let dataFiles = 0;
  let records = 0;
  let filesSize = 0;

  const finish = async (m: Open): Promise<void> => {
    const { length } = await m.writer.close();
    manifests.push({
      path: m.path,
      length,
      partitionSpecId: opts.spec.specId,
      addedFilesCount: m.files,
      addedRowsCount: m.rows,
      partitions: m.summary.build(),
    });
  };

  for await (const f of files) {
    if (current !== null && current.files >= opts.maxEntriesPerManifest) {
      await finish(current);
      current = null;
    }
    const partition = encodePartition(f);
    if (current === null) {
      const target = await opts.open(manifests.length);
      const writer = new AvroContainerWriter(target.file, schema, metadata, { path: target.path, codec: opts.codec ?? 'deflate' });
      current = { path: target.path, writer, summary: new PartitionSummaryBuilder(types.map((t) => t.type)), files: 0, rows: 0 };
    }
    await current.writer.appendEncoded((out) => encodeAddedEntry(out, f, partition.bytes));
    current.summary.add(f.partition);
    current.files++;
    current.rows += f.recordCount;
    dataFiles++;
    records += f.recordCount;
    filesSize += f.fileSizeInBytes;
    partitions.add(partition.key);
  }
  if (current !== null) await finish(current);
  return { manifests, dataFiles, records, filesSize, changedPartitions: partitions.size };
}

function partitionKey(values: readonly (PrimitiveValue | null)[]): string {
  // One type per position, so the text of a value identifies it (a long given as 1 or 1n is the same).
  return JSON.stringify(
    values.map((v) =>
      v === null ? null : v instanceof Uint8Array ? `b:${Buffer.from(v).toString('hex')}` : Object.is(v, -0) ? '-0' : String(v),
    ),
  );
}
