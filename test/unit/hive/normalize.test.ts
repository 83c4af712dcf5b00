// The raw → model rules shared by the Thrift and backing-DB paths.
import {
  databaseOwnerType,
  normalizeParams,
  normalizeParamsObject,
  normalizeSkewed,
  partitionValue,
  sortNames,
  sortPartitions,
  sqlBoolean,
  sqlNumber,
  tableOwnerType,
} from '../../../core/hive/normalize';

describe('normalize', () => {
  it('drops null param values, keeps empty strings, sorts keys by code unit', () => {
    const p = normalizeParams([
      ['b', '2'],
      ['a', null],
      ['Z', ''],
      ['a.b', '1'],
    ]);
    expect(p).toEqual({ Z: '', 'a.b': '1', b: '2' });
    expect(Object.keys(p)).toEqual(['Z', 'a.b', 'b']);
    expect(normalizeParamsObject(null)).toEqual({});
  });

  it('owner types: table NULL → USER (IDL default), database NULL → null', () => {
    expect(tableOwnerType(null)).toBe('USER');
    expect(tableOwnerType('ROLE')).toBe('ROLE');
    expect(databaseOwnerType(null)).toBeNull();
    expect(databaseOwnerType('group')).toBe('GROUP');
    expect(databaseOwnerType('nobody')).toBeNull();
  });

  it('partition values: default marker → null, everything else verbatim', () => {
    expect(partitionValue('__HIVE_DEFAULT_PARTITION__')).toBeNull();
    expect(partitionValue('us/east')).toBe('us/east');
    expect(partitionValue('')).toBe('');
  });

  it('skew: empty → null, locations sorted by tuple', () => {
    expect(normalizeSkewed([], [], [])).toBeNull();
    expect(
      normalizeSkewed(
        ['a', 'b'],
        [
          ['2', 'x'],
          ['1', 'y'],
        ],
        [
          { values: ['2', 'x'], location: 's3://l/2' },
          { values: ['1', 'y'], location: 's3://l/1' },
        ],
      ),
    ).toEqual({
      columnNames: ['a', 'b'],
      values: [
        ['2', 'x'],
        ['1', 'y'],
      ],
      locations: [
        { values: ['1', 'y'], location: 's3://l/1' },
        { values: ['2', 'x'], location: 's3://l/2' },
      ],
    });
  });

  it('sorts by UTF-16 code unit, not locale', () => {
    expect(sortNames(['b', 'B', 'a', 'é'])).toEqual(['B', 'a', 'b', 'é']);
    expect(sortPartitions([{ name: 'k=b' }, { name: 'k=A' }]).map((p) => p.name)).toEqual(['k=A', 'k=b']);
  });

  it('reads SQL booleans and numbers from any driver', () => {
    expect([true, 1, '1', 't', 'Y', new Uint8Array([1])].map(sqlBoolean)).toEqual([true, true, true, true, true, true]);
    expect([false, 0, '0', 'f', 'N', new Uint8Array([0]), null].map(sqlBoolean)).toEqual([false, false, false, false, false, false, false]);
    expect(sqlNumber('1796229798')).toBe(1796229798);
    expect(sqlNumber(null, -1)).toBe(-1);
  });
});
