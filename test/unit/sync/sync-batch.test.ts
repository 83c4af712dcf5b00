// The sync workflow's batch step (activities/sync.ts syncTables) in a mocked activity context: every
// table of the batch synced at once with its outcome; each finished one heartbeated, so a retry
// (heartbeat details of the killed attempt) reports those as they were and syncs only the rest; a
// transient failure comes back marked `retry` (the workflow syncs that table alone), a refusal is
// the table's outcome.
import { MockActivityEnvironment } from '@temporalio/testing';
import type { OpsDeps } from '../../../ops/context';
import { opsContext } from '../../../ops/context';
import type { BatchSyncOutcome } from '../../../activities/sync';
import { syncActivities } from '../../../activities/sync';
import { ErrorCode, MigrationError } from '../../../core/errors';
import type { TableRecord } from '../../../core/state/store';
import type { SyncRecordDeps, TableSyncOutcome } from '../../../core/engine-port/sync';

const HASH = 'abcdef0123456789'.repeat(4);
const rec = (tableId: string): TableRecord => ({ planHash: HASH, tableId, wave: 1, status: 'migrated', snapshotId: '1' }) as TableRecord;
const appended = (table: string): TableSyncOutcome =>
  ({ table, ok: true, result: { status: 'appended', commit: 'committed', snapshotId: `9${table.length}` } }) as unknown as TableSyncOutcome;

function setup(behaviour: Record<string, () => Promise<TableSyncOutcome>>) {
  const synced: string[] = [];
  const deps = {
    state: { getTable: (_h: string, id: string) => Promise.resolve(rec(id)), getPlan: () => Promise.resolve({ hash: HASH }) },
    engine: {
      syncMigratedTable: (_d: SyncRecordDeps, _plan: unknown, x: TableRecord) => {
        synced.push(x.tableId);
        return (behaviour[x.tableId] ?? (() => Promise.resolve(appended(x.tableId))))();
      },
    },
    actor: 'worker:h:1',
    failpoint: () => undefined,
  } as unknown as OpsDeps;
  return { acts: syncActivities(opsContext(deps)), synced };
}

describe('syncTables activity (a batch)', () => {
  it('syncs every table of the batch and heartbeats each finished outcome', async () => {
    const { acts, synced } = setup({});
    const env = new MockActivityEnvironment();
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    const out = (await env.run(acts.syncTables, HASH, ['s.a', 's.b', 's.c'])) as BatchSyncOutcome[];
    expect(out.map((o) => [o.table, o.ok])).toEqual([
      ['s.a', true],
      ['s.b', true],
      ['s.c', true],
    ]);
    expect(synced.sort()).toEqual(['s.a', 's.b', 's.c']);
    expect((beats.at(-1) as BatchSyncOutcome[]).map((o) => o.table).sort()).toEqual(['s.a', 's.b', 's.c']);
  });

  it('a retry skips the tables the killed attempt finished (from its heartbeat details) and reports them as they were', async () => {
    const { acts, synced } = setup({});
    const before = [appended('s.a'), { table: 's.x', ok: true } as unknown as TableSyncOutcome, { ...appended('s.b'), retry: true }];
    const env = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: before });
    const out = (await env.run(acts.syncTables, HASH, ['s.a', 's.b', 's.c'])) as BatchSyncOutcome[];
    // s.a came from the details (not synced again); s.x is not in this batch; s.b was only marked for retry, so it runs.
    expect(synced.sort()).toEqual(['s.b', 's.c']);
    expect(out[0]).toEqual(appended('s.a'));
    expect(out.map((o) => o.table)).toEqual(['s.a', 's.b', 's.c']);
  });

  it('a transient failure comes back marked retry; a refusal (not retryable) is the outcome; the others succeed', async () => {
    const { acts } = setup({
      's.a': () => Promise.reject(new MigrationError(ErrorCode.STORAGE_UNREACHABLE, 'S3 down')),
      's.b': () => Promise.reject(new MigrationError(ErrorCode.SOURCE_CHANGED, 'column amount changed', {}, { retryable: false })),
      's.c': () => Promise.reject(new Error('socket hang up')),
    });
    const env = new MockActivityEnvironment();
    const out = (await env.run(acts.syncTables, HASH, ['s.a', 's.b', 's.c', 's.d'])) as BatchSyncOutcome[];
    expect(out).toEqual([
      { table: 's.a', ok: false, error: { code: 'STORAGE_UNREACHABLE', message: 'S3 down' }, retry: true },
      { table: 's.b', ok: false, error: { code: 'SOURCE_CHANGED', message: 'column amount changed' } },
      { table: 's.c', ok: false, error: { code: 'INTERNAL', message: 'socket hang up' }, retry: true },
      appended('s.d'),
    ]);
  });
});
