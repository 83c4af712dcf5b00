// The sync workflow's outcomes in the state store (adapters/state/sync-outcomes.ts), on the stack's
// real Postgres: 2,500 outcomes written in pages as the recordSyncOutcomes activity writes them,
// a page written again (a retried activity) changes nothing, another workflow's rows stay apart,
// and `migrate sync`'s reader (app/sync/workflow.ts syncOutcomes) pages them back in finish order,
// each outcome as it was written (keys in their order); a count the store does not hold is refused.
import { syncOutcomes } from '../../../app/sync/workflow';
import type { TableSyncOutcome } from '../../../core/engine-port/sync';
import type { SyncOutcomeRow } from '../../../core/state/store';
import { rejectionOf } from '../../helpers/errors';
import { syntheticPlan } from '../../helpers/hostile';
import { stateStoreFixture } from '../audit/fixture';

const s = stateStoreFixture();

const N = 2_500;
const table = (i: number): string => `sales_db.t${String(i).padStart(5, '0')}`;
/** Committed, in sync or refused; the summary's keys deliberately not in sorted order. */
function outcome(i: number): TableSyncOutcome {
  const t = table(i);
  if (i % 9 === 0)
    return { table: t, ok: false, error: { code: 'SYNC_FOREIGN_COMMITS', message: `${t}: snapshot 7 is not ours — "quoted" ✓` } };
  return {
    table: t,
    ok: true,
    result: {
      status: i % 4 === 0 ? 'in-sync' : 'appended',
      snapshotId: `${1000 + i}`,
      parentSnapshotId: '999',
      metadataLocation: `s3://warehouse/sales_db.db/t${i}/metadata/00002.metadata.json`,
      commit: i % 4 === 0 ? null : 'committed',
      filesAdded: i % 4 === 0 ? 0 : 3,
      filesRemoved: 0,
      recordsAdded: 30,
      recordsRemoved: 0,
      partitionsAdded: 1,
      partitionsChanged: 1,
      summary: { 'z-last': '1', 'added-data-files': '3', 'a-first': '2' },
      validation: { files: 3, records: 30 },
      columnsAdded: [],
    },
  } as unknown as TableSyncOutcome;
}
const rowOf = (i: number): SyncOutcomeRow => ({
  tableId: table(i),
  seq: i,
  at: new Date(Date.UTC(2026, 11, 6, 0, 0, 0, i)).toISOString(),
  outcome: outcome(i),
});

it('2,500 outcomes in pages of 250, one page written twice, another workflow beside: read back page by page, in finish order, as written', async () => {
  const plan = syntheticPlan(['sales_db.t00000']);
  await s.state.submitPlan(plan);
  const wf = 'sync/abcdef123456/20261206T000000000Z';
  const t0 = performance.now();
  for (let p = 0; p < N / 250; p++)
    await s.state.putSyncOutcomes(
      wf,
      plan.hash,
      Array.from({ length: 250 }, (_, k) => rowOf(p * 250 + k)),
    );
  const writeMs = performance.now() - t0;
  // A retried activity writes its page again: same rows, nothing added.
  await s.state.putSyncOutcomes(
    wf,
    plan.hash,
    Array.from({ length: 250 }, (_, k) => rowOf(500 + k)),
  );
  // Another sync's rows (the same tables) stay apart.
  await s.state.putSyncOutcomes('sync/abcdef123456/other', plan.hash, [rowOf(3), rowOf(1)]);
  await s.state.putSyncOutcomes(wf, plan.hash, []);
  expect(await s.f.sql<{ n: string }>('SELECT count(*) AS n FROM him_sync_outcomes WHERE workflow_id = $1', [wf])).toEqual([
    { n: String(N) },
  ]);

  // One page: the first 1,000 by seq; the next starts after the last seq read.
  const first = await s.state.readSyncOutcomes(wf, { limit: 1_000 });
  expect(first.map((r) => r.seq)).toEqual(Array.from({ length: 1_000 }, (_, i) => i));
  expect(first[7]).toEqual(rowOf(7));
  const next = await s.state.readSyncOutcomes(wf, { afterSeq: 999, limit: 1_000 });
  expect(next[0]?.seq).toBe(1_000);
  expect(await s.state.readSyncOutcomes('sync/abcdef123456/other')).toEqual([rowOf(1), rowOf(3)]);

  const t1 = performance.now();
  const all = await syncOutcomes(s.state, { workflowId: wf, count: N });
  const readMs = performance.now() - t1;
  process.stdout.write(
    `him_sync_outcomes: ${N} outcomes written in ${writeMs.toFixed(0)} ms (10 pages), read back in ${readMs.toFixed(0)} ms (3 pages)\n`,
  );
  expect(all).toHaveLength(N);
  // Exactly as written, key order included (the column is json, not jsonb).
  expect(all.map((o) => JSON.stringify(o))).toEqual(Array.from({ length: N }, (_, i) => JSON.stringify(outcome(i))));

  // A count the store does not hold (rows lost) is an error, not a short report.
  const e = await rejectionOf(syncOutcomes(s.state, { workflowId: wf, count: N + 1 }));
  expect(e.code).toBe('INTERNAL');
  expect(e.message).toContain(`${N} of their outcomes`);
}, 120_000);
