// CPU seconds per process of the stack a bench drives, read from /proc (utime + stime of a process
// and its live descendants), so a bench can say where its CPU went, component by component.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds so far of one process and its descendants (utime + stime, live ones; /proc). */
export function treeCpu(pid: number): number {
  const kids = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(f[1]);
      ticks.set(Number(d), Number(f[11]) + Number(f[12]));
      kids.set(ppid, [...(kids.get(ppid) ?? []), Number(d)]);
    } catch {
      /* gone */
    }
  }
  const sum = (p: number): number => (ticks.get(p) ?? 0) + (kids.get(p) ?? []).reduce((s, k) => s + sum(k), 0);
  return sum(pid) / 100;
}

/** The pid listening on 127.0.0.1:<port> (ss -ltnp). */
export function listener(port: string | undefined): number {
  if (port === undefined) return 0;
  const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`]).toString();
  return Number(/pid=(\d+)/.exec(out)?.[1] ?? 0);
}

export const portOf = (v: string | undefined): string | undefined => (v === undefined ? undefined : /:(\d+)(?:\/|$)/.exec(v)?.[1]);

/** The stack's processes this bench drives, by what they are: CPU seconds of each (and its children) so far. */
export function cpuNow(env: Record<string, string | undefined>, workerPids: readonly number[]): Record<string, number> {
  const who: Record<string, number> = {
    ...Object.fromEntries(workerPids.map((pid, i) => [workerPids.length === 1 ? 'worker (ours)' : `worker ${i}`, pid])),
    temporal: listener(portOf(env.HIM_TEMPORAL_ADDRESS)),
    's3 (versitygw)': listener(portOf(env.HIM_S3_ENDPOINT)),
    'iceberg-rest': listener(portOf(env.HIM_ICEBERG_REST_URI)),
    'hms (thrift)': listener(portOf(env.HIM_HMS_PG_URI)),
    'postgres (state + HMS db)': listener(portOf(env.HIM_POSTGRES_URL)),
  };
  const self = readFileSync('/proc/self/stat', 'utf8');
  const f = self.slice(self.lastIndexOf(')') + 2).split(' ');
  // The `migrate sync` CLI is this process's waited-for child: its CPU is in our cutime + cstime.
  const cli = (Number(f[13]) + Number(f[14])) / 100;
  return { 'migrate CLI': cli, ...Object.fromEntries(Object.entries(who).map(([k, pid]) => [k, pid > 0 ? treeCpu(pid) : NaN])) };
}

export const cpuDelta = (a: Record<string, number>, b: Record<string, number>, tables: number): string => {
  const d = Object.entries(b).map(([k, v]) => [k, v - (a[k] ?? 0)] as const);
  const total = d.reduce((s, [, v]) => s + (Number.isFinite(v) ? v : 0), 0);
  return `CPU s: ${d.map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}; total ${total.toFixed(1)} (${((total * 1000) / tables).toFixed(0)} ms per table)`;
};
