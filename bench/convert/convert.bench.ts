// Conversion benchmark (issue 5): N small Parquet files in a Hive layout (`dt=<day>/part-<i>.parquet`,
// the partition column also stored in each file so that PyIceberg add_files is correct), on the
// stack's S3 server or on local disk. Ours: prepare + list + footers + manifests + metadata.json
// (+ register in the REST catalog on S3), timed; the peer in the same run: PyIceberg `add_files`
// on the same files. Prints files/s, the ratio and our peak RSS.
//   npx tsx bench/convert/convert.bench.ts [--files 20000] [--columns 20] [--partitions 100] [--local] [--concurrency 64]
//   npx tsx bench/convert/convert.bench.ts --million [--files 1000000]   (local disk, tiny files, ours only)
import { execFileSync } from 'node:child_process';
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DeleteObjectsCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mapOrdered } from '../../activities/convert/ordered-pool';
import { writeIcebergMetadata } from '../../activities/convert/write-metadata';
import { RestCatalog } from '../../adapters/catalog/rest';
import { LocalObjectStore } from '../../adapters/storage/local-store';
import { S3ObjectStore } from '../../adapters/storage/s3-store';
import { tableIdent } from '../../core/catalog/catalog';
import { prepareConversion } from '../../core/convert/prepare';
import type { TableInventory } from '../../core/hive/model';
import type { ObjectStore } from '../../core/storage/object-store';
import { testStack } from '../../test/helpers/stack-env';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] as string) : dflt;
};
const MILLION = process.argv.includes('--million');
const LOCAL = MILLION || process.argv.includes('--local');
const FILES = Number(arg('files', MILLION ? '1000000' : '20000'));
const COLUMNS = Number(arg('columns', MILLION ? '2' : '20'));
const PARTITIONS = Number(arg('partitions', MILLION ? '1000' : '100'));
const CONCURRENCY = Number(arg('concurrency', '64'));
const SKIP_PEER = MILLION || process.argv.includes('--no-peer');
const BUCKET = 'warehouse';

const HIVE: Record<string, string> = { long: 'bigint', string: 'string', double: 'double', date: 'date', decimal: 'decimal(12,2)', timestamp: 'timestamp', boolean: 'boolean' };
const PARQUET_SD = {
  inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
  outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
  compressed: false, numBuckets: -1, bucketColumns: [], sortColumns: [], parameters: {}, skewed: null, storedAsSubDirectories: false,
  serde: { name: null, serializationLib: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe', parameters: { 'serialization.format': '1' } },
};

function peakRssMb(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

function inventory(location: string, columns: [string, string][], days: string[]): TableInventory {
  const cols = columns.map(([n, k]) => ({ name: n, type: HIVE[k] ?? 'string', comment: null }));
  const sd = (loc: string) => ({ ...PARQUET_SD, columns: cols, location: loc });
  return {
    table: {
      database: 'bench', name: 'convert', owner: 'bench', ownerType: 'USER', createTime: 1, lastAccessTime: 0, retention: 0, tableType: 'EXTERNAL_TABLE',
      sd: sd(location), partitionKeys: [{ name: 'dt', type: 'string', comment: null }], parameters: { EXTERNAL: 'TRUE' }, viewOriginalText: null, viewExpandedText: null, temporary: false,
    },
    partitions: days.map((d) => ({ values: [d], name: `dt=${d}`, createTime: 1, lastAccessTime: 0, sd: sd(`${location}/dt=${d}`), parameters: {} })),
  };
}

async function main(): Promise<void> {
  const env = testStack();
  Object.assign(process.env, env);
  const run = Date.now().toString(36);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'him-bench-convert-'));
  const py = env.HIM_VERIFIER_PYTHON as string;
  const gen = JSON.parse(execFileSync(py, [path.join(__dirname, 'gen_files.py'), path.join(tmp, 'variants'), '--variants', String(PARTITIONS), '--columns', String(COLUMNS), '--rows', MILLION ? '2' : '200', '--partitions', String(PARTITIONS)]).toString()) as { variants: { name: string; dt: string }[]; columns: [string, string][] };
  const perPartition = Math.ceil(FILES / PARTITIONS);
  const days = gen.variants.map((v) => v.dt);
  const layout: { rel: string; variant: string }[] = [];
  for (let p = 0; p < PARTITIONS && layout.length < FILES; p++) for (let i = 0; i < perPartition && layout.length < FILES; i++) layout.push({ rel: `dt=${days[p]}/part-${String(i).padStart(6, '0')}.parquet`, variant: (gen.variants[p] as { name: string }).name });
  const bytes = new Map(gen.variants.map((v) => [v.name, readFileSync(path.join(tmp, 'variants', v.name))]));
  process.stderr.write(`[bench] ${layout.length} files, ${COLUMNS} columns, ${PARTITIONS} partitions, ${LOCAL ? 'local disk' : 's3'}\n`);

  let location: string;
  let store: ObjectStore;
  let s3: S3Client | undefined;
  const tSetup = performance.now();
  if (LOCAL) {
    const dataDir = path.join(tmp, 't');
    for (const d of days) mkdirSync(path.join(dataDir, `dt=${d}`), { recursive: true });
    const first = new Map<string, string>();
    for (const f of layout) {
      const dst = path.join(dataDir, f.rel);
      const src = first.get(f.variant);
      // Hard links: a million files without a million copies (each has its own directory entry).
      if (src === undefined) {
        copyFileSync(path.join(tmp, 'variants', f.variant), dst);
        first.set(f.variant, dst);
      } else linkSync(src, dst);
    }
    location = `file://${dataDir}`;
    store = new LocalObjectStore({ metadataPrefixes: [`${location}/metadata/`] });
  } else {
    s3 = new S3Client({ endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true });
    const prefix = `bench-convert/${run}/t`;
    const client = s3;
    for await (const _ of mapOrdered(layout, 32, (f) => client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${prefix}/${f.rel}`, Body: bytes.get(f.variant) })))) void _;
    location = `s3://${BUCKET}/${prefix}`;
    store = new S3ObjectStore({ metadataPrefixes: [`${location}/metadata/`], endpoint: env.HIM_S3_ENDPOINT, region: env.AWS_REGION, forcePathStyle: true });
  }
  process.stderr.write(`[bench] files in place in ${((performance.now() - tSetup) / 1000).toFixed(1)} s\n`);

  // Ours.
  const inv = inventory(location, gen.columns, days.slice(0, Math.ceil(layout.length / perPartition)));
  const t0 = performance.now();
  const prepared = prepareConversion({ inventory: inv, identity: { planHash: `bench-${run}`, table: 'bench.convert' }, timestampMs: Date.now(), toolVersion: 'bench' });
  const written = await writeIcebergMetadata(store, prepared, { footerConcurrency: CONCURRENCY, listConcurrency: 16 });
  let registered = '';
  if (!LOCAL) {
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    await catalog.createNamespace([`bench_${run}`]);
    registered = (await catalog.registerTable(tableIdent([`bench_${run}`], 'ours'), prepared.metadataLocation)).outcome;
  }
  const ours = (performance.now() - t0) / 1000;
  const oursRate = written.dataFiles / ours;
  const rss = peakRssMb();
  if (written.dataFiles !== layout.length) throw new Error(`wrote ${written.dataFiles} data files, expected ${layout.length}`);

  // Peer: PyIceberg add_files on the same files.
  let peer: { files: number; seconds: number; rows: number } | undefined;
  if (!SKIP_PEER) {
    const list = path.join(tmp, 'files.txt');
    writeFileSync(list, layout.map((f) => `${location}/${f.rel}`).join('\n'));
    const args = LOCAL
      ? ['--catalog', 'sql', '--warehouse', path.join(tmp, 'pywh'), '--table', 'bench.peer', '--list', list]
      : ['--catalog', 'rest', '--uri', env.HIM_ICEBERG_REST_URI as string, '--s3-endpoint', env.HIM_S3_ENDPOINT as string, '--table', `bench_${run}.peer`, '--list', list, '--drop'];
    peer = JSON.parse(execFileSync(py, [path.join(__dirname, 'pyiceberg_add_files.py'), ...args], { env: process.env, maxBuffer: 64 << 20 }).toString().trim().split('\n').pop() ?? '{}') as { files: number; seconds: number; rows: number };
    if (peer.rows !== written.records) throw new Error(`add_files counted ${peer.rows} rows, we counted ${written.records}`);
  }

  const where = LOCAL ? 'local disk' : 'S3 server';
  const lines = [
    `convert (${where}): ${written.dataFiles} files × ${COLUMNS} columns, ${written.partitions} partitions, ${written.records} rows, footer concurrency ${CONCURRENCY}`,
    `  ours: ${ours.toFixed(2)} s = ${oursRate.toFixed(0)} files/s${registered ? ` (incl. REST register: ${registered})` : ''} · peak RSS ${rss} MB · ${written.files.length} metadata files`,
  ];
  if (peer) {
    const peerRate = peer.files / peer.seconds;
    lines.push(`  PyIceberg add_files: ${peer.seconds.toFixed(2)} s = ${peerRate.toFixed(0)} files/s (same files, same row count ${peer.rows})`);
    lines.push(`convert vs add_files: ${(oursRate / peerRate).toFixed(2)}x (${where})`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);

  // Cleanup: our own bench prefix only.
  if (s3 !== undefined) {
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    await catalog.dropTable(tableIdent([`bench_${run}`], 'ours')).catch(() => undefined);
    await catalog.dropNamespace([`bench_${run}`]).catch(() => undefined);
    for (;;) {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `bench-convert/${run}/` }));
      const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key ?? '' }));
      if (keys.length === 0) break;
      await s3.send(new DeleteObjectsCommand({ Bucket: BUCKET, Delete: { Objects: keys } }));
    }
    s3.destroy();
  }
  rmSync(tmp, { recursive: true, force: true });
}

void main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
