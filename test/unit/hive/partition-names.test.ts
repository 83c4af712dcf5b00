// Partition-name escaping as Hive's FileUtils does it, and the round trip property.
import fc from 'fast-check';
import { MigrationError } from '../../../core/errors';
import { escapePathName, makePartName, parsePartName, parsePartNameSpec, unescapePathName } from '../../../core/hive/partition-names';

describe('escapePathName', () => {
  it.each([
    ['us/east', 'us%2Feast'],
    ['a=b:c%d#e', 'a%3Db%3Ac%25d%23e'],
    ['"#%\'*/:=?\\\u007F{[]^', '%22%23%25%27%2A%2F%3A%3D%3F%5C%7F%7B%5B%5D%5E'],
    ['\u0000\u0001\n\r\u001F', '%00%01%0A%0D%1F'],
    ['café über <x>|', 'café über <x>|'],
    ['}~!@$&()+,;-._`', '}~!@$&()+,;-._`'],
    ['日本 🚀', '日本 🚀'],
  ])('%j → %j', (raw, escaped) => {
    expect(escapePathName(raw)).toBe(escaped);
    expect(unescapePathName(escaped)).toBe(raw);
  });

  it('null and empty become the default partition', () => {
    expect(escapePathName(null)).toBe('__HIVE_DEFAULT_PARTITION__');
    expect(escapePathName('')).toBe('__HIVE_DEFAULT_PARTITION__');
  });

  it('escapes space, <, >, | in Windows mode', () => {
    expect(escapePathName('a b<c>d|e', { windows: true })).toBe('a%20b%3Cc%3Ed%7Ce');
  });
});

describe('unescapePathName (Java parseInt quirks kept)', () => {
  it.each([
    ['%41', 'A'],
    ['%4', '%4'],
    ['%zz', '%zz'],
    ['100%', '100%'],
    ['%+1x', '\u0001x'],
    ['%-1x', '%-1x'],
    ['%2f', '/'],
  ])('%j → %j', (escaped, raw) => {
    expect(unescapePathName(escaped)).toBe(raw);
  });
});

describe('makePartName / parsePartName', () => {
  it('builds names as HMS lists them', () => {
    expect(makePartName(['DT', 'Region'], ['2024-01-01', 'us/east'])).toBe('dt=2024-01-01/region=us%2Feast');
    expect(makePartName(['dt', 'region'], ['2024-01-02', null])).toBe('dt=2024-01-02/region=__HIVE_DEFAULT_PARTITION__');
    expect(makePartName(['k=x'], ['v'])).toBe('k%3Dx=v');
  });

  it('parses names, default partition → null', () => {
    expect(parsePartName('dt=2024-01-01/region=a%3Db%3Ac%25d%23e')).toEqual(['2024-01-01', 'a=b:c%d#e']);
    expect(parsePartName('dt=2024-01-02/region=__HIVE_DEFAULT_PARTITION__')).toEqual(['2024-01-02', null]);
    expect(parsePartNameSpec('k%3Dx=v=w')).toEqual([{ key: 'k=x', value: 'v=w' }]);
  });

  it('rejects malformed names and mismatched lengths with coded errors', () => {
    expect(() => parsePartName('novalue')).toThrow(MigrationError);
    expect(() => makePartName(['a', 'b'], ['1'])).toThrow(MigrationError);
  });

  it('round-trips arbitrary unicode values (parse ∘ make = id; "" reads back as null, as in Hive)', () => {
    const value = fc.option(fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.string()), { nil: null });
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 4 }), (values) => {
        const keys = values.map((_, i) => `k${i}`);
        const name = makePartName(keys, values);
        expect(parsePartName(name)).toEqual(values.map((v) => (v === '' || v === '__HIVE_DEFAULT_PARTITION__' ? null : v)));
        expect(name.split('/')).toHaveLength(values.length);
      }),
      { numRuns: 1000 },
    );
  });
});
