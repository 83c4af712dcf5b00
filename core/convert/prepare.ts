// Everything about one table's conversion that can be decided before any I/O: the Iceberg schema,
// identity partition spec, base name mapping, the typed partition tuple and file format of every
// location to list, the deterministic ids and file names (docs/architecture.md "Idempotent steps"), and
// the table properties with provenance. Pure; no I/O, no clock: time and identity come in.
// A table this step refuses never gets a byte written for it.
import { ErrorCode, MigrationError } from '../errors';
import { detectFormat } from '../hive/formats';
import type { HiveTable, TableInventory } from '../hive/model';
import { FileFormat, TableType } from '../hive/model';
import { promotionProblem } from '../hive/promotion';
import { parseHiveType } from '../hive/types';
import type { ValidWriteIds } from '../hive/acid';
import { FULL_ACID_REMEDIATION, isInsertOnly } from '../hive/acid';
import { deriveFileToken, deriveSnapshotId, deriveTableUuid } from '../iceberg/ids';
import type { TableIdentity } from '../iceberg/ids';
import type { DataFile } from '../iceberg/manifest';
import { metadataFileName } from '../iceberg/metadata';
import type { NameMapping } from '../iceberg/name-mapping';
import { buildNameMapping } from '../iceberg/name-mapping';
import type { PartitionSpec } from '../iceberg/partition-spec';
import { identitySpec, partitionType } from '../iceberg/partition-spec';
import { partitionTupleFromHive } from '../iceberg/partition-values';
import type { SchemaFinding } from '../iceberg/schema';
import { convertHiveSchemaOrThrow } from '../iceberg/schema';
import { TableProperty } from '../iceberg/spec-constants';
import type { PrimitiveValue, Schema } from '../iceberg/types';

/** Provenance table properties (ours; documented in docs/conversion.md). */
export const ProvenanceProperty = {
  SOURCE_TABLE: 'him.source.hms-table',
  SOURCE_LOCATION: 'him.source.location',
  PLAN_HASH: 'him.plan-hash',
  TOOL_VERSION: 'him.tool-version',
} as const;

export type DataFileFormat = DataFile['fileFormat'];

export interface ConversionLocation {
  /** Index in `locations` (partition order as HMS listed them; the table location when unpartitioned). */
  readonly index: number;
  readonly location: string;
  /** Partition name (`k=v/…`, escaped as HMS stores it); '' for an unpartitioned table. */
  readonly partitionName: string;
  /** Hive values (unescaped, null = default partition), as HMS has them. */
  readonly hiveValues: readonly (string | null)[];
  /** Typed Iceberg partition tuple in spec order. */
  readonly partition: readonly (PrimitiveValue | null)[];
  readonly format: DataFileFormat;
}

export interface PreparedConversion {
  /** `db.table` in HMS. */
  readonly source: string;
  readonly identity: TableIdentity;
  readonly tableUuid: string;
  readonly snapshotId: bigint;
  readonly location: string;
  /** `<location>/metadata/`: every file we write lives here and nowhere else. */
  readonly metadataDir: string;
  readonly metadataLocation: string;
  readonly manifestListPath: string;
  readonly schema: Schema;
  readonly spec: PartitionSpec;
  /** Name mapping from the Hive names; aliases found in footers are added at write time. */
  readonly baseNameMapping: NameMapping;
  readonly locations: readonly ConversionLocation[];
  readonly properties: Readonly<Record<string, string>>;
  readonly schemaFindings: readonly SchemaFinding[];
  readonly timestampMs: number;
  /**
   * Insert-only ACID tables: the valid write ids the table was read with. Each location is then
   * listed recursively and only the files of committed writes are data (core/hive/acid.ts).
   */
  readonly acid?: ValidWriteIds;
  /** The schema carries ids adopted from the data files (core/convert/adopt-ids.ts): manifests take their own names. */
  readonly idsAdopted?: boolean;
}

export interface PrepareInput {
  readonly inventory: TableInventory;
  readonly identity: TableIdentity;
  /** Snapshot timestamp and last-updated-ms (a rerun must pass the same value: plan time). */
  readonly timestampMs: number;
  readonly toolVersion: string;
  readonly timestampType?: 'timestamp' | 'timestamptz';
  /** Convert a bucketed table without its bucketing (Iceberg's bucket transform is not Hive's hash). */
  readonly allowUnbucketed?: boolean;
}

const FORMATS: Partial<Record<FileFormat, DataFileFormat>> = {
  [FileFormat.PARQUET]: 'PARQUET',
  [FileFormat.ORC]: 'ORC',
  [FileFormat.AVRO]: 'AVRO',
};

function refuse(t: HiveTable, code: ErrorCode, why: string, context: Record<string, unknown> = {}): never {
  throw new MigrationError(code, `${t.database}.${t.name}: ${why}`, { table: `${t.database}.${t.name}`, ...context });
}

function formatOf(t: HiveTable, sd: HiveTable['sd'], where: string): DataFileFormat {
  const f = detectFormat(sd, t.parameters);
  const mapped = FORMATS[f];
  if (mapped === undefined)
    refuse(
      t,
      ErrorCode.FORMAT_UNSUPPORTED,
      `${where} is stored as ${f}; only Parquet, ORC and Avro convert metadata-only (rewrite it instead)`,
      { format: f },
    );
  return mapped;
}

const trimSlash = (s: string): string => s.replace(/\/+$/, '');

/**
 * A partition whose own columns (its storage descriptor) hold a same-named column the table's type
 * cannot read (core/hive/promotion.ts: Iceberg schema evolution through nested types) is refused:
 * its files would be misread. The plan classes such a table rewrite-required (PARTITION_TYPE_INCOMPATIBLE);
 * this holds the line for every way in (`migrate table`, an edited plan).
 */
function incompatiblePartitionTypes(inv: TableInventory): void {
  const t = inv.table;
  const want = new Map(t.sd.columns.map((c) => [c.name.toLowerCase(), c.type]));
  for (const p of inv.partitions) {
    for (const c of p.sd.columns) {
      const to = want.get(c.name.toLowerCase());
      const bad = to === undefined ? null : promotionProblem(c.type, to);
      if (to === undefined || bad === null) continue;
      const at = bad.path === '' ? '' : ` (at ${c.name}${bad.path}: ${bad.from} cannot be read as ${bad.to})`;
      refuse(
        t,
        ErrorCode.CONVERT_PARTITION_TYPE_INCOMPATIBLE,
        `partition ${p.name} column ${c.name} is ${c.type}, the table says ${to}${at}`,
        {
          partition: p.name,
          column: c.name,
        },
      );
    }
  }
}

/** Decide the conversion of one table, or throw a coded refusal. */
export function prepareConversion(input: PrepareInput): PreparedConversion {
  const { table: t, partitions } = input.inventory;
  const source = `${t.database}.${t.name}`;
  if (t.tableType === TableType.VIRTUAL_VIEW || t.tableType === TableType.MATERIALIZED_VIEW)
    refuse(t, ErrorCode.USAGE, 'is a view; views are not converted');
  if ((t.parameters.table_type ?? '').toUpperCase() === 'ICEBERG') refuse(t, ErrorCode.USAGE, 'is already an Iceberg table');
  const acid = acidOf(input.inventory);
  if (t.sd.numBuckets > 0 && input.allowUnbucketed !== true) {
    refuse(
      t,
      ErrorCode.CONVERT_BUCKETED,
      `is bucketed (${t.sd.numBuckets} buckets on ${t.sd.bucketColumns.join(', ')}); Iceberg cannot keep Hive bucketing — convert it unbucketed only with the explicit opt-in (plan.assess.allowUnbucketed / --allow-unbucketed)`,
      { buckets: t.sd.numBuckets },
    );
  }
  if (t.sd.location === null || t.sd.location === '') refuse(t, ErrorCode.HMS_BAD_METADATA, 'has no location');
  incompatiblePartitionTypes(input.inventory);
  if (!Number.isInteger(input.timestampMs) || input.timestampMs <= 0)
    throw new MigrationError(ErrorCode.USAGE, 'timestampMs must be a positive integer', { timestampMs: input.timestampMs });

  const parsed = (cols: readonly { name: string; type: string; comment: string | null }[]) =>
    cols.map((c) => ({ name: c.name, type: parseHiveType(c.type, `${source}.${c.name}`), comment: c.comment }));
  const converted = convertHiveSchemaOrThrow(parsed(t.sd.columns), parsed(t.partitionKeys), {
    timestamp: input.timestampType ?? 'timestamp',
  });
  const schema = converted.schema;
  const spec = identitySpec(
    schema,
    t.partitionKeys.map((k) => k.name),
  );
  const keyTypes = partitionType(schema, spec).map(({ field, type }) => ({ name: field.name, type }));

  const location = trimSlash(t.sd.location);
  const locations: ConversionLocation[] = [];
  if (t.partitionKeys.length === 0) {
    locations.push({ index: 0, location, partitionName: '', hiveValues: [], partition: [], format: formatOf(t, t.sd, 'the table') });
  } else {
    partitions.forEach((p, index) => {
      if (p.sd.location === null || p.sd.location === '')
        refuse(t, ErrorCode.HMS_BAD_METADATA, `partition ${p.name} has no location`, { partition: p.name });
      const partition = partitionTupleFromHive(keyTypes, p.values);
      locations.push({
        index,
        location: trimSlash(p.sd.location),
        partitionName: p.name,
        hiveValues: p.values,
        partition,
        format: formatOf(t, p.sd, `partition ${p.name}`),
      });
    });
  }
  const seen = new Set<string>();
  for (const l of locations) {
    if (seen.has(l.location))
      refuse(t, ErrorCode.HMS_BAD_METADATA, `two partitions share the location ${l.location}; their files would be imported twice`, {
        location: l.location,
      });
    seen.add(l.location);
  }

  const metadataDir = `${location}/metadata/`;
  for (const l of locations) {
    if (`${l.location}/`.startsWith(metadataDir))
      refuse(t, ErrorCode.HMS_BAD_METADATA, `partition location ${l.location} lies inside the metadata directory ${metadataDir}`, {
        location: l.location,
      });
  }
  const tableUuid = deriveTableUuid(input.identity);
  const snapshotId = deriveSnapshotId(input.identity);
  const token = deriveFileToken(input.identity, 'manifest-list');
  const formats = new Set(locations.map((l) => l.format));
  const properties: Record<string, string> = {
    [TableProperty.GC_ENABLED]: 'false',
    [ProvenanceProperty.SOURCE_TABLE]: source,
    [ProvenanceProperty.SOURCE_LOCATION]: location,
    [ProvenanceProperty.PLAN_HASH]: input.identity.planHash,
    [ProvenanceProperty.TOOL_VERSION]: input.toolVersion,
  };
  const only = [...formats][0];
  if (formats.size === 1 && only !== undefined) properties[TableProperty.DEFAULT_FILE_FORMAT] = only.toLowerCase();
  return {
    source,
    identity: input.identity,
    tableUuid,
    snapshotId,
    location,
    metadataDir,
    metadataLocation: metadataFileName(location, 0, tableUuid),
    manifestListPath: `${metadataDir}snap-${snapshotId}-1-${token}.avro`,
    schema,
    spec,
    baseNameMapping: buildNameMapping(schema),
    locations,
    properties,
    schemaFindings: converted.findings,
    timestampMs: input.timestampMs,
    ...(acid === undefined ? {} : { acid }),
  };
}

/**
 * Transactional tables: an insert-only one converts from its committed writes (the valid write ids it
 * was read with; none open); full ACID is refused with what to run in Hive.
 */
function acidOf(inv: TableInventory): ValidWriteIds | undefined {
  const t = inv.table;
  if ((t.parameters.transactional ?? '').toLowerCase() !== 'true') return undefined;
  if (!isInsertOnly(t.parameters))
    refuse(t, ErrorCode.FORMAT_UNSUPPORTED, `is a full ACID table: its files carry the ACID row struct; ${FULL_ACID_REMEDIATION}`);
  const ids = inv.writeIds;
  if (ids === undefined)
    refuse(
      t,
      ErrorCode.ACID_WRITE_IDS_UNAVAILABLE,
      'is an insert-only ACID table read without its valid write ids (get_valid_write_ids, Thrift only): which delta directories are committed is unknown',
    );
  if (ids.open.length > 0)
    refuse(
      t,
      ErrorCode.ACID_WRITE_OPEN,
      `is an insert-only ACID table with write id(s) ${ids.open.join(', ')} open: its files are not final`,
      {
        open: ids.open,
      },
    );
  return ids;
}

/** Manifest number `i` of a prepared table: `<metadata>/<token>-m<i>.avro` (Java: `<uuid>-m<i>.avro`). */
export function manifestPath(p: PreparedConversion, i: number): string {
  // Adopted ids: the first pass's manifests (fresh ids) are deleted; the second's never share their names.
  return `${p.metadataDir}${deriveFileToken(p.identity, 'manifest')}-m${i}${p.idsAdopted === true ? '-ids' : ''}.avro`;
}
