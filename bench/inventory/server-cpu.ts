// CPU seconds of the server side of an inventory, read from /proc (Linux): the HMS JVM serving a
// port and every Postgres process on this host. A bench samples them before and after a run; the
// difference is the work the server did for that client, whatever the client's own cost.
import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ on Linux. */
const TICK = 100;

/**
 * utime + stime of a process in seconds (/proc/<pid>/stat fields 14 and 15), plus cutime + cstime
 * (16, 17: its reaped children's) with `children`; 0 once it is gone.
 */
export function cpuOf(pid: number, children = false): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
    const own = Number(rest[11]) + Number(rest[12]);
    return (children ? own + Number(rest[13]) + Number(rest[14]) : own) / TICK;
  } catch {
    return 0;
  }
}

function pids(): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) if (/^\d+$/.test(d)) out.push(Number(d));
  return out;
}

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/**
 * Postgres postmaster and backends (every cluster on the host: the stack runs one), with the
 * backends that have exited already (the postmaster's reaped children): a client's connections
 * that close before the second sample still count.
 */
export function postgresCpu(): number {
  let s = 0;
  for (const pid of pids()) if (read(`/proc/${pid}/comm`).trim().startsWith('postgres')) s += cpuOf(pid, true);
  return s;
}

/** The host's CPU pressure (share of time some task waited for a CPU, last 60 s), when the kernel reports it. */
export function cpuPressure(): string {
  const m = /avg60=([\d.]+)/.exec(read('/proc/pressure/cpu'));
  return m?.[1] === undefined ? 'n/a' : `${m[1]}%`;
}

/** The HMS JVM listening on `port` (its command line ends in `HiveMetaStore -p <port>`), or undefined. */
export function hmsPid(port: number): number | undefined {
  for (const pid of pids()) {
    const args = read(`/proc/${pid}/cmdline`).split('\0');
    const main = args.indexOf('org.apache.hadoop.hive.metastore.HiveMetaStore');
    if (main >= 0 && args[main + 1] === '-p' && args[main + 2] === String(port)) return pid;
  }
  return undefined;
}

export interface ServerCpu {
  readonly hms: number;
  readonly postgres: number;
}

/** Sample now; call the result to get the CPU seconds spent since. */
export function serverCpuSince(hms: number | undefined): () => ServerCpu {
  const h0 = hms === undefined ? 0 : cpuOf(hms);
  const p0 = postgresCpu();
  return () => ({ hms: hms === undefined ? 0 : cpuOf(hms) - h0, postgres: postgresCpu() - p0 });
}
