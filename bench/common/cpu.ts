// CPU seconds per process of the stack a bench drives (bench/common/proc.ts reads /proc), so a
// bench can say where its CPU went, component by component.
import { childrenCpu, listener, portOf, treeCpu } from './proc';

/** The stack components by the pid listening on each one's port (0: none). */
export function stackPids(env: Record<string, string | undefined>): Record<string, number> {
  return {
    temporal: listener(portOf(env.HIM_TEMPORAL_ADDRESS)),
    's3 (versitygw)': listener(portOf(env.HIM_S3_ENDPOINT)),
    'iceberg-rest': listener(portOf(env.HIM_ICEBERG_REST_URI)),
    'hms (thrift)': listener(portOf(env.HIM_HMS_PG_URI)),
    'postgres (state + HMS db)': listener(portOf(env.HIM_POSTGRES_URL)),
  };
}

/** The stack's processes this bench drives, by what they are: CPU seconds of each (and its children) so far. */
export function cpuNow(env: Record<string, string | undefined>, workerPids: readonly number[]): Record<string, number> {
  const who: Record<string, number> = {
    ...Object.fromEntries(workerPids.map((pid, i) => [workerPids.length === 1 ? 'worker (ours)' : `worker ${i}`, pid])),
    ...stackPids(env),
  };
  // The CLI commands the bench runs are its waited-for children: their CPU is in our cutime + cstime.
  return { 'migrate CLI': childrenCpu(), ...Object.fromEntries(Object.entries(who).map(([k, pid]) => [k, pid > 0 ? treeCpu(pid) : NaN])) };
}

export const cpuDelta = (a: Record<string, number>, b: Record<string, number>, tables: number): string => {
  const d = Object.entries(b).map(([k, v]) => [k, v - (a[k] ?? 0)] as const);
  const total = d.reduce((s, [, v]) => s + (Number.isFinite(v) ? v : 0), 0);
  return `CPU s: ${d.map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}; total ${total.toFixed(1)} (${((total * 1000) / tables).toFixed(0)} ms per table)`;
};
