// The rehearsal's text report: one row per phase, then per process its CPU seconds and peak memory,
// the Temporal histories by workflow type with the largest payloads, and the state database.
import type { HistoryStats } from './temporal-stats';
import type { StateDbStats } from './measure';

export interface PhaseRow {
  readonly name: string;
  readonly tables: number;
  readonly wall: number;
  readonly estimate: number;
  readonly cpu: Record<string, number>;
  /** Of each worker's CPU, its main thread's (the event loop). */
  readonly mainThreadCpu: Record<string, number>;
  readonly cpuTotal: number;
  readonly cpuMsPerTable: number;
  readonly peakPssMb: Record<string, number>;
  readonly hwmMb: Record<string, number>;
  readonly temporalStoreBytes: number;
  readonly load: string;
  readonly detail: Record<string, unknown>;
}

export interface Report {
  readonly tables: number;
  readonly big: number;
  readonly bigPartitions: number;
  readonly roles: readonly string[];
  readonly phases: readonly PhaseRow[];
  readonly stateBefore: StateDbStats;
  readonly afterApply: { temporal: HistoryStats; state: StateDbStats };
  readonly end: { temporal: HistoryStats; state: StateDbStats };
  readonly hwmAtEnd: Record<string, number>;
}

const mb = (b: number): string => (b / 1e6).toFixed(1);
const kb = (b: number): string => (b / 1e3).toFixed(1);

function phaseTable(r: Report): string[] {
  const procs = [...new Set(r.phases.flatMap((p) => Object.keys(p.cpu)))];
  const head = `| phase | tables | wall s | estimate s | CPU s | CPU ms/table | ${procs.map((p) => `${p} CPU s / peak PSS MB`).join(' | ')} | load before → after |`;
  const rows = r.phases.map(
    (p) =>
      `| ${p.name}${p.detail.error === undefined ? '' : ' (FAILED)'} | ${p.tables} | ${p.wall} | ${p.estimate} | ${p.cpuTotal} | ${p.cpuMsPerTable} | ${procs.map((k) => `${p.cpu[k] === undefined || !Number.isFinite(p.cpu[k]) ? '-' : (p.cpu[k] as number).toFixed(1)} / ${p.peakPssMb[k] ?? '-'}`).join(' | ')} | ${p.load} |`,
  );
  return [head, `|${'---|'.repeat(7 + procs.length)}`, ...rows];
}

function temporalTable(t: HistoryStats, tables: number): string[] {
  const out = [
    '| workflow type | runs | events (sum) | events/run mean | max events | bytes (sum) | bytes/run mean | max bytes | bytes per table | largest run |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [type, s] of Object.entries(t.byType))
    out.push(
      `| ${type} | ${s.runs} | ${s.events} | ${(s.events / s.runs).toFixed(0)} | ${s.maxEvents} | ${mb(s.bytes)} MB | ${kb(s.bytes / s.runs)} kB | ${kb(s.maxBytes)} kB | ${(s.bytes / tables).toFixed(0)} B | ${s.largest} |`,
    );
  const total = Object.values(t.byType).reduce((a, s) => ({ events: a.events + s.events, bytes: a.bytes + s.bytes }), {
    events: 0,
    bytes: 0,
  });
  out.push(
    `| all | | ${total.events} (${(total.events / tables).toFixed(1)} per table) | | | ${mb(total.bytes)} MB (${(total.bytes / tables).toFixed(0)} B per table) | | | | |`,
  );
  out.push(
    '',
    `largest payloads in ${t.fetched} fetched histories (listing ${t.listSeconds.toFixed(1)} s, fetching ${t.fetchSeconds.toFixed(1)} s):`,
  );
  for (const p of Object.values(t.payloads)
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 10))
    out.push(`  ${kb(p.bytes).padStart(9)} kB  ${p.kind}  (${p.workflowId})`);
  return out;
}

function stateTable(s: StateDbStats, tables: number): string[] {
  return [
    `state DB ${mb(s.databaseBytes)} MB; largest tables: ${s.tables.map((t) => `${t.name} ${mb(t.bytes)} MB`).join(', ')}`,
    `this plan's rows: ${Object.entries(s.plan)
      .map(([k, v]) => `${k} ${v.rows} rows ${mb(v.bytes)} MB (${(v.bytes / tables).toFixed(0)} B/table, largest row ${kb(v.maxRow)} kB)`)
      .join('; ')}`,
  ];
}

export function render(r: Report): string {
  const lines = [
    `rehearsal: ${r.tables} tables (${r.big} with ${r.bigPartitions} partitions), workers: ${r.roles.join(', ')}`,
    ...phaseTable(r),
    '(seed row: the "migrate CLI" column is the seeder, dev/seed --mixed)',
    ...r.phases
      .filter((p) => Object.keys(p.mainThreadCpu).length > 0)
      .map(
        (p) =>
          `${p.name}: workers' main threads (event loop) ${Object.entries(p.mainThreadCpu)
            .map(([k, v]) => `${k} ${v.toFixed(1)} s of ${(p.cpu[k] ?? NaN).toFixed(1)} s, ${((v / p.wall) * 100).toFixed(0)}% of one core`)
            .join('; ')}`,
      ),
    ...r.phases.filter((p) => p.detail.error !== undefined).map((p) => `${p.name} FAILED: ${String(p.detail.error)}`),
    '',
    `peak RSS (VmHWM of the largest process of each tree) at the end: ${Object.entries(r.hwmAtEnd)
      .map(([k, v]) => `${k} ${v} MB`)
      .join(', ')}`,
    '',
    'Temporal after apply:',
    ...temporalTable(r.afterApply.temporal, r.tables),
    '',
    'Temporal at the end (plan, waves, tables, validation, sync, rollback):',
    ...temporalTable(r.end.temporal, r.tables),
    '',
    `state DB before the plan ${mb(r.stateBefore.databaseBytes)} MB; growth by the end ${mb(r.end.state.databaseBytes - r.stateBefore.databaseBytes)} MB (${((r.end.state.databaseBytes - r.stateBefore.databaseBytes) / r.tables).toFixed(0)} B per table: rows, indexes, TOAST, free space)`,
    'state DB after apply:',
    ...stateTable(r.afterApply.state, r.tables),
    'state DB at the end:',
    ...stateTable(r.end.state, r.tables),
    `Temporal dev server store (SQLite + WAL) after each phase: ${r.phases.map((p) => `${p.name} ${mb(p.temporalStoreBytes)} MB`).join(', ')}`,
    '',
  ];
  return `${lines.join('\n')}\n`;
}
