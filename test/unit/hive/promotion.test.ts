import { promotable, promotionProblem } from '../../../core/hive/promotion';
import { assessTable } from '../../../core/assess/assess';
import { schemaDriftRule } from '../../../core/assess/rules/schema-drift';
import { inv, partition, table } from '../assess/fixture';

const P = [{ name: 'p', type: 'string', comment: null }];

describe('promotion through nested types (Iceberg schema evolution)', () => {
  it('primitives widen as the spec allows, never narrow', () => {
    const cases: [string, string, boolean][] = [
      ['tinyint', 'int', true],
      ['int', 'bigint', true],
      ['bigint', 'int', false],
      ['float', 'double', true],
      ['double', 'float', false],
      ['decimal(10,2)', 'decimal(12,2)', true],
      ['decimal(12,2)', 'decimal(10,2)', false],
      ['decimal(10,2)', 'decimal(12,3)', false],
      ['decimal', 'decimal(10,0)', true],
      ['varchar(10)', 'string', true],
      ['varchar(10)', 'varchar(20)', true],
      ['varchar(20)', 'varchar(10)', false],
      ['string', 'varchar(10)', false],
      ['char(3)', 'char(3)', true],
      ['char(3)', 'string', false],
      ['int', 'string', false],
      ['INTEGER', 'int', true],
      ['date', 'timestamp', false],
    ];
    expect(cases.map(([a, b]) => promotable(a, b))).toEqual(cases.map(([, , ok]) => ok));
  });

  it('struct fields added, dropped or reordered are fine; promotions inside structs, lists and maps too', () => {
    expect(promotionProblem('struct<a:int>', 'struct<a:int,b:string>')).toBeNull();
    expect(promotionProblem('struct<a:int,b:string>', 'struct<b:string,a:int>')).toBeNull();
    expect(promotionProblem('struct<a:int,gone:string>', 'struct<a:bigint>')).toBeNull();
    expect(promotionProblem('struct<A:int>', 'struct<a:bigint>')).toBeNull();
    expect(promotionProblem('array<struct<x:float>>', 'array<struct<x:double,y:int>>')).toBeNull();
    expect(promotionProblem('map<string,int>', 'map<string,bigint>')).toBeNull();
    expect(promotionProblem('map<string,struct<p:decimal(5,1)>>', 'map<string,struct<p:decimal(9,1),q:date>>')).toBeNull();
  });

  it('names the path and both types where a nested type cannot be read', () => {
    expect(promotionProblem('struct<a:int,s:struct<x:bigint>>', 'struct<a:int,s:struct<x:int>>')).toEqual({
      path: '.s.x',
      from: 'bigint',
      to: 'int',
    });
    expect(promotionProblem('array<int>', 'array<string>')).toEqual({ path: '.element', from: 'int', to: 'string' });
    expect(promotionProblem('map<int,string>', 'map<string,string>')).toEqual({ path: '.key', from: 'int', to: 'string' });
    expect(promotionProblem('map<string,array<double>>', 'map<string,array<float>>')).toEqual({
      path: '.value.element',
      from: 'double',
      to: 'float',
    });
    expect(promotionProblem('struct<a:int>', 'array<int>')).toEqual({ path: '', from: 'struct<a:int>', to: 'array<int>' });
    expect(promotionProblem('uniontype<int,string>', 'uniontype<int,string>')).toBeNull();
    expect(promotionProblem('uniontype<int,string>', 'uniontype<bigint,string>')).not.toBeNull();
  });

  it('type strings that do not parse are compared as written', () => {
    expect(promotionProblem('struct<a:int', 'struct<a:int')).toBeNull();
    expect(promotionProblem('struct<a:int', 'struct<a:bigint>')).toEqual({ path: '', from: 'struct<a:int', to: 'struct<a:bigint>' });
  });

  it('the drift rule: a partition written before a struct field was added migrates with a warning, a narrowed nested field needs a rewrite', () => {
    const cols = (s: string) => [
      { name: 'id', type: 'int', comment: null },
      { name: 's', type: s, comment: null },
    ];
    const t = table({ partitionKeys: P, sd: { ...table().sd, columns: cols('struct<a:int,b:string>') } });
    const old = partition('p=old', { sd: { ...t.sd, columns: cols('struct<a:int>') } });
    const evolved = schemaDriftRule(inv(t, [partition('p=new', { sd: t.sd }), old]), { allowUnbucketed: false });
    expect(evolved.map((f) => f.code)).toEqual(['PARTITION_SCHEMA_DRIFT']);
    expect(assessTable(inv(t, [old])).class).not.toBe('rewrite-required');

    const narrowed = partition('p=bad', { sd: { ...t.sd, columns: cols('struct<a:bigint>') } });
    const f = schemaDriftRule(inv(t, [narrowed]), { allowUnbucketed: false });
    expect(f.map((x) => [x.code, x.column])).toEqual([
      ['PARTITION_SCHEMA_DRIFT', undefined],
      ['PARTITION_TYPE_INCOMPATIBLE', 's'],
    ]);
    expect(f[1]!.evidence).toContain('at s.a: bigint cannot be read as int');
    expect(assessTable(inv(t, [narrowed])).class).toBe('rewrite-required');
  });
});
