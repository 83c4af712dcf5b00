// The local S3 server's ceiling for the one request a conversion makes per data file: a 64 KB
// ranged GET of the file's tail (adapters/formats/parquet DEFAULT_TAIL_BYTES), signed and sent by
// the same client the converter uses (adapters/storage/s3-ranged-get), with nothing else done per
// file — no footer decoding, no manifests. Whatever converts files on this machine against this
// server cannot beat this rate. Prints GETs/s per concurrency with the CPU seconds of this process
// and of the S3 server (from /proc) and whether the server kept connections open. A second row per
// concurrency sends the same signed request over a bare TCP socket (no HTTP library; bench only),
// to show what node:http itself costs per request.
//   npx tsx bench/convert/s3-ceiling.ts [--objects 2000] [--gets 20000] [--size 30000] [--concurrency 16,64,128]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DeleteObjectsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mapOrdered } from '../../core/ordered-pool';
import { S3RangedGet } from '../../adapters/storage/object-read/s3-ranged-get';
import { testStack } from '../../test/helpers/stack-env';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? dflt) : dflt;
};
const OBJECTS = Number(arg('objects', '2000'));
const GETS = Number(arg('gets', '20000'));
const SIZE = Number(arg('size', '30000'));
const CONCURRENCIES = arg('concurrency', '16,64,128').split(',').map(Number);
const BUCKET = 'warehouse';
const ROOT = path.resolve(__dirname, '..', '..');

/** utime + stime of a process, in seconds (/proc/<pid>/stat fields 14 and 15). */
function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(f[11]) + Number(f[12])) / 100;
}

function s3Pid(): number {
  const rows = JSON.parse(
    execFileSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [path.join(ROOT, 'dev/stack/main.ts'), 'status', '--json', 's3'], {
      encoding: 'utf8',
    }),
  ) as { pid: number | null }[];
  const pid = rows[0]?.pid;
  if (typeof pid !== 'number') throw new Error('the stack S3 server is not running (npm run stack -- up s3)');
  return pid;
}

/** Does the server answer with Connection: close? */
function connectionHeader(endpoint: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(`${endpoint}/`, (res) => {
        res.resume();
        resolve(String(res.headers.connection ?? '(none)'));
      })
      .on('error', reject);
  });
}

/** The same signed request (S3RangedGet.signedGet) written by hand on a fresh socket; resolves the body length (bench only). */
async function bareGet(get: S3RangedGet, endpoint: URL, key: string, range: string): Promise<number> {
  const { path: p, headers } = await get.signedGet(BUCKET, key, range);
  const request = `GET ${p} HTTP/1.1\r\n${Object.entries(headers)
    .map(([a, b]) => `${a}: ${b}`)
    .join('\r\n')}\r\nconnection: close\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: endpoint.hostname, port: Number(endpoint.port) }, () => s.write(request));
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('error', reject);
    s.on('end', () => {
      const b = Buffer.concat(chunks);
      s.destroy();
      const status = b.subarray(9, 12).toString();
      if (status !== '206') reject(new Error(`HTTP ${status}: ${b.toString('utf8', 0, 300)}`));
      else resolve(b.length - b.indexOf('\r\n\r\n') - 4);
    });
  });
}

async function main(): Promise<void> {
  const env = testStack();
  Object.assign(process.env, env);
  const endpoint = env.HIM_S3_ENDPOINT as string;
  const region = env.AWS_REGION ?? 'us-east-1';
  const client = new S3Client({ endpoint, region, forcePathStyle: true });
  const prefix = `bench-s3-ceiling/${process.pid}-${Date.now()}`;
  const keys = Array.from({ length: OBJECTS }, (_, i) => `${prefix}/f-${String(i).padStart(6, '0')}.bin`);
  const body = new Uint8Array(SIZE).map((_, i) => i % 251);
  const pid = s3Pid();
  try {
    for await (const _ of mapOrdered(keys, 32, (Key) => client.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: body })))) void _;
    console.log(
      `s3 ceiling: ${OBJECTS} objects of ${SIZE} B uploaded; server Connection header: ${await connectionHeader(endpoint)}; ${GETS} tail GETs (64 KB range) per run`,
    );
    const range = `bytes=${Math.max(0, SIZE - 65_536)}-${SIZE - 1}`;
    for (const c of CONCURRENCIES) {
      const get = new S3RangedGet(client, region, endpoint, true, c, 60_000);
      const transports: [string, (k: string) => Promise<number>][] = [
        ['S3RangedGet (node:http)', async (k) => (await get.get(BUCKET, k, range)).bytes.length],
        ['bare socket (bench only)', (k) => bareGet(get, new URL(endpoint), k, range)],
      ];
      for (const [label, fetchOne] of transports) {
        const [cpu0, srv0, t0] = [process.cpuUsage(), cpuSeconds(pid), performance.now()];
        let bytes = 0;
        for await (const n of mapOrdered(
          Array.from({ length: GETS }, (_, i) => keys[i % OBJECTS] as string),
          c,
          fetchOne,
        ))
          bytes += n;
        const secs = (performance.now() - t0) / 1000;
        const cpu = process.cpuUsage(cpu0);
        const srv = cpuSeconds(pid) - srv0;
        if (bytes !== GETS * SIZE) throw new Error(`read ${bytes} bytes, expected ${GETS * SIZE}`);
        console.log(
          `  concurrency ${String(c).padStart(3)}, ${label.padEnd(25)}: ${(GETS / secs).toFixed(0).padStart(5)} GETs/s (${secs.toFixed(2)} s); CPU client ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (${((cpu.user + cpu.system) / GETS).toFixed(0)} µs/GET), S3 server ${srv.toFixed(1)} s (${((srv / GETS) * 1e6).toFixed(0)} µs/GET)`,
        );
      }
      get.destroy();
    }
  } finally {
    for (let i = 0; i < keys.length; i += 1000)
      await client.send(new DeleteObjectsCommand({ Bucket: BUCKET, Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })) } }));
    client.destroy();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
