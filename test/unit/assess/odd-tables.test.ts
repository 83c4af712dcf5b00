// The plan-time checks for tables apply would trip on: missing/empty/relative
// locations, partition values that do not parse as their type, locations shared across tables,
// sizes from the storage listing when HMS has no stats, and apply's live re-check (liveBlockers).
import { assessTable } from '../../../core/assess/assess';
import { liveBlockers } from '../../../core/assess/live-blockers';
import { locationInvalidRule } from '../../../core/assess/rules/location';
import { partitionValueRule } from '../../../core/assess/rules/partition-values';
import { locationKey, sharedLocationFindings } from '../../../core/assess/shared-locations';
import { needsStorageSize } from '../../../core/assess/stats';
import type { AssessFinding, AssessOptions } from '../../../core/assess/types';
import { finding } from '../../../core/assess/types';
import type { HiveColumn } from '../../../core/hive/model';
import { inv, partition, table } from './fixture';

const O: AssessOptions = { allowUnbucketed: false };
const codes = (fs: readonly { code: string }[]): string[] => fs.map((f) => f.code);
const key = (name: string, type: string): HiveColumn => ({ name, type, comment: null });
const VIEW = { tableType: 'VIRTUAL_VIEW' as const, sd: { location: null }, viewExpandedText: 'select 1' };

describe('LOCATION_INVALID', () => {
  it('a missing, empty or relative table location needs fixing (rewrite-required)', () => {
    for (const location of [null, '', '   ', 'warehouse/db/t', 't']) {
      const f = locationInvalidRule(inv(table({ sd: { location } })), O);
      expect(codes(f)).toEqual(['LOCATION_INVALID']);
      expect(f[0]!.effect).toBe('rewrite');
      expect(assessTable(inv(table({ sd: { location } }))).class).toBe('rewrite-required');
    }
    expect(locationInvalidRule(inv(table({ sd: { location: 'warehouse/db/t' } })), O)[0]!.evidence).toContain(
      'relative location "warehouse/db/t"',
    );
  });

  it('a partition with an empty or relative location is named', () => {
    const t = inv(table({ partitionKeys: [key('p', 'string')] }), [
      partition('p=a'),
      partition('p=b', { sd: { location: '' } }),
      partition('p=c', { sd: { location: 'rel/p=c' } }),
    ]);
    const f = locationInvalidRule(t, O);
    expect(codes(f)).toEqual(['LOCATION_INVALID']);
    expect(f[0]!.evidence).toBe('2 partition(s): p=b has an empty location; p=c has a relative location "rel/p=c"');
  });

  it('absolute locations pass; views have none and are not checked', () => {
    for (const location of [
      's3a://wh/db/t',
      's3://wh/db/t/',
      'file:///tmp/t',
      'file:/tmp/t',
      '/user/hive/warehouse/t',
      'hdfs://nn:8020/w/t',
    ]) {
      expect(locationInvalidRule(inv(table({ sd: { location } })), O)).toEqual([]);
    }
    expect(locationInvalidRule(inv(table(VIEW)), O)).toEqual([]);
  });
});

describe('PARTITION_VALUE_INVALID', () => {
  const typed = (type: string, ...values: (string | null)[]) =>
    inv(
      table({ partitionKeys: [key('p', type)] }),
      values.map((v, i) => ({ ...partition(`p=${v ?? '__HIVE_DEFAULT_PARTITION__'}`), name: `p=${i}`, values: [v] })),
    );

  it('an int partition whose value is abc is rewrite-required, naming the partition and value', () => {
    const f = partitionValueRule(typed('int', '1', 'abc'), O);
    expect(codes(f)).toEqual(['PARTITION_VALUE_INVALID']);
    expect(f[0]!.effect).toBe('rewrite');
    expect(f[0]!.evidence).toMatch(/^1 of 2 partition\(s\): p=1: partition column 'p': value "abc" is not a valid int/);
    expect(assessTable(typed('int', 'abc')).class).toBe('rewrite-required');
  });

  it.each([
    ['bigint', '99999999999999999999'],
    ['smallint', '1.5'],
    ['tinyint', 'x'],
    ['date', '2024-02-30'],
    ['timestamp', 'yesterday'],
    ['decimal(4,2)', '123.45'],
    ['boolean', 'yes'],
    ['double', 'one'],
    ['float', '1,5'],
  ])('%s value %s does not parse', (type, value) => {
    expect(codes(partitionValueRule(typed(type, value), O))).toEqual(['PARTITION_VALUE_INVALID']);
  });

  it('valid values, the default partition (null) and strings pass', () => {
    expect(partitionValueRule(typed('int', '7', null, '-3'), O)).toEqual([]);
    expect(partitionValueRule(typed('date', '2024-02-29', null), O)).toEqual([]);
    expect(partitionValueRule(typed('decimal(4,2)', '12.3'), O)).toEqual([]);
    expect(partitionValueRule(typed('string', 'abc', ''), O)).toEqual([]);
    expect(partitionValueRule(typed('boolean', 'TRUE', 'false'), O)).toEqual([]);
  });

  it('a partition key whose type does not convert is left to the type rules', () => {
    expect(partitionValueRule(typed('uniontype<int,string>', 'abc'), O)).toEqual([]);
  });
});

describe('LOCATION_SHARED', () => {
  const t = (name: string, location: string | null) => inv(table({ name, sd: { location } }));
  const ids = (m: Map<string, AssessFinding[]>): string[] => [...m.keys()].sort();

  it('two tables at one location (trailing slash and s3/s3a/s3n aside) both get it, rewrite', () => {
    const m = sharedLocationFindings([t('a', 's3a://wh/db/x/'), t('b', 's3://wh/db/x'), t('c', 's3n://wh/db/y')]);
    expect(ids(m)).toEqual(['db.a', 'db.b']);
    expect(m.get('db.a')![0]!).toMatchObject({ code: 'LOCATION_SHARED', effect: 'rewrite' });
    expect(m.get('db.a')![0]!.evidence).toContain('db.b');
    expect(m.get('db.b')![0]!.evidence).toContain('db.a');
  });

  it('a table or a partition nested inside another table’s location', () => {
    const outer = t('outer', 's3://wh/data');
    const inner = t('inner', 's3://wh/data/inner');
    const parted = inv(table({ name: 'parted', sd: { location: 's3://wh/parted' }, partitionKeys: [key('p', 'string')] }), [
      partition('p=a', { sd: { location: 's3://wh/data/p=a' } }),
    ]);
    const m = sharedLocationFindings([outer, inner, parted]);
    expect(ids(m)).toEqual(['db.inner', 'db.outer', 'db.parted']);
    expect(m.get('db.parted')![0]!.evidence).toContain(
      'partition p=a location s3://wh/data/p=a lies inside the table location of db.outer',
    );
  });

  it('a table’s own partitions under its location, sibling prefixes (t vs t2), views and invalid locations do not count', () => {
    const own = inv(table({ name: 'own', sd: { location: 's3://wh/t' }, partitionKeys: [key('p', 'string')] }), [
      partition('p=a', { sd: { location: 's3://wh/t/p=a' } }),
    ]);
    const view = inv(table({ ...VIEW, name: 'v', sd: { location: 's3://wh/t' } }));
    expect(sharedLocationFindings([own, t('t2', 's3://wh/t2'), view, t('e1', ''), t('e2', ''), t('r', 'rel')]).size).toBe(0);
  });

  it('location keys: local spellings agree, other schemes and relative paths give none', () => {
    expect(locationKey('file:///tmp/x/')).toBe(locationKey('/tmp/x'));
    expect(locationKey('s3a://b/k//')).toBe('s3:b/k');
    expect(locationKey('rel/x')).toBeNull();
    expect(locationKey('hdfs://nn/x')).toBeNull();
  });
});

describe('sizes from storage (EMPTY_TABLE only when the listing confirms it)', () => {
  const sized = (files: number, bytes: number, complete = true): AssessFinding => ({
    ...finding('SIZE_FROM_STORAGE', 'info', 'listed', 'none'),
    size: { files, bytes, complete },
  });

  it('unpartitioned tables with absent or zero stats are sized from storage; partitioned and views not', () => {
    expect(needsStorageSize(inv(table({ parameters: {} })))).toBe(true);
    expect(needsStorageSize(inv(table({ parameters: { numFiles: '0', totalSize: '0' } })))).toBe(true);
    expect(needsStorageSize(inv(table()))).toBe(false);
    expect(needsStorageSize(inv(table({ parameters: {}, partitionKeys: [key('p', 'string')] })))).toBe(false);
    expect(needsStorageSize(inv(table({ ...VIEW, parameters: {} })))).toBe(false);
  });

  it('HMS says numFiles=0 but storage lists files: no EMPTY_TABLE, files and bytes from the listing', () => {
    const a = assessTable(inv(table({ parameters: { numFiles: '0', totalSize: '0' } })), O, [sized(4, 4096)]);
    expect(codes(a.findings)).toEqual(['SIZE_FROM_STORAGE']);
    expect([a.files, a.bytes, a.sizeSource]).toEqual([4, 4096, 'storage']);
    const b = assessTable(inv(table({ parameters: {} })), O, [sized(10_000, 1 << 30, false)]);
    expect([b.files, b.bytes, b.sizeSource]).toEqual([10_000, 1 << 30, 'storage']);
  });

  it('without a listing, HMS numFiles=0 stays EMPTY_TABLE, said to be unconfirmed; a listing that finds nothing confirms it', () => {
    const hmsOnly = assessTable(inv(table({ parameters: { numFiles: '0', totalSize: '0' } })));
    expect(codes(hmsOnly.findings)).toEqual(['EMPTY_TABLE']);
    expect(hmsOnly.findings[0]!.evidence).toContain('storage not listed');
    expect(hmsOnly.sizeSource).toBe('hms');
    const confirmed = {
      ...finding('EMPTY_TABLE', 'info', 'no data files (storage listing)', 'none'),
      size: { files: 0, bytes: 0, complete: true },
    };
    const a = assessTable(inv(table({ parameters: { numFiles: '0', totalSize: '0' } })), O, [sized(0, 0), confirmed]);
    expect(a.findings.map((f) => [f.code, f.evidence])).toEqual([
      ['SIZE_FROM_STORAGE', 'listed'],
      ['EMPTY_TABLE', 'no data files (storage listing)'],
    ]);
  });
});

describe('liveBlockers (apply’s re-check of one table)', () => {
  it('returns the skip and rewrite findings of the per-table rules only', () => {
    const bad = inv(table({ partitionKeys: [key('p', 'int')], tableType: 'MANAGED_TABLE' }), [{ ...partition('p=abc'), values: ['abc'] }]);
    expect(codes(liveBlockers(bad, O))).toEqual(['PARTITION_VALUE_INVALID']);
    expect(codes(liveBlockers(inv(table({ sd: { location: '' } }))))).toEqual(['LOCATION_INVALID']);
    expect(codes(liveBlockers(inv(table({ parameters: { table_type: 'ICEBERG' } }))))).toEqual(['ALREADY_ICEBERG']);
    expect(codes(liveBlockers(inv(table({ sd: { numBuckets: 4, bucketColumns: ['id'] } })), { allowUnbucketed: false }))).toEqual([
      'BUCKETED',
    ]);
    expect(liveBlockers(inv(table({ sd: { numBuckets: 4, bucketColumns: ['id'] } })), { allowUnbucketed: true })).toEqual([]);
  });

  it('a migratable table and views give none', () => {
    expect(liveBlockers(inv(table({ tableType: 'MANAGED_TABLE', parameters: {} })))).toEqual([]);
    expect(liveBlockers(inv(table({ tableType: 'MATERIALIZED_VIEW' })))).toEqual([]);
  });
});
