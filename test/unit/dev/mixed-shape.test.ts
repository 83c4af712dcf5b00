// The rehearsal's mixed warehouse (dev/seed/mixed.ts): each table's shape from its index alone — the
// big tables first, then unpartitioned and partitioned tables alternating, 20 files on average.
import { mixedDatabase, mixedShape } from '../../../dev/seed/mixed';

const o = { tables: 10_000, big: 3, bigPartitions: 5000 };
const shapes = Array.from({ length: o.tables }, (_, i) => mixedShape(o, i));

describe('mixedShape', () => {
  it('gives the first B tables bigPartitions partitions of one file each', () => {
    expect(shapes.slice(0, 3).map((s) => [s.partitions, s.filesPerPartition, s.files])).toEqual([
      [5000, 1, 5000],
      [5000, 1, 5000],
      [5000, 1, 5000],
    ]);
    expect(shapes.slice(3).every((s) => s.partitions <= 10)).toBe(true);
  });

  it('alternates unpartitioned and partitioned tables of 1, 2, 4, 5 or 10 partitions', () => {
    const rest = shapes.slice(3);
    const partitioned = rest.filter((s) => s.partitions > 0);
    expect(Math.abs(partitioned.length - rest.length / 2)).toBeLessThanOrEqual(1);
    expect(new Set(partitioned.map((s) => s.partitions))).toEqual(new Set([1, 2, 4, 5, 10]));
    for (const s of rest) expect(s.files).toBe(s.partitions === 0 ? s.filesPerPartition : s.partitions * s.filesPerPartition);
  });

  it('has 10-30 files per ordinary table, 20 on average', () => {
    const rest = shapes.slice(3);
    const unpartitioned = rest.filter((s) => s.partitions === 0);
    expect(Math.min(...unpartitioned.map((s) => s.files))).toBe(10);
    expect(Math.max(...unpartitioned.map((s) => s.files))).toBe(30);
    const mean = rest.reduce((n, s) => n + s.files, 0) / rest.length;
    expect(mean).toBeGreaterThan(19);
    expect(mean).toBeLessThan(21);
  });

  it('is the same for the same index, and names tables t<index> zero-padded', () => {
    expect(mixedShape(o, 4242)).toEqual(shapes[4242]);
    expect(shapes[7]?.name).toBe('t0007');
    expect(mixedDatabase({ prefix: 'rehearsal', ...o })).toBe('rehearsal_mixed2_10000x3x5000');
  });
});
