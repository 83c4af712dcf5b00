import { ErrorCode } from '../../../core/errors';
import { parseHiveType } from '../../../core/hive/types';
import { footerTree, listElementNode, mapEntryNodes } from '../../../core/iceberg/footer-paths';
import { buildNameMapping, footerAliases } from '../../../core/iceberg/name-mapping';
import type { NameMapping } from '../../../core/iceberg/name-mapping';
import { convertHiveSchemaOrThrow } from '../../../core/iceberg/schema';
import type { Schema } from '../../../core/iceberg/types';
import { failing } from '../../../core/validate/compare';
import { footerCoverage } from '../../../core/validate/footer-coverage';

const COLS = [
  { name: 'id', type: 'int' },
  { name: 's', type: 'struct<a:int,b:string>' },
  { name: 'items', type: 'array<struct<sku:string,qty:int>>' },
  { name: 'attrs', type: 'map<string,struct<v:int,w:string>>' },
  { name: 'nums', type: 'array<int>' },
];
const parsed = (cs: readonly { name: string; type: string }[]) =>
  cs.map((c) => ({ name: c.name, type: parseHiveType(c.type), comment: null }));
const schema: Schema = convertHiveSchemaOrThrow(parsed(COLS), parsed([{ name: 'dt', type: 'string' }])).schema;

/** Field id of a dotted schema path (list element / map value walked through as `element` / `value`). */
function idOf(path: string): number {
  let fields = schema.fields;
  let id = -1;
  for (const name of path.split('.')) {
    const f = fields.find((x) => x.name === name);
    if (f === undefined) throw new Error(`no ${name} in ${path}`);
    id = f.id;
    const t = f.type;
    fields =
      t.kind === 'struct'
        ? t.fields
        : t.kind === 'list' && t.element.kind === 'struct'
          ? t.element.fields
          : t.kind === 'map' && t.value.kind === 'struct'
            ? t.value.fields
            : [];
  }
  return id;
}

// pyarrow's layout (3-level lists `list.element`, maps `key_value.key/value`), with case variants
// at every nesting level an old writer might have used.
const PYARROW = [
  ['ID'],
  ['s', 'A'],
  ['s', 'b'],
  ['items', 'list', 'element', 'SKU'],
  ['items', 'list', 'element', 'qty'],
  ['attrs', 'key_value', 'key'],
  ['attrs', 'key_value', 'value', 'V'],
  ['attrs', 'key_value', 'value', 'w'],
  ['nums', 'list', 'element'],
];

describe('footer paths through Parquet list and map wrappers', () => {
  test('3-level, legacy 2-level (array, _tuple, several children) lists and maps', () => {
    const [three] = footerTree([['l', 'list', 'element', 'x']]);
    expect(listElementNode(three!)?.name).toBe('element');
    const [array] = footerTree([['l', 'array', 'x']]);
    expect(listElementNode(array!)?.name).toBe('array');
    const [tuple] = footerTree([['l', 'l_tuple', 'x']]);
    expect(listElementNode(tuple!)?.name).toBe('l_tuple');
    const [several] = footerTree([
      ['l', 'bag', 'x'],
      ['l', 'bag', 'y'],
    ]);
    expect(listElementNode(several!)?.name).toBe('bag');
    const [hive] = footerTree([['l', 'bag', 'array_element', 'x']]);
    expect(listElementNode(hive!)?.name).toBe('array_element');
    const [m] = footerTree([
      ['m', 'map', 'k'],
      ['m', 'map', 'v'],
    ]);
    expect(mapEntryNodes(m!).map((n) => n?.name)).toEqual(['k', 'v']);
    const [bare] = footerTree([['l']]);
    expect(listElementNode(bare!)).toBeUndefined();
  });
});

describe('footerAliases inside lists and maps', () => {
  test('case variants become aliases at every level: struct, list element struct, map value struct', () => {
    const aliases = footerAliases(schema, COLS.length, PYARROW);
    expect(Object.fromEntries(aliases)).toEqual({
      [idOf('id')]: ['ID'],
      [idOf('s.a')]: ['A'],
      [idOf('items.sku')]: ['SKU'],
      [idOf('attrs.v')]: ['V'],
    });
  });

  test("Hive's own Parquet layout (bag/array_element, map/key/value) and a 2-level list", () => {
    const aliases = footerAliases(schema, COLS.length, [
      ['items', 'bag', 'array_element', 'Qty'],
      ['attrs', 'map', 'key'],
      ['attrs', 'map', 'value', 'W'],
      ['nums', 'bag', 'array_element'],
    ]);
    expect(Object.fromEntries(aliases)).toEqual({ [idOf('items.qty')]: ['Qty'], [idOf('attrs.w')]: ['W'] });
    const twoLevel = footerAliases(schema, COLS.length, [
      ['items', 'array', 'SKU'],
      ['items', 'array', 'qty'],
    ]);
    expect(Object.fromEntries(twoLevel)).toEqual({ [idOf('items.sku')]: ['SKU'] });
  });

  test('names that match nothing add nothing; exact names add nothing', () => {
    expect(footerAliases(schema, COLS.length, [['s', 'zz'], ['items', 'list', 'element', 'nope'], ['legacy'], ['s', 'a']]).size).toBe(0);
  });
});

describe('footerCoverage', () => {
  const layout = (columns: string[][], files = 1) => ({ columns, file: 's3://b/t/f.parquet', files });
  const withAliases = (cols: string[][]): NameMapping => buildNameMapping(schema, footerAliases(schema, COLS.length, cols));

  test('a mapping with the footer aliases covers every nested column: no finding', () => {
    expect(footerCoverage(schema, withAliases(PYARROW), COLS.length, [layout(PYARROW)])).toEqual([]);
  });

  test('a declared case variant the mapping lacks fails, nested in a list or a map too', () => {
    const f = footerCoverage(schema, buildNameMapping(schema), COLS.length, [layout(PYARROW, 3)]);
    expect(f.map((x) => x.path)).toEqual(['ID', 's.A', 'items.list.element.SKU', 'attrs.key_value.value.V']);
    expect(f.every((x) => x.code === ErrorCode.VALIDATION_FOOTER_UNMAPPED && x.severity === undefined)).toBe(true);
    expect(failing(f)).toHaveLength(4);
    expect(f[0]?.message).toMatch(/and 2 more file\(s\).*readers would read NULL/);
  });

  test('a column Hive never declared is a warning only (top level, in a struct, in a list element)', () => {
    const cols = [['id'], ['legacy'], ['s', 'a'], ['s', 'old'], ['items', 'list', 'element', 'gone']];
    const f = footerCoverage(schema, withAliases(cols), COLS.length, [layout(cols)]);
    expect(f.map((x) => [x.path, x.severity])).toEqual([
      ['legacy', 'warning'],
      ['s.old', 'warning'],
      ['items.list.element.gone', 'warning'],
    ]);
    expect(failing(f)).toEqual([]);
  });

  test('positional _colN: declared when N is a data column, else undeclared', () => {
    const f = footerCoverage(schema, buildNameMapping(schema), COLS.length, [layout([['_col0'], ['_col9']])]);
    expect(f.map((x) => [x.path, x.severity ?? 'fail'])).toEqual([
      ['_col0', 'fail'],
      ['_col9', 'warning'],
    ]);
  });

  test('no mapping at all: every declared column fails; one finding per path across layouts', () => {
    const f = footerCoverage(schema, null, COLS.length, [layout([['id'], ['s', 'a']]), layout([['id']])]);
    expect(f.map((x) => x.path)).toEqual(['id', 's']);
    expect(f[0]?.message).toMatch(/name mapping is missing/);
  });

  test('at most 20 findings', () => {
    const cols = Array.from({ length: 30 }, (_, i) => [`extra${i}`]);
    expect(footerCoverage(schema, buildNameMapping(schema), COLS.length, [layout(cols)])).toHaveLength(20);
  });
});
