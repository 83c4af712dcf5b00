// syncWorkflow (workflows/sync.ts) in the time-skipping test environment, on in-memory activities:
// tables in batches within each run's budget, continue-as-new after `tablesPerRun` tables with the
// outcomes carried (and their times, in the syncStatus query), a batch's transient table synced
// again alone, refusals and a failed batch counted with their codes, a named table outside the scope.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { TableSyncOutcome } from '../../activities/index';
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
      status: desc.typedSearchAttributes.get(SA.status),
      continued: lastOfFirst?.workflowExecutionContinuedAsNewEventAttributes != null,
      progress: await h.query(syncStatusQuery),
    };
  });
}

describe('syncWorkflow in the time-skipping environment', () => {
  it('syncs in batches that never cross a run budget, continues as new after tablesPerRun, and returns every outcome', async () => {
    const f = fakes(ids(7));
    const { result, status, continued, progress } = await runSync(f, { tablesPerRun: 3, batch: 2, concurrency: 4 });
    // Batches of one run start together (any order); runs follow one another.
    expect(f.seq('syncTables').slice(0, 2).sort()).toEqual(['syncTables db.s1,db.s2', 'syncTables db.s3']);
    expect(f.seq('syncTables').slice(2, 4).sort()).toEqual(['syncTables db.s4,db.s5', 'syncTables db.s6']);
    expect(f.seq('syncTables').slice(4)).toEqual(['syncTables db.s7']);
    expect(continued).toBe(true);
    expect(result).toMatchObject({ status: 'synced', plan: PLAN.slice(0, 12), counts: { inSync: 0, committed: 7, refused: 0 } });
    expect(result.tables.map((t) => t.table).sort()).toEqual(ids(7));
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
    const { result, status, continued } = await runSync(f, { batch: 4 });
    expect(f.seq('syncTables', 'syncTable')).toEqual(['syncTables db.s1,db.s2,db.s3,db.s4', 'syncTable db.s2']);
    expect(continued).toBe(false);
    expect(result.counts).toEqual({ inSync: 1, committed: 2, refused: 1 });
    expect(result.tables.find((t) => t.table === 'db.s3')).toMatchObject({ ok: false, error: { code: 'SYNC_FOREIGN_COMMITS' } });
    expect(result.tables.find((t) => t.table === 'db.s2')).toMatchObject({ ok: true });
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
      },
    );
    const { result } = await runSync(f, { tables: ['db.s1', 'db.s2', 'db.s3', 'db.nope'], batch: 2, concurrency: 2 });
    expect(result.counts).toEqual({ inSync: 0, committed: 1, refused: 3 });
    const code = (t: string) => result.tables.find((o) => o.table === t) as { ok: boolean; error?: { code: string } };
    expect(code('db.nope').error?.code).toBe('USAGE');
    expect(code('db.s1').error?.code).toBe('CATALOG_AUTH_FAILED');
    expect(code('db.s2').error?.code).toBe('CATALOG_AUTH_FAILED');
    expect(code('db.s3').ok).toBe(true);
  });
});
