// prepareConversion refuses a partition whose declared column type the table's type cannot read
// (CONVERT_PARTITION_TYPE_INCOMPATIBLE), through nested types, and converts the promotable ones —
// the line `migrate table` and an edited plan meet, whatever the plan's assessment said.
import { prepareConversion } from '../../../core/convert/prepare';
import { ErrorCode } from '../../../core/errors';
import type { TableInventory } from '../../../core/hive/model';
import { errorOf } from '../../helpers/errors';
import { PARQUET_SD, inv, partition, table } from '../assess/fixture';

const identity = { planHash: 'h'.repeat(64), table: 'hms:db.t->rest:db.t' };
const prep = (i: TableInventory) => () => prepareConversion({ inventory: i, identity, timestampMs: 1, toolVersion: '0' });

/** A table partitioned by `d` whose columns are `cols`, with one partition declaring `old`. */
function drifted(cols: [string, string][], old: [string, string][]): TableInventory {
  const columns = (cs: [string, string][]) => cs.map(([name, type]) => ({ name, type, comment: null }));
  return inv(table({ partitionKeys: [{ name: 'd', type: 'string', comment: null }], sd: { columns: columns(cols) } }), [
    partition('d=1', { sd: { ...PARQUET_SD, location: 's3a://wh/db/t/d=1', columns: columns(old) } }),
  ]);
}

describe('prepareConversion: partition column types', () => {
  it('converts promotable changes: int → bigint, a struct field added, float → double inside a list of structs', () => {
    expect(prep(drifted([['id', 'bigint']], [['id', 'int']]))).not.toThrow();
    expect(prep(drifted([['s', 'struct<a:int,b:string>']], [['s', 'struct<a:int>']]))).not.toThrow();
    expect(prep(drifted([['l', 'array<struct<x:double,y:int>>']], [['l', 'array<struct<x:float>>']]))).not.toThrow();
  });

  it('refuses string → int inside a struct, naming the partition, the column and the nested path', () => {
    const e = errorOf(prep(drifted([['s', 'struct<a:int,b:int>']], [['s', 'struct<a:int,b:string>']])));
    expect(e.code).toBe(ErrorCode.CONVERT_PARTITION_TYPE_INCOMPATIBLE);
    expect(e.message).toContain('partition d=1 column s is struct<a:int,b:string>');
    expect(e.message).toContain('s.b: string cannot be read as int');
    expect(e.context).toMatchObject({ partition: 'd=1', column: 's' });
  });

  it('refuses a top-level narrowing (bigint → int) and leaves columns the table does not declare alone', () => {
    expect(errorOf(prep(drifted([['id', 'int']], [['id', 'bigint']]))).code).toBe(ErrorCode.CONVERT_PARTITION_TYPE_INCOMPATIBLE);
    expect(
      prep(
        drifted(
          [['id', 'bigint']],
          [
            ['id', 'bigint'],
            ['gone', 'string'],
          ],
        ),
      ),
    ).not.toThrow();
  });
});
