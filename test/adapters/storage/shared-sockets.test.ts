// Per-table stores (cli/runtime openStores → storeFor, one per activity) share one keep-alive socket
// pool: reading through hundreds of stores against the stack's keep-alive S3 must not grow the
// process's open sockets beyond the pool. Each store used to open its own pool and never close it;
// a worker ran out of file descriptors after ~500 tables.
import { readdirSync, readlinkSync } from 'node:fs';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { openStores } from '../../../cli/runtime';
import type { MigrateConfig } from '../../../core/config/schema';
import { testStack, uniqueName } from '../../helpers/stack-env';

const env = testStack();
const key = `test-storage/${uniqueName('sock')}/obj.bin`;
const client = new S3Client({ endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true, credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID ?? '', secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? '' } });
const sockets = (): number => readdirSync('/proc/self/fd').filter((fd) => {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`).startsWith('socket:');
  } catch {
    return false;
  }
}).length;

afterAll(async () => {
  await client.send(new DeleteObjectCommand({ Bucket: 'warehouse', Key: key }));
  client.destroy();
});

test('300 per-table stores, 16 reads each at concurrency 16: open sockets stay within one pool', async () => {
  await client.send(new PutObjectCommand({ Bucket: 'warehouse', Key: key, Body: Buffer.alloc(4096, 7) }));
  const stores = openStores({ storage: { s3: { endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true } } } as unknown as MigrateConfig, env);
  const before = sockets();
  let bytes = 0;
  for (let t = 0; t < 300; t++) {
    const store = stores.storeFor([`s3://warehouse/test-storage/t${t}/metadata/`]);
    const reads = await Promise.all(Array.from({ length: 16 }, () => store.readRange(`s3://warehouse/${key}`, 4000, 4096)));
    bytes += reads.reduce((n, r) => n + r.length, 0);
  }
  expect(bytes).toBe(300 * 16 * 96);
  const grown = sockets() - before;
  // One pool of ≤ 64 lean-GET sockets (+ the SDK client's few); 300 private pools would be thousands.
  expect(grown).toBeLessThanOrEqual(70);
  stores.close();
}, 120_000);
