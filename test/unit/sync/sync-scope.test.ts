// The pieces of `migrate sync` through Temporal that need no components: the scope both paths check
// first (app/sync/direct.ts inScope), the workflow and schedule ids, and the syncTable activity over fake
// ports (it hands the record, plan, actor and its failpoint hook to the engine and returns its outcome).
import type { OpsDeps } from '../../../ops/context';
import { opsContext } from '../../../ops/context';
import { syncActivities } from '../../../activities/sync';
import { inScope } from '../../../app/sync/direct';
import { syncScheduleId, syncWorkflowId } from '../../../core/plan/ids';
import type { TableRecord } from '../../../core/state/store';
import type { SyncRecordDeps, TableSyncOutcome } from '../../../core/engine-port/sync';

const HASH = 'abcdef0123456789'.repeat(4);
const rec = (tableId: string, wave: number, status: TableRecord['status'] = 'migrated'): TableRecord =>
  ({ planHash: HASH, tableId, wave, status, snapshotId: '1', metadataLocation: 's3://w/m.json' }) as TableRecord;
const RECORDS = [rec('s.a', 1), rec('s.b', 2), rec('s.c', 2, 'failed')];

describe('sync scope', () => {
  it('keeps the migrated records of the waves and tables asked for; everything when nothing is asked', () => {
    expect(inScope(RECORDS, HASH, { waves: [], tables: [] }).map((r) => r.tableId)).toEqual(['s.a', 's.b']);
    expect(inScope(RECORDS, HASH, { waves: [2], tables: [] }).map((r) => r.tableId)).toEqual(['s.b']);
    expect(inScope(RECORDS, HASH, { waves: [], tables: ['s.a'] }).map((r) => r.tableId)).toEqual(['s.a']);
  });

  it('a named table that is not migrated (or not in the wave) is a USAGE error naming it', () => {
    expect(() => inScope(RECORDS, HASH, { waves: [], tables: ['s.c'] })).toThrow(/no migrated table of plan abcdef012345 named s\.c/);
    expect(() => inScope(RECORDS, HASH, { waves: [1], tables: ['s.b'] })).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });

  it('a named table that was cut over (or is being) is SYNC_CUT_OVER naming it; a plan-wide sync leaves it out', () => {
    const recs = [...RECORDS, rec('s.d', 1, 'cutover'), rec('s.e', 1, 'fenced')];
    expect(() => inScope(recs, HASH, { waves: [], tables: ['s.a', 's.d'] })).toThrow(
      expect.objectContaining({ code: 'SYNC_CUT_OVER', message: expect.stringContaining('s.d (cutover)') }),
    );
    expect(() => inScope(recs, HASH, { waves: [], tables: ['s.e'] })).toThrow(expect.objectContaining({ code: 'SYNC_CUT_OVER' }));
    expect(inScope(recs, HASH, { waves: [1], tables: [] }).map((r) => r.tableId)).toEqual(['s.a']);
  });

  it('ids: the schedule sync/<plan id>, each run sync/<plan id>/<stamp>', () => {
    expect(syncScheduleId(HASH)).toBe('sync/abcdef012345');
    expect(syncWorkflowId(HASH, '20261204T225220123Z')).toBe('sync/abcdef012345/20261204T225220123Z');
  });
});

describe('syncTable activity', () => {
  const outcome: TableSyncOutcome = { table: 's.a', ok: false, error: { code: 'SYNC_FOREIGN_COMMITS', message: 'not ours' } };
  const setup = (r: TableRecord) => {
    const calls: { deps: SyncRecordDeps; plan: unknown; rec: TableRecord }[] = [];
    const hooks: string[] = [];
    const deps = {
      state: { getTable: () => Promise.resolve(r), getPlan: () => Promise.resolve({ hash: HASH }) },
      engine: {
        syncMigratedTable: (d: SyncRecordDeps, plan: unknown, x: TableRecord) => {
          calls.push({ deps: d, plan, rec: x });
          d.failpoint?.('sync-before-commit');
          return Promise.resolve(outcome);
        },
      },
      actor: 'worker:h:1',
      failpoint: (name: string, tableId: string) => hooks.push(`${name}--${tableId}`),
    } as unknown as OpsDeps;
    return { acts: syncActivities(opsContext(deps)), calls, hooks };
  };

  it('hands the record, the plan and the worker as actor to the engine and returns its outcome', async () => {
    const { acts, calls, hooks } = setup(rec('s.a', 1));
    await expect(acts.syncTable(HASH, 's.a')).resolves.toEqual(outcome);
    expect(calls.map((c) => [c.rec.tableId, c.plan, c.deps.actor])).toEqual([['s.a', { hash: HASH }, { actor: 'worker:h:1' }]]);
    expect(hooks).toEqual(['sync-before-commit--s.a']);
  });

  it('a table no longer migrated (rolled back since the run started) is refused without touching the engine', async () => {
    const { acts, calls } = setup(rec('s.a', 1, 'rolled-back'));
    await expect(acts.syncTable(HASH, 's.a')).resolves.toMatchObject({ table: 's.a', ok: false, error: { code: 'USAGE' } });
    expect(calls).toEqual([]);
  });

  it.each(['fenced', 'cutover'] as const)('a %s table is refused SYNC_CUT_OVER without touching the engine', async (status) => {
    const { acts, calls } = setup(rec('s.a', 1, status));
    await expect(acts.syncTable(HASH, 's.a')).resolves.toMatchObject({ table: 's.a', ok: false, error: { code: 'SYNC_CUT_OVER' } });
    expect(calls).toEqual([]);
  });
});
