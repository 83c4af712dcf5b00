// One listing for a table's partitions (S3ObjectStore.listEach) against the stack's S3 server
// (versitygw): each partition location's rows equal what `list` gives for it alone — hidden files,
// zero-byte files, sub-directories (one holding only a directory marker), p=1 beside p=10, a
// location given twice — over several pages; it costs one request per page instead of one per
// location; it gives up (undefined) past its page budget, for another bucket or when nothing is
// shared; and a partition listing built from it equals one listed location by location.
import { DeleteObjectsCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { s3Client } from '../catalog/fixture';
import { listEachLocation, listPartition } from '../../../adapters/storage/list-partition';
import { S3ObjectStore } from '../../../adapters/storage/s3-store';
import type { ListEntry } from '../../../core/storage/object-store';
import { testStack, uniqueName } from '../../helpers/stack-env';

const env = testStack();
const client = s3Client();
const prefix = `test-list-each/${uniqueName('t')}`;
const root = `s3://warehouse/${prefix}/tbl`;
const store = new S3ObjectStore({ client, endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, metadataPrefixes: [], listPageSize: 4 });

const objects: readonly [string, string][] = [
  ['p=1/a.parquet', 'aa'],
  ['p=1/b.parquet', 'b'],
  ['p=1/_SUCCESS', ''],
  ['p=1/.b.parquet.crc', 'c'],
  ['p=1/empty.parquet', ''],
  ['p=1/HIVE_UNION_SUBDIR_1/c.parquet', 'ccc'],
  ['p=1/_temporary/0/x', 'x'],
  ['p=1/marked/', ''],
  ['p=10/d.parquet', 'dddd'],
  ['p=2/e.parquet', 'e'],
  ['p=2/f.parquet', 'ff'],
  ['unregistered/g.parquet', 'g'],
  ['metadata/00000-x.metadata.json', '{}'],
];
const locations = ['p=1', 'p=10', 'p=2', 'p=3', 'p=1'].map((p) => `${root}/${p}`);

beforeAll(async () => {
  for (const [k, body] of objects)
    await client.send(new PutObjectCommand({ Bucket: 'warehouse', Key: `${prefix}/tbl/${k}`, Body: Buffer.from(body) }));
});
afterAll(async () => {
  for (;;) {
    const page = await client.send(new ListObjectsV2Command({ Bucket: 'warehouse', Prefix: `${prefix}/` }));
    const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key }));
    if (keys.length === 0) break;
    await client.send(new DeleteObjectsCommand({ Bucket: 'warehouse', Delete: { Objects: keys } }));
  }
  store.destroy();
  client.destroy();
});

async function rowsOf(location: string, recursive: boolean): Promise<ListEntry[]> {
  const out: ListEntry[] = [];
  for await (const e of store.list(location, { recursive })) out.push(e);
  return out;
}
const byPath = (rows: readonly ListEntry[]): ListEntry[] => [...rows].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

describe.each([false, true])('recursive %s', (recursive) => {
  test('each location gets the rows list gives it alone, in one request per page', async () => {
    const before = store.stats.lists;
    const shared = await store.listEach(locations, { recursive });
    const sharedLists = store.stats.lists - before;
    expect(shared).toBeDefined();
    const one = await Promise.all(locations.map((l) => rowsOf(l, recursive)));
    // Rows across pages come in the server's page order: compare as sets of rows.
    expect((shared ?? []).map(byPath)).toEqual(one.map(byPath));
    expect(one.flat().length).toBeGreaterThan(8);
    // 13 objects (a marker among them) in pages of 4: 4 requests, against one or more per location.
    expect(sharedLists).toBe(4);
    expect(store.stats.lists - before - sharedLists).toBeGreaterThanOrEqual(locations.length);
  });

  test('a partition listing from it equals one listed location by location', async () => {
    const locs = locations.map((location, index) => ({ index, location }));
    const fromShared = [];
    for await (const l of listEachLocation(store, locs, { recursive })) fromShared.push(l);
    const alone = await Promise.all(locs.map((l) => listPartition(store, l.location, l.index, { recursive })));
    const norm = (l: (typeof alone)[number]) => ({ ...l, findings: [...l.findings].sort((a, b) => (a.path < b.path ? -1 : 1)) });
    expect(fromShared.map(norm)).toEqual(alone.map(norm));
    expect(alone[0]?.files.map((f) => f.path.slice(root.length))).toEqual(
      recursive ? ['/p=1/HIVE_UNION_SUBDIR_1/c.parquet', '/p=1/a.parquet', '/p=1/b.parquet'] : ['/p=1/a.parquet', '/p=1/b.parquet'],
    );
  });
});

test('gives up past its page budget, across buckets, and with nothing shared', async () => {
  expect(await store.listEach(locations, { maxPages: 2 })).toBeUndefined();
  expect(await store.listEach([`${root}/p=1`, `s3://other-bucket/${prefix}/tbl/p=2`, `${root}/p=3`])).toBeUndefined();
  expect(await store.listEach([`s3://warehouse/a/p=1`, `s3://warehouse/b/p=1`])).toBeUndefined();
  expect(await store.listEach([`${root}/p=1`])).toBeUndefined();
});
