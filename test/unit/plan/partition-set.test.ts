// The partitions a table gained between plan and apply (core/plan/partition-set.ts): exact when the
// partitions not newer than the plan's newest hash to the planned digest; honest (exact: false) when
// one was dropped or added within the same second; bounded to MAX_NAMES names with an exact count.
import type { HivePartition } from '../../../core/hive/model';
import { MAX_NAMES, addedPartitions, plannedPartitions, plannedPartitionsSchema, sincePlan } from '../../../core/plan/partition-set';
import { inv, partition, table } from '../assess/fixture';

const t = table({ partitionKeys: [{ name: 'dt', type: 'string', comment: null }] });
const at = (name: string, createTime: number): HivePartition => ({ ...partition(name), createTime });
const planned = [at('dt=1', 100), at('dt=2', 200)];

describe('partitions since the plan', () => {
  it('summarises the planned partitions (count, names digest, newest createTime)', () => {
    const s = plannedPartitions(inv(t, planned));
    expect(s).toMatchObject({ count: 2, newestCreateTime: 200 });
    expect(plannedPartitionsSchema.parse(s)).toEqual(s);
    // Order-independent: HMS lists partitions by name, the backing DB may not.
    expect(plannedPartitions(inv(t, [...planned].reverse())).namesDigest).toBe(s.namesDigest);
    expect(plannedPartitions(inv(table(), []))).toMatchObject({ count: 0, newestCreateTime: 0 });
  });

  it('names exactly the partitions added after the plan', () => {
    const s = plannedPartitions(inv(t, planned));
    const live = inv(t, [...planned, at('dt=4', 300), at('dt=3', 301)]);
    expect(addedPartitions(s, live)).toEqual({ count: 2, names: ['dt=3', 'dt=4'], exact: true });
    expect(addedPartitions(s, inv(t, planned))).toEqual({ count: 0, names: [], exact: true });
    // A table empty at plan time: every partition is new.
    expect(addedPartitions(plannedPartitions(inv(t, [])), inv(t, planned))).toEqual({ count: 2, names: ['dt=1', 'dt=2'], exact: true });
  });

  it('says when it cannot tell exactly: a partition dropped, or one added in the same second as the newest planned', () => {
    const s = plannedPartitions(inv(t, planned));
    expect(addedPartitions(s, inv(t, [at('dt=2', 200), at('dt=5', 400)]))).toEqual({ count: 1, names: ['dt=5'], exact: false });
    expect(addedPartitions(s, inv(t, [...planned, at('dt=3', 200)]))).toEqual({ count: 0, names: [], exact: false });
  });

  it('lists at most MAX_NAMES names, with the exact count', () => {
    const s = plannedPartitions(inv(t, []));
    const many = Array.from({ length: MAX_NAMES + 5 }, (_, i) => at(`dt=${String(i).padStart(5, '0')}`, 10 + i));
    const a = addedPartitions(s, inv(t, many));
    expect([a.count, a.names.length, a.names[0], a.exact]).toEqual([MAX_NAMES + 5, MAX_NAMES, 'dt=00000', true]);
  });

  it('records planned and converted partitions and files; a version 2 entry (no summary) knows neither planned count nor additions', () => {
    const live = inv(t, [...planned, at('dt=3', 300)]);
    expect(sincePlan({ files: 4, partitions: plannedPartitions(inv(t, planned)) }, live, 6)).toEqual({
      partitions: { planned: 2, converted: 3, added: { count: 1, names: ['dt=3'], exact: true } },
      files: { planned: 4, converted: 6 },
    });
    expect(sincePlan({ files: 4, partitions: null }, live, 6).partitions).toEqual({
      planned: null,
      converted: 3,
      added: { count: 0, names: [], exact: false },
    });
  });
});
