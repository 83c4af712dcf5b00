// Per-table stores (app/runtime/runtime.ts openStores → storeFor, one per activity) share one keep-alive socket
// pool for footer GETs. Each store used to open its own pool and never close it: against a server
// that keeps connections open (S3 does; the stack's versitygw closes them, see dev/stack s3.ts) a
// worker ran out of file descriptors after ~500 tables. The server here is a minimal keep-alive
// HTTP endpoint answering ranged GETs (the S3 semantics are proven against versitygw in store.test).
import { readdirSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { openStores } from '../../../app/runtime/runtime';
import type { MigrateConfig } from '../../../core/config/schema';

const sockets = (): number =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith('socket:');
    } catch {
      return false;
    }
  }).length;

const body = Buffer.alloc(4096, 7);
let requests = 0;
const server = http.createServer({ keepAlive: true }, (req, res) => {
  requests++;
  const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
  const [a, b] = m === null ? [0, body.length - 1] : [Number(m[1]), Math.min(Number(m[2]), body.length - 1)];
  res.writeHead(206, { 'content-range': `bytes ${a}-${b}/${body.length}`, 'content-length': String(b - a + 1) });
  res.end(body.subarray(a, b + 1));
});

beforeAll(async () => {
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

test('300 per-table stores, 16 concurrent reads each, against a keep-alive server: one socket pool', async () => {
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const stores = openStores({ storage: { s3: { endpoint, region: 'us-east-1', forcePathStyle: true } } } as unknown as MigrateConfig);
  const before = sockets();
  let bytes = 0;
  for (let t = 0; t < 300; t++) {
    const store = stores.storeFor([`s3://warehouse/t${t}/metadata/`]);
    const reads = await Promise.all(Array.from({ length: 16 }, () => store.readRange('s3://warehouse/data/obj.bin', 4000, 4096)));
    bytes += reads.reduce((n, r) => n + r.length, 0);
  }
  expect(requests).toBe(300 * 16);
  expect(bytes).toBe(300 * 16 * 96);
  // ≤ 16 client sockets (+ their server ends in this process); 300 private pools: ~9,600.
  expect(sockets() - before).toBeLessThanOrEqual(40);
  stores.close();
}, 120_000);
