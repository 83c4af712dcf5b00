// RestCatalog against the stack's Java reference REST catalog (1.10.1): namespaces (multi-level,
// %1F), loading a PyIceberg-made table (63-bit ids exact), registering a table we wrote ourselves
// and reading it back with PyIceberg AND Spark (rows + canonical checksum of the original files),
// assert-create idempotency, unregister/drop without purge (files stay), then our own cleanup.
import type { S3Client } from '@aws-sdk/client-s3';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { RestCatalog } from '../../../adapters/catalog/rest';
import type { TableIdent } from '../../../core/catalog/catalog';
import { formatTableIdent, tableIdent } from '../../../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../../../core/errors';
import { testStack, uniqueName } from '../../helpers/stack-env';
import type { WrittenTable } from './fixture';
import { BUCKET, deletePrefix, makeTableWithPyIceberg, objectExists, putText, readWith, s3Client, writeTable } from './fixture';

const ns = [uniqueName('him_cat')];
const prefix = `test-catalog/${ns[0]}`;
const latencies: Record<string, number[]> = {};
let catalog: RestCatalog;
let s3: S3Client;
const cleanupPrefixes: string[] = [prefix];
const cleanupTables: TableIdent[] = [];

async function timed<T>(what: string, f: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await f();
  } finally {
    (latencies[what] ??= []).push(performance.now() - t0);
  }
}

async function codeOf(p: Promise<unknown>): Promise<{ code: string; retryable: boolean; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof MigrationError) return { code: e.code, retryable: e.retryable, message: e.message };
    throw e;
  }
  throw new Error('expected a MigrationError');
}

beforeAll(async () => {
  s3 = s3Client();
  catalog = await timed('connect (GET /v1/config)', () =>
    RestCatalog.connect({ name: 'stack', uri: testStack().HIM_ICEBERG_REST_URI ?? '' }),
  );
  await catalog.createNamespace(ns);
});

afterAll(async () => {
  for (const t of cleanupTables) await catalog.dropTable(t);
  await catalog.dropNamespace([...ns, 'sub']);
  await catalog.dropNamespace([...ns, 'raced']);
  await catalog.dropNamespace(ns);
  for (const p of cleanupPrefixes) await deletePrefix(s3, p);
  s3.destroy();
  const rows = Object.entries(latencies).map(
    ([k, v]) =>
      `${k}: n=${v.length} median=${[...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]?.toFixed(1)} ms max=${Math.max(...v).toFixed(1)} ms`,
  );
  console.log(`REST catalog latencies (reference server 1.10.1, local):\n${rows.join('\n')}`);
});

test('namespaces: create is idempotent, HEAD exists, multi-level names travel as %1F, list by parent', async () => {
  expect(await timed('namespaceExists', () => catalog.namespaceExists(ns))).toBe(true);
  expect(await catalog.createNamespace(ns)).toEqual({ created: false });
  const sub = [...ns, 'sub'];
  expect(await catalog.namespaceExists(sub)).toBe(false);
  expect(await timed('createNamespace', () => catalog.createNamespace(sub))).toEqual({ created: true });
  expect(await catalog.namespaceExists(sub)).toBe(true);
  expect(await catalog.listNamespaces(ns)).toEqual([sub]);
  expect((await catalog.listNamespaces()).some((n) => n.length === 1 && n[0] === ns[0])).toBe(true);
  expect(await catalog.listTables(sub)).toEqual([]);
  expect(await catalog.dropNamespace(sub)).toEqual({ dropped: true });
  expect(await catalog.dropNamespace(sub)).toEqual({ dropped: false });
  expect(await catalog.namespaceExists(['him_missing_ns_x'])).toBe(false);
  expect((await codeOf(catalog.listTables(['him_missing_ns_x']))).code).toBe(ErrorCode.CATALOG_NOT_FOUND);
});

test('namespaces: creators racing on one name all succeed, exactly one of them created it', async () => {
  const raced = [...ns, 'raced'];
  try {
    const results = await Promise.all(Array.from({ length: 8 }, () => catalog.createNamespace(raced, { owner: 'race' })));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await catalog.namespaceExists(raced)).toBe(true);
  } finally {
    await catalog.dropNamespace(raced);
  }
});

test('load: a PyIceberg-made table comes back with its schema, spec, snapshot and exact 63-bit ids', async () => {
  const ident = tableIdent(ns, 'made_by_pyiceberg');
  const made = await makeTableWithPyIceberg(formatTableIdent(ident), 12);
  cleanupTables.push(ident);
  cleanupPrefixes.push(made.location.replace(/^s3:\/\/[^/]+\//, ''));
  expect(await catalog.tableExists(ident)).toBe(true);
  const t = await timed('loadTable', () => catalog.loadTable(ident));
  expect(t.metadataLocation).toBe(made.metadata_location);
  expect(t.metadata.location).toBe(made.location);
  const schema = t.metadata.schemas.find((s) => s.schemaId === t.metadata.currentSchemaId);
  expect(schema?.fields.map((f) => f.name)).toEqual(made.columns);
  expect(schema?.fields[0]).toMatchObject({ id: 1, name: 'id', required: true, type: { kind: 'long' } });
  expect(t.metadata.partitionSpecs[0]?.fields).toEqual([
    expect.objectContaining({ name: 'region', transform: 'identity', sourceId: 9, fieldId: 1000 }),
  ]);
  const current = t.metadata.snapshots.find((s) => s.snapshotId === t.metadata.currentSnapshotId);
  expect(current?.summary['total-records']).toBe('12');
  expect(current?.summary.operation).toBe('append');
  // Lossless: the id equals the digits in the file, even beyond 2^53.
  const raw = await (
    await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: made.metadata_location.replace(/^s3:\/\/[^/]+\//, '') }))
  ).Body?.transformToString();
  const digits = /"current-snapshot-id"\s*:\s*(\d+)/.exec(raw ?? '')?.[1];
  expect(typeof t.metadata.currentSnapshotId).toBe('bigint');
  expect(t.metadata.currentSnapshotId?.toString()).toBe(digits);
  expect((await catalog.listTables(ns)).map((x) => x.name)).toContain('made_by_pyiceberg');
  expect((await codeOf(catalog.loadTable(tableIdent(ns, 'no_such_table')))).code).toBe(ErrorCode.CATALOG_NOT_FOUND);
});

describe('register a table we wrote ourselves', () => {
  const ident = tableIdent(ns, 'registered');
  let w: WrittenTable;

  beforeAll(async () => {
    w = await writeTable(s3, `${prefix}/registered`);
  });

  test('register → load returns our snapshot; PyIceberg and Spark read exactly the original rows', async () => {
    const r = await timed('registerTable', () => catalog.registerTable(ident, w.metadataLocation));
    cleanupTables.push(ident);
    expect(r.outcome).toBe('registered');
    expect(r.table.metadataLocation).toBe(w.metadataLocation);
    expect(r.table.metadata.currentSnapshotId).toBe(w.snapshotId);
    const loaded = await catalog.loadTable(ident);
    expect(loaded.metadata.currentSnapshotId).toBe(w.snapshotId);
    expect(loaded.metadata.properties['gc.enabled']).toBe('false');
    expect(loaded.metadata.snapshots[0]?.summary['total-records']).toBe(String(w.expected.rows));

    const [py, spark] = await Promise.all([readWith('pyiceberg', formatTableIdent(ident)), readWith('spark', formatTableIdent(ident))]);
    console.log(`register read-back: pyiceberg ${py.seconds}s, spark ${spark.seconds}s`);
    expect(py.rows).toBe(w.expected.rows);
    expect(py.checksum).toBe(w.expected.checksum);
    expect(spark.rows).toBe(w.expected.rows);
    expect(spark.checksum).toBe(w.expected.checksum);
  });

  test('idempotency: same location again → already-registered (one entry); another location → coded conflict', async () => {
    const again = await timed('registerTable (idempotent retry)', () => catalog.registerTable(ident, w.metadataLocation));
    expect(again.outcome).toBe('already-registered');
    expect(again.table.metadataLocation).toBe(w.metadataLocation);
    expect((await catalog.listTables(ns)).filter((t) => t.name === ident.name)).toHaveLength(1);

    const other = w.metadataLocation.replace('/00000-', '/00001-');
    await putText(s3, other, w.metadataJson);
    const err = await codeOf(catalog.registerTable(ident, other));
    expect(err).toMatchObject({ code: ErrorCode.CATALOG_CONFLICT, retryable: false });
    expect(err.message).toContain(w.metadataLocation);
    expect((await catalog.loadTable(ident)).metadataLocation).toBe(w.metadataLocation);
    // The inverse refuses to drop an entry that does not point at the file it is asked to undo.
    expect((await codeOf(catalog.unregisterTable(ident, other))).code).toBe(ErrorCode.CATALOG_CONFLICT);
  });

  test('an unreadable metadata location is a coded, non-retryable failure and registers nothing', async () => {
    const missing = tableIdent(ns, 'unreadable');
    const err = await codeOf(catalog.registerTable(missing, `s3://${BUCKET}/${prefix}/nothing-here/00000-x.metadata.json`));
    expect(err).toMatchObject({ code: ErrorCode.CATALOG_METADATA_UNREADABLE, retryable: false });
    expect(await catalog.tableExists(missing)).toBe(false);
  });

  test('a namespace seen is not asked for again; one dropped behind the client is created again by the register that finds it gone', async () => {
    const own = [`${ns[0] as string}_seen`];
    const other = await RestCatalog.connect({ name: 'other', uri: testStack().HIM_ICEBERG_REST_URI ?? '' });
    const t = tableIdent(own, 'again');
    try {
      expect(await catalog.createNamespace(own)).toEqual({ created: true });
      const before = catalog.attempts;
      expect(await catalog.createNamespace(own)).toEqual({ created: false });
      expect(catalog.attempts).toBe(before); // answered from what it saw: no request, no 409 for the server to log
      expect(await other.dropNamespace(own)).toEqual({ dropped: true });
      expect(await catalog.createNamespace(own)).toEqual({ created: false }); // still believed there
      const r = await catalog.registerTable(t, w.metadataLocation);
      expect(r.outcome).toBe('registered');
      expect(await other.namespaceExists(own)).toBe(true);
      expect((await other.loadTable(t)).metadataLocation).toBe(w.metadataLocation);
    } finally {
      await catalog.unregisterTable(t, w.metadataLocation);
      await catalog.dropNamespace(own);
    }
  });

  test('unregister (drop, never purge): entry gone, every data and metadata file still on S3; rerun is absent', async () => {
    expect(await timed('unregisterTable', () => catalog.unregisterTable(ident, w.metadataLocation))).toEqual({ outcome: 'unregistered' });
    expect(await catalog.tableExists(ident)).toBe(false);
    expect(await catalog.unregisterTable(ident, w.metadataLocation)).toEqual({ outcome: 'absent' });
    expect(await catalog.dropTable(ident)).toEqual({ dropped: false });
    for (const f of [...w.dataFiles, ...w.metadataFiles, w.metadataLocation]) expect(await objectExists(s3, f)).toBe(true);

    // Re-register after the rollback, then a plain drop: still no purge.
    expect((await catalog.registerTable(ident, w.metadataLocation)).outcome).toBe('registered');
    expect(await timed('dropTable', () => catalog.dropTable(ident))).toEqual({ dropped: true });
    for (const f of [...w.dataFiles, ...w.metadataFiles, w.metadataLocation]) expect(await objectExists(s3, f)).toBe(true);
  });
});
