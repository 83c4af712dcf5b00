// The benches' view of processes through /proc (Linux): CPU seconds and memory of a process and its
// descendants, the pid listening on a port, and a sampler that keeps each watched tree's peak.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TICKS = 100;

interface ProcRow {
  readonly pid: number;
  readonly ppid: number;
  /** utime + stime + cutime + cstime (its own and its reaped children's: a Postgres server's ended backends), in clock ticks. */
  readonly ticks: number;
}

function procTable(): ProcRow[] {
  const rows: ProcRow[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      rows.push({ pid: Number(d), ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) });
    } catch {
      /* gone */
    }
  }
  return rows;
}

/** `pid` and every live descendant. */
export function treePids(pid: number, rows: readonly ProcRow[] = procTable()): number[] {
  const kids = new Map<number, number[]>();
  for (const r of rows) kids.set(r.ppid, [...(kids.get(r.ppid) ?? []), r.pid]);
  const out: number[] = [];
  const walk = (p: number): void => {
    out.push(p);
    for (const k of kids.get(p) ?? []) walk(k);
  };
  if (pid > 0) walk(pid);
  return out;
}

/** CPU seconds so far of one process and its live descendants, with the children each has reaped. */
export function treeCpu(pid: number): number {
  const rows = procTable();
  const ticks = new Map(rows.map((r) => [r.pid, r.ticks]));
  return treePids(pid, rows).reduce((s, p) => s + (ticks.get(p) ?? 0), 0) / TICKS;
}

/** CPU seconds so far of a process's main thread alone (/proc/<pid>/task/<pid>: a Node process's event loop). */
export function mainThreadCpu(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICKS;
  } catch {
    return NaN;
  }
}

/** CPU seconds of this process's waited-for children (the CLI commands a bench runs with execFileSync). */
export function childrenCpu(): number {
  const self = readFileSync('/proc/self/stat', 'utf8');
  const f = self.slice(self.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / TICKS;
}

const kb = (text: string, field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)?.[1] ?? 0);

/**
 * Memory of a tree now, MB: `pss` (proportional set size summed: shared pages split between their
 * users, so a Postgres server's shared buffers count once) and `hwm` (the largest VmHWM of one
 * process in it: its lifetime peak RSS).
 */
export function treeMemory(pid: number): { pss: number; hwm: number } {
  let pss = 0;
  let hwm = 0;
  for (const p of treePids(pid)) {
    try {
      pss += kb(readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'), 'Pss');
      hwm = Math.max(hwm, kb(readFileSync(`/proc/${p}/status`, 'utf8'), 'VmHWM'));
    } catch {
      /* gone */
    }
  }
  return { pss: pss / 1024, hwm: hwm / 1024 };
}

/** The pid listening on 127.0.0.1:<port> (ss -ltnp), 0 when none. */
export function listener(port: string | undefined): number {
  if (port === undefined) return 0;
  const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`]).toString();
  return Number(/pid=(\d+)/.exec(out)?.[1] ?? 0);
}

/** The port of an address or URI (`127.0.0.1:7233`, `http://…:8181/x`, `postgres://…:5432/db`). */
export const portOf = (v: string | undefined): string | undefined => (v === undefined ? undefined : /:(\d+)(?:\/|$)/.exec(v)?.[1]);

/** Samples the memory of named process trees every `everyMs`; `peaks()` gives each one's peak PSS since the last `reset()`. */
export class MemorySampler {
  private readonly peak = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly who: () => Record<string, number>,
    everyMs = 2000,
  ) {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  sample(): void {
    for (const [name, pid] of Object.entries(this.who())) {
      if (pid <= 0) continue;
      this.peak.set(name, Math.max(this.peak.get(name) ?? 0, treeMemory(pid).pss));
    }
  }

  reset(): void {
    this.peak.clear();
    this.sample();
  }

  peaks(): Record<string, number> {
    this.sample();
    return Object.fromEntries(this.peak);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
