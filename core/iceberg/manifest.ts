// Model of what manifests and manifest lists hold (spec "Manifests", "Manifest Lists"): data files,
// and per-manifest metadata with partition field summaries. Pure; no I/O. Avro shapes live in
// adapters/avro (docs/architecture.md "Habits" 3).
import { compareBytes, toBytes } from './bounds';
import type { PrimitiveType, PrimitiveValue } from './types';

/** One data file (data_file, content 0). Counts and sizes are plain numbers (< 2^53 in practice). */
export interface DataFile {
  readonly filePath: string;
  /** `PARQUET` | `ORC` | `AVRO` (Java writes the upper-case enum name). */
  readonly fileFormat: 'PARQUET' | 'ORC' | 'AVRO';
  /** Partition tuple in spec order; null = null value (`__HIVE_DEFAULT_PARTITION__`). */
  readonly partition: readonly (PrimitiveValue | null)[];
  readonly recordCount: number;
  /** Exact object size from the listing: readers seek the footer from it. */
  readonly fileSizeInBytes: number;
  readonly columnSizes?: ReadonlyMap<number, number>;
  readonly valueCounts?: ReadonlyMap<number, number>;
  readonly nullValueCounts?: ReadonlyMap<number, number>;
  readonly nanValueCounts?: ReadonlyMap<number, number>;
  /** Serialized bounds (bounds.ts serializeBound), keyed by field id. */
  readonly lowerBounds?: ReadonlyMap<number, Uint8Array>;
  readonly upperBounds?: ReadonlyMap<number, Uint8Array>;
  readonly keyMetadata?: Uint8Array;
  readonly splitOffsets?: readonly number[];
  readonly sortOrderId?: number;
  /**
   * column_sizes … upper_bounds (manifest_entry fields 108, 109, 110, 137, 125, 128) already
   * Avro-encoded (adapters/avro/entry-encoder.ts encodeMetrics), as a footer thread sends them: the
   * manifest writer copies the bytes. Set only when those six maps are absent.
   */
  readonly encodedMetrics?: Uint8Array;
}

export interface FieldSummary {
  readonly containsNull: boolean;
  readonly containsNan: boolean;
  readonly lowerBound?: Uint8Array;
  readonly upperBound?: Uint8Array;
}

/** A written manifest as the manifest list needs it (sequence numbers/snapshot filled in there). */
export interface WrittenManifest {
  readonly path: string;
  readonly length: number;
  readonly partitionSpecId: number;
  readonly addedFilesCount: number;
  readonly addedRowsCount: number;
  readonly partitions: readonly FieldSummary[];
}

/** A manifest_file record (spec "Manifest Lists"), all ADDED files of one snapshot. */
export interface ManifestFileEntry extends WrittenManifest {
  readonly content: 0;
  readonly sequenceNumber: number;
  readonly minSequenceNumber: number;
  readonly addedSnapshotId: bigint;
  readonly existingFilesCount: number;
  readonly deletedFilesCount: number;
  readonly existingRowsCount: number;
  readonly deletedRowsCount: number;
}

/** The manifest_file record of a freshly added manifest under `snapshotId` at `sequenceNumber`. */
export function addedManifestEntry(m: WrittenManifest, snapshotId: bigint, sequenceNumber: number): ManifestFileEntry {
  return {
    ...m,
    content: 0,
    sequenceNumber,
    minSequenceNumber: sequenceNumber,
    addedSnapshotId: snapshotId,
    existingFilesCount: 0,
    deletedFilesCount: 0,
    existingRowsCount: 0,
    deletedRowsCount: 0,
  };
}

/** Order on typed values of one primitive type (Iceberg Comparators): -0.0 < +0.0, strings by code point. */
export function compareValues(type: PrimitiveType, a: PrimitiveValue, b: PrimitiveValue): number {
  switch (type.kind) {
    case 'float':
    case 'double': {
      const x = a as number;
      const y = b as number;
      if (x === 0 && y === 0) return (Object.is(x, -0) ? 0 : 1) - (Object.is(y, -0) ? 0 : 1);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 'boolean':
      return Number(a) - Number(b);
    case 'int':
    case 'date':
    case 'long':
    case 'time':
    case 'timestamp':
    case 'timestamptz':
    case 'decimal': {
      const x = BigInt(a as number | bigint);
      const y = BigInt(b as number | bigint);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    default:
      // string (UTF-8 byte order = code point order), binary, fixed, uuid: unsigned bytes.
      return compareBytes(toBytes(type, a), toBytes(type, b));
  }
}

/** Accumulates the field_summary of each partition field over a manifest's files (PartitionSummary.java). */
export class PartitionSummaryBuilder {
  private readonly stats: { containsNull: boolean; containsNan: boolean; min?: PrimitiveValue; max?: PrimitiveValue }[];

  constructor(private readonly types: readonly PrimitiveType[]) {
    this.stats = types.map(() => ({ containsNull: false, containsNan: false }));
  }

  add(partition: readonly (PrimitiveValue | null)[]): void {
    this.types.forEach((type, i) => {
      const s = this.stats[i];
      if (s === undefined) return;
      const v = partition[i];
      if (v === null || v === undefined) s.containsNull = true;
      else if (typeof v === 'number' && Number.isNaN(v)) s.containsNan = true;
      else {
        // Files come partition by partition: mostly the value is the bound already (a string
        // comparison would encode both sides as UTF-8 on every file).
        if (s.min === undefined || (!Object.is(v, s.min) && compareValues(type, v, s.min) < 0)) s.min = v;
        if (s.max === undefined || (!Object.is(v, s.max) && compareValues(type, v, s.max) > 0)) s.max = v;
      }
    });
  }

  build(): FieldSummary[] {
    return this.types.map((type, i) => {
      const s = this.stats[i] ?? { containsNull: false, containsNan: false };
      const out: { containsNull: boolean; containsNan: boolean; lowerBound?: Uint8Array; upperBound?: Uint8Array } = {
        containsNull: s.containsNull,
        containsNan: s.containsNan,
      };
      if (s.min !== undefined) out.lowerBound = toBytes(type, s.min);
      if (s.max !== undefined) out.upperBound = toBytes(type, s.max);
      return out;
    });
  }
}
