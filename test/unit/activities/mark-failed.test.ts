// markFailed, the end of a table workflow whose steps failed and were compensated: a table this very
// run recorded migrated (its compensation has just unregistered it and deleted its metadata) is
// recorded failed; one another run migrated, or one fenced or cut over, stays as it is; a table in
// flight is recorded failed and loses its owning run.
import { MockActivityEnvironment } from '@temporalio/testing';
import type { OpsDeps } from '../../../ops/context';
import { opsContext } from '../../../ops/context';
import { undoOps } from '../../../ops/undo';
import { temporalRuntime } from '../../../activities/runtime';
import type { TableRecord, TableUpdate } from '../../../core/state/store';
import { BASE_DEPS, PLAN, migratedRecord } from './record';

/** The run id MockActivityEnvironment gives the activity's workflow. */
const THIS_RUN = '00000000-0000-0000-0000-000000000000';

function setup(o: Partial<TableRecord>) {
  let rec = migratedRecord({ ownerRun: THIS_RUN, ...o });
  const events: string[] = [];
  const deps = {
    ...BASE_DEPS,
    state: {
      getTable: () => Promise.resolve(rec),
      recordStep: (_p: string, _id: string, u: TableUpdate, e: { action: string }) => {
        rec = { ...rec, ...u } as TableRecord;
        events.push(e.action);
        return Promise.resolve(e);
      },
    },
  } as unknown as OpsDeps;
  // As the worker builds it (activities/index.ts): the running activity's run id comes from Temporal.
  const acts = undoOps(opsContext(deps, temporalRuntime));
  const mark = () =>
    new MockActivityEnvironment().run(acts.markFailed, { planHash: PLAN, tableId: 'db.t' }, 'CANCELLED', 'db.t: cancelled');
  return { mark, rec: () => rec, events };
}

describe('markFailed after a compensation', () => {
  it('migrated by this run (then undone by it): failed, owner cleared, audited', async () => {
    const s = setup({});
    await s.mark();
    expect([s.rec().status, s.rec().errorCode, s.rec().ownerRun, s.events]).toEqual(['failed', 'CANCELLED', null, ['table.failed']]);
  });

  it.each([
    ['migrated', 'another-run'],
    ['migrated', null],
    ['fenced', THIS_RUN],
    ['cutover', THIS_RUN],
  ] as const)('%s, owned by %s: left as it is', async (status, owner) => {
    const s = setup({ status: status as TableRecord['status'], ownerRun: owner });
    await s.mark();
    expect([s.rec().status, s.events]).toEqual([status, []]);
  });

  it('in flight (registered): failed', async () => {
    const s = setup({ status: 'registered' });
    await s.mark();
    expect([s.rec().status, s.events]).toEqual(['failed', ['table.failed']]);
  });
});
