// Which still-migrated views of later waves read a wave, and in which order they roll back first.
import type { TableRecord } from '../../../core/state/store';
import { NodeSqlViewParser } from '../../../adapters/sql/view-deps';
import { describeDependents, dependentViews, liveViewsAfter } from '../../../core/view/rollback-order';

const v = (id: string, wave: number, reads: string[] | null) => ({ id, wave, reads });

describe('dependentViews', () => {
  it('finds the views that read the wave directly and through other views, latest wave first', () => {
    const views = [v('db.v_eu', 2, ['db.orders']), v('db.v_country', 3, ['db.v_eu', 'db.customers']), v('db.v_other', 2, ['db.x'])];
    const got = dependentViews(1, ['db.orders'], views);
    expect(got.map((x) => x.id)).toEqual(['db.v_country', 'db.v_eu']);
    expect(describeDependents(got)).toBe('db.v_country (wave 3), db.v_eu (wave 2)');
  });

  it('ignores views of the same or earlier waves and views reading nothing of the wave', () => {
    const views = [v('db.a', 1, ['db.orders']), v('db.b', 2, ['db.customers'])];
    expect(dependentViews(1, ['db.orders'], views)).toEqual([]);
    expect(dependentViews(2, ['db.orders'], [v('db.c', 1, ['db.orders'])])).toEqual([]);
  });

  it('liveViewsAfter: the still-migrated views of later waves with what their saved Hive SQL reads', () => {
    const rec = (tableId: string, wave: number, status: string, sql: string | null): TableRecord =>
      ({
        tableId,
        wave,
        status,
        original: {
          table: {
            database: 'db',
            name: tableId.split('.')[1],
            tableType: sql === null ? 'EXTERNAL_TABLE' : 'VIRTUAL_VIEW',
            viewExpandedText: sql,
            viewOriginalText: null,
          },
          partitions: [],
        },
      }) as unknown as TableRecord;
    const recs = [
      rec('db.orders', 1, 'migrated', null),
      rec('db.v_eu', 2, 'view-created', 'SELECT `orders`.`id` FROM `db`.`orders`'),
      rec('db.v_gone', 2, 'rolled-back', 'SELECT `orders`.`id` FROM `db`.`orders`'),
      rec('db.v_bad', 3, 'view-created', 'SELEKT (('),
    ];
    expect(liveViewsAfter(recs, 1, new NodeSqlViewParser())).toEqual([
      { id: 'db.v_eu', wave: 2, reads: ['db.orders'] },
      { id: 'db.v_bad', wave: 3, reads: null },
    ]);
    expect(liveViewsAfter(recs, 1, undefined).map((v) => v.reads)).toEqual([null, null]);
  });

  it('counts a view whose reads are unknown as dependent, and orders one wave by reverse id', () => {
    const got = dependentViews(1, ['db.t'], [v('db.a', 2, null), v('db.b', 2, ['DB.T'])]);
    expect(got.map((x) => x.id)).toEqual(['db.b', 'db.a']);
  });
});
