// The paged book of the sync workflow (workflows/sync-book.ts), as pure code: finished tables get
// consecutive seqs, nothing is written until a page is full (or forced), a page never exceeds 250
// rows or ~256k characters of outcome JSON (large refusal messages included), the syncStatus
// query keeps the newest 50 tables, and the tally's counts are exact.
import type { SyncOutcomeRow, TableSyncOutcome } from '../../../activities/index';
import { EMPTY_TALLY, PagedBook, SYNC_STATUS_RECENT } from '../../../workflows/sync-book';

const refused = (i: number, size: number): TableSyncOutcome => ({
  table: `db.t${i}`,
  ok: false,
  error: { code: i % 2 === 0 ? 'SOURCE_CHANGED' : 'SYNC_FOREIGN_COMMITS', message: 'm'.repeat(size) },
});
const inSync = (i: number): TableSyncOutcome =>
  ({
    table: `db.t${i}`,
    ok: true,
    result: { status: 'in-sync', snapshotId: '1', commit: null, filesAdded: 0, filesRemoved: 0, partitionsAdded: 0, partitionsChanged: 0 },
  }) as unknown as TableSyncOutcome;

function book() {
  const pages: SyncOutcomeRow[][] = [];
  const b = new PagedBook(1_000, 'sync/p/1', EMPTY_TALLY, [], async (rows) => {
    pages.push([...rows]);
  });
  return { b, pages };
}

it('writes nothing until a page is full; pages of at most 250 rows; forced, the rest; seqs consecutive', async () => {
  const { b, pages } = book();
  for (let i = 0; i < 249; i++) b.record(inSync(i), '2026-12-06T00:00:00.000Z');
  await b.flush(false);
  expect(pages).toHaveLength(0);
  for (let i = 249; i < 600; i++) b.record(inSync(i), '2026-12-06T00:00:01.000Z');
  await b.flush(false);
  expect(pages.map((p) => p.length)).toEqual([250, 250]);
  await b.flush(true);
  expect(pages.map((p) => p.length)).toEqual([250, 250, 100]);
  expect(pages.flat().map((r) => r.seq)).toEqual(Array.from({ length: 600 }, (_, i) => i));
  await b.flush(true);
  expect(pages).toHaveLength(3);
  expect(b.status()).toMatchObject({
    tables: 1_000,
    done: 600,
    inSync: 600,
    committed: 0,
    refused: 0,
    outcomes: { workflowId: 'sync/p/1', count: 600 },
  });
});

it('large outcomes: a page stops once it holds ~256k characters, whatever its row count', async () => {
  const { b, pages } = book();
  for (let i = 0; i < 100; i++) b.record(refused(i, 20_000), '2026-12-06T00:00:00.000Z');
  await b.flush(true);
  const chars = pages.map((p) => p.reduce((n, r) => n + JSON.stringify(r.outcome).length, 0));
  expect(pages.flat()).toHaveLength(100);
  expect(Math.max(...chars)).toBeLessThan(256 * 1024 + 21_000);
  expect(pages.length).toBeGreaterThanOrEqual(8);
  expect(b.status().codes).toEqual({ SOURCE_CHANGED: 50, SYNC_FOREIGN_COMMITS: 50 });
});

it('the query keeps the newest 50 tables; the carry holds the tally and them only', () => {
  const { b } = book();
  for (let i = 0; i < 120; i++)
    b.record(i % 3 === 0 ? refused(i, 10) : inSync(i), `2026-12-06T00:00:${String(i % 60).padStart(2, '0')}.000Z`);
  const s = b.status();
  expect(s.perTable.map((p) => p.table)).toEqual(Array.from({ length: SYNC_STATUS_RECENT }, (_, k) => `db.t${70 + k}`));
  expect([s.done, s.inSync, s.refused]).toEqual([120, 80, 40]);
  const carry = b.carry();
  expect(Object.keys(carry).sort()).toEqual(['recent', 'tally']);
  expect(carry.tally).toMatchObject({ done: 120, statuses: { 'in-sync': 80 }, lastSyncAt: '2026-12-06T00:00:59.000Z' });
});
