// One migrated table's nightly checks: the HMS object and partitions
// now vs the saved original, the catalog entry, commits after ours, our metadata files, storage vs
// our snapshot's files, and the row counts at our snapshot (manifests, summary, footers re-read).
// Listing + footers only, no data scans. A check that cannot run yields a `failed` row with
// CHECK_FAILED and the error, never an exception: one broken table must not stop the run.
import type { IcebergCatalog, TableIdent } from '../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../core/errors';
import { fromMetadataJson } from '../core/iceberg/metadata-json';
import type { PreparedConversion } from '../core/convert/prepare';
import type { TableInventory } from '../core/hive/model';
import type { PlanFile } from '../core/plan/plan-file';
import { tableObjectDigest } from '../core/hive/fingerprint';
import type { ObjectStore } from '../core/storage/object-store';
import { fencedName, unfencedInventory } from '../core/cutover/fence';
import type { FileFact } from '../core/validate/compare';
import type { RowInput, ValidationRow } from '../core/validate/drift';
import { DriftCheck, DriftCode, changedKeys, fileDrift, objectDrift, partitionDrift } from '../core/validate/drift';
import { readManifest, readManifestList } from '../adapters/avro/manifest-reader';
import { AvroFooterReader } from '../adapters/formats/avro';
import { OrcFooterReader } from '../adapters/formats/orc';
import { ParquetFooterReader } from '../adapters/storage/object-read/parquet-footer-reader';
import type { TableRecord } from '../core/state/store';
import { mapOrdered } from '../core/ordered-pool';
import { IdLayouts } from '../core/convert/adopt-ids';
import type { Schema } from '../core/iceberg/types';
import { fieldIdMismatches } from '../core/validate/field-ids';
import { listTableFiles } from './write-metadata';
import type { DriftDeps } from '../core/engine-port/checks';
import { conversionFor, dbOf, nameOf, targetOf } from '../core/convert/plan-conversion';

const failedRow = (check: RowInput['check'], e: unknown): RowInput => ({
  check,
  status: 'failed',
  code: DriftCode.CHECK_FAILED,
  expected: '',
  actual: e instanceof MigrationError ? `${e.code}: ${e.message}` : String((e as Error).message ?? e),
});

async function readJson(store: ObjectStore, path: string): Promise<string> {
  const { size } = await store.head(path);
  return new TextDecoder().decode(await store.readRange(path, 0, size));
}

type Add = (r: RowInput) => void;
type SnapshotFile = FileFact & { records: number };

/** HMS: the object and its partitions now vs the saved original. */
async function checkHms(deps: DriftDeps, rec: TableRecord, original: TableInventory, add: Add): Promise<void> {
  try {
    // In place, the HMS object at the source name is the Iceberg table (checked as the catalog entry);
    // a partitioned original lives aside, EXTERNAL and renamed, and is compared as the saved object.
    const place = deps.catalog.hiveOriginalPlace(nameOf(rec.tableId), original.table);
    if (place.kind === 'altered') {
      add({
        check: DriftCheck.HMS_OBJECT,
        status: 'ok',
        code: DriftCode.OK,
        expected: 'converted in place',
        actual: 'the HMS object is the Iceberg table (checked as the catalog entry)',
      });
      return;
    }
    // Fenced by cutover (register mode): the Hive table waits under its fenced name, compared as the table it was.
    const fenced = place.kind === 'untouched' && (rec.status === 'fenced' || rec.status === 'cutover');
    const name = place.kind === 'aside' ? place.name : fenced ? fencedName(nameOf(rec.tableId)) : nameOf(rec.tableId);
    const [found] = await deps.hms.getTables(dbOf(rec.tableId), [name]).catch((e: unknown) => {
      if (e instanceof MigrationError && e.code === ErrorCode.HMS_NOT_FOUND) return [];
      throw e;
    });
    const now_ =
      found === undefined
        ? found
        : place.kind === 'aside'
          ? { ...found, table: place.asOriginal(found.table) }
          : fenced
            ? unfencedInventory(found, nameOf(rec.tableId))
            : found;
    add(
      objectDrift(
        tableObjectDigest(original.table),
        now_ === undefined ? null : tableObjectDigest(now_.table),
        now_ === undefined ? [] : changedKeys(original, now_),
      ),
    );
    if (now_ !== undefined) partitionDrift(original.partitions, now_.partitions).forEach(add);
  } catch (e) {
    add(failedRow(DriftCheck.HMS_OBJECT, e));
  }
}

/** Catalog: our entry, and commits after ours. */
async function checkCatalog(
  catalog: IcebergCatalog,
  ident: TableIdent,
  rec: TableRecord & { metadataLocation: string },
  add: Add,
): Promise<void> {
  try {
    if (!(await catalog.tableExists(ident))) {
      add({
        check: DriftCheck.CATALOG_ENTRY,
        status: 'drift',
        code: DriftCode.CATALOG_ENTRY_MISSING,
        expected: rec.metadataLocation,
        actual: 'no catalog entry',
      });
      return;
    }
    const loaded = await catalog.loadTable(ident);
    const ours = BigInt(rec.snapshotId ?? '0');
    const atOurs = loaded.metadataLocation === rec.metadataLocation;
    const onTopOfOurs = !atOurs && rec.snapshotId !== null && loaded.metadata.snapshots.some((s) => s.snapshotId === ours);
    const entry = (status: 'ok' | 'drift', code: DriftCode): void =>
      add({ check: DriftCheck.CATALOG_ENTRY, status, code, expected: rec.metadataLocation, actual: loaded.metadataLocation });
    if (!atOurs && !onTopOfOurs) return entry('drift', DriftCode.CATALOG_POINTS_ELSEWHERE);
    entry('ok', DriftCode.OK);
    const current = String(loaded.metadata.currentSnapshotId);
    const after = loaded.metadata.snapshots.filter((s) => s.sequenceNumber > 1).length;
    add(
      atOurs
        ? { check: DriftCheck.ICEBERG_COMMITS, status: 'ok', code: DriftCode.OK, expected: String(rec.snapshotId), actual: current }
        : {
            check: DriftCheck.ICEBERG_COMMITS,
            status: 'info',
            code: DriftCode.ICEBERG_COMMITS_AFTER_OURS,
            expected: String(rec.snapshotId),
            actual: `current ${current}, ${after} commit(s) after ours; rollback is blocked`,
          },
    );
  } catch (e) {
    add(failedRow(DriftCheck.CATALOG_ENTRY, e));
  }
}

/** Our metadata files: all present? Returns the missing ones (a storage error other than not-found throws). */
async function checkMetadataFiles(store: ObjectStore, rec: TableRecord, add: Add): Promise<string[]> {
  const missing: string[] = [];
  for (const f of rec.writtenFiles ?? []) {
    try {
      await store.head(f.path);
    } catch (e) {
      if (e instanceof MigrationError && e.code === ErrorCode.STORAGE_NOT_FOUND) missing.push(f.path);
      else throw e;
    }
  }
  if (missing.length > 0)
    add({
      check: DriftCheck.METADATA_FILES,
      status: 'drift',
      code: DriftCode.METADATA_FILE_MISSING,
      expected: `${rec.writtenFiles?.length ?? 0} files`,
      actual: `missing: ${missing.join(', ')}`,
    });
  else
    add({
      check: DriftCheck.METADATA_FILES,
      status: 'ok',
      code: DriftCode.OK,
      expected: `${rec.writtenFiles?.length ?? 0} files`,
      actual: 'all present',
    });
  return missing;
}

/** Our snapshot's data files (with their record counts) and its summary total, read back from storage. */
async function readOurSnapshot(
  store: ObjectStore,
  p: PreparedConversion,
  metadataLocation: string,
  snapshotId: string,
): Promise<{ inSnapshot: SnapshotFile[]; summaryTotal: number; schema: Schema }> {
  const md = fromMetadataJson(await readJson(store, metadataLocation));
  const schema = md.schemas.find((s) => s.schemaId === md.currentSchemaId) ?? p.schema;
  const snap = md.snapshots.find((s) => s.snapshotId === BigInt(snapshotId));
  if (snap === undefined)
    throw new MigrationError(ErrorCode.ICEBERG_METADATA_INVALID, `our snapshot ${snapshotId} is not in ${metadataLocation}`);
  const summaryTotal = Number(snap.summary['total-records'] ?? NaN);
  const inSnapshot: SnapshotFile[] = [];
  for (const m of await readManifestList(store, snap.manifestList)) {
    for (const f of await readManifest(store, m.path, p.schema, p.spec))
      if (f.status !== 2) inSnapshot.push({ path: f.filePath, size: f.fileSizeInBytes, partition: f.partition, records: f.recordCount });
  }
  return { inSnapshot, summaryTotal, schema };
}

/** Files with embedded ids are read by them (not the name mapping): each id must be its column's in our schema. */
function fieldIdRow(schema: Schema, p: PreparedConversion, ids: IdLayouts): RowInput {
  const bad = fieldIdMismatches(schema, p.schema.fields.length - p.spec.fields.length, ids.layouts());
  return {
    check: DriftCheck.FIELD_IDS,
    status: bad.length === 0 ? 'ok' : 'drift',
    code: bad.length === 0 ? DriftCode.OK : DriftCode.FIELD_ID_MISMATCH,
    expected: 'every embedded field id is the one the schema gives its column',
    actual:
      bad.length === 0
        ? `${ids.size} id layout(s) agree`
        : bad
            .map((f) => f.message)
            .join('; ')
            .slice(0, 2000),
  };
}

/** Storage vs our snapshot's files, then the row counts at our snapshot. */
async function checkDataFiles(
  deps: DriftDeps,
  store: ObjectStore,
  p: PreparedConversion,
  snapshot: { inSnapshot: SnapshotFile[]; summaryTotal: number; schema: Schema },
  add: Add,
): Promise<void> {
  const { inSnapshot, summaryTotal } = snapshot;
  const ids = new IdLayouts();
  try {
    const listed: FileFact[] = [];
    for await (const l of listTableFiles(store, p, {}))
      for (const f of l.files) listed.push({ path: f.path, size: f.size, partition: p.locations[l.index]?.partition ?? [] });
    fileDrift(inSnapshot, listed).forEach(add);
    // Row counts at our snapshot: summary = Σ manifest record_count = Σ footer counts of the files still there.
    const present = new Set(listed.map((f) => f.path.replace(/^s3[an]?:/, 's3:')));
    const readers = { PARQUET: new ParquetFooterReader(store), ORC: new OrcFooterReader(store), AVRO: new AvroFooterReader(store) };
    const fmt = new Map(p.locations.map((l) => [l.partition.map(String).join('\u0000'), l.format]));
    let footers = 0;
    let manifests = 0;
    const check = inSnapshot.filter((f) => present.has(f.path.replace(/^s3[an]?:/, 's3:')));
    for await (const n of mapOrdered(check, deps.footerConcurrency ?? 32, async (f) => {
      const format = fmt.get(f.partition.map(String).join('\u0000')) ?? p.locations[0]?.format ?? 'PARQUET';
      const stats = await readers[format].readStats(f.path, f.size, {
        schema: p.schema,
        nameMapping: p.baseNameMapping,
        metricsFieldIds: new Set(),
      });
      ids.add(f.path, stats.fileColumns, stats.fileFieldIds);
      return stats.recordCount;
    }))
      footers += n;
    for (const f of check) manifests += f.records;
    const allManifest = inSnapshot.reduce((s, f) => s + f.records, 0);
    const ok = footers === manifests && allManifest === summaryTotal;
    add({
      check: DriftCheck.ROW_COUNT,
      status: ok ? 'ok' : 'drift',
      code: ok ? DriftCode.OK : DriftCode.ROW_COUNT_MISMATCH,
      expected: `${summaryTotal} (snapshot summary)`,
      actual: `manifests ${allManifest}, footers ${footers} over ${check.length} present file(s)`,
    });
    if (ids.size > 0) add(fieldIdRow(snapshot.schema, p, ids));
  } catch (e) {
    add(failedRow(DriftCheck.DATA_FILES, e));
  }
}

export async function checkTableDrift(
  deps: DriftDeps,
  plan: PlanFile,
  rec: TableRecord,
  runId: string,
  now: () => Date,
): Promise<ValidationRow[]> {
  const entry = plan.waves.flatMap((w) => w.tables.map((t) => ({ ...t, wave: w.number }))).find((t) => t.id === rec.tableId);
  const base = {
    plan: plan.hash.slice(0, 12),
    wave: rec.wave,
    team: entry?.team ?? 'unowned',
    table: rec.tableId,
    runId,
    snapshotId: rec.snapshotId ?? '',
  };
  const out: ValidationRow[] = [];
  const add: Add = (r) => void out.push({ ...base, ...r, time: now().toISOString() });
  const original = rec.original;
  const metadataLocation = rec.metadataLocation;
  if (original === null || metadataLocation === null) {
    add({
      check: DriftCheck.METADATA_FILES,
      status: 'failed',
      code: DriftCode.CHECK_FAILED,
      expected: 'a migrated table',
      actual: `status ${rec.status}: nothing to validate`,
    });
    return out;
  }
  const p = conversionFor(plan, rec.tableId, original, deps.namespacePrefix, deps.toolVersion);
  const store = deps.storeFor([]);
  await checkHms(deps, rec, original, add);
  await checkCatalog(deps.catalog, targetOf(rec.tableId, deps.namespacePrefix), { ...rec, metadataLocation }, add);
  const missing = await checkMetadataFiles(store, rec, add);
  if (missing.length > 0 || rec.snapshotId === null) return out;
  let snapshot;
  try {
    snapshot = await readOurSnapshot(store, p, metadataLocation, rec.snapshotId);
  } catch (e) {
    add({
      check: DriftCheck.METADATA_FILES,
      status: 'drift',
      code: DriftCode.METADATA_UNREADABLE,
      expected: metadataLocation,
      actual: e instanceof Error ? e.message.slice(0, 500) : String(e),
    });
    return out;
  }
  await checkDataFiles(deps, store, p, snapshot, add);
  return out;
}
