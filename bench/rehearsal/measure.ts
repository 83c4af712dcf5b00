// The rehearsal's measuring side: which processes it watches (the CLI it runs, the workers it
// started, each stack component by the pid serving its port), their CPU seconds and peak memory per
// phase, the state database's size, and the Temporal dev server's store on disk.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { childrenCpu, mainThreadCpu, MemorySampler, treeCpu, treeMemory } from '../common/proc';

export interface Procs {
  /** The CLI command running now (0 between commands). */
  cli: number;
  readonly workers: readonly { readonly name: string; readonly child: ChildProcess }[];
  readonly stack: Record<string, number>;
}

export const watched = (p: Procs): Record<string, number> => ({
  'migrate CLI': p.cli,
  ...Object.fromEntries(p.workers.map((w) => [w.name, w.child.pid ?? 0])),
  ...p.stack,
});

/** CPU seconds so far per watched process; the CLI's are this process's reaped children's (the commands run one at a time). */
export function cpuNow(p: Procs): Record<string, number> {
  const out: Record<string, number> = { 'migrate CLI': childrenCpu() };
  for (const w of p.workers) out[w.name] = treeCpu(w.child.pid ?? 0);
  for (const [k, pid] of Object.entries(p.stack)) out[k] = pid > 0 ? treeCpu(pid) : NaN;
  return out;
}

export const delta = (a: Record<string, number>, b: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(b).map(([k, v]) => [k, Number((v - (a[k] ?? 0)).toFixed(2))]));

/** CPU seconds so far of each worker's main thread (its event loop: workflow tasks and the activities' JavaScript). */
export function mainThreadsNow(p: Procs): Record<string, number> {
  return Object.fromEntries(p.workers.map((w) => [w.name, mainThreadCpu(w.child.pid ?? 0)]));
}

/** Lifetime peak RSS (VmHWM, MB) of the largest process of each watched tree now. */
export function hwmNow(p: Procs): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, pid] of Object.entries(watched(p))) if (pid > 0) out[k] = Math.round(treeMemory(pid).hwm);
  return out;
}

export function sampler(p: Procs): MemorySampler {
  return new MemorySampler(() => watched(p), 1000);
}

/**
 * Run a command to its end without blocking the event loop (the samplers keep running); stdout to
 * `outFile`. Past `deadline` (epoch ms) it is stopped (SIGTERM) and the run fails: a phase that
 * hangs (a workflow retrying a task forever) does not hang the rehearsal.
 */
export function run(
  p: Procs | null,
  cmd: string,
  args: readonly string[],
  o: { cwd: string; outFile: string; okCodes?: readonly number[]; deadline?: number },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const errFile = `${o.outFile}.stderr`;
    const c = spawn(cmd, args, { cwd: o.cwd, env: process.env, stdio: ['ignore', openSync(o.outFile, 'w'), openSync(errFile, 'w')] });
    if (p !== null) p.cli = c.pid ?? 0;
    let late = false;
    const timer =
      o.deadline === undefined
        ? undefined
        : setTimeout(() => ((late = true), c.kill('SIGTERM')), Math.min(2 ** 31 - 1, Math.max(1000, o.deadline - Date.now())));
    c.on('error', reject);
    c.on('exit', (code) => {
      clearTimeout(timer);
      if (p !== null) p.cli = 0;
      if (late)
        reject(new Error(`${path.basename(cmd)} ${args.slice(0, 2).join(' ')} stopped at the phase's deadline; stdout ${o.outFile}`));
      else if ((o.okCodes ?? [0]).includes(code ?? -1)) resolve(code ?? 0);
      else {
        const tail = readFileSync(errFile, 'utf8').split('\n').slice(-15).join('\n');
        reject(new Error(`${path.basename(cmd)} ${args.slice(0, 2).join(' ')} exited ${code}; stdout ${o.outFile}\n${tail}`));
      }
    });
  });
}

export interface StateDbStats {
  readonly databaseBytes: number;
  readonly tables: { name: string; bytes: number }[];
  /** This plan's rows: count, bytes (pg_column_size of the row), the largest row. */
  readonly plan: Record<string, { rows: number; bytes: number; maxRow: number }>;
}

/** The state database's size, its largest tables, and what this plan's rows take in each. */
export async function stateDbStats(url: string, planHash: string): Promise<StateDbStats> {
  const c = new PgClient({ connectionString: url });
  await c.connect();
  try {
    const size = Number((await c.query('SELECT pg_database_size(current_database()) AS b')).rows[0].b);
    const tables = (
      await c.query(
        `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE c.relkind = 'r' AND n.nspname = 'public' ORDER BY 2 DESC LIMIT 6`,
      )
    ).rows.map((r: { name: string; bytes: string }) => ({ name: r.name, bytes: Number(r.bytes) }));
    const made = (await c.query("SELECT to_regclass('him_validation_rows') IS NOT NULL AS made")).rows[0].made as boolean;
    const q = async (sql: string): Promise<{ rows: number; bytes: number; maxRow: number }> => {
      if (!made) return { rows: 0, bytes: 0, maxRow: 0 };
      const r = (await c.query(sql, [planHash])).rows[0] as { n: string; b: string | null; m: string | null };
      return { rows: Number(r.n), bytes: Number(r.b ?? 0), maxRow: Number(r.m ?? 0) };
    };
    const plan = {
      him_plans: await q('SELECT count(*) n, sum(pg_column_size(x.*)) b, max(pg_column_size(x.*)) m FROM him_plans x WHERE plan_hash = $1'),
      him_tables: await q(
        'SELECT count(*) n, sum(pg_column_size(x.*)) b, max(pg_column_size(x.*)) m FROM him_tables x WHERE plan_hash = $1',
      ),
      him_audit: await q('SELECT count(*) n, sum(pg_column_size(x.*)) b, max(pg_column_size(x.*)) m FROM him_audit x WHERE plan_hash = $1'),
      him_validation_rows: await q(
        `SELECT count(*) n, sum(pg_column_size(x.*)) b, max(pg_column_size(x.*)) m FROM him_validation_rows x
          WHERE run_id IN (SELECT run_id FROM him_validation_runs WHERE plan_hash = $1)`,
      ),
    };
    return { databaseBytes: size, tables, plan };
  } finally {
    await c.end();
  }
}

/** Table statuses of a plan in the state store now (apply progress). */
export async function statusCounts(url: string, planHash: string): Promise<Record<string, number>> {
  const c = new PgClient({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query('SELECT status, count(*) AS n FROM him_tables WHERE plan_hash = $1 GROUP BY status', [planHash]);
    return Object.fromEntries(r.rows.map((x: { status: string; n: string }) => [x.status, Number(x.n)]));
  } finally {
    await c.end();
  }
}

/** Bytes of the Temporal dev server's SQLite store (database + WAL) under the stack's state dir. */
export function temporalStoreBytes(stateDir: string): number {
  const dir = path.join(stateDir, 'data', 'temporal');
  if (!existsSync(dir)) return NaN;
  return readdirSync(dir).reduce((s, f) => s + statSync(path.join(dir, f)).size, 0);
}

export const load = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
