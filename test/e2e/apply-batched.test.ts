// `migrate apply --tables-per-activity 4` on the seeded warehouse through a real `migrate worker`,
// the stack's Temporal, REST catalog, HMS and S3: the tables go in applyTables batches; every
// table ends as the one-table path ends it (the tables that cannot convert fail with their code and
// are compensated inside their batch; views go on alone in their table workflow); PyIceberg reads
// every migrated table with the seeded rows and checksum; each table's forward audit events are
// recorded exactly once; only the views have a table workflow; rollback of the wave restores it,
// two tables a workflow run (continue-as-new on the real server; every run replays).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { RestCatalog } from '../../adapters/catalog/rest';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { tableIdent } from '../../core/catalog/catalog';
import type { SeedManifest } from '../../dev/seed/manifest';
import type { Run } from '../helpers/cli';
import { ROOT, TSX, run } from '../helpers/cli';
import { testStack, uniqueName } from '../helpers/stack-env';
import { readWithPyIceberg } from '../helpers/verifier';
import { rollbackWorkflowId, SA } from '../../workflows/common';

const env = testStack();
const stackCfg = path.join(env.HIM_STATE_DIR as string, 'migrate.yaml');
const prefix = uniqueName('himb').toLowerCase();
const nsPrefix = `${prefix}_`;
const taskQueue = `him-e2e-${prefix}`;
let dir = '';
let cfgFile = '';
let manifest: SeedManifest;
let worker: ChildProcess | undefined;
let workerLog = '';

const migrate = (args: string[], timeout?: number): Promise<Run> =>
  run(path.join(ROOT, 'bin', 'migrate'), [...args, '--config', cfgFile], timeout);

interface Outcome {
  state: string;
  waves: { wave: number; status: string; migrated: number; skipped: number; failed: { tableId: string; code: string }[] }[];
}

describe('migrate apply --tables-per-activity (batches through Temporal, seeded warehouse)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-apply-b-'));
    const mf = path.join(dir, 'manifest.json');
    const s = await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--manifest', mf]);
    if (s.code !== 0) throw new Error(`seeding failed: ${s.stderr}`);
    manifest = JSON.parse(readFileSync(mf, 'utf8')) as SeedManifest;
    const base = readFileSync(stackCfg, 'utf8')
      .replace(/taskQueue:.*\n/, '')
      .replace(/namespace: default/, `namespace: default\n  taskQueue: ${taskQueue}`);
    cfgFile = path.join(dir, 'migrate.yaml');
    writeFileSync(
      cfgFile,
      `${base.replace(/(warehouse: .*)/, `$1\n  namespacePrefix: ${nsPrefix}`)}\nplan:\n  databases: [${prefix}_sales, ${prefix}_misc]\n  waves:\n    maxTablesPerWave: 100\n`,
    );
    worker = spawn(path.join(ROOT, 'bin', 'migrate'), ['worker', '--config', cfgFile], {
      env: { ...process.env, ...env },
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker.stdout?.on('data', (d: Buffer) => (workerLog += d.toString()));
    worker.stderr?.on('data', (d: Buffer) => (workerLog += d.toString()));
  }, 600_000);

  afterAll(async () => {
    worker?.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    if (worker && worker.exitCode === null) worker.kill('SIGKILL');
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    for (const v of manifest.tables.filter((t) => t.kind === 'view'))
      await catalog.views.dropView(tableIdent([`${nsPrefix}${v.db}`], v.name)).catch(() => undefined);
    for (const db of [`${prefix}_sales`, `${prefix}_misc`]) {
      for (const t of await catalog.listTables([`${nsPrefix}${db}`]).catch(() => [])) await catalog.dropTable(t);
      await catalog.dropNamespace([`${nsPrefix}${db}`]).catch(() => undefined);
    }
    await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--drop']);
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('every table ends as in its own workflow; PyIceberg reads the rows; audit once per step; only views get a table workflow; rollback restores the waves', async () => {
    const planFile = path.join(dir, 'plan.json');
    expect((await migrate(['plan', '--out', planFile])).code).toBe(0);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string; waves: { number: number; tables: { id: string }[] }[] };
    const id = plan.hash.slice(0, 12);
    const a = await migrate(
      ['apply', planFile, '--auto-approve', '--wait', '--max-failed', '10', '--concurrency', '8', '--tables-per-activity', '4', '--json'],
      600_000,
    );
    if (a.code !== 0) throw new Error(`apply exit ${a.code}: ${a.stdout}\n${a.stderr.slice(-2000)}\nworker:\n${workerLog.slice(-4000)}`);
    const out = (JSON.parse(a.stdout) as { result: Outcome }).result;
    expect(out.state).toBe('succeeded');

    // The same ends as the one-table path (test/e2e/apply.test.ts): the two layouts that cannot convert fail, compensated.
    const planned = new Set(plan.waves.flatMap((w) => w.tables.map((t) => t.id)));
    const failed = out.waves.flatMap((w) => w.failed);
    expect(failed.map((f) => [f.tableId.split('.')[1], f.code]).sort()).toEqual(
      [
        ['accounts_acid', 'CONVERT_SUBDIRECTORY'],
        ['visits_skewed', 'CONVERT_SUBDIRECTORY'],
      ].filter(([n]) => [...planned].some((t) => t.endsWith(`.${n}`))),
    );
    const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    try {
      for (const f of failed) {
        expect(await catalog.tableExists(tableIdent([`${nsPrefix}${f.tableId.split('.')[0]}`], f.tableId.split('.')[1] as string))).toBe(
          false,
        );
        const rec = await state.getTable(plan.hash, f.tableId);
        expect({ status: rec.status, written: rec.writtenFiles ?? [] }).toEqual({ status: 'failed', written: [] });
      }

      // PyIceberg reads every migrated data table with the seeded rows (Avro: PyIceberg cannot).
      const migrated = manifest.tables.filter(
        (t) => planned.has(`${t.db}.${t.name}`) && t.kind !== 'view' && !failed.some((f) => f.tableId === `${t.db}.${t.name}`),
      );
      expect(migrated.length).toBeGreaterThanOrEqual(5);
      const reads = await readWithPyIceberg(migrated.filter((t) => t.format !== 'avro').map((t) => `${nsPrefix}${t.db}.${t.name}`));
      for (const t of migrated.filter((x) => x.format !== 'avro')) {
        const got = reads.find((x) => x.table === `${nsPrefix}${t.db}.${t.name}`);
        expect({ t: t.name, rows: got?.rows, checksum: got?.checksum }).toEqual({ t: t.name, rows: t.rows, checksum: t.checksum });
      }

      // Each migrated table's forward steps are in the audit log exactly once.
      const counts = new Map<string, number>();
      for await (const e of state.readAudit())
        if (e.planHash === plan.hash && e.action.startsWith('table.'))
          counts.set(`${e.object} ${e.action}`, (counts.get(`${e.object} ${e.action}`) ?? 0) + 1);
      const once = [...counts].filter(([, n]) => n !== 1);
      expect(once).toEqual([]);
      for (const t of migrated) {
        const rec = await state.getTable(plan.hash, `${t.db}.${t.name}`);
        expect({ t: t.name, status: rec.status }).toEqual({ t: t.name, status: 'migrated' });
      }
    } finally {
      await state.close();
    }

    // Temporal: the waves ran applyTables batches; only the views went on alone in a table workflow.
    const connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
    try {
      const client = new Client({ connection });
      const alone: string[] = [];
      for await (const w of client.workflow.list({ query: `MigrationPlan = '${id}' AND WorkflowType = 'tableWorkflow'` }))
        alone.push(w.typedSearchAttributes.get(SA.table) ?? '');
      const views = manifest.tables.filter((t) => t.kind === 'view' && planned.has(`${t.db}.${t.name}`)).map((t) => `${t.db}.${t.name}`);
      expect(views.length).toBeGreaterThan(0);
      expect(alone.sort()).toEqual(views.sort());
      const wave = await client.workflow.getHandle(`migrate/${id}/wave-${plan.waves[0]?.number}`).fetchHistory();
      const batches = (wave.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'applyTables');
      expect(batches.length).toBeGreaterThan(0);
    } finally {
      await connection.close();
    }

    // `migrate status` reads a batched plan like any other: every table with where it stands.
    const st = await migrate(['status', id, '--json']);
    expect({ code: st.code, internal: st.stderr.includes('internal error') }).toEqual({ code: 0, internal: false });
    const shown = JSON.stringify(JSON.parse(st.stdout));
    for (const t of planned) expect(shown).toContain(t);

    // Rollback of every wave (last first) takes the batched tables back like any other, two tables a
    // workflow run (--tables-per-run 2): a wave of more continues as new, every table rolled back once.
    const connection2 = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
    try {
      const client = new Client({ connection: connection2 });
      for (const w of [...plan.waves].reverse()) {
        const rb = await migrate(['rollback', id, '--wave', String(w.number), '--tables-per-run', '2', '--json'], 600_000);
        expect({ wave: w.number, code: rb.code, err: rb.code === 0 ? '' : rb.stdout + rb.stderr }).toEqual({
          wave: w.number,
          code: 0,
          err: '',
        });
        const body = JSON.parse(rb.stdout) as {
          rolledBack: string[];
          refused: unknown[];
          counts: { tables: number; rolledBack: number; runs: number };
        };
        const runs = Math.max(1, Math.ceil(body.counts.tables / 2));
        expect([body.counts.rolledBack, body.counts.runs, body.rolledBack.length, new Set(body.rolledBack).size, body.refused]).toEqual([
          body.counts.tables,
          runs,
          body.counts.tables,
          body.counts.tables,
          [],
        ]);
        // Temporal holds the runs of one workflow id; each replays on today's workflow code.
        const wid = rollbackWorkflowId(plan.hash, w.number);
        const seen: string[] = [];
        for await (const x of client.workflow.list({ query: `WorkflowId = '${wid}'` })) {
          seen.push(x.status.name);
          const history = await client.workflow.getHandle(wid, x.runId).fetchHistory();
          await Worker.runReplayHistory(
            { workflowsPath: require.resolve('../../workflows/index'), replayName: `${wid} ${x.runId}` },
            history,
          );
          // HIM_RECORD_HISTORIES=<dir>: the first run (it read the wave) and the last, as replay fixtures (test/workflows/replay.test.ts).
          const record = process.env.HIM_RECORD_HISTORIES;
          const json = historyToJSON(history);
          const name = x.status.name === 'COMPLETED' ? 'continued' : json.includes('"migratedTables"') ? 'continued-as-new' : undefined;
          if (record !== undefined && name !== undefined && w.number === plan.waves[0]?.number)
            writeFileSync(path.join(record, `v0.6-rollbackWaveWorkflow-server-${name}.json`), json);
        }
        expect(seen.sort()).toEqual(['COMPLETED', ...Array<string>(runs - 1).fill('CONTINUED_AS_NEW')]);
      }
    } finally {
      await connection2.close();
    }
    for (const t of manifest.tables.filter((x) => x.kind !== 'view' && planned.has(`${x.db}.${x.name}`)))
      expect({ t: t.name, there: await catalog.tableExists(tableIdent([`${nsPrefix}${t.db}`], t.name)) }).toEqual({
        t: t.name,
        there: false,
      });
  }, 900_000);
});
