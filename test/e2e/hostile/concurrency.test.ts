// Hostile corpus, concurrency and ids of live plans, on a small warehouse of good
// tables and one worker: the same plan applied twice at once (one run, each table registered once),
// rollback --wave 99, two rollbacks of one wave at once (no duplicate audit events), approve --wave
// 99 of a running plan, approving twice ("already approved", exit 0), rollback during apply of the
// same wave, two plans sharing tables (never double-registered: one CATALOG_CONFLICT), and
// rollback --force of a CATALOG_CONFLICT table (the other plan's entry stays untouched).
// The cases run in order: later ones use the plans earlier ones applied.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { RestCatalog } from '../../../adapters/catalog/rest';
import { PostgresStateStore } from '../../../adapters/state/postgres';
import type { RoutingObjectStore } from '../../../adapters/storage/routing-store';
import type { Run } from '../../helpers/cli';
import type { WorkerProc } from '../../helpers/hostile';
import {
  auditIntact,
  catalogEntry,
  dataDigests,
  dropNamespaces,
  env,
  migrate,
  openCatalog,
  openStore,
  outcome,
  sleep,
  stackConfigYaml,
  startWorker,
  writeFile,
} from '../../helpers/hostile';
import { uniqueName } from '../../helpers/stack-env';
import { buildWarehouse, dropWarehouse, rootOf } from './warehouse';

const prefix = uniqueName('himk').toLowerCase();
const nsPrefix = `${prefix}_`;
const DBS = { a: `${prefix}_a`, b: `${prefix}_b`, c: `${prefix}_c` } as const;
const NAMES = { a: ['a1', 'a2', 'a3'], b: ['b1', 'b2', 'b3', 'b4', 'b5', 'b6'], c: ['c1', 'c2'] } as const;
const ids = (k: keyof typeof DBS): string[] => NAMES[k].map((n) => `${DBS[k]}.${n}`);

interface Plan {
  file: string;
  hash: string;
  id: string;
}
interface Status {
  state: string;
  currentWave: number | null;
  waves: { wave: number; migrated: number; failed: { tableId: string; code: string }[] }[];
}

let dir = '';
let cfg = '';
let worker: WorkerProc | undefined;
let catalog: RestCatalog;
let store: RoutingObjectStore;
let before: Record<string, string> = {};
const plans: Record<string, Plan> = {};
let temporal: Connection;
/** The rollback of plan b's wave 1, started right after that wave's approval (while it applies). */
let rollbackDuringApply: Promise<Run> | undefined;

async function makePlan(name: string, db: string): Promise<Plan> {
  const file = path.join(dir, `${name}.json`);
  const r = await migrate(['plan', '--database', db, '--out', file, '-c', cfg], 300_000);
  if (r.code !== 0) throw new Error(`plan ${name}: ${r.stderr}`);
  const hash = (JSON.parse(readFileSync(file, 'utf8')) as { hash: string }).hash;
  return { file, hash, id: hash.slice(0, 12) };
}

const applyWait = (p: Plan, extra: readonly string[] = []): Promise<Run> =>
  migrate(['apply', p.file, '--auto-approve', '--wait', '--json', '--step-timeout', '30', ...extra, '-c', cfg], 300_000);
const resultOf = (r: Run): Status | undefined => {
  try {
    return (JSON.parse(r.stdout) as { result?: Status }).result;
  } catch {
    return undefined;
  }
};

/** Audit events of `action` per HMS table id, for plans `hashes`. */
async function auditCounts(action: string, hashes: readonly string[]): Promise<Record<string, number>> {
  const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
  const out: Record<string, number> = {};
  try {
    for await (const e of state.readAudit()) {
      if (e.action !== action || e.planHash === null || !hashes.includes(e.planHash)) continue;
      // `hms:<db>.<t>` or `<catalog>:<nsPrefix><db>.<t>`: keyed by the HMS table id.
      const o = e.object.replace(/^[^:]*:/, '');
      const t = o.startsWith(`${nsPrefix}${prefix}_`) ? o.slice(nsPrefix.length) : o;
      out[t] = (out[t] ?? 0) + 1;
    }
  } finally {
    await state.close();
  }
  return out;
}

async function waitFor(p: Plan, pred: (s: Status) => boolean, ms = 240_000): Promise<Status | undefined> {
  const deadline = Date.now() + ms;
  let s: Status | undefined;
  while (Date.now() < deadline) {
    const r = await migrate(['status', p.id, '--json', '-c', cfg]);
    try {
      s = JSON.parse(r.stdout) as Status;
      if (pred(s)) return s;
    } catch {
      s = undefined;
    }
    await sleep(1000);
  }
  return s;
}
const ended = (s: Status): boolean => ['succeeded', 'failed', 'cancelled'].includes(s.state);

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-hostile-conc-'));
  cfg = writeFile(
    dir,
    'migrate.yaml',
    stackConfigYaml(
      `him-hostile-${prefix}`,
      nsPrefix,
      `plan:\n  databases: [${Object.values(DBS).join(', ')}]\n  waves:\n    maxTablesPerWave: 10\n`,
    ),
  );
  for (const k of ['a', 'b', 'c'] as const)
    await buildWarehouse(prefix, DBS[k], Object.fromEntries(NAMES[k].map((n) => [n, 'good' as const])));
  catalog = await openCatalog();
  store = openStore();
  before = await dataDigests(store, `${rootOf(prefix)}/`);
  plans.a = await makePlan('a', DBS.a);
  plans.b = await makePlan('b', DBS.b);
  plans.c1 = await makePlan('c1', DBS.c);
  plans.c2 = await makePlan('c2', DBS.c);
  temporal = await Connection.connect({ address: env.HIM_TEMPORAL_ADDRESS as string });
  worker = startWorker(cfg);
}, 600_000);

afterAll(async () => {
  const client = new Client({ connection: temporal });
  for (const p of Object.values(plans)) {
    for await (const w of client.workflow.list({ query: `WorkflowId STARTS_WITH 'migrate/${p.id}' AND ExecutionStatus = 'Running'` })) {
      await client.workflow
        .getHandle(w.workflowId, w.runId)
        .terminate('hostile corpus cleanup')
        .catch(() => undefined);
    }
  }
  await temporal?.close();
  await worker?.stop();
  await dropNamespaces(catalog, nsPrefix, Object.values(DBS));
  for (const k of ['a', 'b', 'c'] as const) await dropWarehouse(prefix, DBS[k], NAMES[k]);
  store?.destroy();
  rmSync(dir, { recursive: true, force: true });
}, 300_000);

describe('hostile concurrency and live ids', () => {
  it('the same plan applied twice at once: one workflow run, each table registered once, both exit 0', async () => {
    const a = plans.a as Plan;
    const [r1, r2] = await Promise.all([applyWait(a), applyWait(a)]);
    expect([outcome(r1 as Run), outcome(r2 as Run)]).toEqual([
      { exit: 0, code: undefined },
      { exit: 0, code: undefined },
    ]);
    let runs = 0;
    for await (const w of new Client({ connection: temporal }).workflow.list({ query: `WorkflowId = 'migrate/${a.id}'` }))
      runs += w.workflowId === `migrate/${a.id}` ? 1 : 0;
    expect(runs).toBe(1);
    expect(await auditCounts('table.registered', [a.hash])).toEqual(Object.fromEntries(ids('a').map((t) => [t, 1])));
    for (const t of ids('a')) expect(await catalogEntry(catalog, nsPrefix, t)).not.toBeNull();
    expect(await auditIntact(cfg)).toEqual({ exit: 0, ok: true, code: undefined });
  }, 400_000);

  it('rollback --wave 99 of a known plan → exit 2, coded', async () => {
    const r = await migrate(['rollback', (plans.a as Plan).id, '--wave', '99', '--json', '-c', cfg], 120_000);
    expect(r.code).toBe(2);
    expect(outcome(r).code).toMatch(/^[A-Z][A-Z0-9_]+$/);
    for (const t of ids('a')) expect(await catalogEntry(catalog, nsPrefix, t)).not.toBeNull();
  }, 200_000);

  it('two rollbacks of one wave at once: every table rolled back once (no duplicate audit events), no internal error', async () => {
    const a = plans.a as Plan;
    const runs = await Promise.all([0, 1].map(() => migrate(['rollback', a.id, '--wave', '1', '--json', '-c', cfg], 300_000)));
    // Each ends 0, or with a coded error (never 70); at least one does the work.
    const outs = runs.map(outcome);
    expect({
      outs: outs.map((o) => (o.exit === 0 || (o.exit !== 70 && o.code !== undefined) ? 'ok' : o)),
      anyZero: outs.some((o) => o.exit === 0),
    }).toEqual({ outs: ['ok', 'ok'], anyZero: true });
    for (const t of ids('a')) expect(await catalogEntry(catalog, nsPrefix, t)).toBeNull();
    const once = Object.fromEntries(ids('a').map((t) => [t, 1]));
    expect(await auditCounts('table.rolled-back', [a.hash])).toEqual(once);
    expect(await auditCounts('table.unregistered', [a.hash])).toEqual(once);
    expect(await auditIntact(cfg)).toEqual({ exit: 0, ok: true, code: undefined });
    expect(await dataDigests(store, `${rootOf(prefix)}/`)).toEqual(before);
  }, 400_000);

  it('approve --wave 99 of a running plan → exit 2, coded', async () => {
    const b = plans.b as Plan;
    const r = await migrate(['apply', b.file, '--json', '--step-timeout', '30', '-c', cfg], 120_000);
    expect(outcome(r)).toEqual({ exit: 0, code: undefined });
    const s = await waitFor(b, (x) => x.state === 'waiting-approval', 120_000);
    expect(s?.state).toBe('waiting-approval');
    const ap = await migrate(['approve', b.id, '--wave', '99', '-c', cfg]);
    expect(ap.code).toBe(2);
    expect(outcome(ap).code).toMatch(/^[A-Z][A-Z0-9_]+$/);
  }, 300_000);

  it('approve the same wave twice → both exit 0, the second says "already approved"', async () => {
    const b = plans.b as Plan;
    const first = await migrate(['approve', b.id, '--wave', '1', '-c', cfg]);
    // The next case's rollback starts now, while the wave applies.
    rollbackDuringApply = migrate(['rollback', b.id, '--wave', '1', '--json', '-c', cfg], 300_000);
    const second = await migrate(['approve', b.id, '--wave', '1', '-c', cfg]);
    expect([outcome(first), outcome(second)]).toEqual([
      { exit: 0, code: undefined },
      { exit: 0, code: undefined },
    ]);
    expect(`${second.stdout}${second.stderr}`).toMatch(/already approved/i);
  }, 200_000);

  it('rollback during apply of the same wave: every table of the wave rolled back, or a coded refusal (exit accordingly)', async () => {
    const b = plans.b as Plan;
    const rb = await (rollbackDuringApply ?? migrate(['rollback', b.id, '--wave', '1', '--json', '-c', cfg], 300_000));
    const end = await waitFor(b, ended);
    expect(end?.state).toMatch(/^(succeeded|failed|cancelled)$/);
    const entries = await Promise.all(ids('b').map((t) => catalogEntry(catalog, nsPrefix, t)));
    if (rb.code === 0) {
      expect({ rolledBack: ((JSON.parse(rb.stdout) as { rolledBack: string[] }).rolledBack ?? []).slice().sort(), entries }).toEqual({
        rolledBack: ids('b').sort(),
        entries: ids('b').map(() => null),
      });
    } else {
      expect(rb.code).not.toBe(70);
      const body = JSON.parse(rb.stdout || '{}') as { error?: { code?: string }; refused?: { code: string }[] };
      expect(body.error?.code ?? body.refused?.[0]?.code).toMatch(/^[A-Z][A-Z0-9_]+$/);
    }
    expect(await auditIntact(cfg)).toEqual({ exit: 0, ok: true, code: undefined });
    expect(await dataDigests(store, `${rootOf(prefix)}/`)).toEqual(before);
  }, 400_000);

  it('two plans sharing tables, applied at once: each table registered by exactly one, the other fails it CATALOG_CONFLICT', async () => {
    const [c1, c2] = [plans.c1 as Plan, plans.c2 as Plan];
    // --accept-stale: whichever pre-check runs after the other plan registered a table would refuse
    // the plan (PLAN_STALE); what is proven here is the race inside the runs.
    const runs = await Promise.all([applyWait(c1, ['--accept-stale']), applyWait(c2, ['--accept-stale'])]);
    const results = runs.map(resultOf);
    const failed = results.map((r) => (r?.waves ?? []).flatMap((w) => w.failed));
    runs.forEach((r, i) =>
      expect({ exit: r.code, code: outcome(r).code }).toEqual({ exit: (failed[i] ?? []).length > 0 ? 1 : 0, code: undefined }),
    );
    expect(await auditCounts('table.registered', [c1.hash, c2.hash])).toEqual(Object.fromEntries(ids('c').map((t) => [t, 1])));
    for (const t of ids('c')) {
      const codes = failed.map((f) => f.find((x) => x.tableId === t)?.code);
      expect(codes.filter((c) => c === 'CATALOG_CONFLICT')).toHaveLength(1);
      expect(codes.filter((c) => c === undefined)).toHaveLength(1);
      expect(await catalogEntry(catalog, nsPrefix, t)).not.toBeNull();
    }
  }, 400_000);

  it("rollback --force of a CATALOG_CONFLICT table leaves the other plan's entry untouched (coded refusal or nothing to roll back)", async () => {
    const [c1, c2] = [plans.c1 as Plan, plans.c2 as Plan];
    const registered = await auditCounts('table.registered', [c1.hash]);
    const t = ids('c')[0] as string;
    const loser = registered[t] === 1 ? c2 : c1;
    const entry = await catalogEntry(catalog, nsPrefix, t);
    expect(entry).not.toBeNull();
    const r = await migrate(['rollback', loser.id, '--wave', '1', '--force', '--json', '-c', cfg], 300_000);
    expect(await catalogEntry(catalog, nsPrefix, t)).toBe(entry);
    const body = JSON.parse(r.stdout || '{}') as { rolledBack?: string[]; refused?: { tableId: string; code: string }[] };
    if (r.code === 0) expect(body.rolledBack ?? []).not.toContain(t);
    else
      expect({ exit: r.code, code: body.refused?.find((x) => x.tableId === t)?.code }).toEqual({
        exit: 1,
        code: expect.stringMatching(/^[A-Z][A-Z0-9_]+$/),
      });
    expect(await auditCounts('table.unregistered', [loser.hash])).not.toHaveProperty(t);
    expect(await auditIntact(cfg)).toEqual({ exit: 0, ok: true, code: undefined });
  }, 400_000);
});
