// Conversion benchmark: N small Parquet files in a Hive layout (`dt=<day>/part-<i>.parquet`,
// the partition column also stored in each file so that PyIceberg add_files is correct), on the
// stack's S3 server or on local disk. Ours (bench/convert/ours.ts, one fresh process per footer
// concurrency): prepare + list + footers + manifests + metadata.json (+ REST register on S3), timed,
// peak RSS of that process. The peer in the same run: PyIceberg `add_files` on the same files.
// Prints files/s for each, the ratio of our best to the peer and our peak RSS. Everything it makes
// (S3 prefix, local dirs, REST tables and namespace) is removed afterwards, also on failure.
//   npx tsx bench/convert/convert.bench.ts [--files 20000] [--columns 20] [--partitions 100] [--local]
//        [--concurrency 32,64,128] [--no-peer] [--peer-workers N] [--cpu-prof] [--warm]
//   --warm: our timed runs follow an untimed 2-partition conversion in the same process (threads up,
//   code compiled: a long-running worker); the peer's timing covers its add_files call only either way.
//   npx tsx bench/convert/convert.bench.ts --million [--files 1000000]   (local disk, tiny files, ours only)
//   --transport raw,undici [--repeat 3]: A/B of the footer threads' HTTP transport (HIM_THREAD_HTTP,
//   bench/convert/thread-transports.ts, in a bench build of the thread body: transport-ab-bundle.ts)
//   on the same files: runs alternate A, B, A, B… (`--repeat` rounds, each transport once per round
//   and concurrency); prints every run and the median per transport.
// Our runs' footer threads load the thread body bundled once for this bench (dev/thread-bundle.ts),
// as the compiled tool's do.
import { execFileSync } from 'node:child_process';
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DeleteObjectsCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mapOrdered } from '../../core/ordered-pool';
import { RestCatalog } from '../../adapters/catalog/rest';
import { tableIdent } from '../../core/catalog/catalog';
import { testStack } from '../../test/helpers/stack-env';
import type { OursJob, OursResult } from './ours';
import { auditLine, encodingAuditCost } from './encoding-audit';
import { useSourceThreadBundle } from '../../dev/thread-bundle';
import { buildTransportAbBundle } from './transport-ab-bundle';
import { THREAD_HTTP_TRANSPORTS } from './thread-transports';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? dflt) : dflt;
};
const MILLION = process.argv.includes('--million');
const LOCAL = MILLION || process.argv.includes('--local');
const FILES = Number(arg('files', MILLION ? '1000000' : '20000'));
const COLUMNS = Number(arg('columns', MILLION ? '2' : '20'));
const PARTITIONS = Number(arg('partitions', MILLION ? '1000' : '100'));
const CONCURRENCIES = arg('concurrency', MILLION ? '64' : '32,64,128')
  .split(',')
  .map(Number);
const SKIP_PEER = MILLION || process.argv.includes('--no-peer');
const PEER_WORKERS = arg('peer-workers', '');
const CPU_PROF = process.argv.includes('--cpu-prof');
/** `--warm`: each timed run follows an untimed 2-partition conversion in the same process (ours.ts). */
const WARM = process.argv.includes('--warm');
/** `--guard-ab`: each concurrency also without the conversion's reader guard (readers.required []), same peer. */
const GUARD_AB = process.argv.includes('--guard-ab');
/** `--transport a,b`: the footer threads' HTTP transports to alternate (HIM_THREAD_HTTP); none = as configured. */
const TRANSPORTS = arg('transport', '')
  .split(',')
  .filter((t) => t !== '');
const REPEAT = Number(arg('repeat', TRANSPORTS.length > 0 ? '3' : '1'));
for (const t of TRANSPORTS)
  if (!(THREAD_HTTP_TRANSPORTS as readonly string[]).includes(t))
    throw new Error(`--transport ${t}: one of ${THREAD_HTTP_TRANSPORTS.join(', ')}`);
const BUCKET = 'warehouse';

interface Generated {
  readonly variants: readonly { name: string; dt: string }[];
  readonly columns: readonly [string, string][];
}

interface Bench {
  readonly env: Record<string, string>;
  readonly run: string;
  readonly tmp: string;
  readonly gen: Generated;
  readonly perPartition: number;
  readonly days: readonly string[];
  location: string;
  s3?: S3Client;
  namespace?: string;
  readonly tables: string[];
}

const log = (m: string): void => void process.stderr.write(`[bench] ${m}\n`);

/** Relative path of file i (partition-major, so each partition directory is one location). */
function relPath(b: Bench, i: number): { rel: string; variant: string } {
  const p = Math.floor(i / b.perPartition);
  const v = b.gen.variants[p % b.gen.variants.length] as { name: string };
  return { rel: `dt=${b.days[p]}/part-${String(i % b.perPartition).padStart(6, '0')}.parquet`, variant: v.name };
}

function generate(py: string, dir: string): Generated {
  // One variant per partition (each with its own `dt` value inside); every other file of that
  // partition is a byte copy of it: the footer is what the conversion reads.
  const out = execFileSync(py, [
    path.join(__dirname, 'gen_files.py'),
    dir,
    '--variants',
    String(PARTITIONS),
    '--columns',
    String(COLUMNS),
    '--rows',
    MILLION ? '2' : '200',
    '--partitions',
    String(PARTITIONS),
  ]);
  return JSON.parse(out.toString()) as Generated;
}

function placeLocal(b: Bench): void {
  const dataDir = path.join(b.tmp, 't');
  for (const d of b.days) mkdirSync(path.join(dataDir, `dt=${d}`), { recursive: true });
  const first = new Map<string, string>();
  for (let i = 0; i < FILES; i++) {
    const f = relPath(b, i);
    const dst = path.join(dataDir, f.rel);
    const src = first.get(f.variant);
    // Hard links: a million files without a million copies (each has its own directory entry).
    if (src === undefined) {
      copyFileSync(path.join(b.tmp, 'variants', f.variant), dst);
      first.set(f.variant, dst);
    } else linkSync(src, dst);
  }
  b.location = `file://${dataDir}`;
}

async function placeS3(b: Bench): Promise<void> {
  const s3 = new S3Client({ endpoint: b.env.HIM_S3_ENDPOINT, region: b.env.AWS_REGION, forcePathStyle: true });
  b.s3 = s3;
  const prefix = `bench-convert/${b.run}/t`;
  const bytes = new Map(b.gen.variants.map((v) => [v.name, readFileSync(path.join(b.tmp, 'variants', v.name))]));
  const idx = Array.from({ length: FILES }, (_, i) => i);
  for await (const _ of mapOrdered(idx, 32, (i) => {
    const f = relPath(b, i);
    return s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${prefix}/${f.rel}`, Body: bytes.get(f.variant) }));
  }));
  b.location = `s3://${BUCKET}/${prefix}`;
}

function runOurs(b: Bench, concurrency: number, transport?: string, round = 0, noGuard = false): OursResult {
  const name = `ours_c${concurrency}${transport === undefined ? '' : `_${transport}_${round}`}${noGuard ? '_noguard' : ''}`;
  const job: OursJob = {
    location: b.location,
    columns: b.gen.columns,
    days: b.days.slice(0, Math.ceil(FILES / b.perPartition)),
    footerConcurrency: concurrency,
    ...(WARM ? { warm: 2 } : {}),
    ...(noGuard ? { readersRequired: [] } : {}),
    // A distinct identity per run: distinct metadata file names, so no run finds another's files.
    planHash: `bench-${b.run}-${name}`,
    ...(LOCAL
      ? {}
      : {
          register: { uri: b.env.HIM_ICEBERG_REST_URI as string, namespace: b.namespace as string, table: name },
          s3: { endpoint: b.env.HIM_S3_ENDPOINT as string, region: b.env.AWS_REGION as string },
        }),
  };
  if (!LOCAL) b.tables.push(name);
  const prof = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.join(process.cwd(), 'bench-convert-prof')}`] : [];
  const env = transport === undefined ? process.env : { ...process.env, HIM_THREAD_HTTP: transport };
  const out = execFileSync(process.execPath, [...prof, '--import', 'tsx', path.join(__dirname, 'ours.ts'), JSON.stringify(job)], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.toString().trim().split('\n').pop() ?? '{}') as OursResult;
}

interface PeerResult {
  readonly files: number;
  readonly seconds: number;
  readonly rows: number;
  readonly manifests: number;
}

function runPeer(b: Bench): PeerResult {
  const list = path.join(b.tmp, 'files.txt');
  writeFileSync(list, Array.from({ length: FILES }, (_, i) => `${b.location}/${relPath(b, i).rel}`).join('\n'));
  const args = LOCAL
    ? ['--catalog', 'sql', '--warehouse', path.join(b.tmp, 'pywh'), '--table', 'bench.peer', '--list', list]
    : [
        '--catalog',
        'rest',
        '--uri',
        b.env.HIM_ICEBERG_REST_URI as string,
        '--s3-endpoint',
        b.env.HIM_S3_ENDPOINT as string,
        '--table',
        `${b.namespace}.peer`,
        '--location',
        `s3://${BUCKET}/bench-convert/${b.run}/peer`,
        '--list',
        list,
        '--drop',
      ];
  if (!LOCAL) b.tables.push('peer');
  const env = PEER_WORKERS ? { ...process.env, PYICEBERG_MAX_WORKERS: PEER_WORKERS } : process.env;
  const out = execFileSync(b.env.HIM_VERIFIER_PYTHON as string, [path.join(__dirname, 'pyiceberg_add_files.py'), ...args], {
    env,
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.toString().trim().split('\n').pop() ?? '{}') as PeerResult;
}

function report(b: Bench, ours: readonly (OursResult & { concurrency: number })[], peer: PeerResult | undefined): string[] {
  const where = `${LOCAL ? 'local disk' : 'S3 server'}${WARM ? ', ours warm' : ''}`;
  const best = ours.reduce((x, y) => (y.dataFiles / y.seconds > x.dataFiles / x.seconds ? y : x));
  const rate = (r: OursResult): number => r.dataFiles / r.seconds;
  const lines = [
    `convert (${where}): ${best.dataFiles} files × ${COLUMNS} columns, ${best.partitions} partitions, ${best.records} rows; load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  ];
  for (const r of ours) {
    lines.push(
      `  ours @ footer concurrency ${r.concurrency}: ${r.seconds.toFixed(2)} s = ${rate(r).toFixed(0)} files/s${r.registered ? ` (incl. REST register: ${r.registered})` : ''} · peak RSS ${r.maxRssMb} MB (VmHWM ${r.vmHwmMb ?? '?'} MB, heap at end ${r.heapUsedMb} MB) · CPU ${r.cpuSeconds.toFixed(2)} s = ${((r.cpuSeconds * 1e6) / r.dataFiles).toFixed(0)} µs per file · ${r.metadataFiles} metadata files`,
    );
  }
  lines.push(
    `  ours best: ${rate(best).toFixed(0)} files/s at footer concurrency ${best.concurrency}, peak RSS ${Math.max(...ours.map((r) => r.maxRssMb))} MB`,
  );
  if (peer) {
    const peerRate = peer.files / peer.seconds;
    lines.push(
      `  PyIceberg add_files${PEER_WORKERS ? ` (PYICEBERG_MAX_WORKERS=${PEER_WORKERS})` : ''}: ${peer.seconds.toFixed(2)} s = ${peerRate.toFixed(0)} files/s (same files, same row count ${peer.rows}, ${peer.manifests} manifests)`,
    );
    lines.push(`convert vs add_files: ${(rate(best) / peerRate).toFixed(2)}x (${where}, ${COLUMNS} columns)`);
  }
  return lines;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((x, y) => x - y);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** `--transport`: every run in order, then the median files/s and CPU per file of each transport. */
function abReport(runs: readonly (OursResult & { concurrency: number; transport: string; round: number })[]): string[] {
  const lines = ['footer-thread HTTP transport A/B (runs in the order they ran):'];
  for (const r of runs)
    lines.push(
      `  round ${r.round} ${r.transport} @ ${r.concurrency}: ${r.seconds.toFixed(2)} s = ${(r.dataFiles / r.seconds).toFixed(0)} files/s · CPU ${((r.cpuSeconds * 1e6) / r.dataFiles).toFixed(0)} µs per file · peak RSS ${r.maxRssMb} MB`,
    );
  const med = TRANSPORTS.map((t) => {
    const mine = runs.filter((r) => r.transport === t);
    return {
      t,
      rate: median(mine.map((r) => r.dataFiles / r.seconds)),
      cpu: median(mine.map((r) => (r.cpuSeconds * 1e6) / r.dataFiles)),
      n: mine.length,
    };
  });
  for (const m of med) lines.push(`  median ${m.t}: ${m.rate.toFixed(0)} files/s, ${m.cpu.toFixed(0)} µs CPU per file (${m.n} runs)`);
  const [a, b] = med;
  if (a !== undefined && b !== undefined)
    lines.push(`transport ${b.t} vs ${a.t}: ${(b.rate / a.rate).toFixed(3)}x files/s, ${(b.cpu / a.cpu).toFixed(3)}x CPU per file`);
  return lines;
}

async function cleanup(b: Bench): Promise<void> {
  if (b.namespace !== undefined) {
    const catalog = await RestCatalog.connect({ uri: b.env.HIM_ICEBERG_REST_URI as string });
    // dropTable never purges (adapters/catalog/rest.ts); the files go with the prefix below.
    for (const t of b.tables) await catalog.dropTable(tableIdent([b.namespace], t)).catch((e: unknown) => log(`drop ${t}: ${String(e)}`));
    await catalog.dropNamespace([b.namespace]).catch((e: unknown) => log(`drop namespace: ${String(e)}`));
  }
  if (b.s3 !== undefined) {
    for (;;) {
      const page = await b.s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `bench-convert/${b.run}/` }));
      const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key ?? '' }));
      if (keys.length === 0) break;
      await b.s3.send(new DeleteObjectsCommand({ Bucket: BUCKET, Delete: { Objects: keys } }));
    }
    b.s3.destroy();
  }
  const t = performance.now();
  rmSync(b.tmp, { recursive: true, force: true });
  log(`cleaned up (${((performance.now() - t) / 1000).toFixed(1)} s for the local temp dir)`);
}

async function bench(b: Bench): Promise<void> {
  const t = performance.now();
  if (LOCAL) placeLocal(b);
  else await placeS3(b);
  log(`${FILES} files in place at ${b.location} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  if (!LOCAL) {
    b.namespace = `bench_convert_${b.run}`;
    await (await RestCatalog.connect({ uri: b.env.HIM_ICEBERG_REST_URI as string })).createNamespace([b.namespace]);
  }
  if (TRANSPORTS.length > 0) {
    const runs: (OursResult & { concurrency: number; transport: string; round: number })[] = [];
    for (let round = 1; round <= REPEAT; round++) {
      for (const transport of TRANSPORTS) {
        for (const c of CONCURRENCIES) {
          const r = runOurs(b, c, transport, round);
          if (r.dataFiles !== FILES) throw new Error(`ours wrote ${r.dataFiles} data files, expected ${FILES}`);
          log(`round ${round} ${transport} @ ${c}: ${r.seconds.toFixed(2)} s, CPU ${r.cpuSeconds.toFixed(2)} s`);
          runs.push({ ...r, concurrency: c, transport, round });
        }
      }
    }
    process.stdout.write(`${report(b, runs, undefined).join('\n')}\n${abReport(runs).join('\n')}\n`);
    return;
  }
  const ours = CONCURRENCIES.map((c) => {
    const r = runOurs(b, c);
    if (r.dataFiles !== FILES) throw new Error(`ours wrote ${r.dataFiles} data files, expected ${FILES}`);
    log(`ours @ ${c}: ${r.seconds.toFixed(2)} s, CPU ${r.cpuSeconds.toFixed(2)} s, RSS ${r.maxRssMb} MB`);
    return { ...r, concurrency: c };
  });
  const unguarded = GUARD_AB
    ? CONCURRENCIES.map((c) => {
        const r = runOurs(b, c, undefined, 0, true);
        log(`ours without the reader guard @ ${c}: ${r.seconds.toFixed(2)} s, CPU ${r.cpuSeconds.toFixed(2)} s`);
        return { ...r, concurrency: c };
      })
    : [];
  const peer = SKIP_PEER ? undefined : runPeer(b);
  const first = ours[0] as OursResult;
  if (peer && peer.rows !== first.records) throw new Error(`add_files counted ${peer.rows} rows, we counted ${first.records}`);
  // The plan's encoding audit, on this run's variants: its cost per footer beside the conversion's.
  const variants = b.gen.variants.map((v) => path.join(b.tmp, 'variants', v.name));
  const audit = await encodingAuditCost(variants);
  const ab = unguarded.length === 0 ? [] : ['without the reader guard (readers.required: []):', ...report(b, unguarded, peer)];
  process.stdout.write(`${[...report(b, ours, peer), ...ab].join('\n')}\n${auditLine(audit)}\n`);
}

async function main(): Promise<void> {
  const env = testStack();
  Object.assign(process.env, env);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'him-bench-convert-'));
  const b: Bench = {
    env,
    run: Date.now().toString(36),
    tmp,
    gen: { variants: [], columns: [] },
    perPartition: Math.ceil(FILES / PARTITIONS),
    days: [],
    location: '',
    tables: [],
  };
  try {
    // Inherited by each run's process (runOurs) and its footer threads.
    if (TRANSPORTS.length > 0) process.env.HIM_FOOTER_WORKER_BUNDLE = await buildTransportAbBundle();
    else await useSourceThreadBundle();
    const gen = generate(env.HIM_VERIFIER_PYTHON as string, path.join(tmp, 'variants'));
    Object.assign(b, { gen, days: gen.variants.map((v) => v.dt) });
    log(
      `${FILES} files, ${COLUMNS} columns, ${PARTITIONS} partitions, ${LOCAL ? 'local disk' : 's3'}, footer concurrency ${CONCURRENCIES.join('/')}; uptime load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    await bench(b);
  } finally {
    await cleanup(b);
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
