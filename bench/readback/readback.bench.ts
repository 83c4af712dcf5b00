// Read-back proof benchmark: the cost of `validation.readBack` at the default
// sample (2 files per table) beside the apply of the same wave, in the same run, through the real
// CLI and worker: `migrate plan`, one `migrate worker` whose `rewrite:` section is the stack's
// spark-submit (the verifier venv, local[*]), `migrate apply --auto-approve --wait`. Uses the scale
// warehouse of bench/validate (N tables × M partitions × 1 tiny Parquet file; same seeder, reused).
// From the audit log of the plan: the wave's apply (first `table.original-saved` → last
// `table.validated`), the read-back phase (last `table.validated` → last `table.read-back`: the
// batch's activity, the Spark start and the job), the job's own wall time (its result file) and
// the in-job time per table (each table's evidence `seconds`). Run:
//   npx tsx bench/readback/readback.bench.ts [--tables 20] [--files 5] [--files-per-table 2] [--prefix benchval]
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { RestCatalog } from '../../adapters/catalog/rest';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { stackRewriteYaml } from '../../test/helpers/rewrite';
import { testStack } from '../../test/helpers/stack-env';
import { flags } from '../common/flags';

const f = flags(process.argv.slice(2));
const TABLES = Number(f.get('tables') ?? '20');
const FILES = Number(f.get('files') ?? '5');
const PER_TABLE = Number(f.get('files-per-table') ?? '2');
const PREFIX = f.get('prefix') ?? 'benchval';
const root = path.resolve(__dirname, '..', '..');

async function main(): Promise<void> {
  const env = testStack();
  Object.assign(process.env, env);
  const run = Date.now().toString(36);
  const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
  execFileSync(tsx, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', PREFIX, '--scale', `${TABLES},${FILES},1`], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const db = `${PREFIX}_scale_${TABLES}x${FILES}x1`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'him-bench-readback-'));
  const nsPrefix = `benchrb_${run}_`;
  const cfg = path.join(dir, 'migrate.yaml');
  const base = readFileSync(path.join(env.HIM_STATE_DIR as string, 'migrate.yaml'), 'utf8').replace(
    /namespace: default/,
    `namespace: default\n  taskQueue: him-bench-rb-${run}`,
  );
  writeFileSync(
    cfg,
    `${base.replace(/(warehouse: .*)/, `$1\n  namespacePrefix: ${nsPrefix}`)}\nplan:\n  databases: [${db}]\n  assess:\n    sampleFiles: 0\n  waves:\n    maxTablesPerWave: ${TABLES}\n    maxFilesPerWave: 100000000\n` +
      stackRewriteYaml(env, `s3://warehouse/${nsPrefix}rewrite`, {}, { shortJobs: false }) +
      `validation:\n  resultsLocation: s3://results/${nsPrefix}validation\n  readBack: { filesPerTable: ${PER_TABLE} }\n`,
  );
  const migrate = (args: string[]): string =>
    execFileSync(path.join(root, 'bin', 'migrate'), [...args, '--config', cfg], {
      cwd: root,
      env: process.env,
      maxBuffer: 256 << 20,
    }).toString();
  migrate(['plan', '--out', path.join(dir, 'plan.json')]);
  const plan = JSON.parse(readFileSync(path.join(dir, 'plan.json'), 'utf8')) as { hash: string };
  const jobs = path.join(dir, 'jobs');
  const log = path.join(os.tmpdir(), `him-bench-readback-${run}-worker.log`);
  const worker = spawn(path.join(root, 'bin', 'migrate'), ['worker', '--config', cfg], {
    cwd: root,
    env: { ...process.env, HIM_REWRITE_WORK_DIR: jobs },
    stdio: ['ignore', openSync(log, 'w'), openSync(log, 'a')],
    detached: true,
  });
  const stop = (): void => {
    try {
      if (worker.pid !== undefined) process.kill(-worker.pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  };
  process.on('exit', stop);
  await new Promise((r) => setTimeout(r, 8000)); // the worker bundles the workflows before polling
  const t0 = performance.now();
  const out = JSON.parse(migrate(['apply', path.join(dir, 'plan.json'), '--auto-approve', '--wait', '--json'])) as {
    result: { state: string; waves: { migrated: number; failed: unknown[] }[] };
  };
  const wall = (performance.now() - t0) / 1000;
  stop();

  const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
  const at = new Map<string, number[]>();
  const perTable: number[] = [];
  let equal = 0;
  try {
    for await (const e of state.readAudit()) {
      if (e.planHash !== plan.hash) continue;
      at.set(e.action, [...(at.get(e.action) ?? []), Date.parse(e.at)]);
      if (e.action === 'table.read-back') {
        const d = e.details as { seconds?: number; equal?: boolean };
        perTable.push(d.seconds ?? NaN);
        if (d.equal === true) equal++;
      }
    }
  } finally {
    await state.close();
  }
  const first = (a: string): number => Math.min(...(at.get(a) ?? [NaN]));
  const last = (a: string): number => Math.max(...(at.get(a) ?? [NaN]));
  const apply = (last('table.validated') - first('table.original-saved')) / 1000;
  const readBack = (last('table.read-back') - last('table.validated')) / 1000;
  const results = readdirSync(jobs).filter((n) => n.endsWith('.result.json'));
  const jobSeconds = results.map((n) => (JSON.parse(readFileSync(path.join(jobs, n), 'utf8')) as { seconds: number }).seconds);
  const n = perTable.length;
  const mean = perTable.reduce((s, x) => s + x, 0) / Math.max(1, n);
  const lines = [
    `read-back: ${TABLES} tables × ${FILES} files, ${PER_TABLE} sampled per table; state ${out.result.state}, migrated ${out.result.waves.reduce((k, w) => k + w.migrated, 0)}, proved equal ${equal}/${n}`,
    `  apply wall (CLI) ${wall.toFixed(1)} s · wave apply (first original-saved → last validated) ${apply.toFixed(1)} s`,
    `  read-back phase (last validated → last read-back) ${readBack.toFixed(1)} s = ${((readBack / apply) * 100).toFixed(0)}% of the wave's apply · ${(readBack / Math.max(1, n)).toFixed(2)} s per table`,
    `  job(s) ${results.length}: wall ${jobSeconds.map((s) => `${s.toFixed(1)} s`).join(', ')} (Spark start + session included) · in-job per table mean ${mean.toFixed(2)} s, max ${Math.max(...perTable).toFixed(2)} s`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  for (const t of await catalog.listTables([`${nsPrefix}${db}`]).catch(() => [])) await catalog.dropTable(t);
  await catalog.dropNamespace([`${nsPrefix}${db}`]).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}

void main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
