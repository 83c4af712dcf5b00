// Rewrite-path benchmark: the shipped Spark job (jobs/rewrite.py) on a CSV text
// table of --mb MiB (LazySimpleSerDe, ',' delimited, one header line per file) on the stack:
// read from S3A, CTAS into a new Iceberg table through the REST catalog, row count + canonical content
// checksum on both sides. Timed end to end (spark-submit start → result) through the same
// engine/rewrite-job.ts runRewriteJob the worker's activity uses, with the job's own phases. The peer
// in the same run: a plain Spark read + count of the same CSV files (same spark-submit command line),
// which is what any rewrite must at least pay. Prints one JSON line; rows/s and MB/s are of the source.
//   npx tsx bench/rewrite/rewrite.bench.ts [--mb 1024] [--files 8] [--keep] [--conf spark.k=v ...] [--seed-only]
// Setup (not timed; kept when the table already holds the same size): database lb_rewrite_bench in
// HMS, files under s3://hive/lb/lb_rewrite_bench/csv_<mb>m/.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { RestCatalog } from '../../adapters/catalog/rest';
import { openHms } from '../../adapters/hms/thrift/connection';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { tableIdent } from '../../core/catalog/catalog';
import { rewriteSpec } from '../../core/rewrite/spec';
import { runRewriteJob } from '../../engine/rewrite-job';
import { putObject, s3Client } from '../../dev/seed/s3';
import { databaseObject, tableObject } from '../../dev/seed/thrift-objects';
import type { SeedTable } from '../../dev/seed/manifest';
import { stackRewriteCommand } from '../../test/helpers/rewrite';
import { testStack } from '../../test/helpers/stack-env';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] as string) : dflt;
};
const MB = Number(arg('mb', '1024'));
const FILES = Number(arg('files', '8'));
const DB = 'lb_rewrite_bench';
const NAME = `csv_${MB}m`;
const env = { ...testStack(), ...process.env } as Record<string, string>;
const s3cfg = {
  endpoint: env.HIM_S3_ENDPOINT ?? '',
  region: env.AWS_REGION ?? 'us-east-1',
  accessKeyId: env.AWS_ACCESS_KEY_ID ?? '',
  secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? '',
};

/** One file of ~bytes: `id,name,amount,ts` rows after a header line; returns the body and its rows. */
function csvFile(fileNo: number, bytes: number): { body: Buffer; rows: number } {
  const lines: string[] = ['id,name,amount,day'];
  let size = lines[0]!.length + 1;
  let id = fileNo * 100_000_000;
  while (size < bytes) {
    const l = `${id},customer ${id % 100_003},${(id * 37) % 1_000_003},2024-0${(id % 9) + 1}-1${id % 10}`;
    lines.push(l);
    size += l.length + 1;
    id++;
  }
  return { body: Buffer.from(`${lines.join('\n')}\n`), rows: lines.length - 1 };
}

async function seed(): Promise<{ rows: number; bytes: number }> {
  const s3 = s3Client(s3cfg);
  const root = `lb/${DB}/${NAME}`;
  const hms = await openHms(env.HIM_HMS_PG_URI ?? '', { connectTimeoutMs: 10_000, callTimeoutMs: 180_000 });
  try {
    const per = Math.ceil((MB * 2 ** 20) / FILES);
    let rows = 0;
    let bytes = 0;
    const done = await s3.send(new HeadObjectCommand({ Bucket: 'hive', Key: `${root}/_DONE` })).then(
      (h) => h.Metadata ?? {},
      () => null,
    );
    const registered = await hms
      .call('get_all_tables', (c) => c.get_all_tables(DB))
      .then(
        (names) => names.includes(NAME),
        () => false,
      );
    if (done !== null && registered) return { rows: Number(done.rows), bytes: Number(done.bytes) };
    if (done !== null) {
      rows = Number(done.rows);
      bytes = Number(done.bytes);
    }
    for (let f = 0; done === null && f < FILES; f++) {
      const { body, rows: r } = csvFile(f, per);
      await putObject(s3, 'hive', `${root}/part-${f}.csv`, body);
      rows += r;
      bytes += body.length;
    }
    // Tables of other sizes stay registered beside this one (the database is shared by every --mb).
    await hms.call('create_database', (c) => c.create_database(databaseObject(DB, `s3a://hive/lb/${DB}`))).catch(() => undefined);
    await hms.call('drop_table', (c) => c.drop_table(DB, NAME, false)).catch(() => undefined);
    const t: SeedTable = {
      db: DB,
      name: NAME,
      kind: 'external',
      tableType: 'EXTERNAL_TABLE',
      format: 'text',
      owner: 'bench',
      columns: [
        { name: 'id', type: 'bigint', comment: '' },
        { name: 'name', type: 'string', comment: '' },
        { name: 'amount', type: 'int', comment: '' },
        { name: 'day', type: 'date', comment: '' },
      ],
      partitionKeys: [],
      location: `s3a://hive/${root}`,
      params: { EXTERNAL: 'TRUE', 'skip.header.line.count': '1' },
      storage: {
        inputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
        outputFormat: 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat',
        serde: 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe',
        serdeParams: { 'field.delim': ',' },
      },
      numBuckets: -1,
      bucketCols: [],
      sortCols: [],
      skew: null,
      viewOriginalText: null,
      viewExpandedText: null,
      partitions: [],
      files: [],
      rows,
      checksum: null,
      hints: [],
    };
    await hms.call('create_table', (c) => c.create_table(tableObject(t, 1_717_200_000)));
    if (done !== null) return { rows, bytes };
    await s3.send(
      new (await import('@aws-sdk/client-s3')).PutObjectCommand({
        Bucket: 'hive',
        Key: `${root}/_DONE`,
        Body: '',
        Metadata: { rows: String(rows), bytes: String(bytes) },
      }),
    );
    return { rows, bytes };
  } finally {
    hms.close();
    s3.destroy();
  }
}

const PEER = `
import sys, time
from pyspark.sql import SparkSession
s = SparkSession.builder.getOrCreate()
t = time.monotonic()
n = s.read.option("header", "true").schema("id BIGINT, name STRING, amount INT, day DATE").csv(sys.argv[1]).count()
print(f'{{"rows": {n}, "seconds": {time.monotonic() - t:.2f}}}')
s.stop()
`;

function load(): string {
  return os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const src = await seed();
  const setup = (performance.now() - t0) / 1000;
  if (process.argv.includes('--seed-only')) {
    process.stdout.write(`${JSON.stringify({ seeded: src, setupSeconds: Number(setup.toFixed(1)) })}\n`);
    return;
  }
  const c = stackRewriteCommand(env, { shortJobs: false });
  // --conf k=v (repeatable): extra spark-submit settings, e.g. spark.driver.memory=2g (the last one wins).
  process.argv.forEach((a, i) => {
    if (a === '--conf') c.command.push('--conf', process.argv[i + 1] as string);
  });
  const reader = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI ?? '' });
  const [inv] = await reader.getTables(DB, [NAME]);
  await reader.close();
  if (inv === undefined) throw new Error('bench table missing in HMS');
  const stamp = Date.now().toString(36);
  const ns = `bench_rewrite_${stamp}`;
  const spec = rewriteSpec({
    inv,
    planHash: `bench-${stamp}`,
    tableId: `${DB}.${NAME}`,
    target: { namespace: ns, name: NAME },
    warehouse: 's3://warehouse/bench-rewrite',
    catalogProperties: {
      type: 'rest',
      uri: env.HIM_ICEBERG_REST_URI ?? '',
      'io-impl': 'org.apache.iceberg.aws.s3.S3FileIO',
      's3.endpoint': env.HIM_S3_ENDPOINT ?? '',
      's3.path-style-access': 'true',
      'client.region': env.AWS_REGION ?? 'us-east-1',
    },
  });
  const work = mkdtempSync(path.join(os.tmpdir(), 'him-rewrite-bench-'));
  const loadBefore = load();
  const t1 = performance.now();
  const res = await runRewriteJob(spec, { command: c.command, env: c.env, workDir: work, timeoutMs: 3 * 3600_000 });
  const jobSeconds = (performance.now() - t1) / 1000;
  const loadAfter = load();
  // Peer: plain Spark read + count of the same files, same command line.
  const peerFile = path.join(work, 'peer_count.py');
  writeFileSync(peerFile, PEER);
  const t2 = performance.now();
  const peerOut =
    execFileSync(c.command[0]!, [...c.command.slice(1), peerFile, inv.table.sd.location ?? ''], {
      env: { ...process.env, ...c.env },
      maxBuffer: 64 << 20,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim()
      .split('\n')
      .pop() ?? '{}';
  const peerSeconds = (performance.now() - t2) / 1000;
  const peer = JSON.parse(peerOut) as { rows: number; seconds: number };
  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI ?? '' });
  if (!process.argv.includes('--keep')) {
    await catalog.dropTable(tableIdent([ns], NAME)).catch(() => undefined);
    await catalog.dropNamespace([ns]).catch(() => undefined);
  }
  const mbs = src.bytes / 2 ** 20;
  process.stdout.write(
    `${JSON.stringify({
      source: { rows: src.rows, bytes: src.bytes, files: FILES },
      setupSeconds: Number(setup.toFixed(1)),
      job: {
        status: res.status,
        match: res.match,
        seconds: Number(jobSeconds.toFixed(1)),
        phases: (res as { phases?: unknown }).phases,
        rowsPerSecond: Math.round(src.rows / jobSeconds),
        mbPerSecond: Number((mbs / jobSeconds).toFixed(2)),
        bytesWritten: res.bytesWritten,
        files: res.files?.length,
      },
      peer: {
        rows: peer.rows,
        seconds: Number(peerSeconds.toFixed(1)),
        countSeconds: peer.seconds,
        rowsPerSecond: Math.round(src.rows / peerSeconds),
        mbPerSecond: Number((mbs / peerSeconds).toFixed(2)),
      },
      load: { before: loadBefore, after: loadAfter, cores: os.cpus().length },
      workDir: work,
    })}\n`,
  );
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
