// Steps 2-5 of a table's conversion (docs/architecture.md flow): list every partition location, read
// the footers at bounded concurrency (in listing order, so a rerun writes the same bytes), stream
// the data files into manifests as they come, then the manifest list and metadata.json. Every file
// goes to the table's metadata directory with a create-only put; a rerun finds identical files and
// goes on (put-once.ts). Memory: one location's listing, the footer window and one manifest buffer.
import { ErrorCode, MigrationError } from '../core/errors';
import type { DataFileFormat, PreparedConversion } from '../core/convert/prepare';
import { manifestPath } from '../core/convert/prepare';
import { IdLayouts, adoptedConversion } from '../core/convert/adopt-ids';
import { committedFiles } from '../core/hive/acid';
import type { DataFile } from '../core/iceberg/manifest';
import { addedManifestEntry } from '../core/iceberg/manifest';
import { buildInitialMetadata } from '../core/iceberg/metadata';
import type { InitialSnapshotInput, TableMetadata } from '../core/iceberg/metadata';
import { toMetadataJson } from '../core/iceberg/metadata-json';
import { buildNameMapping, footerAliases, nameMappingToJson } from '../core/iceberg/name-mapping';
import { TableProperty } from '../core/iceberg/spec-constants';
import type { FileStats, FooterReader } from '../core/storage/file-stats';
import type { ObjectInfo, ObjectStore } from '../core/storage/object-store';
import type { OutputFile } from '../adapters/avro/container';
import { writeManifestList } from '../adapters/avro/manifest-list-writer';
import type { ManifestWriteResult } from '../adapters/avro/manifest-writer';
import { writeManifests } from '../adapters/avro/manifest-writer';
import { AvroFooterReader } from '../adapters/formats/avro';
import { OrcFooterReader } from '../adapters/formats/orc';
import { sharedFooterThreads } from '../adapters/storage/object-read/footer-pool';
import { DEFAULT_TAIL_BYTES } from '../adapters/formats/parquet';
import { ParquetFooterReader } from '../adapters/storage/object-read/parquet-footer-reader';
import type { LocationListing } from '../adapters/storage/list-partition';
import { listEachLocation } from '../adapters/storage/list-partition';
import type { ListingFinding } from '../core/storage/listing';
import { ListingFindingCode } from '../core/storage/listing';
import { unreadableFileName } from '../core/storage/file-names';
import { readerGuard } from './reader-guard';
import { mapOrdered } from '../core/ordered-pool';
import { putOnce } from './put-once';
import type { WriteOptions, WrittenFile, WrittenMetadata } from '../core/engine-port/conversion';

/** An OutputFile that buffers one manifest and creates it once on close. */
export function putOnceOutput(store: ObjectStore, path: string, written: WrittenFile[]): OutputFile {
  const chunks: Uint8Array[] = [];
  return {
    write: (c) => {
      chunks.push(Uint8Array.from(c));
      return Promise.resolve();
    },
    close: async () => {
      const body = Buffer.concat(chunks);
      const outcome = await putOnce(store, path, body);
      written.push({ path, bytes: body.length, outcome });
      return { length: body.length };
    },
  };
}

export function defaultFooters(store: ObjectStore): Record<DataFileFormat, FooterReader> {
  // Parquet's decode + metrics mapping run on the footer threads when there are any (HIM_FOOTER_THREADS).
  return {
    PARQUET: new ParquetFooterReader(store, DEFAULT_TAIL_BYTES, sharedFooterThreads()),
    ORC: new OrcFooterReader(store),
    AVRO: new AvroFooterReader(store),
  };
}

/** The manifest's data file of one listed file, its location and its footer stats. */
export function dataFileOf(
  info: Pick<ObjectInfo, 'path' | 'size'>,
  loc: PreparedConversion['locations'][number],
  stats: FileStats,
): DataFile {
  // Spelled out (no rest/spread of the stats: a runtime property copy per file on the main thread).
  return {
    filePath: info.path,
    fileFormat: loc.format,
    partition: loc.partition,
    recordCount: stats.recordCount,
    fileSizeInBytes: info.size,
    columnSizes: stats.columnSizes,
    valueCounts: stats.valueCounts,
    nullValueCounts: stats.nullValueCounts,
    lowerBounds: stats.lowerBounds,
    upperBounds: stats.upperBounds,
    splitOffsets: stats.splitOffsets,
    encodedMetrics: stats.encodedMetrics,
  };
}

/** Listing of every location of the table, in location order; our own metadata directory is not data. */
export async function* listTableFiles(
  store: ObjectStore,
  p: PreparedConversion,
  opts: Pick<WriteOptions, 'listConcurrency' | 'recursive'>,
): AsyncGenerator<LocationListing> {
  const own = p.metadataDir.replace(/\/$/, '');
  // Insert-only ACID: every base_/delta_ directory is listed, then only committed writes' files kept.
  const recursive = p.acid !== undefined || (opts.recursive ?? false);
  for await (const l of listEachLocation(store, p.locations, { concurrency: opts.listConcurrency ?? 8, recursive })) {
    // Plain loops (a filter() result's elements kind differs once optimized: a deopt in the consumer).
    const files: ObjectInfo[] = [];
    for (const f of l.files) {
      if (f.path.startsWith(p.metadataDir)) continue;
      const bad = unreadableFileName(f.path);
      if (bad !== null)
        throw new MigrationError(
          ErrorCode.CONVERT_FILE_NAME_UNREADABLE,
          `${p.source}: data file ${f.path} has ${bad} in its name: readers parse manifest paths as URIs and cannot open it. Rename it, or rewrite the table.`,
          { table: p.source, path: f.path },
          { retryable: false },
        );
      files.push(f);
    }
    const findings = l.findings.filter((f) => !(f.code === ListingFindingCode.LISTING_SUBDIRECTORY && f.path.replace(/\/$/, '') === own));
    if (p.acid === undefined) yield { index: l.index, location: l.location, files, findings };
    else yield { index: l.index, location: l.location, files: committedFiles(l.location, files, p.acid), findings };
  }
}

/**
 * Write manifests, manifest list and metadata.json for a prepared table. Registers nothing. On a
 * failure the files this call created are deleted again (files found identical were written by an
 * earlier run and stay for its rerun); the error is rethrown unchanged.
 */
export async function writeIcebergMetadata(store: ObjectStore, p: PreparedConversion, opts: WriteOptions = {}): Promise<WrittenMetadata> {
  const written: WrittenFile[] = [];
  try {
    const first = await writeAll(store, p, opts, written);
    if (!('adopted' in first)) return first;
    // The files carry field ids the fresh schema gives other columns (core/convert/adopt-ids.ts):
    // this pass's manifests (metrics of files without ids keyed by the fresh ids) go, and the table
    // is written again under the adopted schema, its manifests under their own names.
    for (const f of written.splice(0)) if (f.path.startsWith(p.metadataDir)) await store.delete(f.path).catch(() => undefined);
    const again = await writeAll(store, first.adopted, opts, written);
    if ('adopted' in again) throw new MigrationError(ErrorCode.INTERNAL, `${p.source}: adopting the files' field ids did not settle`);
    return again;
  } catch (e) {
    for (const f of [...written].reverse()) {
      if (f.outcome === 'created' && f.path.startsWith(p.metadataDir)) await store.delete(f.path).catch(() => undefined);
    }
    throw e;
  }
}

/** The manifest list (only when there are data files), then metadata.json, both created once. */
async function writeSnapshot(
  store: ObjectStore,
  p: PreparedConversion,
  result: ManifestWriteResult,
  aliases: ReadonlyMap<number, string[]>,
  written: WrittenFile[],
): Promise<{ snapshot: InitialSnapshotInput | undefined; metadata: TableMetadata }> {
  let snapshot;
  if (result.dataFiles > 0) {
    const entries = result.manifests.map((m) => addedManifestEntry(m, p.snapshotId, 1));
    await writeManifestList({
      path: p.manifestListPath,
      file: putOnceOutput(store, p.manifestListPath, written),
      snapshotId: p.snapshotId,
      parentSnapshotId: null,
      sequenceNumber: 1,
      manifests: entries,
    });
    snapshot = {
      snapshotId: p.snapshotId,
      manifestList: p.manifestListPath,
      totals: {
        addedDataFiles: result.dataFiles,
        addedRecords: result.records,
        addedFilesSize: result.filesSize,
        changedPartitionCount: result.changedPartitions,
      },
      summaryExtra: { 'engine-name': 'hms-iceberg-migrator', 'him.source.hms-table': p.source },
    };
  }
  const sortedAliases = new Map([...aliases].map(([id, names]) => [id, [...names].sort()] as const));
  const { metadata } = buildInitialMetadata({
    uuid: p.tableUuid,
    location: p.location,
    schema: p.schema,
    spec: p.spec,
    properties: { ...p.properties, [TableProperty.NAME_MAPPING_DEFAULT]: nameMappingToJson(buildNameMapping(p.schema, sortedAliases)) },
    snapshot,
    timestampMs: p.timestampMs,
  });
  const json = Buffer.from(toMetadataJson(metadata), 'utf8');
  written.push({ path: p.metadataLocation, bytes: json.length, outcome: await putOnce(store, p.metadataLocation, json) });
  return { snapshot, metadata };
}

async function writeAll(
  store: ObjectStore,
  p: PreparedConversion,
  opts: WriteOptions,
  written: WrittenFile[],
): Promise<WrittenMetadata | { adopted: PreparedConversion }> {
  const readers = { ...defaultFooters(store), ...opts.footers };
  const ids = new IdLayouts();
  const findings: ListingFinding[] = [];
  const aliases = new Map<number, string[]>();
  const dataColumnCount = p.schema.fields.length - p.spec.fields.length;
  const progress = { locationsListed: 0, locations: p.locations.length, filesListed: 0, footersRead: 0, bytesRead: 0 };
  const every = Math.max(1, opts.progressEvery ?? 500);
  const guard = readerGuard(store, p.schema, opts.readersRequired);

  async function* listed(): AsyncGenerator<{ info: ObjectInfo; index: number }> {
    for await (const l of listTableFiles(store, p, opts)) {
      progress.locationsListed++;
      progress.filesListed += l.files.length;
      const sub = l.findings.find((f) => f.code === ListingFindingCode.LISTING_SUBDIRECTORY);
      if (sub !== undefined) {
        throw new MigrationError(
          ErrorCode.CONVERT_SUBDIRECTORY,
          `${p.source}: ${sub.path} is a sub-directory of ${l.location}; its files would be left out of the Iceberg table (skewed or list-bucketed data?). Rewrite the table, or convert with recursive listing if every file belongs to this partition.`,
          { table: p.source, location: l.location, path: sub.path },
        );
      }
      findings.push(...l.findings);
      for (const info of l.files) yield { info, index: l.index };
    }
  }

  // Files of a table mostly spell their columns alike (a footer thread hands the same array back):
  // aliases from an array already merged add nothing.
  let merged: FileStats['fileColumns'];
  const readFooter = async ({ info, index }: { info: ObjectInfo; index: number }): Promise<DataFile> => {
    const loc = p.locations[index];
    if (loc === undefined) throw new MigrationError(ErrorCode.INTERNAL, `no location ${index}`);
    const stats = await readers[loc.format].readStats(info.path, info.size, { schema: p.schema, nameMapping: p.baseNameMapping });
    await guard?.check(info.path, info.size, loc.format);
    if (stats.fileColumns !== undefined && stats.fileColumns !== merged) {
      footerAliases(p.schema, dataColumnCount, stats.fileColumns, aliases);
      merged = stats.fileColumns;
    }
    ids.add(info.path, stats.fileColumns, stats.fileFieldIds);
    progress.footersRead++;
    progress.bytesRead += info.size;
    if (progress.footersRead % every === 0) opts.onProgress?.({ ...progress });
    return dataFileOf(info, loc, stats);
  };

  const result = await writeManifests(mapOrdered(listed(), opts.footerConcurrency ?? 32, readFooter), {
    schema: p.schema,
    spec: p.spec,
    maxEntriesPerManifest: opts.maxEntriesPerManifest ?? 10_000,
    open: async (i) => {
      const path = manifestPath(p, i);
      return { path, file: putOnceOutput(store, path, written) };
    },
  });
  opts.onProgress?.({ ...progress });
  // Files that carry field ids: adopted (another pass when they renumber the schema) or refused.
  const adopted = adoptedConversion(p, ids.layouts());
  if (adopted !== p) return { adopted };

  const { snapshot, metadata } = await writeSnapshot(store, p, result, aliases, written);
  return {
    metadataLocation: p.metadataLocation,
    snapshotId: snapshot === undefined ? null : p.snapshotId,
    dataFiles: result.dataFiles,
    records: result.records,
    dataBytes: result.filesSize,
    partitions: result.changedPartitions,
    files: written,
    findings,
    skippedFiles: findings.filter((f) => f.code === ListingFindingCode.LISTING_EMPTY_FILE).map((f) => f.path),
    metadata,
  };
}
