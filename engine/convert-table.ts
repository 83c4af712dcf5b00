// One table end to end through the same steps the workflows run as activities: prepare (pure) →
// write metadata (list, footers, manifests, manifest list, metadata.json) → namespace → register →
// validate. A failed validation undoes what this call did (unregister, delete our metadata files);
// a failure before registration leaves nothing registered. Data files are only ever read.
import type { IcebergCatalog } from '../core/catalog/catalog';
import type { PreparedConversion } from '../core/convert/prepare';
import { prepareConversion } from '../core/convert/prepare';
import { ErrorCode, MigrationError } from '../core/errors';
import type { ObjectStore } from '../core/storage/object-store';
import { validateConversion } from './validate-conversion';
import { writeIcebergMetadata } from './write-metadata';
import type { ConvertTableRequest, ConvertTableResult } from '../core/engine-port/conversion';

/** Remove the metadata files of a prepared table (only inside its metadata directory). */
export async function deleteOurMetadata(store: ObjectStore, p: PreparedConversion, files: readonly { path: string }[]): Promise<number> {
  let n = 0;
  for (const f of [...files].reverse()) {
    if (!f.path.startsWith(p.metadataDir))
      throw new MigrationError(ErrorCode.STORAGE_MUTATION_REFUSED, `${f.path} is outside ${p.metadataDir}; not deleting`, { path: f.path });
    await store.delete(f.path);
    n++;
  }
  return n;
}

export async function convertTable(store: ObjectStore, catalog: IcebergCatalog, req: ConvertTableRequest): Promise<ConvertTableResult> {
  const prepared = prepareConversion(req);
  if (req.dryRun === true) return { prepared, written: null, registration: 'dry-run', validation: null };
  const written = await writeIcebergMetadata(store, prepared, req.write);
  await catalog.createNamespace(req.target.namespace);
  const { outcome } = await catalog.registerTable(req.target, prepared.metadataLocation);
  const validation = await validateConversion(store, catalog, req.target, prepared, req.inventory, req.write);
  if (validation.ok) return { prepared, written, registration: outcome, validation };
  // Not migrated: undo in reverse (register, then the files), keep the evidence.
  await catalog.unregisterTable(req.target, prepared.metadataLocation);
  await deleteOurMetadata(store, prepared, written.files);
  return { prepared, written, registration: 'undone', validation };
}
