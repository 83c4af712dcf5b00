// The state store's LOCATION_SHARED query (`tablesSharingLocation`) on the real Postgres: the
// index-served form (an equality, a byte range for the locations inside, the ancestors listed)
// answers exactly what the plain prefix predicate answers, on a generated tree of location keys with
// every status, across two plans, and it reads the index instead of every record.
import { stateStoreFixture } from '../audit/fixture';
import { syntheticPlan } from '../../helpers/hostile';
import { rng } from '../../helpers/rng';

const s = stateStoreFixture();

// Segments chosen to sit next to '/' in byte order ('-', '.', '0', 'a'), so a range that is off by
// one byte takes or misses a sibling.
const SEGMENTS = ['a', 'a-b', 'a.b', 'a0', 'a/b', 'b', 'x0', '0'];
const STATUSES = ['pending', 'original-saved', 'written', 'registered', 'migrated', 'fenced', 'cutover', 'failed', 'rolled-back'];

function key(next: () => number): string {
  const depth = 1 + Math.floor(next() * 4);
  const parts: string[] = [];
  for (let i = 0; i < depth; i += 1) parts.push(SEGMENTS[Math.floor(next() * SEGMENTS.length)] as string);
  return `${next() < 0.8 ? 's3:bkt' : 'local:'}/${parts.join('/')}`;
}

// First in the file: its counters then hold no other test's queries.
it('reads the location index, not every record, at 20,000 records', async () => {
  const plan = syntheticPlan(['db_c.t0']);
  await s.state.submitPlan(plan);
  await s.f.sql(
    `INSERT INTO him_tables (plan_hash, table_id, wave, status, location_key)
     SELECT $1, 'db_c.t' || g, 1, 'migrated', 's3:bkt/wide/' || g FROM generate_series(1, 20000) g`,
    [plan.hash],
  );
  await s.f.sql('ANALYZE him_tables');
  const counters = async () =>
    (
      await s.f.sql<{ seq: string; idx: string }>(
        "SELECT seq_tup_read AS seq, idx_scan AS idx FROM pg_stat_user_tables WHERE relname = 'him_tables'",
      )
    )[0]!;
  const before = await counters();
  for (let i = 0; i < 20; i += 1)
    expect(await s.state.tablesSharingLocation(`s3:bkt/wide/${i + 1}`, { planHash: plan.hash, tableId: 'db_c.t0' })).toEqual([
      { planHash: plan.hash, tableId: `db_c.t${i + 1}`, status: 'migrated' },
    ]);
  // A backend flushes its table counters when idle, at most once a second: wait for the 20 queries.
  let after = await counters();
  for (let waited = 0; Number(after.idx) - Number(before.idx) < 20 && waited < 10_000; waited += 250) {
    await new Promise((r) => setTimeout(r, 250));
    after = await counters();
  }
  expect(Number(after.idx) - Number(before.idx)).toBeGreaterThanOrEqual(20);
  // One scan of every record reads 20,000 rows or more; the 20 queries read none that way.
  expect(Number(after.seq) - Number(before.seq)).toBeLessThan(20_000);
}, 120_000);

it('answers what the prefix predicate answers, over the location index, for 400 keys', async () => {
  const next = rng(7);
  const ids = (p: string) => Array.from({ length: 150 }, (_, i) => `db_${p}.t${String(i).padStart(3, '0')}`);
  const plans = [syntheticPlan(ids('a')), syntheticPlan(ids('b'))];
  for (const plan of plans) await s.state.submitPlan(plan);
  for (const plan of plans)
    for (const id of ids(plan === plans[0] ? 'a' : 'b')) {
      const status = STATUSES[Math.floor(next() * STATUSES.length)] as string;
      const code = status === 'failed' && next() < 0.5 ? 'COMPENSATION_INCOMPLETE' : null;
      await s.f.sql('UPDATE him_tables SET location_key = $3, status = $4, error_code = $5 WHERE plan_hash = $1 AND table_id = $2', [
        plan.hash,
        id,
        next() < 0.05 ? null : key(next),
        status,
        code,
      ]);
    }
  const reference = async (k: string, self: string) =>
    (
      await s.f.sql<{ plan_hash: string; table_id: string; status: string }>(
        `SELECT plan_hash, table_id, status FROM him_tables
          WHERE table_id <> $2 AND (location_key = $1 OR starts_with(location_key, $1 || '/') OR starts_with($1, location_key || '/'))
            AND (status IN ('original-saved', 'written', 'registered', 'migrated', 'fenced', 'cutover') OR (status = 'failed' AND error_code = 'COMPENSATION_INCOMPLETE'))
          ORDER BY table_id LIMIT 10`,
        [k, self],
      )
    ).map((r) => ({ planHash: r.plan_hash, tableId: r.table_id, status: r.status }));
  let nonEmpty = 0;
  for (let i = 0; i < 400; i += 1) {
    const k = key(next);
    const self = { planHash: plans[0]!.hash, tableId: `db_a.t${String(i % 150).padStart(3, '0')}` };
    const got = await s.state.tablesSharingLocation(k, self);
    const want = await reference(k, self.tableId);
    // Order by table id only: two plans' rows for one table id may come in either order.
    const sorted = (xs: typeof got) => [...xs].sort((a, b) => `${a.tableId} ${a.planHash}`.localeCompare(`${b.tableId} ${b.planHash}`));
    expect({ k, rows: sorted(got) }).toEqual({ k, rows: sorted(want) });
    if (want.length > 0) nonEmpty += 1;
  }
  // The tree is dense enough that most keys meet a claim: the comparison is not of empty answers.
  expect(nonEmpty).toBeGreaterThan(100);
}, 180_000);
