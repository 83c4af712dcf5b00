// Apply benchmark: N tables × M files end to end through Temporal on this machine — the
// real CLI (`migrate plan`, `migrate worker` processes, `migrate apply --auto-approve --wait`)
// against the stack. Prints wall time, tables/s, files/s, and the share of table-workflow time
// spent outside activities (from the histories of a sample of table workflows). Goal: 1,000 × 20 in
// ≤ 5 min with ≤ 20% overhead. Uses the scale warehouse of bench/validate (same seeder, reused):
//   npx tsx bench/apply/apply.bench.ts [--tables 1000] [--files 20] [--concurrency 32] [--workers 1] [--prefix benchval]
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { RestCatalog } from '../../adapters/catalog/rest';
import { testStack } from '../../test/helpers/stack-env';
import { cpuDelta, cpuNow } from '../common/cpu';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] as string) : dflt;
};
const TABLES = Number(arg('tables', '1000'));
const FILES = Number(arg('files', '20'));
const CONCURRENCY = Number(arg('concurrency', '32'));
const WORKERS = Number(arg('workers', '1'));
const PREFIX = arg('prefix', 'benchval');
const SAMPLE = Number(arg('sample', '100'));
// --tables-per-activity N (> 1): the wave's tables go to applyTables activities N at a time.
const PER_ACTIVITY = Number(arg('tables-per-activity', '1'));
// --split: one `--role workflows` process plus WORKERS `--role activities` processes.
const SPLIT = process.argv.includes('--split');
// --cpu-prof <dir>: the workers run under `node --cpu-prof` (a V8 profile per worker process, written when it stops).
const CPU_PROF = arg('cpu-prof', '');
const root = path.resolve(__dirname, '..', '..');

const ms = (t: { seconds?: unknown; nanos?: unknown } | null | undefined): number =>
  t ? Number(t.seconds ?? 0) * 1000 + Number(t.nanos ?? 0) / 1e6 : 0;

function vmHwmMb(pid: number): number {
  // The node process is tsx's child; read every descendant and take the largest.
  let best = 0;
  try {
    const out = execFileSync('bash', [
      '-c',
      `for p in $(pgrep -P ${pid}) ${pid}; do grep VmHWM /proc/$p/status 2>/dev/null; done`,
    ]).toString();
    for (const m of out.matchAll(/VmHWM:\s+(\d+)/g)) best = Math.max(best, Number(m[1]) / 1024);
  } catch {
    /* gone */
  }
  return Math.round(best);
}

async function main(): Promise<void> {
  const env = testStack();
  Object.assign(process.env, env);
  const run = `${Date.now().toString(36)}`;
  execFileSync(
    path.join(root, 'node_modules', '.bin', 'tsx'),
    ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', PREFIX, '--scale', `${TABLES},${FILES},1`],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const db = `${PREFIX}_scale_${TABLES}x${FILES}x1`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'him-bench-apply-'));
  const nsPrefix = `benchapply_${run}_`;
  const cfg = path.join(dir, 'migrate.yaml');
  const base = readFileSync(path.join(env.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8').replace(
    /namespace: default/,
    `namespace: default\n  taskQueue: him-bench-${run}`,
  );
  writeFileSync(
    cfg,
    `${base.replace(/(warehouse: .*)/, `$1\n  namespacePrefix: ${nsPrefix}`)}\nplan:\n  databases: [${db}]\n  assess:\n    sampleFiles: 0\n  waves:\n    maxTablesPerWave: ${TABLES}\n    maxFilesPerWave: 100000000\n`,
  );
  const migrate = (args: string[]): string =>
    execFileSync(path.join(root, 'bin', 'migrate'), [...args, '--config', cfg], {
      cwd: root,
      env: process.env,
      maxBuffer: 256 << 20,
    }).toString();

  const tPlan = performance.now();
  migrate(['plan', '--out', path.join(dir, 'plan.json')]);
  const plan = JSON.parse(readFileSync(path.join(dir, 'plan.json'), 'utf8')) as { hash: string; waves: { tables: unknown[] }[] };
  process.stderr.write(
    `[bench] plan: ${plan.waves.length} wave(s), ${plan.waves.reduce((n, w) => n + w.tables.length, 0)} tables in ${((performance.now() - tPlan) / 1000).toFixed(1)} s\n`,
  );

  const workers: ChildProcess[] = [];
  const roles = SPLIT
    ? ['workflows', ...Array.from({ length: WORKERS }, () => 'activities')]
    : Array.from({ length: WORKERS }, () => 'all');
  // Worker logs stay after the run (a worker that dies mid-run is otherwise a silent hang).
  const logs = roles.map((role, i) => path.join(os.tmpdir(), `him-bench-apply-${run}-worker-${i}-${role}.log`));
  roles.forEach((role, i) => {
    const log = openSync(logs[i] as string, 'w');
    workers.push(
      spawn(
        CPU_PROF === '' ? path.join(root, 'bin', 'migrate') : process.execPath,
        [
          ...(CPU_PROF === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${path.resolve(CPU_PROF)}`, path.join(root, 'dist', 'cli', 'main.js')]),
          'worker',
          '--config',
          cfg,
          '--role',
          role,
          '--concurrency',
          String(Math.max(16, CONCURRENCY)),
        ],
        { cwd: root, env: process.env, stdio: ['ignore', log, log], detached: true },
      ),
    );
  });
  workers.forEach((w, i) =>
    w.on('exit', (code, signal) => process.stderr.write(`[bench] worker ${i} exited (code ${code}, signal ${signal}); log ${logs[i]}\n`)),
  );
  // Each worker leads its own process group (bin/migrate → tsx → node); stop the whole group, also
  // when the bench fails (an orphaned worker kept polling after a failed run).
  const stopWorkers = (): void => {
    for (const w of workers) {
      try {
        if (w.pid !== undefined) process.kill(-w.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }
  };
  process.on('exit', stopWorkers);
  await new Promise((r) => setTimeout(r, 8000)); // workers bundle the workflows before polling
  const rss: number[] = workers.map(() => 0);
  const sampler = setInterval(() => workers.forEach((w, i) => (rss[i] = Math.max(rss[i] ?? 0, vmHwmMb(w.pid ?? 0)))), 2000);

  const pids = workers.map((w) => w.pid ?? 0);
  const cpu0 = cpuNow(env, pids);
  const t0 = performance.now();
  const out = migrate([
    'apply',
    path.join(dir, 'plan.json'),
    '--auto-approve',
    '--wait',
    '--concurrency',
    String(CONCURRENCY),
    // Only when asked: the bench then also runs against code from before the flag.
    ...(PER_ACTIVITY > 1 ? ['--tables-per-activity', String(PER_ACTIVITY)] : []),
    '--json',
  ]);
  const wall = (performance.now() - t0) / 1000;
  const cpu = cpuDelta(cpu0, cpuNow(env, pids), TABLES);
  clearInterval(sampler);
  workers.forEach((w, i) => (rss[i] = Math.max(rss[i] ?? 0, vmHwmMb(w.pid ?? 0))));
  const result = JSON.parse(out) as { ok: boolean; result: { state: string; waves: { migrated: number; failed: unknown[] }[] } };
  const migrated = result.result.waves.reduce((n, w) => n + w.migrated, 0);

  // Overhead: time inside activities vs the table workflows' lifetimes, over a sample.
  const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
  const client = new Client({ connection });
  let inActs = 0;
  let inWf = 0;
  let n = 0;
  const steps = new Map<string, number>();
  // Where the time outside activities goes: workflow tasks waiting for a worker (scheduled → started)
  // and being processed by it (started → completed), and the rest (server-side gaps).
  let wftQueue = 0;
  let wftRun = 0;
  let actQueue = 0;
  for await (const w of client.workflow.list({
    // In batches the unit is the wave workflow (each of its runs); its activities are the batches, up
    // to ceil(concurrency / batch) at once: the overhead is then 1 − Σ activity time / (that × lifetime).
    query:
      PER_ACTIVITY > 1
        ? `WorkflowId STARTS_WITH 'migrate/${plan.hash.slice(0, 12)}/wave-' AND WorkflowType = 'waveWorkflow'`
        : `WorkflowId STARTS_WITH 'migrate/${plan.hash.slice(0, 12)}/wave-' AND WorkflowType = 'tableWorkflow'`,
  })) {
    if (n++ >= SAMPLE) break;
    const h = await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
    const events = h.events ?? [];
    const scheduled = new Map<number, { name: string; at: number }>();
    let wftAt = 0;
    for (const e of events) {
      const at = ms(e.eventTime as never);
      if (e.workflowTaskScheduledEventAttributes) wftAt = at;
      if (e.workflowTaskStartedEventAttributes) {
        wftQueue += at - wftAt;
        wftAt = at;
      }
      if (e.workflowTaskCompletedEventAttributes) wftRun += at - wftAt;
      if (e.activityTaskStartedEventAttributes) {
        const s = scheduled.get(Number(e.activityTaskStartedEventAttributes.scheduledEventId));
        if (s) actQueue += at - s.at;
      }
      if (e.activityTaskScheduledEventAttributes)
        scheduled.set(Number(e.eventId), { name: e.activityTaskScheduledEventAttributes.activityType?.name ?? '?', at });
      const done = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes;
      if (done) {
        const s = scheduled.get(Number(done.scheduledEventId));
        if (s) {
          inActs += at - s.at;
          steps.set(s.name, (steps.get(s.name) ?? 0) + at - s.at);
        }
      }
    }
    const life = ms(events[events.length - 1]?.eventTime as never) - ms(events[0]?.eventTime as never);
    inWf += PER_ACTIVITY > 1 ? life * Math.ceil(CONCURRENCY / PER_ACTIVITY) : life;
  }
  await connection.close();
  const overhead = inWf > 0 ? 1 - inActs / inWf : NaN;

  const files = migrated * FILES;
  const lines = [
    `apply: ${TABLES} tables × ${FILES} files through Temporal, workers: ${roles.join(', ')}, table concurrency ${CONCURRENCY}, tables per activity ${PER_ACTIVITY}`,
    `  state ${result.result.state}, migrated ${migrated}, failed ${result.result.waves.reduce((k, w) => k + w.failed.length, 0)}`,
    `  wall ${wall.toFixed(1)} s · ${(migrated / wall).toFixed(2)} tables/s · ${(files / wall).toFixed(0)} files/s · worker peak RSS ${rss.join('/')} MB`,
    `  ${cpu}`,
    `  ${PER_ACTIVITY > 1 ? 'wave workflow runs' : 'table workflows'} (sample ${Math.min(n, SAMPLE)}): ${(overhead * 100).toFixed(1)}% of their time outside activities; activity time by step: ${[...steps].map(([k, v]) => `${k} ${((v / Math.max(1, inActs)) * 100).toFixed(0)}%`).join(', ')}`,
    `  of the activity time, ${((actQueue / Math.max(1, inWf)) * 100).toFixed(1)}% of the workflows' time is activities waiting for a worker slot (scheduled → started); counted outside too, the overhead is ${((1 - (inActs - actQueue) / Math.max(1, inWf)) * 100).toFixed(1)}%`,
    `  outside activities: workflow tasks queued ${((wftQueue / Math.max(1, inWf)) * 100).toFixed(1)}%, processed by the worker ${((wftRun / Math.max(1, inWf)) * 100).toFixed(1)}%, other ${(((inWf - inActs - wftQueue - wftRun) / Math.max(1, inWf)) * 100).toFixed(1)}%`,
    `  goal ≤ 300 s: ${wall <= 300 ? 'met' : 'NOT met'} · overhead ≤ 20%: ${overhead <= 0.2 ? 'met' : 'NOT met'}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  stopWorkers();
  // A profiled worker writes its profile as it exits: wait for that.
  if (CPU_PROF !== '') await Promise.all(workers.map((w) => (w.exitCode !== null ? undefined : new Promise((r) => w.once('exit', r)))));
  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  for (const t of await catalog.listTables([`${nsPrefix}${db}`]).catch(() => [])) await catalog.dropTable(t);
  await catalog.dropNamespace([`${nsPrefix}${db}`]).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}

void main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
