// What HMS metadata cannot tell the assessment, read from storage: one listing of each table's
// first location (sub-directories mean files a metadata-only conversion would leave out: skew,
// list-bucketing, ACID base_/delta_ layouts the metastore does not admit to; zero-byte files; for an
// unpartitioned table without HMS stats, its files and bytes, bounded by `listLimit`) and the
// footers of up to `filesPerTable` Parquet files (INT96 timestamps, unreadable files). Bounded
// concurrency; a table whose storage cannot be read gets STORAGE_NOT_SAMPLED (warn) naming the
// error, never a crash.
import { unreadableFileName } from '../../core/storage/file-names';
import { ErrorCode, MigrationError } from '../../core/errors';
import { detectFormat } from '../../core/hive/formats';
import type { ValidWriteIds } from '../../core/hive/acid';
import { selectAcidFiles } from '../../core/hive/acid';
import type { TableInventory } from '../../core/hive/model';
import { FileFormat, TableType } from '../../core/hive/model';
import { locationProblem } from '../../core/assess/rules/location';
import { doubleColumns, floatAsDoubleFinding, undeclaredColumns, undeclaredFileColumnFinding } from '../../core/assess/rules/reader-limits';
import { needsStorageSize } from '../../core/assess/stats';
import type { AssessFinding, StorageSize } from '../../core/assess/types';
import { AssessCode, finding } from '../../core/assess/types';
import type { ObjectInfo, ObjectStore } from '../../core/storage/object-store';
import { decodeParquetFooterSync, readParquetFooterBytes } from '../../adapters/formats/parquet';
import type { SchemaElement } from '../../adapters/formats/parquet/thrift';
import { PhysicalType } from '../../adapters/formats/parquet/thrift';
import type { LocationListing } from '../../adapters/storage/list-partition';
import { listPartition } from '../../adapters/storage/list-partition';
import { ListingFindingCode } from '../../core/storage/listing';
import { mapOrdered } from '../../core/ordered-pool';
import type { FileIdLayout } from '../../core/iceberg/embedded-ids';
import { fieldIdFindings, parquetIdLayout } from './field-id-sample';
import { parquetFileFacts, readFirstPageType } from '../../adapters/formats/parquet/encoding-facts';
import type { KeySeen } from '../../core/readers/decide';
import type { Reader } from '../../core/readers/encodings';
import { READERS } from '../../core/readers/encodings';
import { keysOf, readerFindings, sampleOtherEncodings } from './encoding-sample';

export interface StorageSampleOptions {
  readonly filesPerTable?: number;
  readonly concurrency?: number;
  /** Data files listed per table at most (default 10,000); a longer listing gives a lower bound. */
  readonly listLimit?: number;
  /** The readers that must read a table as Hive does (`readers.required`; default all): the encoding audit's. */
  readonly readersRequired?: readonly Reader[];
}

export const DEFAULT_LIST_LIMIT = 10_000;

function firstLocation(t: TableInventory): string | null {
  if (t.table.partitionKeys.length === 0) return t.table.sd.location;
  return t.partitions[0]?.sd.location ?? null;
}

const some = (paths: readonly string[]): string => `${paths.slice(0, 3).join(', ')}${paths.length > 3 ? ` (+${paths.length - 3})` : ''}`;

/** What the listing alone tells: sub-directories, zero-byte files, and the size when HMS had none. */
function listingFindings(t: TableInventory, loc: string, l: LocationListing): AssessFinding[] {
  const out: AssessFinding[] = [];
  const subdirs = l.findings
    .filter((f) => f.code === ListingFindingCode.LISTING_SUBDIRECTORY && !/\/metadata\/?$/.test(f.path))
    .map((f) => f.path);
  if (subdirs.length > 0) {
    out.push(
      finding(
        AssessCode.DATA_IN_SUBDIRECTORIES,
        'rewrite',
        `${loc} holds sub-directories: ${some(subdirs)}`,
        'rewrite the table (or flatten the directories); a metadata-only conversion would leave those files out',
      ),
    );
  }
  const badNames = l.files.filter((f) => unreadableFileName(f.path) !== null).map((f) => f.path);
  if (badNames.length > 0)
    out.push(
      finding(
        AssessCode.FILE_NAME_UNREADABLE,
        'rewrite',
        `${badNames.length} file name(s) under ${loc} that readers cannot open from a manifest (; ? # or control characters): ${some(badNames)}`,
        'rename the files (readers parse manifest paths as URIs), or take the table through the rewrite path',
      ),
    );
  const empty = l.findings.filter((f) => f.code === ListingFindingCode.LISTING_EMPTY_FILE).map((f) => f.path);
  if (empty.length > 0) {
    out.push(
      finding(
        AssessCode.FILE_EMPTY,
        'warn',
        `${empty.length} zero-byte file(s) under ${loc}: ${some(empty)}`,
        'apply leaves zero-byte files out (they hold no rows) and lists them in the validation record; delete them, or check the writer that left them',
      ),
    );
  }
  if (needsStorageSize(t)) {
    const size: StorageSize = { files: l.files.length, bytes: l.files.reduce((n, f) => n + f.size, 0), complete: l.truncated !== true };
    const at = size.complete ? '' : '≥ ';
    out.push({
      ...finding(
        AssessCode.SIZE_FROM_STORAGE,
        'info',
        `${at}${size.files} file(s), ${at}${size.bytes} bytes listed under ${loc} (HMS numFiles/totalSize absent or zero)${size.complete ? '' : `; the listing stopped at ${size.files} files`}`,
        'none: sizing and wave caps use the listing; ANALYZE TABLE … COMPUTE STATISTICS makes HMS agree',
      ),
      size,
    });
    if (size.files === 0 && size.complete)
      out.push({
        ...finding(
          AssessCode.EMPTY_TABLE,
          'info',
          `no data files under ${loc} (storage listing)`,
          'none: an empty Iceberg table is created',
        ),
        size,
      });
  }
  return out;
}

/** Top-level column names of a footer's schema, as spelled. */
function topLevelNames(schema: readonly SchemaElement[]): string[] {
  const out: string[] = [];
  let i = 1;
  for (let k = 0; k < (schema[0]?.numChildren ?? 0) && i < schema.length; k++) {
    out.push((schema[i] as SchemaElement).name);
    i += subtreeSize(schema, i);
  }
  return out;
}

/** Top-level FLOAT columns of a footer's schema whose table column is double (lower-case names). */
function floatUnderDouble(schema: readonly SchemaElement[], doubles: ReadonlySet<string>): string[] {
  const out: string[] = [];
  // schema[0] is the root; its children follow depth-first, each group with its own subtree.
  let i = 1;
  for (let k = 0; k < (schema[0]?.numChildren ?? 0) && i < schema.length; k++) {
    const e = schema[i] as SchemaElement;
    if (e.type === PhysicalType.FLOAT && doubles.has(e.name.toLowerCase())) out.push(e.name.toLowerCase());
    i += subtreeSize(schema, i);
  }
  return out;
}

function subtreeSize(schema: readonly SchemaElement[], at: number): number {
  let n = 1;
  for (let k = 0; k < (schema[at]?.numChildren ?? 0); k++) n += subtreeSize(schema, at + n);
  return n;
}

/** Up to `n` files of a listing: the first, the last and the middle one. */
export function pickSample(files: readonly ObjectInfo[], n: number): ObjectInfo[] {
  const k = files.length;
  return [...new Set([0, k - 1, Math.floor(k / 2)].slice(0, Math.max(1, n)))].map((i) => files[i]).filter((f) => f !== undefined);
}

/**
 * The reader-matrix findings of the sampled footers' encodings (app/plan/encoding-sample.ts),
 * INT96 columns and FLOAT-stored double columns in the footers of up to `filesPerTable` Parquet
 * files; unreadable footers are FILE_UNREADABLE.
 */
async function footerFindings(
  store: ObjectStore,
  t: TableInventory,
  loc: string,
  files: readonly ObjectInfo[],
  filesPerTable: number,
  required: readonly Reader[],
  ids: FileIdLayout[] = [],
): Promise<AssessFinding[]> {
  const picks = pickSample(files, filesPerTable);
  const seen: KeySeen[] = [];
  const int96: string[] = [];
  const floats: string[] = [];
  const doubles = doubleColumns(t.table.sd.columns);
  const unreadable: string[] = [];
  const undeclared: string[] = [];
  for (const f of picks) {
    try {
      const meta = await readParquetFooterBytes(store, f.path, f.size);
      const md = decodeParquetFooterSync(f.path, meta);
      seen.push(...keysOf(parquetFileFacts(meta, md, await readFirstPageType(store, f.path, md)), f.path));
      for (const e of md.schema) if (e.type === PhysicalType.INT96 && !int96.includes(e.name)) int96.push(e.name);
      for (const c of floatUnderDouble(md.schema, doubles)) if (!floats.includes(c)) floats.push(c);
      for (const c of undeclaredColumns(topLevelNames(md.schema), t)) if (!undeclared.includes(c)) undeclared.push(c);
      const layout = parquetIdLayout(f.path, md.schema);
      if (layout !== undefined) ids.push(layout);
    } catch (e) {
      // A corrupt file is a fact about the table; a storage error means nothing was checked (caller).
      if (!(e instanceof MigrationError) || e.code !== ErrorCode.FORMAT_CORRUPT_FOOTER) throw e;
      unreadable.push(e.message);
    }
  }
  const out: AssessFinding[] = readerFindings(seen, required);
  if (int96.length > 0)
    out.push(
      finding(
        AssessCode.INT96_TIMESTAMP,
        'warn',
        `INT96 timestamps in ${int96.join(', ')} (sampled ${picks.length} file(s) of ${loc})`,
        'migrates as is: readers convert INT96; bounds are withheld for those columns, so predicates on them do not prune files',
      ),
    );
  if (floats.length > 0) out.push(floatAsDoubleFinding(floats, `footers: sampled ${picks.length} file(s) of ${loc}`));
  if (undeclared.length > 0) out.push(undeclaredFileColumnFinding(undeclared, `footers: sampled ${picks.length} file(s) of ${loc}`));
  if (unreadable.length > 0)
    out.push(
      finding(
        AssessCode.FILE_UNREADABLE,
        'rewrite',
        `${unreadable.length} of ${picks.length} sampled file(s) unreadable: ${unreadable.slice(0, 3).join('; ')}`,
        'replace or remove the corrupt files (or rewrite the table): apply reads every footer and would fail the table on them',
      ),
    );
  return out;
}

/** The field-id layouts of one sampled footer of `loc` (the last file listed), if it has any. */
async function sampledIds(store: ObjectStore, loc: string, o: Required<StorageSampleOptions>): Promise<FileIdLayout[]> {
  const l = await listPartition(store, loc, 0, { limit: o.listLimit });
  const f = l.files[l.files.length - 1];
  if (f === undefined) return [];
  try {
    const layout = parquetIdLayout(f.path, decodeParquetFooterSync(f.path, await readParquetFooterBytes(store, f.path, f.size)).schema);
    return layout === undefined ? [] : [layout];
  } catch (e) {
    if (!(e instanceof MigrationError) || e.code !== ErrorCode.FORMAT_CORRUPT_FOOTER) throw e;
    return []; // apply reads every footer and fails the table on it
  }
}

/**
 * An insert-only table read with its write ids: its base_/delta_ directories are its layout, not
 * left-out data. Refused (DATA_IN_SUBDIRECTORIES, rewrite) when a directory is not one apply converts
 * (ACID_LAYOUT_UNSUPPORTED) or holds write ids above the metastore's high watermark: files the
 * transaction system never allocated (copied in, or written by hand) — Hive reads none of them.
 */
async function acidSample(
  store: ObjectStore,
  t: TableInventory,
  loc: string,
  ids: ValidWriteIds,
  o: Required<StorageSampleOptions>,
): Promise<AssessFinding[]> {
  const l = await listPartition(store, loc, 0, { limit: o.listLimit, recursive: true });
  const files = l.files.filter((f) => !f.path.startsWith(`${loc}/metadata/`));
  let why: string;
  try {
    const sel = selectAcidFiles(loc, files, ids);
    const unknown = sel.leftOut.filter((x) => /above the high watermark/.test(x.why)).map((x) => x.dir);
    if (unknown.length === 0)
      return format(t) === FileFormat.PARQUET && sel.files.length > 0
        ? footerFindings(store, t, loc, sel.files, o.filesPerTable, o.readersRequired)
        : [];
    why = `${some(unknown)}: write ids above the metastore's high watermark ${ids.highWatermark} (never allocated by a transaction: Hive reads none of their files)`;
  } catch (e) {
    if (!(e instanceof MigrationError) || e.code !== ErrorCode.ACID_LAYOUT_UNSUPPORTED) throw e;
    why = e.message;
  }
  return [
    finding(
      AssessCode.DATA_IN_SUBDIRECTORIES,
      'rewrite',
      `${loc} (insert-only): ${why}`,
      'run a major compaction in Hive (or rewrite the table): only base_/delta_ directories of write ids the metastore knows convert metadata-only',
    ),
  ];
}

const format = (t: TableInventory): FileFormat => detectFormat(t.table.sd, t.table.parameters);

async function sampleOne(store: ObjectStore, t: TableInventory, o: Required<StorageSampleOptions>): Promise<AssessFinding[]> {
  if (t.table.tableType === TableType.VIRTUAL_VIEW || t.table.tableType === TableType.MATERIALIZED_VIEW) return [];
  const format = detectFormat(t.table.sd, t.table.parameters);
  if (format !== FileFormat.PARQUET && format !== FileFormat.ORC && format !== FileFormat.AVRO) return [];
  const loc = firstLocation(t);
  // Missing, empty or relative: LOCATION_INVALID says so; there is nothing to list.
  if (loc === null || locationProblem(loc) !== null) return [];
  try {
    if (t.writeIds !== undefined) return await acidSample(store, t, loc.replace(/\/+$/, ''), t.writeIds, o);
    const l = await listPartition(store, loc.replace(/\/+$/, ''), 0, { limit: o.listLimit });
    const out = listingFindings(t, loc, l);
    if (format !== FileFormat.PARQUET) {
      const kind = format === FileFormat.ORC ? 'ORC' : 'AVRO';
      if (l.files.length > 0)
        out.push(...(await sampleOtherEncodings(store, kind, pickSample(l.files, o.filesPerTable), o.readersRequired)));
      return out;
    }
    const ids: FileIdLayout[] = [];
    if (l.files.length > 0) out.push(...(await footerFindings(store, t, loc, l.files, o.filesPerTable, o.readersRequired, ids)));
    // The newest partition too: where another engine's appends land (a rollback puts them back there).
    const last = t.partitions.length > 1 ? t.partitions[t.partitions.length - 1]?.sd.location : undefined;
    if (typeof last === 'string' && locationProblem(last) === null) ids.push(...(await sampledIds(store, last.replace(/\/+$/, ''), o)));
    out.push(...fieldIdFindings(t, ids, ids.length === 0 ? loc : [...new Set(ids.map((x) => x.file))].slice(0, 3).join(', ')));
    return out;
  } catch (e) {
    // Not a reason to stop planning, but the reviewer must know what the plan could not check.
    const why = e instanceof MigrationError ? `${e.code}: ${e.message}` : String(e);
    return [
      finding(
        AssessCode.STORAGE_NOT_SAMPLED,
        'warn',
        `${loc}: ${why}`,
        'its files were not checked for sub-directories or INT96 timestamps: fix storage.* or the AWS credentials in the environment and assess again (apply reads the files anyway and fails the table coded if they are unreadable)',
      ),
    ];
  }
}

/** Findings per table id (`db.table`, lower-case) for every table whose storage tells something. */
export async function sampleStorage(
  store: ObjectStore,
  inventory: readonly TableInventory[],
  o: StorageSampleOptions = {},
): Promise<Map<string, AssessFinding[]>> {
  const out = new Map<string, AssessFinding[]>();
  const opts: Required<StorageSampleOptions> = {
    filesPerTable: o.filesPerTable ?? 3,
    concurrency: o.concurrency ?? 16,
    listLimit: o.listLimit ?? DEFAULT_LIST_LIMIT,
    readersRequired: o.readersRequired ?? READERS,
  };
  for await (const [t, f] of mapOrdered(inventory, opts.concurrency, async (t) => [t, await sampleOne(store, t, opts)] as const)) {
    if (f.length > 0) out.set(`${t.table.database}.${t.table.name}`.toLowerCase(), f);
  }
  return out;
}
