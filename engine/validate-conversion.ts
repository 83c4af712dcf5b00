// Step 7: validation decides success. Independently of what the write step reported: load the
// table from the catalog (it must point at our metadata file and snapshot), read our manifests back
// from storage, list every partition location again and re-read each file's footer record count
// and column paths, then compare (core/validate/compare.ts; the Hive type tree: schema-tree.ts; the
// footer columns against the table's name mapping: footer-coverage.ts, warnings do not fail). The evidence is pinned to the snapshot id, and lists the
// files the conversion left out on purpose (zero-byte files: no footer, no rows), so none goes silently.
import type { IcebergCatalog, LoadedTable, TableIdent } from '../core/catalog/catalog';
import { formatTableIdent } from '../core/catalog/catalog';
import type { PreparedConversion } from '../core/convert/prepare';
import { ErrorCode, MigrationError } from '../core/errors';
import type { HivePartition, HiveTable } from '../core/hive/model';
import type { Snapshot } from '../core/iceberg/metadata';
import { partitionType } from '../core/iceberg/partition-spec';
import type { FileFact, ValidationFinding } from '../core/validate/compare';
import { accurateNumRows, compareFiles, compareRowCounts, failing } from '../core/validate/compare';
import type { FooterLayout } from '../core/validate/footer-coverage';
import { footerCoverage } from '../core/validate/footer-coverage';
import { fieldIdMismatches } from '../core/validate/field-ids';
import type { FileIdLayout } from '../core/iceberg/embedded-ids';
import { IdLayouts } from '../core/convert/adopt-ids';
import type { NameMapping } from '../core/iceberg/name-mapping';
import { nameMappingFromJson } from '../core/iceberg/name-mapping';
import { compareSchemaTree } from '../core/validate/schema-tree';
import type { FooterReader } from '../core/storage/file-stats';
import type { ObjectStore } from '../core/storage/object-store';
import { readManifest, readManifestList } from '../adapters/avro/manifest-reader';
import { AvroFooterReader } from '../adapters/formats/avro';
import { OrcFooterReader } from '../adapters/formats/orc';
import { ParquetFooterReader } from '../adapters/storage/object-read/parquet-footer-reader';
import { ListingFindingCode } from '../core/storage/listing';
import { mapOrdered } from '../core/ordered-pool';
import { listTableFiles } from './write-metadata';
import type { SkippedFile, ValidateOptions, ValidationEvidence } from '../core/engine-port/conversion';

/** Σ numRows over the table (unpartitioned) or every partition, only when every one is marked accurate. */
function hmsRows(table: HiveTable, partitions: readonly HivePartition[]): number | undefined {
  if (table.partitionKeys.length === 0) return accurateNumRows(table.parameters);
  let sum = 0;
  for (const p of partitions) {
    const n = accurateNumRows(p.parameters);
    if (n === undefined) return undefined;
    sum += n;
  }
  return partitions.length === 0 ? undefined : sum;
}

type Source = { readonly table: HiveTable; readonly partitions: readonly HivePartition[] };

/** What our snapshot holds, read back from storage: its live data files and their Σ record_count. */
async function readSnapshotFiles(
  store: ObjectStore,
  p: PreparedConversion,
  manifestList: string,
): Promise<{ files: FileFact[]; rows: number }> {
  const files: FileFact[] = [];
  let rows = 0;
  for (const m of await readManifestList(store, manifestList)) {
    for (const f of await readManifest(store, m.path, p.schema, p.spec)) {
      if (f.status === 2) continue;
      files.push({ path: f.filePath, size: f.fileSizeInBytes, partition: f.partition });
      rows += f.recordCount;
    }
  }
  return { files, rows };
}

/** What storage holds, listed again, with footer record counts read again. */
async function relist(
  store: ObjectStore,
  p: PreparedConversion,
  opts: ValidateOptions,
): Promise<{
  listed: FileFact[];
  skipped: SkippedFile[];
  footerRows: number;
  bytes: number;
  layouts: FooterLayout[];
  ids: FileIdLayout[];
}> {
  const readers: Record<string, FooterReader> = {
    PARQUET: new ParquetFooterReader(store),
    ORC: new OrcFooterReader(store),
    AVRO: new AvroFooterReader(store),
  };
  const listed: FileFact[] = [];
  const work: { path: string; size: number; index: number }[] = [];
  const skipped: SkippedFile[] = [];
  for await (const l of listTableFiles(store, p, opts)) {
    for (const f of l.findings) if (f.code === ListingFindingCode.LISTING_EMPTY_FILE) skipped.push({ path: f.path, reason: 'zero-byte' });
    const loc = p.locations[l.index];
    for (const f of l.files) {
      listed.push({ path: f.path, size: f.size, partition: loc?.partition ?? [] });
      work.push({ path: f.path, size: f.size, index: l.index });
    }
  }
  let footerRows = 0;
  let bytes = 0;
  const layouts = new Map<string, FooterLayout>();
  const ids = new IdLayouts();
  const keyOf = new Map<readonly (readonly string[])[], string>(); // readers share one array per layout
  for await (const s of mapOrdered(work, opts.footerConcurrency ?? 32, async (w) => {
    const loc = p.locations[w.index];
    const reader = readers[loc?.format ?? 'PARQUET'];
    if (reader === undefined) throw new MigrationError(ErrorCode.INTERNAL, `no footer reader for ${loc?.format}`);
    const stats = await reader.readStats(w.path, w.size, { schema: p.schema, nameMapping: p.baseNameMapping, metricsFieldIds: new Set() });
    return { path: w.path, rows: stats.recordCount, columns: stats.fileColumns, ids: stats.fileFieldIds };
  })) {
    footerRows += s.rows;
    ids.add(s.path, s.columns, s.ids);
    if (s.columns === undefined) continue;
    // Files of a table mostly share one layout: keep one per distinct set of column paths.
    const k = keyOf.get(s.columns) ?? JSON.stringify(s.columns);
    keyOf.set(s.columns, k);
    const had = layouts.get(k);
    layouts.set(k, { columns: s.columns, file: had?.file ?? s.path, files: (had?.files ?? 0) + 1 });
  }
  for (const f of listed) bytes += f.size;
  return { listed, skipped, footerRows, bytes, layouts: [...layouts.values()], ids: ids.layouts() };
}

/** The name mapping readers apply (`schema.name-mapping.default`), or null when absent or unreadable. */
function tableNameMapping(properties: Readonly<Record<string, string>>): NameMapping | null {
  const json = properties['schema.name-mapping.default'];
  if (json === undefined) return null;
  try {
    return nameMappingFromJson(json);
  } catch {
    return null;
  }
}

/** The catalog entry must point at our metadata file, and its current snapshot be ours (when one is expected). */
function catalogFindings(
  loaded: LoadedTable,
  p: PreparedConversion,
  catalogTable: string,
): { findings: ValidationFinding[]; ours: Snapshot | undefined } {
  const findings: ValidationFinding[] = [];
  if (loaded.metadataLocation !== p.metadataLocation) {
    findings.push({
      code: ErrorCode.VALIDATION_CATALOG_MISMATCH,
      check: 'catalog',
      message: `${catalogTable} points at ${loaded.metadataLocation}, not at our ${p.metadataLocation}`,
      expected: p.metadataLocation,
      actual: loaded.metadataLocation,
    });
  }
  const md = loaded.metadata;
  const ours = md.snapshots.find((s) => s.snapshotId === p.snapshotId);
  const expectSnapshot = md.snapshots.length > 0 || md.currentSnapshotId !== null ? p.snapshotId : null;
  if (expectSnapshot !== null && (ours === undefined || md.currentSnapshotId !== p.snapshotId)) {
    findings.push({
      code: ErrorCode.VALIDATION_CATALOG_MISMATCH,
      check: 'catalog',
      message: `current snapshot is ${String(md.currentSnapshotId)}, ours is ${p.snapshotId}`,
      expected: p.snapshotId.toString(),
      actual: String(md.currentSnapshotId),
    });
  }
  return { findings, ours };
}

export async function validateConversion(
  store: ObjectStore,
  catalog: IcebergCatalog,
  ident: TableIdent,
  p: PreparedConversion,
  source: Source,
  opts: ValidateOptions = {},
): Promise<ValidationEvidence> {
  const catalogTable = `${catalog.name}:${formatTableIdent(ident)}`;
  const base = { table: p.source, catalogTable };
  let loaded;
  try {
    loaded = await catalog.loadTable(ident);
  } catch (e) {
    if (e instanceof MigrationError && e.code === ErrorCode.CATALOG_NOT_FOUND) {
      const f: ValidationFinding = {
        code: ErrorCode.VALIDATION_CATALOG_MISMATCH,
        check: 'catalog',
        message: `${catalogTable} is not registered`,
        expected: p.metadataLocation,
        actual: 'absent',
      };
      return {
        ...base,
        ok: false,
        metadataLocation: null,
        snapshotId: null,
        rows: { footers: 0, snapshotTotal: null, manifests: 0 },
        files: { listed: 0, inManifests: 0, bytes: 0 },
        skipped: [],
        findings: [f],
      };
    }
    throw e;
  }
  const { findings, ours } = catalogFindings(loaded, p, catalogTable);
  const md = loaded.metadata;
  const types = partitionType(p.schema, p.spec).map((t) => t.type);
  const inSnapshot = ours === undefined ? { files: [], rows: 0 } : await readSnapshotFiles(store, p, ours.manifestList);
  const snapshotTotal = ours === undefined ? null : Number(ours.summary['total-records'] ?? NaN);
  const { listed, skipped, footerRows, bytes, layouts, ids } = await relist(store, p, opts);

  const files = compareFiles(types, listed, inSnapshot.files);
  findings.push(...files.findings);
  const hms = hmsRows(source.table, source.partitions);
  const rows = {
    footers: footerRows,
    snapshotTotal: ours === undefined ? (listed.length === 0 ? null : 0) : snapshotTotal,
    manifests: inSnapshot.rows,
    ...(hms === undefined ? {} : { hms }),
  };
  findings.push(...compareRowCounts(rows));
  const schema = md.schemas.find((s) => s.schemaId === md.currentSchemaId) ?? p.schema;
  findings.push(...compareSchemaTree([...source.table.sd.columns, ...source.table.partitionKeys], schema));
  findings.push(...footerCoverage(schema, tableNameMapping(md.properties), source.table.sd.columns.length, layouts));
  // Files that carry ids are read by id, not through the mapping: each id must be its column's.
  findings.push(...fieldIdMismatches(schema, source.table.sd.columns.length, ids));
  return {
    ...base,
    ok: failing(findings).length === 0,
    metadataLocation: loaded.metadataLocation,
    snapshotId: ours === undefined ? null : ours.snapshotId.toString(),
    rows,
    files: { listed: files.listed, inManifests: files.inManifests, bytes },
    skipped,
    findings,
  };
}
