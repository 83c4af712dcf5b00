// The conversion engine port's shapes for writing, validating and converting one table (the
// engine's work: engine/write-metadata.ts, engine/validate-conversion.ts, engine/convert-table.ts).
// Pure types; app/ and activities/ see the engine only through these and core/engine-port/conversion-engine.ts.
import type { TableIdent } from '../catalog/catalog';
import type { DataFileFormat, PrepareInput, PreparedConversion } from '../convert/prepare';
import type { TableMetadata } from '../iceberg/metadata';
import type { Reader } from '../readers/encodings';
import type { FooterReader } from '../storage/file-stats';
import type { ListingFinding } from '../storage/listing';
import type { ValidationFinding } from '../validate/compare';

export interface ConvertProgress {
  readonly locationsListed: number;
  readonly locations: number;
  readonly filesListed: number;
  readonly footersRead: number;
  readonly bytesRead: number;
}

export interface WriteOptions {
  /** Footers read at once (default 32). */
  readonly footerConcurrency?: number;
  /** Partition locations listed at once (default 8). */
  readonly listConcurrency?: number;
  /** Data files per manifest (default 10,000). */
  readonly maxEntriesPerManifest?: number;
  /** Import files in sub-directories too (default false, as Iceberg's migrate). */
  readonly recursive?: boolean;
  /** Called at most every `progressEvery` footers and at the end. */
  readonly onProgress?: (p: ConvertProgress) => void;
  readonly progressEvery?: number;
  /** Footer readers per format (default: ours over `store`). */
  readonly footers?: Partial<Record<DataFileFormat, FooterReader>>;
  /** The readers that must read the table as Hive does (`readers.required`, default all): engine/reader-guard.ts. */
  readonly readersRequired?: readonly Reader[];
}

/** A create-only put's outcome: written now, or already there with exactly these bytes (a rerun). */
export type PutOutcome = 'created' | 'identical';

export interface WrittenFile {
  readonly path: string;
  readonly bytes: number;
  readonly outcome: PutOutcome;
}

export interface WrittenMetadata {
  readonly metadataLocation: string;
  /** null when the table has no data files (no snapshot is written). */
  readonly snapshotId: bigint | null;
  readonly dataFiles: number;
  readonly records: number;
  readonly dataBytes: number;
  readonly partitions: number;
  /** Every file this step wrote (or found identical), manifests first, metadata.json last. */
  readonly files: readonly WrittenFile[];
  readonly findings: readonly ListingFinding[];
  /** Zero-byte files under the table's locations, left out of the manifests (no footer; no rows). */
  readonly skippedFiles: readonly string[];
  readonly metadata: TableMetadata;
}

export interface ValidationEvidence {
  readonly ok: boolean;
  readonly table: string;
  readonly catalogTable: string;
  readonly metadataLocation: string | null;
  readonly snapshotId: string | null;
  readonly rows: { readonly footers: number; readonly snapshotTotal: number | null; readonly manifests: number; readonly hms?: number };
  readonly files: { readonly listed: number; readonly inManifests: number; readonly bytes: number };
  /** Files under the table's locations that are not data files of it: zero-byte files (no footer, no rows). */
  readonly skipped: readonly SkippedFile[];
  readonly findings: readonly ValidationFinding[];
}

export interface SkippedFile {
  readonly path: string;
  readonly reason: 'zero-byte';
}

export interface ValidateOptions {
  readonly footerConcurrency?: number;
  readonly listConcurrency?: number;
  readonly recursive?: boolean;
}

/** `migrate table`: one table prepared, written, registered and validated outside any workflow. */
export interface ConvertTableRequest extends PrepareInput {
  readonly target: TableIdent;
  readonly dryRun?: boolean;
  readonly write?: WriteOptions;
}

export interface ConvertTableResult {
  readonly prepared: PreparedConversion;
  readonly written: WrittenMetadata | null;
  readonly registration: 'registered' | 'already-registered' | 'dry-run' | 'undone';
  readonly validation: ValidationEvidence | null;
}
