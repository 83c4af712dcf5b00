// commitTable (the catalog port's compare-and-swap) on the stack's real REST catalog (Java
// reference server), the JDBC catalog on the stack's Postgres and the HMS 4 as the catalog: a snapshot on our registered
// table commits; the same commit again is `already-committed` (a retry after a lost answer); a
// commit on a stale base (someone else committed in between) is CATALOG_CONFLICT and changes
// nothing. The snapshot reuses the base's manifest list: the port is under test, not the engine.
// A commit that carries a schema addition (sync's added columns) leaves the table on the new
// schema: current schema, last column id, name mapping and the snapshot's schema id.
import type { S3Client } from '@aws-sdk/client-s3';
import { HiveIcebergCatalog } from '../../../adapters/catalog/hive';
import { JdbcIcebergCatalog } from '../../../adapters/catalog/jdbc';
import { ThriftHmsReader } from '../../../adapters/hms/thrift/reader';
import { ThriftHmsWriter } from '../../../adapters/hms/thrift/writer';
import { RestCatalog } from '../../../adapters/catalog/rest';
import { S3ObjectStore } from '../../../adapters/storage/s3-store';
import type { IcebergCatalog, LoadedTable, SnapshotCommit } from '../../../core/catalog/catalog';
import { tableIdent } from '../../../core/catalog/catalog';
import { toMetadataJson } from '../../../core/iceberg/metadata-json';
import { syncMetadataLocation, syncSnapshot, withSyncSnapshot } from '../../../core/sync/snapshot';
import type { SchemaAddition } from '../../../core/sync/schema';
import { schemaAddition, withSchemaAddition } from '../../../core/sync/schema';
import { rejectionOf } from '../../helpers/errors';
import { testStack, uniqueName } from '../../helpers/stack-env';
import type { WrittenTable } from './fixture';
import { deletePrefix, putText, s3Client, writeTable } from './fixture';

const env = testStack();
const prefix = `commit-test/${uniqueName('t')}`;
let s3: S3Client;
let written: WrittenTable;
let store: S3ObjectStore;

beforeAll(async () => {
  s3 = s3Client();
  written = await writeTable(s3, prefix);
  store = new S3ObjectStore({ metadataPrefixes: [], endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true });
}, 300_000);

afterAll(async () => {
  await deletePrefix(s3, prefix);
  s3.destroy();
  store.destroy();
});

/** A commit of snapshot `id` onto `base` (its metadata.json written when the catalog points at our files). */
async function commitOf(catalog: IcebergCatalog, loaded: LoadedTable, id: bigint, addition?: SchemaAddition): Promise<SnapshotCommit> {
  const base = addition === undefined ? loaded : { ...loaded, metadata: withSchemaAddition(loaded.metadata, addition) };
  const parent = base.metadata.snapshots.find((s) => s.snapshotId === base.metadata.currentSnapshotId);
  if (parent === undefined) throw new Error('no current snapshot');
  const snapshot = syncSnapshot(base.metadata, id, parent.manifestList, { ...parent.summary, operation: 'append' }, Date.now());
  const metadata = withSyncSnapshot(base.metadata, base.metadataLocation, snapshot);
  const metadataLocation = syncMetadataLocation(base.metadata.location, base.metadataLocation, id);
  if (catalog.writesOwnMetadata !== true) await putText(s3, metadataLocation, toMetadataJson(metadata));
  return {
    base: { metadataLocation: base.metadataLocation, tableUuid: base.metadata.tableUuid, snapshotId: base.metadata.currentSnapshotId },
    snapshot,
    metadata,
    metadataLocation,
    ...(addition === undefined ? {} : { schemaChange: addition.base }),
  };
}

/** The HMS (4.0.1, which checks alter_table's expected_parameter_key/value atomically) as the catalog, register mode. */
async function hiveCatalog(): Promise<IcebergCatalog> {
  const reader = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string });
  const writer = new ThriftHmsWriter({ uri: env.HIM_HMS_PG_URI as string });
  return new HiveIcebergCatalog({
    name: 'hms',
    reader,
    writer,
    store,
    onClose: async () => {
      await reader.close();
      await writer.close();
    },
  });
}

const catalogs: [string, () => Promise<IcebergCatalog>][] = [
  ['rest', () => RestCatalog.connect({ name: 'stack', uri: env.HIM_ICEBERG_REST_URI ?? '' })],
  ['jdbc', () => JdbcIcebergCatalog.connect({ url: env.HIM_POSTGRES_URL as string, catalogName: uniqueName('him_commit'), store })],
  ['hive', hiveCatalog],
];

describe.each(catalogs)('commitTable on the %s catalog', (kind, connect) => {
  const ns = [uniqueName(`him_commit_${kind}`).toLowerCase()];
  const ident = tableIdent(ns, 'orders');
  let catalog: IcebergCatalog;

  beforeAll(async () => {
    catalog = await connect();
    await catalog.createNamespace(ns);
    await catalog.registerTable(ident, written.metadataLocation);
  });
  afterAll(async () => {
    await catalog.dropTable(ident).catch(() => undefined);
    await catalog.dropNamespace(ns).catch(() => undefined);
    await catalog.close?.();
  });

  it('commits onto the base it read, is idempotent on a retry, and refuses a stale base (CATALOG_CONFLICT, nothing changed)', async () => {
    const base = await catalog.loadTable(ident);
    const first = await commitOf(catalog, base, 1001n);
    const r = await catalog.commitTable(ident, first);
    expect(r.outcome).toBe('committed');
    expect(r.table.metadata.currentSnapshotId).toBe(1001n);
    expect(r.table.metadata.snapshots.find((s) => s.snapshotId === 1001n)?.parentSnapshotId).toBe(written.snapshotId);
    expect(r.table.metadata.lastSequenceNumber).toBe(base.metadata.lastSequenceNumber + 1);
    if (kind !== 'rest') expect(r.table.metadataLocation).toBe(first.metadataLocation);

    // The same commit again (its answer was lost): already there, nothing new.
    const again = await catalog.commitTable(ident, first);
    expect(again.outcome).toBe('already-committed');
    expect(again.table.metadataLocation).toBe(r.table.metadataLocation);

    // Another commit prepared on the old base: someone (our first commit) got there first.
    const stale = await commitOf(catalog, base, 1002n);
    const e = await rejectionOf(catalog.commitTable(ident, stale));
    expect(e.code).toBe('CATALOG_CONFLICT');
    const now = await catalog.loadTable(ident);
    expect(now.metadataLocation).toBe(r.table.metadataLocation);
    expect(now.metadata.currentSnapshotId).toBe(1001n);
    expect(now.metadata.snapshots.some((s) => s.snapshotId === 1002n)).toBe(false);

    // On the new base it commits.
    const next = await catalog.commitTable(ident, await commitOf(catalog, now, 1003n));
    expect(next.outcome).toBe('committed');
    expect(next.table.metadata.currentSnapshotId).toBe(1003n);
  }, 120_000);

  it('a commit with a schema addition leaves the table on the new schema (fields, last column id, name mapping, snapshot schema id)', async () => {
    const base = await catalog.loadTable(ident);
    const m = base.metadata;
    const current = m.schemas.find((x) => x.schemaId === m.currentSchemaId);
    if (current === undefined) throw new Error('no current schema');
    const live = { schemaId: 0, fields: [...current.fields, { id: 1, name: 'note', required: false, type: { kind: 'string' as const } }] };
    const addition = schemaAddition(m, live);
    if (addition === null) throw new Error('no addition');
    const r = await catalog.commitTable(ident, await commitOf(catalog, base, 2001n, addition));
    expect(r.outcome).toBe('committed');
    const now = (await catalog.loadTable(ident)).metadata;
    const schema = now.schemas.find((x) => x.schemaId === now.currentSchemaId);
    expect(schema?.fields.at(-1)).toMatchObject({ id: m.lastColumnId + 1, name: 'note', required: false });
    expect(schema?.fields.slice(0, -1)).toEqual(current.fields);
    expect(now.lastColumnId).toBe(m.lastColumnId + 1);
    expect(now.currentSchemaId).not.toBe(m.currentSchemaId);
    expect(now.snapshots.find((x) => x.snapshotId === 2001n)?.schemaId).toBe(now.currentSchemaId);
    expect(JSON.parse(now.properties['schema.name-mapping.default'] ?? '[]')).toContainEqual({
      'field-id': m.lastColumnId + 1,
      names: ['note'],
    });
  }, 120_000);
});
