// Where does the time of one inventory go? Runs our Thrift (or DB) inventory of one database and
// prints the CPU seconds spent by this process, the HMS JVM and the Postgres backends in that window
// (from /proc, Linux only), next to the wall time. Use it before optimising either side.
// Run: npx tsx bench/inventory/cpu-split.ts --prefix benchval_scale_1000x20x1 [--hms-pid <pid>] [--source thrift|db] [--pool 8]
import { performance } from 'node:perf_hooks';
import { PostgresHmsReader } from '../../adapters/hms/db/postgres';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';
import type { HmsReader } from '../../core/hive/model';
import { cpuOf, hmsPid as serverPid, postgresCpu } from './server-cpu';

const argv = process.argv.slice(2);
const arg = (k: string, d: string): string => {
  const i = argv.indexOf(`--${k}`);
  return i >= 0 && argv[i + 1] !== undefined ? (argv[i + 1] as string) : d;
};

async function main(): Promise<void> {
  const db = arg('prefix', 'benchval_scale_1000x20x1');
  const uri = arg('hms-uri', 'thrift://127.0.0.1:9083');
  const hmsPid = Number(arg('hms-pid', String(serverPid(Number(new URL(uri).port)) ?? 0)));
  const source = arg('source', 'thrift');
  const reader: HmsReader =
    source === 'db'
      ? await PostgresHmsReader.open(arg('db-url', 'postgres://postgres@127.0.0.1:15432/hms'))
      : new ThriftHmsReader({ uri, poolSize: Number(arg('pool', '8')), callsPerSecond: 0, callTimeoutMs: 120_000 });
  const c0 = process.cpuUsage();
  const h0 = cpuOf(hmsPid);
  const p0 = postgresCpu();
  const t0 = performance.now();
  const names = await reader.listTables(db);
  let parts = 0;
  const step = Number(arg('chunk', '200')) || names.length;
  for (let i = 0; i < names.length; i += step)
    for (const t of await reader.getTables(db, names.slice(i, i + step))) parts += t.partitions.length;
  const wall = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  await reader.close();
  const f = (n: number): string => n.toFixed(2);
  process.stdout.write(
    `${source}: ${names.length} tables, ${parts} partitions in ${f(wall)} s wall; CPU s: node ${f((c.user + c.system) / 1e6)}, HMS ${f(cpuOf(hmsPid) - h0)}, postgres ${f(postgresCpu() - p0)}\n`,
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
