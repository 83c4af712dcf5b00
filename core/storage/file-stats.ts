// The footer-reader port: per-file stats for an Iceberg data_file (docs/design/iceberg-spec.md §2.3), read from a
// data file's footer/tail. Pure; no I/O. Adapters: adapters/formats/{parquet,orc,avro}.ts.
import type { NameMapping } from '../iceberg/name-mapping';
import type { Schema } from '../iceberg/types';

/** Column metrics keyed by Iceberg field id; absent maps = unknown (always correct to omit). */
export interface FileStats {
  readonly recordCount: number;
  readonly columnSizes?: ReadonlyMap<number, number>;
  readonly valueCounts?: ReadonlyMap<number, number>;
  readonly nullValueCounts?: ReadonlyMap<number, number>;
  /** Serialized with core/iceberg/bounds.ts serializeBound (truncated, upper rounded up). */
  readonly lowerBounds?: ReadonlyMap<number, Uint8Array>;
  readonly upperBounds?: ReadonlyMap<number, Uint8Array>;
  /** Row group / stripe start offsets, ascending. */
  readonly splitOffsets?: readonly number[];
  /** Column paths as spelled in the file (for name-mapping aliases: case variants, `_colN`). */
  readonly fileColumns?: readonly (readonly string[])[];
  /**
   * Parallel to fileColumns, only for a file that carries Iceberg field ids (Parquet field_id, ORC
   * iceberg.id, Avro field-id): the id at each level of each path, null where that level has none.
   * Readers resolve such a file by these ids (core/iceberg/embedded-ids.ts).
   */
  readonly fileFieldIds?: readonly (readonly (number | null)[])[];
  /** Field ids whose bounds were withheld as unsafe (INT96, untrusted writer stats, unsigned order). */
  readonly boundsWithheld?: ReadonlyMap<number, string>;
  /** The five metric maps already Avro-encoded instead (DataFile.encodedMetrics): footer-thread replies. */
  readonly encodedMetrics?: Uint8Array;
}

export interface FooterContext {
  /** The table schema: field ids and the Iceberg types bounds are serialized as. */
  readonly schema: Schema;
  /** `schema.name-mapping.default`: used when the file carries no field ids (every Hive file). */
  readonly nameMapping: NameMapping;
  /** truncate(n) metrics mode (default 16); null = full. */
  readonly truncateLength?: number | null;
  /** When set, only these field ids get metrics (MetricsConfig: e.g. the first 100 leaf columns). */
  readonly metricsFieldIds?: ReadonlySet<number>;
}

export interface FooterReader {
  /** Stats of the file at `path` whose exact size (from the listing) is `size`. */
  readStats(path: string, size: number, context: FooterContext): Promise<FileStats>;
}
