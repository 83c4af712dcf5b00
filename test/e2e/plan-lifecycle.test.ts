// The plan lifecycle on the stack (a real `migrate worker`, Temporal, HMS, the REST catalog, S3):
// two plans A and B of the same four tables (two waves); `show` re-renders each plan's report, HTML
// report and graph byte-identical to what `plan` wrote (from the file, and from the state store by
// id); B applied and succeeded; B applied again is a no-op (exit 0, no new run in Temporal); A,
// now stale (B registered its tables), is refused PLAN_STALE naming every table before any
// workflow of A exists; `plans` lists B; `status --json` carries each table's target, metadata
// location, workflow id, run duration and UI link; after a rollback of wave 1 its status line says
// rolled back (never "succeeded — 2 migrated").
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Run } from '../helpers/cli';
import { TSX, run } from '../helpers/cli';
import type { SupervisedWorker } from '../helpers/e2e-suite';
import { dropNamespace, migrateWith, suiteConfig, superviseWorker } from '../helpers/e2e-suite';
import { testStack, uniqueName } from '../helpers/stack-env';

const env = testStack();
const prefix = uniqueName('himlc').toLowerCase();
const nsPrefix = `${prefix}_`;
const database = `${prefix}_scale_4x1x1`;
let dir = '';
let migrate: (args: string[], timeout?: number) => Promise<Run>;
let worker: SupervisedWorker | undefined;
let connection: Connection;
let client: Client;
const plans: Record<'a' | 'b', { file: string; hash: string; id: string }> = {} as never;

const json = <T>(r: Run): T => JSON.parse(r.stdout) as T;
const file = (f: string): string => readFileSync(path.join(dir, f), 'utf8');

async function executions(query: string): Promise<string[]> {
  const out: string[] = [];
  for await (const w of client.workflow.list({ query })) out.push(`${w.workflowId}@${w.runId}`);
  return out;
}

describe('plan lifecycle: show, apply once, stale plans, plans, status', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-lifecycle-'));
    const s = await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--scale', '4,1,1']);
    if (s.code !== 0) throw new Error(`seeding failed: ${s.stderr}`);
    const cfg = suiteConfig({
      dir,
      queue: `him-e2e-${prefix}`,
      nsPrefix,
      databases: [database],
      planYaml: '  waves:\n    maxTablesPerWave: 2\n',
    });
    migrate = migrateWith(cfg);
    worker = superviseWorker(cfg);
    connection = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
    client = new Client({ connection });
    for (const [k, outs] of [
      ['a', ['--report', 'a.md', '--graph', 'a.svg']],
      ['b', ['--report', 'b.html', '--graph', 'b.dot']],
    ] as const) {
      const f = path.join(dir, `${k}.json`);
      const p = await migrate(['plan', '--out', f, ...outs.flatMap((o) => (o.includes('.') ? [path.join(dir, o)] : [o]))]);
      if (p.code !== 0) throw new Error(`plan ${k} failed: ${p.stderr}`);
      const hash = (JSON.parse(readFileSync(f, 'utf8')) as { hash: string }).hash;
      plans[k] = { file: f, hash, id: hash.slice(0, 12) };
    }
  }, 600_000);

  afterAll(async () => {
    await worker?.stop();
    await connection?.close();
    await dropNamespace(`${nsPrefix}${database}`);
    await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--scale', '4,1,1', '--drop']);
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('show re-renders report, HTML report and graph byte-identical to what plan wrote', async () => {
    expect(plans.a.hash).not.toBe(plans.b.hash);
    const s = await migrate(['show', plans.a.file, '--report', path.join(dir, 'a2.md'), '--graph', path.join(dir, 'a2.svg'), '--json']);
    expect(s.code).toBe(0);
    expect(json<{ ok: boolean; tables: number; waves: number }>(s)).toMatchObject({ ok: true, tables: 4, waves: 2 });
    expect(file('a2.md')).toBe(file('a.md'));
    expect(file('a2.svg')).toBe(file('a.svg'));
    const h = await migrate(['show', plans.b.file, '--html', path.join(dir, 'b2.html'), '--graph', path.join(dir, 'b2.dot')]);
    expect(h.code).toBe(0);
    expect(file('b2.html')).toBe(file('b.html'));
    expect(file('b2.dot')).toBe(file('b.dot'));
    const text = await migrate(['show', plans.a.file]);
    expect([text.code, text.stdout]).toEqual([0, file('a.md')]);
  }, 120_000);

  it('apply B succeeds; applying it again starts no new run (exit 0, says so); show by id from the state store', async () => {
    const t0 = Date.now();
    const a = await migrate(['apply', plans.b.file, '--auto-approve', '--wait', '--json'], 600_000);
    if (a.code !== 0) throw new Error(`apply B failed (${a.code}): ${a.stdout}\n${a.stderr}\n${worker?.log().slice(-3000) ?? ''}`);
    expect(json<{ result: { state: string }; staleCheck: { checked: number; stale: unknown[] } }>(a)).toMatchObject({
      result: { state: 'succeeded' },
      staleCheck: { checked: 4, stale: [] },
    });
    console.log(`apply B: ${Date.now() - t0} ms`);
    const runs = await executions(`WorkflowId = 'migrate/${plans.b.id}'`);
    expect(runs).toHaveLength(1);
    const again = await migrate(['apply', plans.b.file, '--auto-approve', '--json']);
    expect(again.code).toBe(0);
    expect(json(again)).toMatchObject({ ok: true, started: false, alreadySucceeded: true, workflowId: `migrate/${plans.b.id}` });
    const text = await migrate(['apply', plans.b.file]);
    expect([text.code, text.stdout]).toEqual([0, expect.stringContaining(`plan ${plans.b.id} already succeeded`)]);
    expect(await executions(`WorkflowId = 'migrate/${plans.b.id}'`)).toEqual(runs);
    const st = await migrate(['status', plans.b.id]);
    expect([st.code, st.stdout]).toEqual([0, expect.stringContaining(`plan ${plans.b.id}: succeeded`)]);
    const byId = await migrate(['show', plans.b.id, '--report', path.join(dir, 'b3.html')]);
    expect(byId.code).toBe(0);
    expect(file('b3.html')).toBe(file('b.html'));
  }, 900_000);

  it('plan A, made before B registered the same tables, is refused PLAN_STALE before any workflow of A starts', async () => {
    const r = await migrate(['apply', plans.a.file, '--auto-approve', '--json']);
    const err = json<{ error: { code: string; context: { checked: number; stale: { tableId: string; reason: string }[] } } }>(r).error;
    expect([r.code, err.code, err.context.checked]).toEqual([2, 'PLAN_STALE', 4]);
    const planned = (JSON.parse(readFileSync(plans.a.file, 'utf8')) as { waves: { tables: { id: string }[] }[] }).waves.flatMap((w) =>
      w.tables.map((t) => t.id),
    );
    expect(err.context.stale.map((s) => [s.tableId, s.reason]).sort()).toEqual(planned.map((id) => [id, 'target-taken']).sort());
    const text = await migrate(['apply', plans.a.file]);
    expect([text.code, text.stderr]).toEqual([2, expect.stringContaining('[PLAN_STALE]')]);
    expect(await executions(`WorkflowId STARTS_WITH 'migrate/${plans.a.id}'`)).toEqual([]);
    expect(await executions(`MigrationPlan = '${plans.a.id}'`)).toEqual([]);
  }, 300_000);

  it('plans lists B with its state; status --json carries per-table target, metadata location, workflow ids, durations and UI links', async () => {
    const p = await migrate(['plans', '--json']);
    expect(p.code).toBe(0);
    const listed = json<{ plans: { id: string; tables: number; waves: number; state: string; lastRun: { execution: string } | null }[] }>(
      p,
    ).plans;
    expect(listed.find((x) => x.id === plans.b.id)).toMatchObject({
      tables: 4,
      waves: 2,
      state: 'succeeded',
      lastRun: { execution: 'COMPLETED' },
    });
    expect(listed.find((x) => x.id === plans.a.id)).toBeUndefined(); // refused: never stored
    const text = await migrate(['plans']);
    expect(text.stdout).toMatch(new RegExp(`${plans.b.id} .* 4 tables {2}2 waves {2}succeeded`));
    const s = await migrate(['status', plans.b.id, '--json']);
    const rows = json<{
      tables: {
        table: string;
        target: string;
        metadataLocation: string;
        workflowId: string;
        run: { durationMs: number; ui: string; status: string };
      }[];
    }>(s).tables;
    expect(rows).toHaveLength(4);
    for (const r of rows) {
      expect(r.target).toBe(`local-rest:${nsPrefix}${r.table}`); // catalog:identifier, as the record keeps it
      expect(r.metadataLocation).toMatch(/^s3a?:\/\/.*\/metadata\/00000-[^/]*\.metadata\.json$/);
      expect(r.workflowId).toMatch(new RegExp(`^migrate/${plans.b.id}/wave-[12]/${r.table.replace('.', '\\.')}$`));
      expect(r.run.status).toBe('COMPLETED');
      expect(r.run.durationMs).toBeGreaterThan(0);
      expect(r.run.ui).toContain(encodeURIComponent(r.workflowId));
    }
  }, 300_000);

  it('after a rollback of wave 1, its status line says rolled back, not "succeeded — 2 migrated"', async () => {
    const rb = await migrate(['rollback', plans.b.id, '--wave', '1', '--json'], 600_000);
    if (rb.code !== 0) throw new Error(`rollback failed (${rb.code}): ${rb.stdout}\n${rb.stderr}`);
    const s = await migrate(['status', plans.b.id]);
    expect(s.stdout).toContain('  wave 1: rolled back (2 tables) — 2 rolled back\n');
    expect(s.stdout).toContain('  wave 2: succeeded (2 tables) — 2 migrated\n');
    expect(s.stdout).not.toMatch(/wave 1: succeeded/);
    const j = json<{ waves: { wave: number; status: string; tableStatus: { status: string } }[] }>(
      await migrate(['status', plans.b.id, '--json']),
    );
    expect(j.waves.map((w) => [w.wave, w.status, w.tableStatus.status])).toEqual([
      [1, 'succeeded', 'rolled back'],
      [2, 'succeeded', 'succeeded'],
    ]);
    const listed = json<{ plans: { id: string; state: string }[] }>(await migrate(['plans', '--json'])).plans;
    expect(listed.find((x) => x.id === plans.b.id)?.state).toBe('partly rolled back');
  }, 900_000);
});
