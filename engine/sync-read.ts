// What a sync reads: the table's current snapshot of ours and its live data files (manifests read
// once per sync, kept in a cache by path: a manifest file is immutable), and Hive's files now.
// Shared by the sync itself (sync-table.ts) and its validation (sync-validate.ts).
import type { IcebergCatalog, LoadedTable, TableIdent } from '../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../core/errors';
import type { PreparedConversion } from '../core/convert/prepare';
import type { ManifestFileEntry } from '../core/iceberg/manifest';
import type { Snapshot, TableMetadata } from '../core/iceberg/metadata';
import type { ObjectStore } from '../core/storage/object-store';
import type { HiveFile, IcebergFile } from '../core/sync/diff';
import { tupleKey } from '../core/sync/diff';
import { ourCurrentSnapshot } from '../core/sync/snapshot';
import { readManifest, readManifestFiles } from '../adapters/avro/manifest-reader';
import { mapOrdered } from '../core/ordered-pool';
import { listTableFiles } from './write-metadata';

export interface Current {
  readonly cache: ManifestCache;
  readonly loaded: LoadedTable;
  readonly snapshot: Snapshot | null;
  readonly manifests: readonly ManifestFileEntry[];
  readonly files: readonly IcebergFile[];
}

const schemaOf = (m: TableMetadata) => m.schemas.find((s) => s.schemaId === m.currentSchemaId);
const specOf = (m: TableMetadata) => m.partitionSpecs.find((s) => s.specId === m.defaultSpecId);

export function tableShape(p: PreparedConversion, m: TableMetadata) {
  const schema = schemaOf(m);
  const spec = specOf(m);
  if (schema === undefined || spec === undefined)
    throw new MigrationError(ErrorCode.ICEBERG_METADATA_INVALID, `${p.source}: the table metadata has no current schema or default spec`);
  return { schema, spec };
}

/**
 * The live files of each manifest a sync read, by manifest path: a manifest file is immutable, so
 * the validation after the commit reads only the manifests the commit wrote (the carried-over ones
 * come from here).
 */
export type ManifestCache = Map<string, { readonly live: readonly IcebergFile[]; readonly added: readonly IcebergFile[] }>;

/** Manifests read at once. */
const MANIFEST_READS = 8;

/**
 * The live data files of `snapshot` (ADDED and EXISTING entries), with the manifest holding each,
 * and the files `snapshot` itself added (ADDED entries of the manifests it wrote).
 */
export async function snapshotFiles(
  store: ObjectStore,
  p: PreparedConversion,
  m: TableMetadata,
  snapshot: Snapshot | null,
  cache?: ManifestCache,
) {
  if (snapshot === null) return { manifests: [] as ManifestFileEntry[], files: [] as IcebergFile[], added: [] as IcebergFile[] };
  const { schema, spec } = tableShape(p, m);
  const manifests = await readManifestFiles(store, snapshot.manifestList);
  const files: IcebergFile[] = [];
  const added: IcebergFile[] = [];
  const read = async (mf: ManifestFileEntry) => {
    const known = cache?.get(mf.path);
    if (known !== undefined) return known;
    const live: IcebergFile[] = [];
    const fresh: IcebergFile[] = [];
    for (const f of await readManifest(store, mf.path, schema, spec)) {
      if (f.status === 2) continue;
      const file = {
        path: f.filePath,
        size: f.fileSizeInBytes,
        records: f.recordCount,
        manifest: mf.path,
        partition: tupleKey(f.partition),
      };
      live.push(file);
      if (f.status === 1) fresh.push(file);
    }
    const entry = { live, added: fresh };
    cache?.set(mf.path, entry);
    return entry;
  };
  for await (const [mf, e] of mapOrdered(manifests, MANIFEST_READS, async (mf) => [mf, await read(mf)] as const)) {
    files.push(...e.live);
    if (mf.addedSnapshotId === snapshot.snapshotId) added.push(...e.added);
  }
  return { manifests, files, added };
}

export async function readCurrent(store: ObjectStore, catalog: IcebergCatalog, ident: TableIdent, p: PreparedConversion): Promise<Current> {
  const loaded = await catalog.loadTable(ident);
  const snapshot = ourCurrentSnapshot(loaded.metadata, p.source);
  const cache: ManifestCache = new Map();
  return { cache, loaded, snapshot, ...(await snapshotFiles(store, p, loaded.metadata, snapshot, cache)) };
}

/** Hive's files now, every location listed (our metadata directory is not data). */
export async function listHive(store: ObjectStore, p: PreparedConversion): Promise<HiveFile[]> {
  const out: HiveFile[] = [];
  for await (const l of listTableFiles(store, p, {})) for (const f of l.files) out.push({ path: f.path, size: f.size, location: l.index });
  return out;
}
