// A worker frozen past its activity timeouts (a real SIGSTOP) and resumed after the plan finished
// elsewhere. Worker A freezes itself right before it records a table's
// validation (failpoint `stop:before-validated-record`): its attempt has read the record, run the
// validation, and is about to append `table.validated`. Temporal's heartbeat timeout hands the
// step (and A's other steps in flight) to worker B, which finishes the whole plan. Then A gets
// SIGCONT and its stale attempts go on and record what they were about to. Every per-table audit
// event must still be in the chain exactly once (the step's idempotency key, docs/audit.md
// "Idempotent appends"), every table ends migrated once, and `migrate audit verify` is intact.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PostgresStateStore } from '../../adapters/state/postgres';
import { AuditAction } from '../../core/audit/chain';
import { TSX, run } from '../helpers/cli';
import { dropNamespace, migrateWith, suiteConfig } from '../helpers/e2e-suite';
import type { WorkerProc } from '../helpers/hostile';
import { startWorker } from '../helpers/hostile';
import { seedWarehouse } from '../helpers/live-tables';
import { testStack, uniqueName } from '../helpers/stack-env';

const env = testStack();
const prefix = uniqueName('himf').toLowerCase();
const nsPrefix = `${prefix}_`;
const db = `${prefix}_sales`;
let dir = '';
let cfgFile = '';
let failpointDir = '';
let a: WorkerProc | undefined;
let b: WorkerProc | undefined;
let migrate: ReturnType<typeof migrateWith>;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => T | undefined, ms: number, log: () => string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${log().slice(-4000)}`);
    await sleep(250);
  }
}

describe('a worker frozen (SIGSTOP) past its activity timeouts and resumed after another worker finished', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'him-frozen-'));
    failpointDir = path.join(dir, 'failpoints');
    await run('mkdir', ['-p', failpointDir]);
    await seedWarehouse(prefix, dir);
    cfgFile = suiteConfig({
      dir,
      queue: `him-frozen-${prefix}`,
      nsPrefix,
      databases: [db],
      planYaml: '  waves:\n    maxTablesPerWave: 10\n',
    });
    migrate = migrateWith(cfgFile);
  }, 600_000);

  afterAll(async () => {
    const pid = a?.proc.pid;
    if (pid !== undefined && a?.proc.exitCode === null) process.kill(pid, 'SIGCONT');
    await a?.stop();
    await b?.stop();
    await dropNamespace(`${nsPrefix}${db}`);
    await run(TSX, ['dev/seed/main.ts', '--hms', env.HIM_HMS_PG_URI as string, '--prefix', prefix, '--drop']);
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it('every per-table audit event once, every table migrated once, the chain intact', async () => {
    const planFile = path.join(dir, 'plan.json');
    expect((await migrate(['plan', '--out', planFile])).code).toBe(0);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { hash: string; waves: { tables: { id: string; kind: string }[] }[] };
    const logs = (): string => `--- worker A\n${a?.log() ?? ''}\n--- worker B\n${b?.log() ?? ''}`;

    a = startWorker(cfgFile, { HIM_FAILPOINTS: 'stop:before-validated-record', HIM_FAILPOINT_DIR: failpointDir });
    const applying = migrate(
      ['apply', planFile, '--auto-approve', '--wait', '--step-timeout', '8', '--heartbeat-timeout', '4', '--json'],
      600_000,
    );
    // A froze itself before recording the first table it validated.
    const frozen = await until('worker A to freeze', () => readdirSync(failpointDir).find((f) => !f.endsWith('.resumed')), 300_000, logs);
    await until(
      'worker A stopped',
      () => (readFileSync(`/proc/${a?.proc.pid}/stat`, 'utf8').split(' ')[2] === 'T' ? true : undefined),
      10_000,
      logs,
    );
    b = startWorker(cfgFile);
    const done = await applying;
    const result = JSON.parse(done.stdout || '{}') as { result?: { state: string } };
    if (result.result?.state !== 'succeeded') throw new Error(`apply: ${done.stdout}\n${done.stderr}\n${logs().slice(-6000)}`);
    // A was frozen all along (longer than the heartbeat timeout: B finished its steps).
    expect(readFileSync(`/proc/${a.proc.pid}/stat`, 'utf8').split(' ')[2]).toBe('T');
    expect(readdirSync(failpointDir)).toEqual([frozen]);

    // Resume A: its stale attempt goes on to record the validation it had made.
    process.kill(a.proc.pid as number, 'SIGCONT');
    await until('worker A to resume', () => (existsSync(path.join(failpointDir, `${frozen}.resumed`)) ? true : undefined), 30_000, logs);
    await sleep(10_000); // its stale steps record (or find their key) and report to Temporal, which drops them

    const state = await PostgresStateStore.open(env.HIM_POSTGRES_URL as string);
    try {
      const counts = new Map<string, number>();
      for await (const e of state.readAudit())
        if (e.planHash === plan.hash) counts.set(`${e.action} ${e.object}`, (counts.get(`${e.action} ${e.object}`) ?? 0) + 1);
      const records = await state.listTables(plan.hash);
      const views = records.filter((r) => r.status === 'view-created');
      const tables = records.filter((r) => r.status !== 'view-created');
      expect(tables.length).toBeGreaterThan(1);
      const once = [AuditAction.TABLE_ORIGINAL_SAVED, AuditAction.TABLE_METADATA_WRITTEN, AuditAction.TABLE_VALIDATED];
      for (const t of tables) {
        expect([t.tableId, t.status]).toEqual([t.tableId, 'migrated']);
        for (const action of once) expect([t.tableId, action, counts.get(`${action} hms:${t.tableId}`)]).toEqual([t.tableId, action, 1]);
      }
      for (const v of views)
        expect([v.tableId, counts.get(`${AuditAction.TABLE_ORIGINAL_SAVED} hms:${v.tableId}`)]).toEqual([v.tableId, 1]);
      expect(records.length).toBe(plan.waves.flatMap((w) => w.tables).length);
      // No event of the plan twice (registered and the views' events included), and nothing failed.
      expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
      expect([...counts.keys()].filter((k) => k.startsWith(AuditAction.TABLE_FAILED))).toEqual([]);
      expect([...counts.keys()].filter((k) => k.startsWith(AuditAction.TABLE_REGISTERED))).toHaveLength(tables.length);
    } finally {
      await state.close();
    }
    const v = await migrate(['audit', 'verify', '--json']);
    expect([v.code, JSON.parse(v.stdout) as unknown]).toEqual([0, expect.objectContaining({ ok: true })]);
  }, 900_000);
});
