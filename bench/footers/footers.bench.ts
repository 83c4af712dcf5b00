// Footer-read benchmark: 1,000 small Parquet files (24 columns, 2 row groups, pyarrow-written)
// on the stack's S3; our listing + ParquetFooterReader at bounded concurrency vs pyarrow's
// read_metadata over S3FileSystem (thread pool, same concurrency) in the same run. Prints files/s,
// the ratio and our peak RSS. Uploads under a unique prefix and removes it afterwards.
// `--local`: the same files on local disk instead (LocalObjectStore vs pyarrow's local filesystem).
// Run: npx tsx bench/footers/footers.bench.ts [files=1000] [concurrency=32] [--local]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DeleteObjectsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { ParquetFooterReader } from '../../adapters/storage/object-read/parquet-footer-reader';
import { LocalObjectStore } from '../../adapters/storage/local-store';
import { S3ObjectStore } from '../../adapters/storage/s3-store';
import { buildNameMapping } from '../../core/iceberg/name-mapping';
import { decimalType, prim } from '../../core/iceberg/types';
import type { NestedField, Schema } from '../../core/iceberg/types';
import type { ObjectInfo, ObjectStore } from '../../core/storage/object-store';
import { testStack, uniqueName } from '../../test/helpers/stack-env';

const ARGS = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const LOCAL = process.argv.includes('--local');
const FILES = Number(ARGS[0] ?? 1000);
const CONCURRENCY = Number(ARGS[1] ?? 32);
const VARIANTS = 10;

const GEN = `
import sys, datetime as dt, decimal, pyarrow as pa, pyarrow.parquet as pq
out, n = sys.argv[1], int(sys.argv[2])
for v in range(n):
    rows = 200
    cols = {f"c{i}": pa.array([(v * 1000 + r * (i + 1)) for r in range(rows)], pa.int64()) for i in range(8)}
    cols.update({f"s{i}": pa.array([f"value-{v}-{r}-{i}-padding-text" for r in range(rows)]) for i in range(8)})
    cols.update({f"d{i}": pa.array([r * 0.5 + v for r in range(rows)], pa.float64()) for i in range(4)})
    cols["dt"] = pa.array([dt.date(2024, 1, 1) + dt.timedelta(days=r) for r in range(rows)])
    cols["ts"] = pa.array([dt.datetime(2024, 1, 1) + dt.timedelta(seconds=r) for r in range(rows)], pa.timestamp("us"))
    cols["amt"] = pa.array([decimal.Decimal(r) / 100 for r in range(rows)], pa.decimal128(12, 2))
    cols["flag"] = pa.array([r % 2 == 0 for r in range(rows)])
    pq.write_table(pa.table(cols), f"{out}/v{v}.parquet", row_group_size=100)
`;

function schema(): Schema {
  const f = (id: number, name: string, type: NestedField['type']): NestedField => ({ id, name, required: false, type });
  const fields: NestedField[] = [];
  for (let i = 0; i < 8; i++) fields.push(f(fields.length + 1, `c${i}`, prim.long));
  for (let i = 0; i < 8; i++) fields.push(f(fields.length + 1, `s${i}`, prim.string));
  for (let i = 0; i < 4; i++) fields.push(f(fields.length + 1, `d${i}`, prim.double));
  fields.push(
    f(fields.length + 1, 'dt', prim.date),
    f(fields.length + 2, 'ts', prim.timestamp),
    f(fields.length + 3, 'amt', decimalType(12, 2)),
    f(fields.length + 4, 'flag', prim.boolean),
  );
  return { schemaId: 0, fields };
}

async function pool<T>(items: readonly T[], n: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

async function main(): Promise<void> {
  const env = testStack();
  Object.assign(process.env, env);
  const py = env.HIM_VERIFIER_PYTHON ?? 'python3';
  const dir = mkdtempSync(join(tmpdir(), 'him-bench-footers-'));
  execFileSync(py, ['-c', GEN, dir, String(VARIANTS)]);
  const bodies = Array.from({ length: VARIANTS }, (_, v) => readFileSync(join(dir, `v${v}.parquet`)));
  rmSync(dir, { recursive: true, force: true });
  const names = Array.from({ length: FILES }, (_, i) => `part-${String(i).padStart(5, '0')}.parquet`);
  const body = (name: string): Buffer => bodies[Number(name.slice(-13, -8)) % VARIANTS] as Buffer;
  if (LOCAL) {
    const root = mkdtempSync(join(tmpdir(), 'him-bench-footers-local-'));
    for (const name of names) writeFileSync(join(root, name), body(name));
    console.log(`wrote ${FILES} files (${bodies[0]?.length ?? 0} bytes each) under ${root}`);
    try {
      await measure(new LocalObjectStore({ metadataPrefixes: [] }), root, py, root);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    return;
  }
  const prefix = `bench-footers/${uniqueName('b')}`;
  const store = new S3ObjectStore({ endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, metadataPrefixes: [], maxSockets: CONCURRENCY });
  const keys = names.map((n) => `${prefix}/${n}`);
  const t0 = performance.now();
  await pool(names, 32, async (name) => {
    await store.client.send(new PutObjectCommand({ Bucket: 'warehouse', Key: `${prefix}/${name}`, Body: body(name) }));
  });
  console.log(`uploaded ${FILES} files (${bodies[0]?.length ?? 0} bytes each) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  try {
    await measure(store, `s3://warehouse/${prefix}`, py, `warehouse/${prefix}`);
  } finally {
    for (let i = 0; i < keys.length; i += 1000) {
      await store.client.send(
        new DeleteObjectsCommand({ Bucket: 'warehouse', Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })) } }),
      );
    }
    store.destroy();
  }
}

/** Best of 3 for ours (list + stats), then best of 3 for pyarrow over the same files; prints the ratio. */
async function measure(store: ObjectStore, location: string, py: string, peerLocation: string): Promise<void> {
  const ctx = { schema: schema(), nameMapping: buildNameMapping(schema()) };
  const reader = new ParquetFooterReader(store);
  let best = { list: Infinity, footers: Infinity };
  for (let run = 0; run < 3; run++) {
    const a = performance.now();
    const files: ObjectInfo[] = [];
    for await (const e of store.list(location)) if (e.kind === 'file') files.push(e);
    const b = performance.now();
    let rows = 0;
    await pool(files, CONCURRENCY, async (file) => {
      const stats = await reader.readStats(file.path, file.size, ctx);
      rows += stats.recordCount;
    });
    const c = performance.now();
    if (files.length !== FILES || rows !== FILES * 200) throw new Error(`read ${files.length} files / ${rows} rows`);
    best = { list: Math.min(best.list, b - a), footers: Math.min(best.footers, c - b) };
  }
  const rss = process.resourceUsage().maxRSS / 1024;
  const ours = FILES / ((best.list + best.footers) / 1000);
  let peer = { list_s: Infinity, footers_s: Infinity, rows: 0 };
  for (let run = 0; run < 3; run++) {
    const args = [join(__dirname, 'pyarrow_footers.py'), peerLocation, String(CONCURRENCY), ...(LOCAL ? ['--local'] : [])];
    const out = JSON.parse(execFileSync(py, args, { encoding: 'utf8', env: { ...process.env } })) as typeof peer;
    if (out.rows !== FILES * 200) throw new Error(`pyarrow read ${out.rows} rows`);
    peer = { list_s: Math.min(peer.list_s, out.list_s), footers_s: Math.min(peer.footers_s, out.footers_s), rows: out.rows };
  }
  const theirs = FILES / (peer.list_s + peer.footers_s);
  const where = LOCAL ? 'local disk' : 'S3';
  console.log(
    `ours    (${where}, list + stats, concurrency ${CONCURRENCY}, best of 3): list ${best.list.toFixed(0)} ms, footers+stats ${best.footers.toFixed(0)} ms → ${ours.toFixed(0)} files/s`,
  );
  console.log(
    `pyarrow (${where}, list + read_metadata, ${CONCURRENCY} threads, best of 3): list ${(peer.list_s * 1000).toFixed(0)} ms, footers ${(peer.footers_s * 1000).toFixed(0)} ms → ${theirs.toFixed(0)} files/s`,
  );
  console.log(
    `footers vs pyarrow (${where}): ${(ours / theirs).toFixed(2)}x   (footer phase only: ${((peer.footers_s * 1000) / best.footers).toFixed(2)}x)`,
  );
  console.log(`peak RSS (ours, whole process): ${rss.toFixed(0)} MB`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
