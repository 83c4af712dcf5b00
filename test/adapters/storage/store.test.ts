// The ObjectStore contract on the stack's S3 (versitygw) and on the local filesystem: paginated
// listings, ranged/tail reads, coded errors, create-only puts, and the never-delete-data guard
// (a refused delete or overwrite leaves the object as it was). Partition listing findings.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { listPartitions } from '../../../adapters/storage/list-partition';
import { ListingFindingCode } from '../../../core/storage/listing';
import { LocalObjectStore } from '../../../adapters/storage/local-store';
import { S3ObjectStore } from '../../../adapters/storage/s3-store';
import { ErrorCode, MigrationError } from '../../../core/errors';
import type { ListEntry, ObjectStore } from '../../../core/storage/object-store';
import { MutationGuard, parseStorageUri } from '../../../core/storage/object-store';
import { testStack, uniqueName } from '../../helpers/stack-env';

const env = testStack();
const client = new S3Client({
  endpoint: env.HIM_S3_ENDPOINT,
  region: env.AWS_REGION,
  forcePathStyle: true,
  credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID ?? '', secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? '' },
});
let lists = 0;
client.middlewareStack.add(
  (next, context) => async (args) => {
    if (context.commandName === 'ListObjectsV2Command') lists++;
    return next(args);
  },
  { step: 'finalizeRequest', name: 'countLists' },
);
const s3Prefix = `test-storage/${uniqueName('s')}`;
const localDir = mkdtempSync(join(tmpdir(), 'him-store-'));

afterAll(async () => {
  for (;;) {
    const page = await client.send(new ListObjectsV2Command({ Bucket: 'warehouse', Prefix: `${s3Prefix}/` }));
    const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key }));
    if (keys.length === 0) break;
    await client.send(new DeleteObjectsCommand({ Bucket: 'warehouse', Delete: { Objects: keys } }));
  }
  for (const c of cases) (c.store as { destroy?: () => void }).destroy?.();
  client.destroy();
  rmSync(localDir, { recursive: true, force: true });
});

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
async function code(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof MigrationError)) throw new Error(`expected a MigrationError, got ${String(e)}`);
  return e.code;
}
async function all(it: AsyncIterable<ListEntry>): Promise<ListEntry[]> {
  const out: ListEntry[] = [];
  for await (const e of it) out.push(e);
  return out;
}

interface Case {
  name: string;
  root: string;
  store: ObjectStore;
  alias: (p: string) => string;
}
const cases: Case[] = [
  {
    name: 'S3',
    root: `s3://warehouse/${s3Prefix}/lean`,
    store: new S3ObjectStore({
      client,
      endpoint: env.HIM_S3_ENDPOINT,
      region: env.AWS_REGION,
      metadataPrefixes: [`s3://warehouse/${s3Prefix}/lean/tbl/metadata`],
      listPageSize: 10,
    }),
    alias: (p) => p.replace(/^s3:/, 's3a:'),
  },
  {
    name: 'local',
    root: `file://${localDir}`,
    store: new LocalObjectStore({ metadataPrefixes: [`${localDir}/tbl/metadata`] }),
    alias: (p) => p.replace(/^file:\/\//, ''),
  },
];

describe.each(cases)('$name store', ({ root, store, alias, name }) => {
  const data = `${root}/tbl/dt=1/part-0.parquet`;
  const meta = `${root}/tbl/metadata/00000-x.metadata.json`;

  test('put, head, ranged and tail reads; missing → STORAGE_NOT_FOUND', async () => {
    await store.put(data, enc('0123456789'), { ifNoneMatch: '*' });
    const h = await store.head(data);
    expect(h.size).toBe(10);
    expect(h.etag).toBeTruthy();
    expect(dec(await store.readRange(data, 2, 5))).toBe('234');
    expect(dec(await store.readRange(alias(data), 0, 1))).toBe('0');
    const tail = await store.readTail(data, 4);
    expect([dec(tail.bytes), tail.size]).toEqual(['6789', 10]);
    const whole = await store.readTail(data, 100);
    expect([dec(whole.bytes), whole.size]).toEqual(['0123456789', 10]);
    const weird = `${root}/tbl/k=a b+c%2F/é 💡 (1)*'!.bin`;
    await store.put(weird, enc('weird'));
    expect(dec(await store.readRange(weird, 0, 5))).toBe('weird');
    expect(dec((await store.readTail(weird, 2)).bytes)).toBe('rd');
    expect(await code(store.head(`${root}/tbl/nope`))).toBe(ErrorCode.STORAGE_NOT_FOUND);
    expect(await code(store.readRange(`${root}/tbl/nope`, 0, 4))).toBe(ErrorCode.STORAGE_NOT_FOUND);
  });

  test('create-only put: a second create → STORAGE_PRECONDITION_FAILED, content kept', async () => {
    await store.put(meta, enc('first'), { ifNoneMatch: '*' });
    expect(await code(store.put(meta, enc('second'), { ifNoneMatch: '*' }))).toBe(ErrorCode.STORAGE_PRECONDITION_FAILED);
    expect(dec(await store.readRange(meta, 0, 100))).toBe('first');
    // Inside the metadata prefix an unconditional put may overwrite.
    await store.put(meta, enc('third'));
    expect(dec(await store.readRange(meta, 0, 100))).toBe('third');
  });

  test('never delete data: delete/overwrite outside the metadata prefix refused, object intact', async () => {
    expect(await code(store.delete(data))).toBe(ErrorCode.STORAGE_MUTATION_REFUSED);
    expect(await code(store.put(data, enc('clobber')))).toBe(ErrorCode.STORAGE_MUTATION_REFUSED);
    expect(await code(store.delete(`${root}/tbl/metadata/../dt=1/part-0.parquet`))).toBe(ErrorCode.STORAGE_MUTATION_REFUSED);
    expect(await code(store.delete(`${root}/tbl/metadata-evil/x`))).toBe(ErrorCode.STORAGE_MUTATION_REFUSED);
    expect(dec(await store.readRange(data, 0, 100))).toBe('0123456789');
    // A new object outside the prefix is fine (create-only).
    await store.put(`${root}/tbl/dt=1/part-1.parquet`, enc('abc'));
    // Inside: delete works (also through another scheme spelling), and is idempotent.
    await store.delete(alias(meta));
    expect(await code(store.head(meta))).toBe(ErrorCode.STORAGE_NOT_FOUND);
    await store.delete(meta);
  });

  test('listing: pages, directories, recursive', async () => {
    for (let i = 0; i < 25; i++) await store.put(`${root}/many/f${String(i).padStart(2, '0')}`, enc('x'));
    await store.put(`${root}/many/sub/inner`, enc('y'));
    const before = lists;
    const pages = (store as { stats?: { lists: number } }).stats?.lists ?? 0;
    const flat = await all(store.list(`${root}/many`));
    expect(flat.filter((e) => e.kind === 'file')).toHaveLength(25);
    expect(flat.filter((e) => e.kind === 'directory').map((e) => e.path)).toEqual([`${root}/many/sub`]);
    if (name.startsWith('S3')) {
      // 26 rows at 10 per page: three ListObjectsV2 requests, none of them through the SDK.
      expect((store as S3ObjectStore).stats.lists - pages).toBe(3);
      expect(lists - before).toBe(0);
    }
    // Keys with XML's special characters, spaces, unicode and escapes come back exactly (entities decoded).
    const odd = [`${root}/odd/a&b<c>"q'.bin`, `${root}/odd/k=a b+c/é 💡 (1)*!.bin`, `${root}/odd/&amp;literal.bin`];
    for (const p of odd) await store.put(p, enc('o'));
    const oddListed = await all(store.list(`${root}/odd`, { recursive: true }));
    expect(oddListed.map((e) => e.path).sort()).toEqual([...odd].sort());
    expect(oddListed.map((e) => (e.kind === 'file' ? e.size : -1))).toEqual([1, 1, 1]);
    const deep = await all(store.list(`${root}/many/`, { recursive: true }));
    expect(deep.map((e) => e.path)).toContain(`${root}/many/sub/inner`);
    expect(deep.every((e) => e.kind === 'file')).toBe(true);
    expect(await all(store.list(`${root}/does-not-exist`))).toEqual([]);
  });

  test('partition listing: hidden names skipped, findings coded, outside locations, bounded concurrency', async () => {
    const p1 = `${root}/t2/dt=2024-01-01`;
    const outside = `${root}/elsewhere/dt=2024-01-02`;
    const empty = `${root}/t2/dt=2024-01-03`;
    for (const [p, body] of [
      [`${p1}/b.parquet`, 'bb'],
      [`${p1}/a.parquet`, 'a'],
      [`${p1}/_SUCCESS`, ''],
      [`${p1}/.a.parquet.crc`, 'c'],
      [`${p1}/empty.parquet`, ''],
      [`${p1}/HIVE_UNION_SUBDIR_1/c.parquet`, 'c'],
      [`${p1}/_temporary/0/x`, 'x'],
      [`${outside}/o.parquet`, 'ooo'],
    ] as const) {
      await store.put(p, enc(body));
    }
    const results = [];
    for await (const r of listPartitions(store, [p1, outside, empty], { concurrency: 2 })) results.push(r);
    results.sort((a, b) => a.index - b.index);
    expect(results.map((r) => r.files.map((f) => [f.path, f.size]))).toEqual([
      [
        [`${p1}/a.parquet`, 1],
        [`${p1}/b.parquet`, 2],
      ],
      [[`${outside}/o.parquet`, 3]],
      [],
    ]);
    const findings = results.map((r) => r.findings.map((f) => `${f.code} ${f.path}`).sort());
    expect(findings).toEqual([
      [
        `${ListingFindingCode.LISTING_EMPTY_FILE} ${p1}/empty.parquet`,
        `${ListingFindingCode.LISTING_SUBDIRECTORY} ${p1}/HIVE_UNION_SUBDIR_1`,
      ],
      [],
      [`${ListingFindingCode.LISTING_EMPTY_LOCATION} ${empty}`],
    ]);
    const recursive = [];
    for await (const r of listPartitions(store, [p1], { recursive: true })) recursive.push(...r.files.map((f) => f.path));
    expect(recursive).toEqual([`${p1}/HIVE_UNION_SUBDIR_1/c.parquet`, `${p1}/a.parquet`, `${p1}/b.parquet`]);
  });
});

describe('storage URIs and the mutation guard (pure)', () => {
  test('schemes', () => {
    expect(parseStorageUri('s3a://b/k/x')).toEqual({ kind: 's3', scheme: 's3a', bucket: 'b', key: 'k/x' });
    expect(parseStorageUri('file:///tmp/x')).toEqual({ kind: 'local', scheme: 'file', path: '/tmp/x' });
    expect(parseStorageUri('file:/tmp/x')).toEqual({ kind: 'local', scheme: 'file', path: '/tmp/x' });
    // The file:/// shortcut and the general path agree: escapes decoded, localhost, odd characters.
    expect(parseStorageUri('file:///tmp/a%20b/c%25d')).toEqual({ kind: 'local', scheme: 'file', path: '/tmp/a b/c%d' });
    expect(parseStorageUri('file://localhost/tmp/x')).toEqual({ kind: 'local', scheme: 'file', path: '/tmp/x' });
    expect(parseStorageUri('file:///localhost/x y=1/ü')).toEqual({ kind: 'local', scheme: 'file', path: '/localhost/x y=1/ü' });
    expect(parseStorageUri('FILE:///tmp/x')).toEqual({ kind: 'local', scheme: 'file', path: '/tmp/x' });
    expect(() => parseStorageUri('file:///tmp/%E0%A4%A')).toThrow();
    expect(parseStorageUri('/tmp/x')).toEqual({ kind: 'local', scheme: '', path: '/tmp/x' });
    for (const bad of ['hdfs://nn/x', 'relative/path', 's3://', 'gs://b/k'])
      expect(() => parseStorageUri(bad)).toThrow(expect.objectContaining({ code: ErrorCode.STORAGE_URI_INVALID }));
  });
  test('guard compares at path boundaries across s3 schemes', () => {
    const g = new MutationGuard(['s3://w/db/t/metadata']);
    expect(g.allows('s3n://w/db/t/metadata/x.avro')).toBe(true);
    expect(g.allows('s3://w/db/t/metadata')).toBe(false);
    expect(g.allows('s3://w/db/t/metadata2/x')).toBe(false);
    expect(g.allows('s3://w/db/t/metadata/../data/x')).toBe(false);
    expect(new MutationGuard([]).allows('s3://w/x')).toBe(false);
  });
});
