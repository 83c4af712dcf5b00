// syncWorkflow (workflows/sync.ts) in the time-skipping test environment, on in-memory activities:
// tables in batches within each run's budget, continue-as-new after `tablesPerRun` tables with the
// counts carried (and the newest tables' times, in the syncStatus query), every outcome paged into
// the (in-memory) state store by recordSyncOutcomes under the workflow id, a batch's transient table
// synced again alone, refusals and a failed batch counted with their codes, a named table outside
// the scope; 5,000 tables with payloads bounded; a carry from a run on older code folded in.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { SyncOutcomeRow, TableSyncOutcome } from '../../activities/index';
import { SA } from '../../workflows/common';
import type { SyncInput, SyncRunResult } from '../../workflows/sync';
import { syncStatusQuery, syncWorkflow } from '../../workflows/sync';
import { coded, Fakes, PLAN } from './helpers/fake-activities';
import { timeSkippingEnv, withWorker } from './helpers/env';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const ids = (k: number): string[] => Array.from({ length: k }, (_, i) => `db.s${i + 1}`);
const committed = (table: string): TableSyncOutcome => ({
  table,
  ok: true,
  result: {
    status: 'appended',
    snapshotId: '2',
    parentSnapshotId: '1',
    metadataLocation: `s3://w/${table}/metadata/2.json`,
    commit: 'committed',
    filesAdded: 2,
    filesRemoved: 0,
    recordsAdded: 10,
    recordsRemoved: 0,
    partitionsAdded: 1,
    partitionsChanged: 1,
    summary: null,
    validation: null,
    columnsAdded: [],
  },
});
const inSync = (table: string): TableSyncOutcome => {
  const c = committed(table) as Extract<TableSyncOutcome, { ok: true }>;
  return {
    table,
    ok: true,
    result: { ...c.result, status: 'in-sync', commit: null, filesAdded: 0, partitionsAdded: 0, partitionsChanged: 0 },
  };
};

/** The state store's sync outcomes as recordSyncOutcomes writes them: per workflow id, one row per table (a rewrite replaces it). */
const stored = new Map<string, Map<string, SyncOutcomeRow>>();
const recordSyncOutcomes = async (workflowId: string, _plan: string, rows: readonly SyncOutcomeRow[]): Promise<void> => {
  const m = stored.get(workflowId) ?? new Map<string, SyncOutcomeRow>();
  for (const r of rows) m.set(r.tableId, r);
  stored.set(workflowId, m);
};
/** A workflow's stored rows in finish order. */
const rowsOf = (workflowId: string): SyncOutcomeRow[] => [...(stored.get(workflowId)?.values() ?? [])].sort((a, b) => a.seq - b.seq);

/** A plan whose migrated tables are `scope`; `sync` decides each table's outcome in a batch. */
function fakes(scope: string[], sync: (t: string) => TableSyncOutcome & { retry?: boolean } = committed, single = committed): Fakes {
  return new Fakes(
    { waves: [] },
    {
      validationScope: async (_p, _w, tables = []) => ({
        tables: scope.filter((t) => tables.length === 0 || tables.includes(t)),
        teams: ['crm'],
      }),
      syncTables: async (_p, tables) => tables.map(sync),
      syncTable: async (_p, t) => single(t),
      recordSyncOutcomes,
    },
  );
}

let n = 0;
async function runSync(f: Fakes, over: Partial<SyncInput> = {}) {
  return withWorker(env, f.activities, async (taskQueue) => {
    const h = await env.client.workflow.start(syncWorkflow, { taskQueue, workflowId: `sync-${++n}`, args: [{ planHash: PLAN, ...over }] });
    const result: SyncRunResult = await h.result();
    const desc = await h.describe();
    const first = await env.client.workflow.getHandle(h.workflowId, h.firstExecutionRunId).fetchHistory();
    const lastOfFirst = first.events?.[first.events.length - 1];
    return {
      result,
      // Every outcome, as `migrate sync` reads them back: the store's rows of this workflow id.
      outcomes: rowsOf(h.workflowId).map((r) => r.outcome as TableSyncOutcome),
      rows: rowsOf(h.workflowId),
      workflowId: h.workflowId,
      firstRunId: h.firstExecutionRunId,
      status: desc.typedSearchAttributes.get(SA.status),
      continued: lastOfFirst?.workflowExecutionContinuedAsNewEventAttributes != null,
      progress: await h.query(syncStatusQuery),
    };
  });
}

describe('syncWorkflow in the time-skipping environment', () => {
  it('syncs in batches that never cross a run budget, continues as new after tablesPerRun, and stores every outcome', async () => {
    const f = fakes(ids(7));
    const { result, outcomes, rows, workflowId, status, continued, progress } = await runSync(f, {
      tablesPerRun: 3,
      batch: 2,
      concurrency: 4,
    });
    // Batches of one run start together (any order); runs follow one another.
    expect(f.seq('syncTables').slice(0, 2).sort()).toEqual(['syncTables db.s1,db.s2', 'syncTables db.s3']);
    expect(f.seq('syncTables').slice(2, 4).sort()).toEqual(['syncTables db.s4,db.s5', 'syncTables db.s6']);
    expect(f.seq('syncTables').slice(4)).toEqual(['syncTables db.s7']);
    expect(continued).toBe(true);
    expect(result).toMatchObject({ status: 'synced', plan: PLAN.slice(0, 12), counts: { inSync: 0, committed: 7, refused: 0 } });
    // The result names where the outcomes are instead of holding them.
    expect(result.tables).toBeUndefined();
    expect(result.outcomes).toEqual({ workflowId, count: 7 });
    expect(result.statuses).toEqual({ appended: 7 });
    expect(outcomes.map((t) => t.table).sort()).toEqual(ids(7));
    expect(rows.map((r) => r.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // Written when each run ended (before continue-as-new, before the result): one page per run here.
    expect(f.of('recordSyncOutcomes').map((c) => (c.args[2] as SyncOutcomeRow[]).length)).toEqual([3, 3, 1]);
    // The last run's query still sees every table (the carried ones with the times they came back).
    expect(progress).toMatchObject({ tables: 7, done: 7, committed: 7, filesAdded: 14, partitionsChanged: 7 });
    expect(progress.perTable.map((p) => p.table).sort()).toEqual(ids(7));
    expect(progress.perTable.every((p) => !Number.isNaN(Date.parse(p.at)))).toBe(true);
    expect(f.of('validationScope')).toHaveLength(1);
    expect(status).toBe('synced');
  });

  it('a table a batch hands back as transient is synced again alone; a refusal is counted with its code (status refused)', async () => {
    const f = fakes(ids(4), (t) =>
      t === 'db.s2'
        ? { table: t, ok: false, error: { code: 'STORAGE_UNREACHABLE', message: 'slow down' }, retry: true }
        : t === 'db.s3'
          ? { table: t, ok: false, error: { code: 'SYNC_FOREIGN_COMMITS', message: 'someone else committed' } }
          : t === 'db.s4'
            ? inSync(t)
            : committed(t),
    );
    const { result, outcomes, status, continued } = await runSync(f, { batch: 4 });
    expect(f.seq('syncTables', 'syncTable')).toEqual(['syncTables db.s1,db.s2,db.s3,db.s4', 'syncTable db.s2']);
    expect(continued).toBe(false);
    expect(result.counts).toEqual({ inSync: 1, committed: 2, refused: 1 });
    expect(result.codes).toEqual({ SYNC_FOREIGN_COMMITS: 1 });
    expect(outcomes.find((t) => t.table === 'db.s3')).toMatchObject({ ok: false, error: { code: 'SYNC_FOREIGN_COMMITS' } });
    expect(outcomes.find((t) => t.table === 'db.s2')).toMatchObject({ ok: true });
    expect(result.status).toBe('refused');
    expect(status).toBe('refused');
  });

  it('a batch activity that fails refuses each of its tables with the code; a named table outside the scope is refused USAGE', async () => {
    const f = new Fakes(
      { waves: [] },
      {
        validationScope: async (_p, _w, tables = []) => ({ tables: ids(3).filter((t) => tables.includes(t)), teams: ['crm'] }),
        syncTables: async (_p, tables) => {
          if (tables.includes('db.s1')) throw coded('CATALOG_AUTH_FAILED');
          return tables.map(committed);
        },
        recordSyncOutcomes,
      },
    );
    // db.nope named twice: one outcome (the outcomes are keyed by table).
    const { result, outcomes } = await runSync(f, { tables: ['db.s1', 'db.s2', 'db.s3', 'db.nope', 'db.nope'], batch: 2, concurrency: 2 });
    expect(result.counts).toEqual({ inSync: 0, committed: 1, refused: 3 });
    expect(result.codes).toEqual({ USAGE: 1, CATALOG_AUTH_FAILED: 2 });
    expect(outcomes).toHaveLength(4);
    const code = (t: string) => outcomes.find((o) => o.table === t) as { ok: boolean; error?: { code: string } };
    expect(code('db.nope').error?.code).toBe('USAGE');
    expect(code('db.s1').error?.code).toBe('CATALOG_AUTH_FAILED');
    expect(code('db.s2').error?.code).toBe('CATALOG_AUTH_FAILED');
    expect(code('db.s3').ok).toBe(true);
  });

  it('5,000 tables in runs of 250: the result and every continue-as-new input stay under 64 kB, the counts are exact, every outcome stored once', async () => {
    const N = 5_000;
    const codes = ['SYNC_FOREIGN_COMMITS', 'SOURCE_CHANGED', 'SYNC_FILE_REWRITTEN'];
    // ~0.8 kB per outcome, as the rehearsal measured: a summary and a metadata location of realistic length.
    const big = (t: string): TableSyncOutcome => {
      const c = committed(t) as Extract<TableSyncOutcome, { ok: true }>;
      const summary = Object.fromEntries(
        [
          'added-data-files',
          'added-records',
          'added-files-size',
          'changed-partition-count',
          'total-records',
          'total-files-size',
          'total-data-files',
          'total-delete-files',
          'him.sync',
          'him.source.hms-table',
        ].map((k) => [k, `${k}-${t}`]),
      );
      return {
        table: t,
        ok: true,
        result: {
          ...c.result,
          metadataLocation: `s3://warehouse/analytics.db/${t}/metadata/00002-4f5e6d7c-8b9a-4c3d-9e2f-1a0b9c8d7e6f.metadata.json`,
          summary,
        },
      };
    };
    const outcome = (t: string): TableSyncOutcome => {
      const i = Number(t.slice('db.s'.length));
      if (i % 7 === 0) return { table: t, ok: false, error: { code: codes[i % 3] as string, message: `${t} refused: ${'x'.repeat(200)}` } };
      return i % 5 === 0 ? inSync(t) : big(t);
    };
    const expected = { inSync: 0, committed: 0, refused: 0 };
    const codeCounts: Record<string, number> = {};
    for (const t of ids(N)) {
      const o = outcome(t);
      if (!o.ok) {
        expected.refused++;
        codeCounts[o.error.code] = (codeCounts[o.error.code] ?? 0) + 1;
      } else if (o.result.commit === null) expected.inSync++;
      else expected.committed++;
    }
    const perOutcome = JSON.stringify(big('db.s1234')).length;
    const f = fakes(ids(N), outcome);
    const t0 = performance.now();
    const { result, rows, workflowId, firstRunId, progress } = await runSync(f, { tablesPerRun: 250, batch: 25, concurrency: 50 });
    const seconds = (performance.now() - t0) / 1000;

    // Every run's continue-as-new input, and the result, as the server holds them (payload bytes).
    const bytes = (p: { payloads?: { data?: Uint8Array | null }[] | null } | null | undefined): number =>
      (p?.payloads ?? []).reduce((n, x) => n + (x.data?.length ?? 0), 0);
    const carries: { bytes: number; remaining: number }[] = [];
    let resultBytes = 0;
    let maxRecordInput = 0;
    type History = Awaited<ReturnType<ReturnType<typeof env.client.workflow.getHandle>['fetchHistory']>>;
    for (let runId: string | undefined = firstRunId; runId !== undefined; ) {
      const events: NonNullable<History['events']> = (await env.client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
      for (const e of events) {
        const a = e.activityTaskScheduledEventAttributes;
        if (a?.activityType?.name === 'recordSyncOutcomes') maxRecordInput = Math.max(maxRecordInput, bytes(a.input));
      }
      const last: (typeof events)[number] | undefined = events[events.length - 1];
      const can = last?.workflowExecutionContinuedAsNewEventAttributes;
      if (can != null) {
        const remaining =
          (JSON.parse(Buffer.from(can.input?.payloads?.[0]?.data ?? new Uint8Array()).toString('utf8')) as SyncInput).carried?.remaining ??
          [];
        carries.push({ bytes: bytes(can.input), remaining: JSON.stringify(remaining).length });
      }
      resultBytes = bytes(last?.workflowExecutionCompletedEventAttributes?.result) || resultBytes;
      runId = can?.newExecutionRunId ?? undefined;
    }
    const carried = carries.map((c) => c.bytes);
    process.stdout.write(
      `sync of ${N} tables in ${carries.length + 1} runs, ${seconds.toFixed(1)} s: outcome ~${perOutcome} B; result ${resultBytes} B; ` +
        `continue-as-new inputs ${Math.min(...carried)}–${Math.max(...carried)} B (without the remaining list ≤ ${Math.max(...carries.map((c) => c.bytes - c.remaining))} B); ` +
        `largest recordSyncOutcomes input ${maxRecordInput} B\n`,
    );
    expect(perOutcome).toBeGreaterThan(750);
    expect(carries).toHaveLength(N / 250 - 1);
    expect(resultBytes).toBeGreaterThan(0);
    expect(resultBytes).toBeLessThan(64 * 1024);
    for (const c of carries) {
      expect(c.bytes).toBeLessThan(64 * 1024);
      // What is not the list of tables still to sync does not grow with the plan.
      expect(c.bytes - c.remaining).toBeLessThan(16 * 1024);
    }
    expect(maxRecordInput).toBeLessThan(512 * 1024);
    // Exact counts, and every table's outcome in the store once, in finish order.
    expect(result.counts).toEqual(expected);
    expect(result.codes).toEqual(codeCounts);
    expect(result.outcomes).toEqual({ workflowId, count: N });
    expect(rows).toHaveLength(N);
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: N }, (_, i) => i));
    expect(rows.map((r) => r.tableId).sort()).toEqual(ids(N).sort());
    for (const r of rows) expect(r.outcome).toEqual(outcome(r.tableId));
    expect(progress).toMatchObject({ tables: N, done: N, ...expected, outcomes: { workflowId, count: N } });
    expect(progress.perTable).toHaveLength(50);
    expect(progress.perTable.at(-1)?.table).toBe(rows.at(-1)?.tableId);
  }, 300_000);

  it('a run continued from one on older code (every outcome carried) writes the carried outcomes first, with their times, and counts them', async () => {
    const f = fakes(ids(6));
    const old = [
      committed('db.s1'),
      inSync('db.s2'),
      { table: 'db.s3', ok: false, error: { code: 'SOURCE_CHANGED', message: 'moved' } },
    ] as TableSyncOutcome[];
    const doneAt = ['2026-12-01T00:00:01.000Z', '2026-12-01T00:00:02.000Z', '2026-12-01T00:00:03.000Z'];
    const carried = { remaining: ['db.s4', 'db.s5', 'db.s6'], done: old, doneAt, teams: ['crm'], total: 6, runs: 1 };
    const { result, rows, progress } = await runSync(f, { carried, batch: 3 });
    expect(f.of('validationScope')).toHaveLength(0);
    expect(f.seq('syncTables')).toEqual(['syncTables db.s4,db.s5,db.s6']);
    expect(result.counts).toEqual({ inSync: 1, committed: 4, refused: 1 });
    expect(result.codes).toEqual({ SOURCE_CHANGED: 1 });
    expect(rows.map((r) => [r.seq, r.tableId])).toEqual(ids(6).map((t, i) => [i, t]));
    expect(rows.slice(0, 3).map((r) => [r.at, r.outcome])).toEqual(old.map((o, i) => [doneAt[i], o]));
    // Written before the run synced anything.
    expect(f.seq('recordSyncOutcomes', 'syncTables')[0]).toMatch(/^recordSyncOutcomes /);
    expect(progress.perTable.map((p) => p.table)).toEqual(ids(6));
    expect(progress.perTable[0]?.at).toBe(doneAt[0]);
  });
});
