import { parseHiveType } from '../../../core/hive/types';
import { convertHiveSchemaOrThrow } from '../../../core/iceberg/schema';
import type { IcebergType, NestedField, Schema } from '../../../core/iceberg/types';
import { compareSchemaTree } from '../../../core/validate/schema-tree';

const COLS = [
  { name: 'id', type: 'bigint' },
  { name: 'small', type: 'tinyint' },
  { name: 'amount', type: 'decimal(12,2)' },
  { name: 'code', type: 'char(3)' },
  { name: 'ts', type: 'timestamp' },
  { name: 's', type: 'struct<a:int,b:struct<x:string,y:array<double>>>' },
  { name: 'tags', type: 'array<struct<k:string,v:float>>' },
  { name: 'm', type: 'map<string,map<int,date>>' },
];
const KEYS = [{ name: 'dt', type: 'string' }];
const parsed = (cs: readonly { name: string; type: string }[]) =>
  cs.map((c) => ({ name: c.name, type: parseHiveType(c.type), comment: null }));
const converted = (opts = {}): Schema => convertHiveSchemaOrThrow(parsed(COLS), parsed(KEYS), opts).schema;

/** The schema with the field at `path` (dotted, top-level name first) replaced by `f(field)`. */
function edit(schema: Schema, path: string[], f: (x: NestedField) => NestedField | null): Schema {
  const walk = (fields: readonly NestedField[], rest: string[]): NestedField[] =>
    fields.flatMap((x) => {
      if (x.name !== rest[0]) return [x];
      if (rest.length === 1) return f(x) ?? [];
      const t = x.type;
      if (t.kind === 'struct') return [{ ...x, type: { ...t, fields: walk(t.fields, rest.slice(1)) } }];
      if (t.kind === 'list' && t.element.kind === 'struct')
        return [{ ...x, type: { ...t, element: { ...t.element, fields: walk(t.element.fields, rest.slice(1)) } as IcebergType } }];
      return [x];
    });
  return { ...schema, fields: walk(schema.fields, path) };
}

describe('validation: the whole Hive type tree against the Iceberg schema', () => {
  it('the schema the conversion makes passes, with either timestamp option', () => {
    const all = [...COLS, ...KEYS];
    expect(compareSchemaTree(all, converted())).toEqual([]);
    expect(compareSchemaTree(all, converted({ timestamp: 'timestamptz' }))).toEqual([]);
    expect(
      compareSchemaTree(
        all.map((c) => ({ ...c, name: c.name.toUpperCase() })),
        converted(),
      ),
    ).toEqual([]);
  });

  it('a nested field missing, extra, retyped or required is named by its path', () => {
    const all = [...COLS, ...KEYS];
    const paths = (s: Schema) => compareSchemaTree(all, s).map((f) => [f.path, f.expected, f.actual]);
    expect(paths(edit(converted(), ['s', 'b', 'x'], () => null))).toEqual([['s.b.x', 'string', 'absent']]);
    expect(paths(edit(converted(), ['s', 'a'], (x) => ({ ...x, type: { kind: 'long' } })))).toEqual([['s.a', 'int', 'long']]);
    expect(paths(edit(converted(), ['s', 'a'], (x) => ({ ...x, required: true })))).toEqual([['s.a', 'optional', 'required']]);
    expect(paths(edit(converted(), ['tags', 'v'], (x) => ({ ...x, type: { kind: 'double' } })))).toEqual([
      ['tags.element.v', 'float', 'double'],
    ]);
    expect(paths(edit(converted(), ['amount'], (x) => ({ ...x, type: { kind: 'decimal', precision: 10, scale: 2 } })))).toEqual([
      ['amount', 'decimal(12,2)', 'decimal(10,2)'],
    ]);
    const extra = edit(converted(), ['s', 'b'], (x) =>
      x.type.kind === 'struct'
        ? { ...x, type: { ...x.type, fields: [...x.type.fields, { id: 999, name: 'z', required: false, type: { kind: 'int' } }] } }
        : x,
    );
    expect(paths(extra)).toEqual([['s.b.z', 'absent', 'int']]);
    expect(paths(edit(converted(), ['dt'], () => null))).toEqual([['dt', 'dt', 'absent']]);
  });

  it('map keys must stay required and values optional; a list element optional', () => {
    const all = [...COLS, ...KEYS];
    const m = edit(converted(), ['m'], (x) => (x.type.kind === 'map' ? { ...x, type: { ...x.type, valueRequired: true } } : x));
    expect(compareSchemaTree(all, m).map((f) => f.path)).toEqual(['m.value']);
    const l = edit(converted(), ['tags'], (x) => (x.type.kind === 'list' ? { ...x, type: { ...x.type, elementRequired: true } } : x));
    expect(compareSchemaTree(all, l).map((f) => f.path)).toEqual(['tags.element']);
  });
});
