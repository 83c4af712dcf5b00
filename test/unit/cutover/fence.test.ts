// The cutover fence's pure parts (core/cutover/fence.ts): the fenced name (deterministic,
// lower-cased, within Hive's identifier limit, distinct for long names), the fenced form and the
// way back to the exact original, the position read from what HMS holds, and the location check.
import type { HivePartition, TableInventory } from '../../../core/hive/model';
import { part, table } from './fixtures';
import {
  FENCE_MARK,
  MAX_HIVE_NAME,
  fencePosition,
  fencedName,
  isFencedFor,
  locationChanges,
  markedForFence,
  renamedForFence,
  unfencedForm,
} from '../../../core/cutover/fence';

describe('fenced name', () => {
  it('is <name>__him_fenced, lower-cased', () => {
    expect(fencedName('orders')).toBe('orders__him_fenced');
    expect(fencedName('Orders')).toBe('orders__him_fenced');
  });

  it('stays within the identifier limit; two long names that share a prefix get different names', () => {
    const a = `${'x'.repeat(200)}_a`;
    const b = `${'x'.repeat(200)}_b`;
    expect(fencedName(a).length).toBe(MAX_HIVE_NAME);
    expect(fencedName(a)).toMatch(/^x+_[0-9a-f]{8}__him_fenced$/);
    expect(fencedName(a)).not.toBe(fencedName(b));
    expect(fencedName(a)).toBe(fencedName(a));
    const edge = 'y'.repeat(MAX_HIVE_NAME - '__him_fenced'.length);
    expect(fencedName(edge)).toBe(`${edge}__him_fenced`);
    expect(fencedName(`${edge}y`).length).toBe(MAX_HIVE_NAME);
  });
});

describe('fenced form and back', () => {
  it('a MANAGED table is made EXTERNAL and marked; the way back restores it exactly', () => {
    const t = table();
    const m = markedForFence(t, 'sales.orders');
    expect(m.tableType).toBe('EXTERNAL_TABLE');
    expect(m.parameters).toMatchObject({ EXTERNAL: 'TRUE', [FENCE_MARK.of]: 'sales.orders', [FENCE_MARK.tableType]: 'MANAGED_TABLE' });
    expect(m.parameters.transient_lastDdlTime).toBe('1700000000'); // kept, so HMS does not stamp a new one
    const f = renamedForFence(m);
    expect(f.name).toBe('orders__him_fenced');
    expect(isFencedFor(f, 'sales.orders')).toBe(true);
    expect(isFencedFor(f, 'sales.other')).toBe(false);
    expect(unfencedForm(f, 'orders')).toEqual(t);
    expect(markedForFence(m, 'sales.orders')).toBe(m); // marking twice changes nothing
  });

  it('an EXTERNAL table keeps its own EXTERNAL value on the way back', () => {
    const t = table({ tableType: 'EXTERNAL_TABLE', parameters: { EXTERNAL: 'true', 'external.table.purge': 'false' } });
    expect(unfencedForm(renamedForFence(markedForFence(t, 'sales.orders')), 'orders')).toEqual(t);
  });

  it('where the fence stands, from what HMS holds under both names', () => {
    const t = table();
    const fenced = renamedForFence(markedForFence(t, 'sales.orders'));
    expect(fencePosition('sales.orders', t, undefined)).toBe('open');
    expect(fencePosition('sales.orders', markedForFence(t, 'sales.orders'), undefined)).toBe('marked');
    expect(fencePosition('sales.orders', undefined, fenced)).toBe('fenced');
    expect(fencePosition('sales.orders', undefined, undefined)).toBe('missing');
    // The old name re-created while fenced, or a table of someone else's under the fenced name.
    expect(fencePosition('sales.orders', t, fenced)).toBe('conflict');
    expect(fencePosition('sales.orders', undefined, table({ name: 'orders__him_fenced' }))).toBe('conflict');
  });
});

describe('location check', () => {
  const inv = (loc: string, parts: HivePartition[]): TableInventory => ({
    table: table({ sd: { ...table().sd, location: loc } }),
    partitions: parts,
  });
  const p1 = part('day=1', 's3a://hive/warehouse/sales.db/orders/day=1');
  const p2 = part('day=2', 's3a://elsewhere/day=2');

  it('nothing moved: no change; a partition added is not a change', () => {
    expect(locationChanges(inv('s3a://x/orders', [p1, p2]), inv('s3a://x/orders', [p2, p1, part('day=3', 's3a://x/3')]))).toEqual([]);
  });

  it('a moved table or partition, or a partition gone, is named', () => {
    const moved = locationChanges(
      inv('s3a://x/orders', [p1, p2]),
      inv('s3a://x/orders__him_fenced', [{ ...p1, sd: { ...p1.sd, location: 's3a://y' } }]),
    );
    expect(moved).toEqual([
      'table location s3a://x/orders → s3a://x/orders__him_fenced',
      'partition day=1 location s3a://hive/warehouse/sales.db/orders/day=1 → s3a://y',
      'partition day=2 missing',
    ]);
  });
});
