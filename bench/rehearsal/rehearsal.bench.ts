// The rehearsal: a mixed warehouse of N tables (dev/seed --mixed: half unpartitioned, half with
// 1–10 partitions, 20 files on average, B tables of 5,000 partitions) taken through every phase of
// a migration with the real CLI and real `migrate worker` processes against the running stack:
// plan from the HMS backing database (waves sized so there are W of them), apply (--auto-approve
// --wait), the nightly validation (its Schedule, triggered: nightlyValidationWorkflow on the
// workers), one sync round after a new partition in some tables (syncWorkflow), and the rollback
// of the last wave (its tables checked: still in Hive as before, gone from the catalog, records
// rolled back). Per phase: wall time, CPU seconds of every process (CLI, workers, each stack
// component), CPU ms per table, peak memory (PSS sampled each second; VmHWM at the end); after
// apply and at the end: Temporal history sizes per workflow type, the largest payloads in a sample
// of histories, the state database's size and this plan's rows. A table to stdout, JSON to
// $HIM_STATE_DIR/rehearsal-<N>-<stamp>.json. Seeding is not timed (reported; reused when there).
//   eval "$(npx tsx dev/stack/main.ts env)"
//   npx tsx bench/rehearsal/rehearsal.bench.ts [--tables 10000] [--big 3] [--big-partitions 5000] [--waves 5]
//     [--concurrency 32] [--workers 1] [--split no] [--validate-concurrency 16] [--sync-every 10] [--sync-files 5] [--sync-per-wave no]
//     [--after-apply validate,sync,rollback | none]
//     [--sample-files 3] [--histories 5] [--prefix rehearsal] [--cleanup yes]
// --apply-extra '<flags>' / --sync-extra '<flags>': passed on to `migrate apply` / `migrate sync`.
// --sync-per-wave yes: one `migrate sync --wave n` per wave instead of one for the whole plan (the sync
// workflow's result and continue-as-new carry hold ~827 B per table, past Temporal's 2 MB payload
// limit beyond ~2,500 tables: bench/RESULTS.md "rehearsal"). A phase after apply that fails is
// recorded with its error and the rehearsal goes on.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { RestCatalog } from '../../adapters/catalog/rest';
import { addMixedPartition, mixedShape } from '../../dev/seed/mixed';
import { testStack } from '../../test/helpers/stack-env';
import type { Procs } from './measure';
import { cpuNow, delta, hwmNow, load, mainThreadsNow, run, sampler, stateDbStats, statusCounts, temporalStoreBytes } from './measure';
import { historyStats } from './temporal-stats';
import { stackPids } from '../common/cpu';
import { render } from './render';
import type { PhaseRow } from './render';
import { checkRollback } from './verify';
import { seedTarget } from '../common/seed-target';
import {
  TABLES,
  BIG,
  BIG_PARTS,
  WAVES,
  CONCURRENCY,
  WORKERS,
  SPLIT,
  VALIDATE_CONCURRENCY,
  SYNC_EVERY,
  SYNC_FILES,
  SYNC_PER_WAVE,
  AFTER_APPLY,
  extra,
  SAMPLE_FILES,
  HISTORIES,
  PREFIX,
  CLEANUP,
  root,
  shape,
  db,
  log,
  RATE,
  asked,
} from './options';

type Phase = PhaseRow;

async function main(): Promise<void> {
  const env = testStack();
  Object.assign(process.env, env);
  const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 15);
  const dir = path.join(env.HIM_STATE_DIR as string, `rehearsal-${TABLES}-${stamp}`);
  mkdirSync(dir, { recursive: true });
  const nsPrefix = `${PREFIX}_${stamp.toLowerCase()}_`;
  const ns = `${nsPrefix}${db}`;
  const cfg = path.join(dir, 'migrate.yaml');
  const base = readFileSync(path.join(env.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8')
    .replace(/namespace: default/, `namespace: default\n  taskQueue: him-rehearsal-${stamp}`)
    .replace(/(\n {4}uri: thrift:.*)/, `$1\n  db:\n    url: ${env.HIM_HMS_POSTGRES_URL}`)
    .replace(/(warehouse: .*)/, `$1\n  namespacePrefix: ${nsPrefix}`);
  const perWave = Math.ceil(TABLES / WAVES);
  writeFileSync(
    cfg,
    `${base}\nplan:\n  databases: [${db}]\n  assess:\n    sampleFiles: ${SAMPLE_FILES}\n  waves:\n    maxTablesPerWave: ${perWave}\n    maxFilesPerWave: 100000000\n`,
  );
  const procs: Procs = { cli: 0, workers: [], stack: stackPids(env) };
  const mem = sampler(procs);
  const phases: Phase[] = [];
  let n = 0;
  let deadline = Number.POSITIVE_INFINITY;
  const migrate = (args: string[], okCodes: readonly number[] = [0]): Promise<string> => {
    const out = path.join(dir, `${String(++n).padStart(2, '0')}-${args[0]}${/^[a-z]+$/.test(args[1] ?? '') ? `-${args[1]}` : ''}.out`);
    return run(procs, path.join(root, 'bin', 'migrate'), [...args, '--config', cfg], { cwd: root, outFile: out, okCodes, deadline }).then(
      () => readFileSync(out, 'utf8'),
    );
  };
  const phase = async (name: string, tables: number, fn: () => Promise<Record<string, unknown>>, units = tables): Promise<Phase> => {
    const r = RATE[name] ?? { per: 0, fixed: 0, unit: 'table', at: '-' };
    const estimate = r.fixed + r.per * units;
    // A phase gets 10× its estimate, at least 15 min, before its command is stopped.
    deadline = Date.now() + Math.max(900, 10 * estimate) * 1000;
    log(
      `${name}: ${tables} table(s), estimate ~${estimate.toFixed(0)} s (${r.fixed} s + ${r.per * 1000} ms per ${r.unit} × ${units}, measured at ${r.at})`,
    );
    const loadBefore = load();
    const cpu0 = cpuNow(procs);
    const main0 = mainThreadsNow(procs);
    mem.reset();
    const t0 = performance.now();
    // A phase after apply that fails is recorded and the rehearsal goes on (its figures are still figures).
    const detail = await fn().catch((e: unknown) => {
      if (name === 'seed' || name === 'plan' || name === 'apply') throw e;
      log(`${name} FAILED: ${(e as Error).message}`);
      return { error: (e as Error).message.slice(0, 2000) };
    });
    const wall = (performance.now() - t0) / 1000;
    const cpu = delta(cpu0, cpuNow(procs));
    const mainThreadCpu = delta(main0, mainThreadsNow(procs));
    const cpuTotal = Object.values(cpu).reduce((s, v) => s + (Number.isFinite(v) ? v : 0), 0);
    const p: Phase = {
      name,
      tables,
      wall: Number(wall.toFixed(1)),
      estimate: Number(estimate.toFixed(0)),
      cpu,
      mainThreadCpu,
      cpuTotal: Number(cpuTotal.toFixed(1)),
      cpuMsPerTable: Number(((cpuTotal * 1000) / Math.max(1, tables)).toFixed(1)),
      peakPssMb: Object.fromEntries(Object.entries(mem.peaks()).map(([k, v]) => [k, Math.round(v)])),
      hwmMb: hwmNow(procs),
      temporalStoreBytes: temporalStoreBytes(env.HIM_STATE_DIR as string),
      load: `${loadBefore} → ${load()}`,
      detail,
    };
    // The fixed part once, the rest scaled (the rollback takes one wave: 1/W of the tables).
    const scale = (name === 'rollback' ? 10_000 / WAVES : 10_000) / Math.max(1, tables);
    const at10k = Math.min(r.fixed, p.wall) + Math.max(0, p.wall - r.fixed) * scale;
    log(
      `${name}: ${p.wall} s (estimate ${p.estimate} s), CPU ${p.cpuTotal} s = ${p.cpuMsPerTable} ms/table; load ${p.load}${name === 'seed' ? '' : `; linear at 10,000 tables: ~${at10k.toFixed(0)} s`}`,
    );
    phases.push(p);
    return p;
  };

  let files = 0;
  for (let i = 0; i < TABLES; i++) files += mixedShape(shape, i).files;
  // 0. Seed (not timed as a phase of the migration; its time is reported).
  const seeded = await phase(
    'seed',
    TABLES,
    async () => {
      const out = path.join(dir, '00-seed.out');
      await run(
        null,
        path.join(root, 'node_modules', '.bin', 'tsx'),
        ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', PREFIX, '--mixed', `${TABLES},${BIG},${BIG_PARTS}`],
        { cwd: root, outFile: out },
      );
      return JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
    },
    files,
  );

  const stateBefore = await stateDbStats(env.HIM_POSTGRES_URL as string, '');
  // 1. Plan from the backing database.
  const planFile = path.join(dir, 'plan.json');
  let planHash = '';
  let waves: { number: number; tables: { id: string }[] }[] = [];
  await phase('plan', TABLES, async () => {
    const out = JSON.parse(await migrate(['plan', '--source', 'db', '--out', planFile, '--json'])) as Record<string, unknown>;
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string; waves: { number: number; tables: { id: string }[] }[] };
    planHash = plan.hash;
    waves = plan.waves.map((w) => ({ number: w.number, tables: w.tables.map((t) => ({ id: t.id })) }));
    const planned = waves.reduce((s, w) => s + w.tables.length, 0);
    if (planned !== TABLES) throw new Error(`plan has ${planned} of ${TABLES} tables (not planned: ${JSON.stringify(out.notPlanned)})`);
    return {
      hash: planHash,
      waves: waves.map((w) => w.tables.length),
      findings: (out.findings as unknown[]).length,
      planBytes: readFileSync(planFile).length,
    };
  });
  const id = planHash.slice(0, 12);

  // Workers: one process per --workers (or, --split yes, one --role workflows + --workers --role activities).
  const roles = SPLIT
    ? ['workflows', ...Array.from({ length: WORKERS }, () => 'activities')]
    : Array.from({ length: WORKERS }, () => 'all');
  const workers: { name: string; child: ChildProcess }[] = roles.map((role, i) => {
    const logFile = path.join(dir, `worker-${i}-${role}.log`);
    const child = spawn(
      path.join(root, 'bin', 'migrate'),
      ['worker', '--config', cfg, '--role', role, '--concurrency', String(Math.max(16, CONCURRENCY))],
      {
        cwd: root,
        env: process.env,
        stdio: ['ignore', openSync(logFile, 'w'), openSync(logFile, 'a')],
        detached: true,
      },
    );
    child.on('exit', (code, signal) => log(`worker ${i} (${role}) exited (code ${code}, signal ${signal}); log ${logFile}`));
    return { name: `worker ${i} (${role})`, child };
  });
  (procs.workers as { name: string; child: ChildProcess }[]).push(...workers);
  const stopWorkers = (): void => {
    for (const w of workers)
      try {
        if (w.child.pid !== undefined) process.kill(-w.child.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
  };
  process.on('exit', stopWorkers);
  await new Promise((r) => setTimeout(r, 8000)); // the workers bundle the workflows before they poll
  const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
  const client = new Client({ connection });

  // 2. Apply, with progress from the state store every 30 s.
  await phase('apply', TABLES, async () => {
    const t0 = performance.now();
    const progress = setInterval(() => {
      void statusCounts(env.HIM_POSTGRES_URL as string, planHash).then(
        (c) => {
          const done = (c.migrated ?? 0) + (c.failed ?? 0);
          const s = (performance.now() - t0) / 1000;
          log(
            `apply: ${JSON.stringify(c)} after ${s.toFixed(0)} s; ${(done / s).toFixed(2)} tables/s; ETA ${done > 0 ? (((TABLES - done) * s) / done).toFixed(0) : '?'} s`,
          );
        },
        () => undefined,
      );
    }, 30_000);
    try {
      const out = JSON.parse(
        await migrate(
          ['apply', planFile, '--auto-approve', '--wait', '--concurrency', String(CONCURRENCY), ...extra('apply-extra'), '--json'],
          [0, 1],
        ),
      ) as {
        ok: boolean;
        result: { state: string; waves: { migrated: number; failed: unknown[] }[] };
      };
      const migrated = out.result.waves.reduce((s, w) => s + w.migrated, 0);
      const failed = out.result.waves.flatMap((w) => w.failed);
      if (migrated !== TABLES)
        throw new Error(`apply: ${out.result.state}, ${migrated} of ${TABLES} migrated; failed: ${JSON.stringify(failed.slice(0, 5))}`);
      return {
        state: out.result.state,
        migrated,
        failed: failed.length,
        goal10k: `≤ 600 s at 10,000 tables: ${TABLES >= 10_000 ? '' : 'projected '}${((((performance.now() - t0) / 1000) * 10_000) / TABLES).toFixed(0)} s`,
      };
    } finally {
      clearInterval(progress);
    }
  });
  const afterApply = {
    temporal: await historyStats(client, [`migrate/${id}`], HISTORIES),
    state: await stateDbStats(env.HIM_POSTGRES_URL as string, planHash),
  };
  log(
    `after apply: history of ${Object.values(afterApply.temporal.byType).reduce((s, t) => s + t.runs, 0)} runs listed in ${afterApply.temporal.listSeconds.toFixed(1)} s; state DB ${(afterApply.state.databaseBytes / 1e6).toFixed(1)} MB`,
  );

  // 3. The nightly validation: its Schedule, created paused and triggered once.
  if (AFTER_APPLY.has('validate'))
    await phase('validate', TABLES, async () => {
      await migrate(['schedule', 'create', id, '--paused', '--concurrency', String(VALIDATE_CONCURRENCY), '--json']);
      try {
        await migrate(['schedule', 'trigger', id, '--json']);
        let wf: string | undefined;
        for (let i = 0; i < 120 && wf === undefined; i++) {
          const d = JSON.parse(await migrate(['schedule', 'describe', id, '--json'])) as { recent: { workflowId: string }[] };
          wf = d.recent[0]?.workflowId;
          if (wf === undefined) await new Promise((r) => setTimeout(r, 500));
        }
        if (wf === undefined) throw new Error('the triggered validation did not start in 60 s');
        const h = client.workflow.getHandle(wf);
        const late = setTimeout(
          () => void h.terminate('the rehearsal phase passed its deadline').catch(() => undefined),
          Math.min(2 ** 31 - 1, Math.max(1000, deadline - Date.now())),
        );
        const r = (await h.result().finally(() => clearTimeout(late))) as {
          status: string;
          tables: number;
          counts: Record<string, number>;
        };
        if (r.status !== 'validated' || r.tables !== TABLES) throw new Error(`validation: ${JSON.stringify(r)}`);
        return { workflowId: wf, status: r.status, tables: r.tables, counts: r.counts };
      } finally {
        await migrate(['schedule', 'delete', id, '--json']);
      }
    });

  // 4. One sync round: a new partition (SYNC_FILES files) in every SYNC_EVERY-th partitioned table, then `migrate sync` (workflow).
  const partitioned = Array.from({ length: TABLES }, (_, i) => i).filter((i) => mixedShape(shape, i).partitions > 0);
  const chosen = partitioned.filter((_, k) => k % SYNC_EVERY === 0);
  const tAdd = performance.now();
  const added = await addMixedPartition(
    {
      ...seedTarget(env),
      prefix: PREFIX,
      ...shape,
      concurrency: 16,
      batch: 100,
      force: false,
      log,
    },
    chosen,
    900_000 + (Date.now() % 99_999),
    SYNC_FILES,
  );
  log(
    `sync: a new partition of ${SYNC_FILES} files in ${added} table(s) in ${((performance.now() - tAdd) / 1000).toFixed(1)} s (not timed)`,
  );
  if (AFTER_APPLY.has('sync'))
    await phase('sync', TABLES, async () => {
      // The whole plan in one `migrate sync`, or with --sync-per-wave yes one per wave (smaller workflow payloads).
      const scopes = SYNC_PER_WAVE ? waves.map((w) => ['--wave', String(w.number)]) : [[]];
      const by: Record<string, number> = {};
      const workflowIds: string[] = [];
      let ok = true;
      for (const scope of scopes) {
        const out = JSON.parse(
          await migrate(['sync', id, ...scope, '--json', '--concurrency', String(CONCURRENCY), ...extra('sync-extra')], [0, 1]),
        ) as {
          ok: boolean;
          workflowId?: string;
          tables?: { ok: boolean; result?: { status: string } }[];
          error?: unknown;
        };
        if (out.tables === undefined) throw new Error(`sync ${scope.join(' ')}: ${JSON.stringify(out).slice(0, 1500)}`);
        ok &&= out.ok;
        if (out.workflowId !== undefined) workflowIds.push(out.workflowId);
        for (const t of out.tables) {
          const k = t.ok ? (t.result?.status ?? 'ok') : 'failed';
          by[k] = (by[k] ?? 0) + 1;
        }
      }
      if (!ok || by.appended !== added) throw new Error(`sync: ok ${ok}, ${JSON.stringify(by)}, expected ${added} appended`);
      return { workflowIds, runs: scopes.length, partitionAddedTo: added, results: by };
    });

  // 5. Rollback of the last wave, then its tables checked.
  const last = waves[waves.length - 1] as { number: number; tables: { id: string }[] };
  if (AFTER_APPLY.has('rollback'))
    await phase('rollback', last.tables.length, async () => {
      const out = JSON.parse(await migrate(['rollback', id, '--wave', String(last.number), '--json'], [0, 1])) as {
        ok: boolean;
        rolledBack: unknown[];
        refused: unknown[];
        counts?: { rolledBack: number };
      };
      if (!out.ok) throw new Error(`rollback refused ${out.refused.length}: ${JSON.stringify(out.refused.slice(0, 3))}`);
      const check = await checkRollback(
        env,
        planHash,
        ns,
        last.tables.map((t) => t.id),
      );
      if (check.bad.length > 0) throw new Error(`rollback check failed for ${check.bad.length}: ${check.bad.slice(0, 10).join('; ')}`);
      return { wave: last.number, rolledBack: out.counts?.rolledBack ?? out.rolledBack.length, ...check, bad: undefined };
    });

  const prefixes = [`migrate/${id}`, `validate/${id}`, `sync/${id}`];
  const end = {
    temporal: await historyStats(client, prefixes, HISTORIES),
    state: await stateDbStats(env.HIM_POSTGRES_URL as string, planHash),
  };
  await connection.close();
  stopWorkers();
  mem.stop();
  const hwm = hwmNow(procs);
  if (CLEANUP) {
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    for (const t of await catalog.listTables([ns]).catch(() => [])) await catalog.dropTable(t);
    await catalog.dropNamespace([ns]).catch(() => undefined);
  }
  const report = {
    ...asked(),
    roles,
    seeded: seeded.detail,
    planHash,
    phases,
    stateBefore,
    afterApply,
    end,
    hwmAtEnd: hwm,
  };
  const json = path.join(env.HIM_STATE_DIR as string, `rehearsal-${TABLES}-${stamp}.json`);
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(render(report));
  log(`JSON: ${json}`);
}

void main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
