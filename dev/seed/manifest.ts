// The seeded warehouse's manifest (written by dev/seed/generate.py): the expected facts tests
// assert against. Shapes only; the generator is the one source of these values. Dev tooling.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface SeedColumn {
  readonly name: string;
  readonly type: string;
  readonly comment: string;
}

export interface SeedFile {
  /** S3 key in the manifest's bucket. */
  readonly key: string;
  /** s3a:// URI, as HMS locations use. */
  readonly location: string;
  readonly size: number;
  readonly rows: number;
  readonly sha256: string;
  /** Partition name (`k=v/...`, escaped) when the file belongs to a partition. */
  readonly partition?: string;
  readonly int96?: boolean;
}

export interface SeedPartition {
  /** Unescaped values; null = the default partition. */
  readonly values: ReadonlyArray<string | null>;
  /** What HMS stores (null → __HIVE_DEFAULT_PARTITION__). */
  readonly hmsValues: readonly string[];
  /** Escaped partition name, `k1=v1/k2=v2`. */
  readonly name: string;
  readonly location: string;
  /** Set when the partition's schema differs from the table's (schema drift). */
  readonly columns: readonly SeedColumn[] | null;
  readonly files: readonly SeedFile[];
  readonly rows: number;
}

export interface SeedSkew {
  readonly cols: readonly string[];
  readonly values: ReadonlyArray<readonly string[]>;
  readonly locations: ReadonlyArray<{ readonly values: readonly string[]; readonly location: string }>;
}

export type SeedKind = 'external' | 'managed' | 'view' | 'acid' | 'insert_only';

export interface SeedTable {
  readonly db: string;
  readonly name: string;
  readonly kind: SeedKind;
  readonly tableType: 'EXTERNAL_TABLE' | 'MANAGED_TABLE' | 'VIRTUAL_VIEW';
  readonly format: 'parquet' | 'orc' | 'avro' | 'text' | 'view';
  readonly owner: string;
  readonly columns: readonly SeedColumn[];
  readonly partitionKeys: readonly SeedColumn[];
  readonly location: string | null;
  readonly params: Readonly<Record<string, string>>;
  readonly storage: {
    readonly inputFormat: string;
    readonly outputFormat: string;
    readonly serde: string | null;
    readonly serdeParams: Readonly<Record<string, string>>;
  };
  readonly numBuckets: number;
  readonly bucketCols: readonly string[];
  readonly sortCols: ReadonlyArray<{ readonly col: string; readonly order: number }>;
  readonly skew: SeedSkew | null;
  readonly viewOriginalText: string | null;
  readonly viewExpandedText: string | null;
  readonly partitions: readonly SeedPartition[];
  /** Every data file of the table (partitioned or not). */
  readonly files: readonly SeedFile[];
  readonly rows: number;
  /** canonical.py checksum over the table's rows (table columns + partition columns); null for views. */
  readonly checksum: string | null;
  /** Expected assessment hints (e.g. 'metadata-only', 'rewrite-required', 'bucketed'). */
  readonly hints: readonly string[];
}

export interface SeedManifest {
  readonly version: 1;
  readonly seed: number;
  readonly prefix: string;
  readonly bucket: string;
  /** Everything the seeder writes to S3 lives under this key prefix. */
  readonly rootKey: string;
  readonly root: string;
  readonly databases: ReadonlyArray<{ readonly name: string; readonly location: string }>;
  readonly tables: readonly SeedTable[];
}

/** HMS database parameter carrying the manifest hash on the marker database. */
export const MANIFEST_HASH_PARAM = 'him.seed.manifest.sha256';

export function readManifest(file: string): { manifest: SeedManifest; text: string; sha256: string } {
  const text = readFileSync(file, 'utf8');
  const manifest = JSON.parse(text) as SeedManifest;
  if (manifest.version !== 1) throw new Error(`${file}: manifest version ${String(manifest.version)} is not 1`);
  return { manifest, text, sha256: createHash('sha256').update(text).digest('hex') };
}

/** The database created last; its parameters say the warehouse is complete (and for which manifest). */
export const markerDatabase = (prefix: string): string => `${prefix}_seed_complete`;
