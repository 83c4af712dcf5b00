// `plan` by HMS source (Thrift or the backing DB): the whole plan pipeline (plan-pipeline.ts: read → assess → graph
// → waves → build + serialize) over one scale warehouse, in one run, from each source in its own
// child process (peak RSS is its own): Thrift with the product's defaults (ThriftHmsReader pool 4,
// 200 calls/s, as app/runtime/runtime.ts openHmsReader), Thrift unlimited (pool 4, no calls/s limit),
// and the HMS backing database (PostgresHmsReader). Prints per source the time of each step,
// tables/s, peak RSS, client and server CPU seconds, the ratios DB vs Thrift, and whether every
// source gave the same plan (table ids, kind, class, risk, fingerprint, files, bytes, team, finding
// codes, wave; and the plan hash, the header being fixed). A fingerprint that differs is explained
// field by field. No storage sample, no catalog check (no S3/catalog I/O on any source).
// Run: npx tsx bench/plan/plan-source.bench.ts --hms-uri thrift://127.0.0.1:9083 \
//        --db-url postgres://postgres@127.0.0.1:15432/hms --prefix bench_scale_10000x10x1 [--scale 10000,10,1]
//        [--sources thrift-default,thrift-unlimited,db]
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { PostgresHmsReader } from '../../adapters/hms/db/postgres';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import { tableFingerprint } from '../../core/hive/fingerprint';
import type { HmsReader } from '../../core/hive/model';
import { cpuPressure, hmsPid, serverCpuSince } from '../inventory/server-cpu';
import type { ServerCpu } from '../inventory/server-cpu';
import { compareDigests, explainFingerprints, isSame, renderDiff } from './plan-compare';
import { runPlanPipeline, tableDigests, timed } from './plan-pipeline';
import type { StepMs } from './plan-pipeline';
import { flags } from '../common/flags';

const SOURCES = ['thrift-default', 'thrift-unlimited', 'db'] as const;
type Source = (typeof SOURCES)[number];

interface Result {
  readonly source: Source;
  readonly tables: number;
  readonly partitions: number;
  readonly ms: StepMs;
  readonly waves: number;
  readonly planBytes: number;
  readonly hash: string;
  readonly maxRssMb: number;
  readonly clientCpu: number;
  /** After the pipeline, outside its times: tableFingerprint of every table alone (part of assess). */
  readonly fingerprintMs: number;
  readonly digests: string[][];
  readonly server?: ServerCpu;
  readonly load?: string;
}

const args = flags(process.argv.slice(2));
const HMS_URI = args.get('hms-uri') ?? 'thrift://127.0.0.1:9083';
const DB_URL = args.get('db-url') ?? 'postgres://postgres@127.0.0.1:15432/hms';
const DB = args.get('prefix') ?? 'bench_scale_10000x10x1';

/** The readers under test; the default one is what the CLI opens with a default config. */
async function openSource(s: Source): Promise<HmsReader> {
  if (s === 'db') return PostgresHmsReader.open(DB_URL);
  return new ThriftHmsReader({
    uri: HMS_URI,
    connectTimeoutMs: 10_000,
    callTimeoutMs: 60_000,
    callsPerSecond: s === 'thrift-default' ? 200 : 0,
  });
}

/** Child mode: run the pipeline from one source, print its Result as JSON. */
async function runSource(s: Source): Promise<void> {
  const out = await runPlanPipeline(await openSource(s), DB, HMS_URI);
  const maxRssMb = process.resourceUsage().maxRSS / 1024;
  const cpu = process.cpuUsage();
  const [, fingerprintMs] = await timed(() => out.inventory.map(tableFingerprint));
  const { tables, partitions, ms, planBytes } = out;
  const r: Result = {
    source: s,
    tables,
    partitions,
    ms,
    waves: out.plan.waves.length,
    planBytes,
    hash: out.plan.hash,
    maxRssMb,
    clientCpu: (cpu.user + cpu.system) / 1e6,
    fingerprintMs,
    digests: tableDigests(out),
  };
  process.stdout.write(`${JSON.stringify(r)}\n`);
}

const f1 = (n: number): string => n.toFixed(1);
const load = (): string => loadavg().map(f1).join(' ');

function child(s: Source): Result {
  const before = load();
  const since = serverCpuSince(hmsPid(Number(new URL(HMS_URI).port)));
  const out = execFileSync(process.execPath, [...process.execArgv, __filename, ...process.argv.slice(2), '--source', s], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 256 * 2 ** 20,
  });
  const r = JSON.parse(out.trim().split('\n').pop() as string) as Result;
  return { ...r, server: since(), load: `${before} → ${load()}` };
}

/** Seed the scale warehouse through dev/seed when it is missing (the seeder reuses an existing one). */
function ensureSeeded(): void {
  const scale = args.get('scale');
  if (scale === undefined) return;
  const m = /^(.+)_scale_\d+x\d+x\d+$/.exec(DB);
  if (m?.[1] === undefined) throw new Error(`--prefix must be <p>_scale_NxMxK with --scale, got '${DB}'`);
  execFileSync('npx', ['tsx', 'dev/seed/main.ts', '--hms', HMS_URI, '--prefix', m[1], '--scale', scale], {
    cwd: `${__dirname}/../..`,
    stdio: 'inherit',
  });
}

const total = (ms: StepMs): number => ms.read + ms.assess + ms.graph + ms.waves + ms.plan;
const sec = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

function reportOne(r: Result): void {
  const rest = r.ms.assess + r.ms.graph + r.ms.waves + r.ms.plan;
  const t = total(r.ms) / 1000;
  const w = process.stdout.write.bind(process.stdout);
  w(
    `${r.source.padEnd(16)} ${r.tables} tables, ${r.partitions} partitions: total ${sec(total(r.ms))} = read ${sec(r.ms.read)} + assess/graph/waves/plan ${sec(rest)} `,
  );
  w(
    `(assess ${sec(r.ms.assess)} [fingerprints alone, measured after: ${sec(r.fingerprintMs)}], graph ${sec(r.ms.graph)}, waves ${sec(r.ms.waves)}, build+serialize ${sec(r.ms.plan)}) → ${f1(r.tables / t)} tables/s; `,
  );
  w(`peak RSS ${f1(r.maxRssMb)} MB; ${r.waves} waves, plan ${(r.planBytes / 1e6).toFixed(2)} MB, hash ${r.hash.slice(0, 12)}…\n`);
  const sv = r.server;
  w(
    `${''.padEnd(16)} CPU s: client ${r.clientCpu.toFixed(2)}, HMS JVM ${sv?.hms.toFixed(2) ?? '-'}, postgres ${sv?.postgres.toFixed(2) ?? '-'}; load ${r.load ?? '-'}\n`,
  );
}

function ratios(rs: readonly Result[]): void {
  const db = rs.find((r) => r.source === 'db');
  if (db === undefined) return;
  for (const th of rs.filter((r) => r.source !== 'db')) {
    process.stdout.write(
      `ratio db vs ${th.source}: total ${(total(th.ms) / total(db.ms)).toFixed(2)}x faster, read ${(th.ms.read / db.ms.read).toFixed(2)}x faster, peak RSS ${(db.maxRssMb / th.maxRssMb).toFixed(2)}x\n`,
    );
  }
}

/** Every source against the first; fingerprint differences explained from fresh reads. Returns whether all agree. */
async function parity(rs: readonly Result[]): Promise<boolean> {
  const [base, ...others] = rs;
  if (base === undefined) return true;
  let same = true;
  for (const r of others) {
    const d = compareDigests(base.digests, r.digests);
    process.stdout.write(renderDiff(base.source, r.source, d));
    process.stdout.write(`plan hash ${base.source} ${base.hash === r.hash ? '=' : '≠'} ${r.source}\n`);
    same &&= isSame(d) && base.hash === r.hash;
    const fp = d.fields.get('fingerprint') ?? [];
    if (fp.length === 0) continue;
    const [a, b] = [await openSource(base.source), await openSource(r.source)];
    try {
      process.stdout.write(`${(await explainFingerprints(fp.slice(0, 3), a, b)).join('\n')}\n`);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }
  return same;
}

async function main(): Promise<void> {
  const s = args.get('source') as Source | undefined;
  if (s !== undefined) return runSource(s);
  ensureSeeded();
  const sources = (args.get('sources')?.split(',') ?? [...SOURCES]) as Source[];
  process.stdout.write(
    `plan-source bench: ${DB} on ${HMS_URI} / ${DB_URL.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@')}; node ${process.version}; load ${load()}, CPU pressure ${cpuPressure()}\n`,
  );
  const rs = sources.map(child);
  rs.forEach(reportOne);
  ratios(rs);
  if (!(await parity(rs))) process.exitCode = 2;
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
