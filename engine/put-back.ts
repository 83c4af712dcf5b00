// Reading what a rollback would put back into Hive: the catalog entry's
// snapshots since our last one (core/sync/put-back.ts `snapshotsSinceOurs`), each one's manifest
// list and the entries of the manifests it added (adapters/avro/manifest-reader.ts), classified
// (`classifySince`) and placed against the Hive table as saved (`placeFiles`). Reads only: the
// rollback operation (ops/put-back.ts) adds the partitions, `migrate rollback --dry-run`
// (app/rollback/preview.ts) prints the same plan. Data and metadata files are never written here.
import type { IcebergCatalog, LoadedTable, TableIdent } from '../core/catalog/catalog';
import type { TableInventory } from '../core/hive/model';
import type { TableMetadata } from '../core/iceberg/metadata';
import type { PartitionSpec } from '../core/iceberg/partition-spec';
import type { Schema } from '../core/iceberg/types';
import type { ObjectStore } from '../core/storage/object-store';
import type { AppendedFile, PartitionPutBack, PutBackBlocker, SnapshotFacts } from '../core/sync/put-back';
import { classifySince, placeFiles, snapshotsSinceOurs } from '../core/sync/put-back';
import { readManifest, readManifestList } from '../adapters/avro/manifest-reader';
import type { PartitionReport, PutBackPlan, PutBackSummary } from '../core/engine-port/checks';

const report = (g: PartitionPutBack): PartitionReport => ({
  name: g.name,
  location: g.location,
  files: g.files.map((f) => f.path),
  records: g.records,
});

/** Our spec: the one our snapshot's manifests were written with (a table without files: the default). */
async function ourSpec(store: ObjectStore, m: TableMetadata, manifestList: string): Promise<PartitionSpec | undefined> {
  const [first] = await readManifestList(store, manifestList);
  const id = first?.partitionSpecId ?? m.defaultSpecId;
  return m.partitionSpecs.find((s) => s.specId === id);
}

/** One snapshot's manifest list, and the entries of the manifests it added under `spec` (others are blockers, named by classifySince). */
async function factsOf(store: ObjectStore, m: TableMetadata, s: TableMetadata['snapshots'][number], spec: PartitionSpec, schema: Schema) {
  const manifests = await readManifestList(store, s.manifestList);
  const entries: SnapshotFacts['entries'][number][] = [];
  for (const mf of manifests)
    if (mf.addedSnapshotId === s.snapshotId && mf.partitionSpecId === spec.specId)
      entries.push(...(await readManifest(store, mf.path, schema, spec)));
  return { snapshot: s, manifests, entries } satisfies SnapshotFacts;
}

const blockedPlan = (
  base: Omit<PutBackSummary, 'blockers' | 'snapshots' | 'partitionsToAdd' | 'partitionsVisible' | 'files' | 'records'>,
  blockers: readonly PutBackBlocker[],
): PutBackPlan => ({
  summary: { ...base, snapshots: [], partitionsToAdd: [], partitionsVisible: [], files: 0, records: 0, blockers },
  add: [],
});

/** The put-back of `loaded` (a descendant of our metadata) against `original` (the Hive table as saved). */
export async function planPutBackOf(
  store: ObjectStore,
  loaded: LoadedTable,
  source: string,
  original: TableInventory,
): Promise<PutBackPlan> {
  const m = loaded.metadata;
  const chain = snapshotsSinceOurs(m, source);
  const head = m.currentSnapshotId === null ? null : m.currentSnapshotId.toString();
  const base = { table: source, head, metadataLocation: loaded.metadataLocation };
  if (!chain.ok) return blockedPlan({ ...base, ours: null }, chain.blockers);
  const ours = chain.ours.snapshotId.toString();
  const schema = m.schemas.find((s) => s.schemaId === (chain.ours.schemaId ?? m.currentSchemaId));
  const spec = await ourSpec(store, m, chain.ours.manifestList);
  if (schema === undefined || spec === undefined)
    return blockedPlan({ ...base, ours }, [
      { snapshotId: ours, operation: 'append', reason: 'our snapshot names a schema or spec the metadata lacks' },
    ]);
  const facts: SnapshotFacts[] = [];
  for (const s of chain.since) facts.push(await factsOf(store, m, s, spec, schema));
  const decision = classifySince({ metadata: m, spec, schema }, facts);
  if (!decision.ok) return blockedPlan({ ...base, ours }, decision.blockers);
  const placed = placeFiles(original, spec, schema, decision.files);
  const files: readonly AppendedFile[] = decision.files;
  const summary: PutBackSummary = {
    ...base,
    ours,
    snapshots: chain.since.map((s) => {
      const own = files.filter((f) => f.snapshotId === s.snapshotId.toString());
      return {
        snapshotId: s.snapshotId.toString(),
        operation: s.summary.operation,
        files: own.length,
        records: own.reduce((n, f) => n + f.records, 0),
      };
    }),
    partitionsToAdd: placed.add.map(report),
    partitionsVisible: placed.visible.map(report),
    files: files.length,
    records: files.reduce((n, f) => n + f.records, 0),
    blockers: placed.blockers,
  };
  return { summary, add: placed.blockers.length === 0 ? placed.add : [] };
}

/** Load the entry at `ident` and plan its put-back (engine port: `ConversionEngine.planPutBack`). */
export async function planPutBack(
  store: ObjectStore,
  catalog: IcebergCatalog,
  ident: TableIdent,
  source: string,
  original: TableInventory,
): Promise<PutBackPlan> {
  return planPutBackOf(store, await catalog.loadTable(ident), source, original);
}
