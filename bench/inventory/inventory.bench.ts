// Inventory benchmark over a scale warehouse (dev/seed --scale N,M,K: N tables × M partitions):
// (a) a naive serial lister — one connection, get_table_objects_by_name_req in batches of 100, then
// get_partitions per table; (b) our ThriftHmsReader (pool, batching, calls-per-second limit);
// (c) our PostgresHmsReader on the HMS backing database. Each path runs in its own child process so
// its peak RSS is its own; prints tables/s, partitions/s, both ratios and peak RSS, the CPU seconds
// of the client, the HMS JVM and Postgres per path, and the server floor of the Thrift path (the
// HMS's and Postgres's CPU seconds for it over this host's cores).
// Run: npx tsx bench/inventory/inventory.bench.ts --hms-uri thrift://127.0.0.1:9083 \
//        --db-url postgres://postgres@127.0.0.1:15432/hms --prefix bench_scale_1000x10x1 [--scale 1000,10,1]
//        [--pool 8] [--cps 0] [--chunk 200] [--repeat 1]
import { execFileSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { PostgresHmsReader } from '../../adapters/hms/db/postgres';
import { openHms } from '../../adapters/hms/thrift/connection';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import type { HmsReader } from '../../core/hive/model';
import * as ttypes from '../../thrift-idl/gen/hive_metastore_types';
import { cpuPressure, hmsPid, serverCpuSince } from './server-cpu';
import type { ServerCpu } from './server-cpu';
import { flags } from '../common/flags';

type Path = 'naive' | 'thrift' | 'db';
interface Result {
  readonly path: Path;
  readonly tables: number;
  readonly partitions: number;
  readonly ms: number;
  readonly maxRssMb: number;
  /** CPU seconds of the bench process itself (user + system). */
  readonly clientCpu: number;
  /** CPU seconds the HMS JVM and Postgres spent meanwhile (measured by the parent, from /proc). */
  readonly server?: ServerCpu;
}

const args = flags(process.argv.slice(2));
const HMS_URI = args.get('hms-uri') ?? 'thrift://127.0.0.1:9083';
const DB_URL = args.get('db-url') ?? 'postgres://postgres@127.0.0.1:15432/hms';
const DB = args.get('prefix') ?? 'bench_scale_1000x10x1';
const POOL = Number(args.get('pool') ?? 8);
const CPS = Number(args.get('cps') ?? 0);
/** Tables per getTables call for our readers (cli/commands/inventory.ts uses 200); 0 = one call. */
const CHUNK = Number(args.get('chunk') ?? 200);
const NAIVE_BATCH = 100;

/** (a) What a first script would do: one connection, everything serial. */
async function naive(): Promise<{ tables: number; partitions: number }> {
  const conn = await openHms(HMS_URI, { connectTimeoutMs: 10_000, callTimeoutMs: 120_000 });
  try {
    const names = await conn.call('get_all_tables', (c) => c.get_all_tables(DB));
    const capabilities = new ttypes.ClientCapabilities({ values: [ttypes.ClientCapability.INSERT_ONLY_TABLES] });
    let tables = 0;
    let partitions = 0;
    for (let i = 0; i < names.length; i += NAIVE_BATCH) {
      const req = new ttypes.GetTablesRequest({ dbName: DB, tblNames: names.slice(i, i + NAIVE_BATCH), capabilities });
      const res = await conn.call('get_table_objects_by_name_req', (c) => c.get_table_objects_by_name_req(req));
      for (const t of res.tables ?? []) {
        tables += 1;
        if ((t.partitionKeys ?? []).length === 0) continue;
        partitions += (await conn.call('get_partitions', (c) => c.get_partitions(DB, t.tableName, -1))).length;
      }
    }
    return { tables, partitions };
  } finally {
    conn.close();
  }
}

/** listTables + getTables in chunks of CHUNK tables, as `migrate inventory` does (bounded memory); 0 = all at once. */
async function ours(reader: HmsReader): Promise<{ tables: number; partitions: number }> {
  try {
    const names = await reader.listTables(DB);
    const step = CHUNK === 0 ? names.length : CHUNK;
    let tables = 0;
    let partitions = 0;
    for (let i = 0; i < names.length; i += step) {
      const got = await reader.getTables(DB, names.slice(i, i + step));
      tables += got.length;
      partitions += got.reduce((n, t) => n + t.partitions.length, 0);
    }
    return { tables, partitions };
  } finally {
    await reader.close();
  }
}

/** Child mode: run one path, print its Result as JSON. */
async function runPath(path: Path): Promise<void> {
  const t0 = performance.now();
  const counts =
    path === 'naive'
      ? await naive()
      : path === 'thrift'
        ? await ours(new ThriftHmsReader({ uri: HMS_URI, poolSize: POOL, callsPerSecond: CPS, callTimeoutMs: 120_000 }))
        : await ours(await PostgresHmsReader.open(DB_URL));
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage();
  const r: Result = { path, ...counts, ms, maxRssMb: process.resourceUsage().maxRSS / 1024, clientCpu: (cpu.user + cpu.system) / 1e6 };
  process.stdout.write(`${JSON.stringify(r)}\n`);
}

function child(path: Path): Result {
  const since = serverCpuSince(hmsPid(Number(new URL(HMS_URI).port)));
  const out = execFileSync(process.execPath, [...process.execArgv, __filename, ...process.argv.slice(2), '--path', path], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const r = JSON.parse(out.trim().split('\n').pop() as string) as Result;
  return { ...r, server: since() };
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

const f1 = (n: number): string => n.toFixed(1);

function report(rs: readonly Result[]): void {
  for (const r of rs) {
    const s = r.ms / 1000;
    process.stdout.write(
      `${r.path.padEnd(7)} ${r.tables} tables, ${r.partitions} partitions in ${s.toFixed(2)} s → ${f1(r.tables / s)} tables/s, ${f1(r.partitions / s)} partitions/s; peak RSS ${f1(r.maxRssMb)} MB\n`,
    );
  }
  for (const r of rs) {
    const sv = r.server;
    if (sv === undefined) continue;
    process.stdout.write(
      `${r.path.padEnd(7)} CPU s: client ${r.clientCpu.toFixed(2)}, HMS JVM ${sv.hms.toFixed(2)}, postgres ${sv.postgres.toFixed(2)}\n`,
    );
  }
  const by = (p: Path): Result => rs.find((r) => r.path === p) as Result;
  // The server's own work for our Thrift inventory, spread over every core of this host with a
  // client that costs nothing: no Thrift client on this machine can finish faster than this.
  const ts = by('thrift').server;
  if (ts !== undefined && ts.hms > 0) {
    const cores = availableParallelism();
    const floor = (ts.hms + ts.postgres) / cores;
    process.stdout.write(
      `thrift server floor: (HMS ${ts.hms.toFixed(2)} + postgres ${ts.postgres.toFixed(2)} CPU s) / ${cores} cores = ${floor.toFixed(2)} s; ours ${(by('thrift').ms / 1000).toFixed(2)} s = ${(by('thrift').ms / 1000 / floor).toFixed(2)}x the floor; naive / floor = ${(by('naive').ms / 1000 / floor).toFixed(2)}x\n`,
    );
  }
  const counts = new Set(rs.map((r) => `${r.tables}/${r.partitions}`));
  if (counts.size !== 1) process.stdout.write(`WARNING: paths disagree on counts: ${[...counts].join(' vs ')}\n`);
  process.stdout.write(`ratio thrift vs naive: ${(by('naive').ms / by('thrift').ms).toFixed(2)}x faster\n`);
  process.stdout.write(`ratio db vs thrift:    ${(by('thrift').ms / by('db').ms).toFixed(2)}x faster\n`);
}

async function main(): Promise<void> {
  const path = args.get('path') as Path | undefined;
  if (path !== undefined) return runPath(path);
  ensureSeeded();
  process.stdout.write(
    `inventory bench: ${DB} on ${HMS_URI} (pool ${POOL}, calls/s ${CPS === 0 ? 'unlimited' : CPS}, chunk ${CHUNK === 0 ? 'all' : CHUNK}); load ${loadavg().map(f1).join(' ')}, CPU pressure ${cpuPressure()}\n`,
  );
  const repeat = Number(args.get('repeat') ?? 1);
  for (let i = 0; i < repeat; i++) report((['naive', 'thrift', 'db'] as const).map(child));
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
