import { ErrorCode } from '../../../core/errors';
import { parseHiveType } from '../../../core/hive/types';
import type { HiveColumnInput, HiveTypeAst } from '../../../core/iceberg/hive-input';
import { buildNameMapping, footerAliases, nameMappingToJson } from '../../../core/iceberg/name-mapping';
import { identitySpec, lastPartitionId, UNPARTITIONED_SPEC } from '../../../core/iceberg/partition-spec';
import { convertHiveSchema, convertHiveSchemaOrThrow } from '../../../core/iceberg/schema';
import { schemaToJson } from '../../../core/iceberg/schema-json';

const p = (type: string): HiveTypeAst => parseHiveType(type);
const c = (name: string, type: HiveTypeAst, comment: string | null = null): HiveColumnInput => ({ name, type, comment });

describe('Hive → Iceberg types', () => {
  test.each<[string, string]>([
    ['boolean', 'boolean'],
    ['tinyint', 'int'],
    ['smallint', 'int'],
    ['int', 'int'],
    ['integer', 'int'],
    ['bigint', 'long'],
    ['float', 'float'],
    ['double', 'double'],
    ['double precision', 'double'],
    ['string', 'string'],
    ['char(3)', 'string'],
    ['varchar(10)', 'string'],
    ['binary', 'binary'],
    ['date', 'date'],
    ['timestamp', 'timestamp'],
    ['timestamp with local time zone', 'timestamptz'],
    ['decimal(38,10)', 'decimal(38, 10)'],
    ['decimal', 'decimal(10, 0)'],
  ])('%s → %s', (hive, iceberg) => {
    const r = convertHiveSchemaOrThrow([c('x', p(hive))], []);
    expect(schemaToJson(r.schema).fields[0]).toEqual({ id: 1, name: 'x', required: false, type: iceberg });
  });

  test('timestamp becomes timestamptz with the option', () => {
    const r = convertHiveSchemaOrThrow([c('ts', p('timestamp'))], [], { timestamp: 'timestamptz' });
    expect(schemaToJson(r.schema).fields[0]?.type).toBe('timestamptz');
  });

  test('widened types are reported as info findings', () => {
    const r = convertHiveSchemaOrThrow([c('a', p('tinyint')), c('b', p('char(2)'))], []);
    expect(r.findings.map((f) => [f.code, f.severity, f.column])).toEqual([
      ['ICEBERG_TYPE_WIDENED', 'info', 'a'],
      ['ICEBERG_TYPE_WIDENED', 'info', 'b'],
    ]);
  });

  test.each(['uniontype<int,string>', 'interval_year_month', 'interval_day_time', 'void'])(
    '%s is refused with a coded finding naming the (nested) column',
    (hive) => {
      const t = p(hive);
      const r = convertHiveSchema([c('ok', p('int')), c('s', p(`struct<inner:array<${hive}>>`))], []);
      expect(r.ok).toBe(false);
      expect(r.findings).toEqual([
        expect.objectContaining({ code: ErrorCode.ICEBERG_TYPE_UNSUPPORTED, severity: 'error', column: 's.inner.element' }),
      ]);
      expect(() => convertHiveSchemaOrThrow([c('u', t)], [])).toThrow(
        expect.objectContaining({ code: ErrorCode.ICEBERG_TYPE_UNSUPPORTED, context: expect.objectContaining({ columns: ['u'] }) }),
      );
    },
  );

  test('case-insensitive duplicate names are refused', () => {
    const r = convertHiveSchema([c('a', p('int'))], [c('A', p('string'))]);
    expect(r.findings).toEqual([expect.objectContaining({ code: ErrorCode.ICEBERG_SCHEMA_INVALID, column: 'A' })]);
  });
});

describe('fresh ids in AssignFreshIds order, partition columns last', () => {
  // docs/design/iceberg-spec.md §3: a=1, s=2, m=3, dt=4, x=5, y=6, m.key=7, m.value=8, p=9
  const columns = [c('a', p('int'), 'the a'), c('s', p("struct<x:int,y:string comment 'why'>")), c('m', p('map<string,struct<p:bigint>>'))];
  const r = convertHiveSchemaOrThrow(columns, [c('dt', p('string'))]);

  test('ids, optionality and docs', () => {
    expect(r.lastColumnId).toBe(9);
    expect(schemaToJson(r.schema)).toEqual({
      type: 'struct',
      'schema-id': 0,
      fields: [
        { id: 1, name: 'a', required: false, type: 'int', doc: 'the a' },
        {
          id: 2,
          name: 's',
          required: false,
          type: {
            type: 'struct',
            fields: [
              { id: 5, name: 'x', required: false, type: 'int' },
              { id: 6, name: 'y', required: false, type: 'string', doc: 'why' },
            ],
          },
        },
        {
          id: 3,
          name: 'm',
          required: false,
          type: {
            type: 'map',
            'key-id': 7,
            key: 'string',
            'value-id': 8,
            'value-required': false,
            value: { type: 'struct', fields: [{ id: 9, name: 'p', required: false, type: 'long' }] },
          },
        },
        { id: 4, name: 'dt', required: false, type: 'string' },
      ],
    });
  });

  test('identity spec from the partition keys; 999 when unpartitioned', () => {
    const spec = identitySpec(r.schema, ['dt']);
    expect(spec).toEqual({ specId: 0, fields: [{ sourceId: 4, fieldId: 1000, name: 'dt', transform: 'identity' }] });
    expect(lastPartitionId([spec])).toBe(1000);
    expect(lastPartitionId([UNPARTITIONED_SPEC])).toBe(999);
    expect(() => identitySpec(r.schema, ['nope'])).toThrow(expect.objectContaining({ code: ErrorCode.ICEBERG_SCHEMA_INVALID }));
    expect(() => identitySpec(r.schema, ['s'])).toThrow(expect.objectContaining({ code: ErrorCode.ICEBERG_SCHEMA_INVALID }));
  });

  test('name mapping covers every field, nested too, with footer aliases', () => {
    const withList = convertHiveSchemaOrThrow([...columns, c('arr', p('array<int>'))], [c('dt', p('string'))]);
    const extra = footerAliases(withList.schema, 4, [['A'], ['_col1'], ['S', 'X'], ['unknown'], ['dt']]);
    const mapping = buildNameMapping(withList.schema, extra);
    expect(JSON.parse(nameMappingToJson(mapping))).toEqual([
      { 'field-id': 1, names: ['a', 'A'] },
      {
        'field-id': 2,
        names: ['s', '_col1', 'S'],
        fields: [
          { 'field-id': 6, names: ['x', 'X'] },
          { 'field-id': 7, names: ['y'] },
        ],
      },
      {
        'field-id': 3,
        names: ['m'],
        fields: [
          { 'field-id': 8, names: ['key'] },
          { 'field-id': 9, names: ['value'], fields: [{ 'field-id': 10, names: ['p'] }] },
        ],
      },
      { 'field-id': 4, names: ['arr'], fields: [{ 'field-id': 11, names: ['element'] }] }, // m's subtree (p=10) is numbered before arr's element
      { 'field-id': 5, names: ['dt'] },
    ]);
  });
});
