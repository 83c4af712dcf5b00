// The state store's compare-and-swap for sync (recordStep with `snapshotId`): a record moves to a
// new snapshot, with its `table.synced` event, only while it is still at the snapshot the sync
// started from. A second attempt of the same sync (its worker stalled past the heartbeat timeout
// and the retry ran beside it) that records after the first gets SYNC_RECORD_MOVED and writes
// nothing: one record change, one audit event.
import { AuditAction } from '../../../core/audit/chain';
import { stateStoreFixture } from '../audit/fixture';
import { rejectionOf } from '../../helpers/errors';
import { syntheticPlan } from '../../helpers/hostile';

const s = stateStoreFixture();

it('records a sync only while the record is at the snapshot it started from; the late attempt writes nothing', async () => {
  const plan = syntheticPlan(['h_db.t1']);
  await s.state.submitPlan(plan);
  const event = (snapshotId: string) => ({
    at: new Date().toISOString(),
    actor: 'it',
    action: AuditAction.TABLE_SYNCED,
    object: 'hms:h_db.t1',
    planHash: plan.hash,
    beforeDigest: null,
    afterDigest: null,
    details: { snapshotId },
  });
  const start = (await s.state.getTable(plan.hash, 'h_db.t1')).snapshotId;
  await s.state.recordStep(plan.hash, 'h_db.t1', { snapshotId: '11' }, event('11'), { snapshotId: start });
  expect((await s.state.getTable(plan.hash, 'h_db.t1')).snapshotId).toBe('11');
  // The other attempt, started from the same record, records after it.
  const e = await rejectionOf(s.state.recordStep(plan.hash, 'h_db.t1', { snapshotId: '12' }, event('12'), { snapshotId: start }));
  expect([e.code, e.retryable]).toEqual(['SYNC_RECORD_MOVED', false]);
  expect((await s.state.getTable(plan.hash, 'h_db.t1')).snapshotId).toBe('11');
  const synced: unknown[] = [];
  for await (const a of s.state.readAudit()) if (a.action === AuditAction.TABLE_SYNCED) synced.push(a.details);
  expect(synced).toEqual([{ snapshotId: '11' }]);
  // From the snapshot it is at, the next sync records.
  await s.state.recordStep(plan.hash, 'h_db.t1', { snapshotId: '13' }, event('13'), { snapshotId: '11' });
  expect((await s.state.getTable(plan.hash, 'h_db.t1')).snapshotId).toBe('13');
}, 120_000);
