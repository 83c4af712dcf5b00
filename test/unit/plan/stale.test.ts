// Apply's stale-plan verdict (core/plan/stale.ts): a table still as planned (new partitions and
// stats allowed by its pin) is not stale; dropped, changed in a way that changes its conversion,
// or its target already taken each give one finding naming it; PLAN_STALE lists every table and
// exits 2 (nothing started).
import { exitCodeOf } from '../../../core/exit-codes';
import { ErrorCode } from '../../../core/errors';
import type { HiveColumn, TableInventory } from '../../../core/hive/model';
import { tableFingerprint } from '../../../core/hive/fingerprint';
import { conversionPin } from '../../../core/plan/pin';
import { planStaleError, staleCounts, staleOf } from '../../../core/plan/stale';
import { inv, partition, table } from '../assess/fixture';

const base = (): TableInventory =>
  inv(table({ partitionKeys: [{ name: 'dt', type: 'string', comment: null }] }), [partition('dt=1'), partition('dt=2')]);
const planned = (t: TableInventory) => ({ fingerprint: tableFingerprint(t), pin: conversionPin(t) });
const withColumnType = (t: TableInventory, type: string): TableInventory => {
  const columns: HiveColumn[] = t.table.sd.columns.map((c, i) => (i === 0 ? { ...c, type } : c));
  return { ...t, table: { ...t.table, sd: { ...t.table.sd, columns } } };
};

describe('stale plan verdict', () => {
  it('a table as planned, or with a new partition only, is not stale', () => {
    const t = base();
    expect(staleOf('db.t', planned(t), t, null)).toEqual([]);
    const grown = { ...t, partitions: [...t.partitions, partition('dt=3')] };
    expect(staleOf('db.t', planned(t), grown, null)).toEqual([]);
  });

  it('dropped, changed and target-taken each give a finding naming the table and what changed', () => {
    const t = base();
    expect(staleOf('db.t', planned(t), undefined, null)).toEqual([
      { tableId: 'db.t', reason: 'dropped', detail: 'db.t no longer exists in HMS' },
    ]);
    const changed = staleOf('db.t', planned(t), withColumnType(t, 'string'), null);
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatchObject({ tableId: 'db.t', reason: 'changed' });
    expect(changed[0]?.detail).toMatch(/id.*bigint.*string|bigint.*string/);
    const taken = staleOf('db.t', planned(t), t, 'p_db.t');
    expect(taken).toEqual([{ tableId: 'db.t', reason: 'target-taken', detail: expect.stringContaining('p_db.t is already registered') }]);
    expect(staleOf('db.t', planned(t), withColumnType(t, 'string'), 'p_db.t').map((s) => s.reason)).toEqual(['changed', 'target-taken']);
  });

  it('an unpinned (version 2) entry is stale on any fingerprint change', () => {
    const t = base();
    const grown = { ...t, partitions: [...t.partitions, partition('dt=3')] };
    expect(staleOf('db.t', { fingerprint: tableFingerprint(t), pin: null }, grown, null).map((s) => s.reason)).toEqual(['changed']);
  });

  it('PLAN_STALE lists every stale table (capped in the message, all in the context) and exits 2', () => {
    const stale = Array.from({ length: 30 }, (_, i) => ({ tableId: `db.t${i}`, reason: 'target-taken' as const, detail: `x${i}` }));
    const e = planStaleError('abcdef012345', stale, 40);
    expect(e.code).toBe(ErrorCode.PLAN_STALE);
    expect(exitCodeOf(e.code)).toBe(2);
    expect(e.message).toContain('plan abcdef012345 is stale: 30 of its 40 table(s)');
    expect(e.message).toContain('db.t24: target-taken: x24');
    expect(e.message).not.toContain('db.t25:');
    expect(e.message).toContain('and 5 more');
    expect((e.context.stale as unknown[]).length).toBe(30);
    expect(staleCounts(stale)).toEqual({ dropped: 0, changed: 0, 'target-taken': 30 });
  });
});
