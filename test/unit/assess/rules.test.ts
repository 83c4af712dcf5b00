import { assessTable, classify } from '../../../core/assess/assess';
import { acidRule } from '../../../core/assess/rules/acid';
import { bucketedRule } from '../../../core/assess/rules/bucketed';
import { columnTypesRule } from '../../../core/assess/rules/column-types';
import { emptyRule } from '../../../core/assess/rules/empty';
import { formatRule } from '../../../core/assess/rules/format';
import { managedRule } from '../../../core/assess/rules/managed';
import { partitionLocationRule } from '../../../core/assess/rules/partition-location';
import { promotable } from '../../../core/hive/promotion';
import { readerLimitsRule } from '../../../core/assess/rules/reader-limits';
import { schemaDriftRule } from '../../../core/assess/rules/schema-drift';
import { skewedRule } from '../../../core/assess/rules/skewed';
import { statsMissingRule } from '../../../core/assess/rules/stats-missing';
import { alreadyIcebergRule, storageHandlerRule } from '../../../core/assess/rules/storage-handler';
import { viewRule } from '../../../core/assess/rules/view';
import type { AssessOptions } from '../../../core/assess/types';
import { inv, partition, table, TEXT_SD } from './fixture';

const O: AssessOptions = { allowUnbucketed: false };
const codes = (fs: readonly { code: string }[]): string[] => fs.map((f) => f.code);
const P = [{ name: 'p', type: 'string', comment: null }];

describe('assessment rules', () => {
  it('a plain external Parquet table migrates with no findings', () => {
    const a = assessTable(inv(table()));
    expect(a.findings).toEqual([]);
    expect(a.class).toBe('migrate');
    expect(a.risk).toBe('low');
    expect([a.files, a.bytes]).toEqual([3, 3000]);
  });

  it('acid: full ACID and insert-only need a rewrite', () => {
    expect(codes(acidRule(inv(table({ parameters: { transactional: 'true' } })), O))).toEqual(['ACID_TABLE']);
    expect(codes(acidRule(inv(table({ parameters: { transactional: 'TRUE', transactional_properties: 'insert_only' } })), O))).toEqual([
      'INSERT_ONLY_TABLE',
    ]);
    expect(acidRule(inv(table({ parameters: { transactional: 'false' } })), O)).toEqual([]);
    expect(assessTable(inv(table({ tableType: 'MANAGED_TABLE', parameters: { transactional: 'true' } }))).class).toBe('rewrite-required');
  });

  it('format: text, CSV, JSON, SequenceFile, RCFile and unknown formats need a rewrite', () => {
    const f = formatRule(inv(table({ sd: TEXT_SD })), O);
    expect(codes(f)).toEqual(['UNSUPPORTED_FORMAT']);
    expect(f[0]!.severity).toBe('error');
    expect(f[0]!.evidence).toContain('text');
    for (const inputFormat of [
      'org.apache.hadoop.mapred.SequenceFileInputFormat',
      'org.apache.hadoop.hive.ql.io.RCFileInputFormat',
      'com.example.Custom',
    ]) {
      expect(
        codes(formatRule(inv(table({ sd: { inputFormat, serde: { name: null, serializationLib: null, parameters: {} } } })), O)),
      ).toEqual(['UNSUPPORTED_FORMAT']);
    }
    expect(
      codes(
        formatRule(
          inv(
            table({
              sd: { ...TEXT_SD, serde: { name: null, serializationLib: 'org.apache.hadoop.hive.serde2.JsonSerDe', parameters: {} } },
            }),
          ),
          O,
        ),
      ),
    ).toEqual(['UNSUPPORTED_FORMAT']);
    expect(formatRule(inv(table()), O)).toEqual([]);
  });

  it('format: one non-columnar partition blocks the table', () => {
    const t = inv(table({ partitionKeys: P }), [partition('p=a'), partition('p=b', { sd: TEXT_SD })]);
    const f = formatRule(t, O);
    expect(codes(f)).toEqual(['PARTITION_UNSUPPORTED_FORMAT']);
    expect(f[0]!.evidence).toContain('p=b (text)');
  });

  it('bucketed: rewrite unless opted in to unbucketed', () => {
    const t = inv(table({ sd: { numBuckets: 4, bucketColumns: ['id'] } }));
    expect(codes(bucketedRule(t, O))).toEqual(['BUCKETED']);
    expect(bucketedRule(t, O)[0]!.effect).toBe('rewrite');
    expect(codes(bucketedRule(t, { allowUnbucketed: true }))).toEqual(['BUCKETED_MIGRATED_UNBUCKETED']);
    expect(assessTable(t, { allowUnbucketed: true }).class).toBe('migrate-with-warnings');
    expect(bucketedRule(inv(table()), O)).toEqual([]);
  });

  it('skewed / stored as sub-directories warns', () => {
    const skewed = { columnNames: ['country'], values: [['DE']], locations: [] };
    expect(codes(skewedRule(inv(table({ sd: { skewed } })), O))).toEqual(['SKEWED_SUBDIRECTORIES']);
    expect(codes(skewedRule(inv(table({ sd: { storedAsSubDirectories: true } })), O))).toEqual(['SKEWED_SUBDIRECTORIES']);
    expect(skewedRule(inv(table({ sd: { skewed: { columnNames: [], values: [], locations: [] } } })), O)).toEqual([]);
  });

  it('managed (non-transactional) tables warn', () => {
    expect(codes(managedRule(inv(table({ tableType: 'MANAGED_TABLE' })), O))).toEqual(['MANAGED_TABLE']);
    expect(managedRule(inv(table()), O)).toEqual([]);
    expect(assessTable(inv(table({ tableType: 'MANAGED_TABLE' }))).class).toBe('migrate-with-warnings');
  });

  it('partition outside the table location warns; a sibling prefix is outside too', () => {
    const t = inv(table({ partitionKeys: P }), [
      partition('p=a'),
      partition('p=b', { sd: { location: 's3a://other/p=b' } }),
      partition('p=c', { sd: { location: 's3a://wh/db/t2/p=c' } }),
    ]);
    const f = partitionLocationRule(t, O);
    expect(codes(f)).toEqual(['PARTITION_OUTSIDE_LOCATION']);
    expect(f[0]!.evidence).toContain('2 partition(s)');
    expect(f[0]!.evidence).toContain('p=b at s3a://other/p=b');
    expect(partitionLocationRule(inv(table({ partitionKeys: P }), [partition('p=a')]), O)).toEqual([]);
  });

  it('schema drift across partitions warns and names the partition', () => {
    const drifted = partition('p=old', { sd: { columns: [{ name: 'id', type: 'int', comment: null }] } });
    const f = schemaDriftRule(inv(table({ partitionKeys: P }), [partition('p=a'), drifted]), O);
    expect(codes(f)).toEqual(['PARTITION_SCHEMA_DRIFT']);
    expect(f[0]!.evidence).toContain('p=old');
    expect(schemaDriftRule(inv(table({ partitionKeys: P }), [partition('p=a')]), O)).toEqual([]);
  });

  it('reader limit: a partition declaring float under a table double warns READER_FLOAT_AS_DOUBLE with the Trino workaround; the table still migrates', () => {
    const cols = (t: string) => [
      { name: 'id', type: 'bigint', comment: null },
      { name: 'Reading', type: t, comment: null },
    ];
    const t = table({ partitionKeys: P, sd: { columns: cols('double') } });
    const old = partition('p=old', { sd: { columns: cols('float') } });
    const f = readerLimitsRule(inv(t, [partition('p=a', { sd: { columns: cols('double') } }), old]), O);
    expect(f.map((x) => [x.code, x.effect, x.column])).toEqual([['READER_FLOAT_AS_DOUBLE', 'warn', 'reading']]);
    expect(f[0]!.evidence).toContain('partition(s) p=old declare float');
    expect(f[0]!.remediation).toContain('parquet_ignore_statistics = true');
    const a = assessTable(inv(t, [old]));
    expect(codes(a.findings)).toEqual(['PARTITION_SCHEMA_DRIFT', 'READER_FLOAT_AS_DOUBLE']);
    expect(a.class).toBe('migrate-with-warnings');
    // float → float, or a float partition under a string column: not this case.
    expect(readerLimitsRule(inv(table({ partitionKeys: P, sd: { columns: cols('float') } }), [old]), O)).toEqual([]);
    expect(readerLimitsRule(inv(table({ partitionKeys: P }), [old]), O)).toEqual([]);
  });

  it('reader limit: NULL partitions (null or __HIVE_DEFAULT_PARTITION__) get READER_NULL_PARTITION_NOT_EQUAL (info: the class stays) naming the column and the Trino rewrite', () => {
    const nul = { ...partition('p=__HIVE_DEFAULT_PARTITION__'), values: [null] };
    const raw = { ...partition('p=__HIVE_DEFAULT_PARTITION__'), values: ['__HIVE_DEFAULT_PARTITION__'] };
    for (const p of [nul, raw]) {
      const f = readerLimitsRule(inv(table({ partitionKeys: P }), [partition('p=a'), p]), O);
      expect(f.map((x) => [x.code, x.effect, x.column])).toEqual([['READER_NULL_PARTITION_NOT_EQUAL', 'info', 'p']]);
      expect(f[0]!.evidence).toBe('partition column(s) p have NULL partitions (1 partition(s) with __HIVE_DEFAULT_PARTITION__)');
      expect(f[0]!.remediation).toContain("coalesce(p, '<none>') <> 'v'");
    }
    expect(assessTable(inv(table({ partitionKeys: P }), [partition('p=a'), nul])).class).toBe('migrate');
    expect(readerLimitsRule(inv(table({ partitionKeys: P }), [partition('p=a')]), O)).toEqual([]);
  });

  it('schema drift: a type that cannot be promoted to the table type needs a rewrite', () => {
    const bad = partition('p=s', {
      sd: {
        columns: [
          { name: 'id', type: 'string', comment: null },
          { name: 'v', type: 'string', comment: null },
        ],
      },
    });
    const f = schemaDriftRule(inv(table({ partitionKeys: P }), [bad]), O);
    expect(f.map((x) => [x.code, x.column])).toEqual([
      ['PARTITION_SCHEMA_DRIFT', undefined],
      ['PARTITION_TYPE_INCOMPATIBLE', 'id'],
    ]);
    expect(assessTable(inv(table({ partitionKeys: P }), [bad])).class).toBe('rewrite-required');
    expect([
      promotable('int', 'bigint'),
      promotable('bigint', 'int'),
      promotable('float', 'double'),
      promotable('decimal(10,2)', 'decimal(12,2)'),
      promotable('decimal(10,2)', 'decimal(12,3)'),
      promotable('INTEGER', 'int'),
    ]).toEqual([true, false, true, true, false, true]);
  });

  it('column types: malformed and unsupported types name the column; char/varchar/tinyint are info', () => {
    const cols = [
      { name: 'ok', type: 'map<string,array<int>>', comment: null },
      { name: 'broken', type: 'struct<a:int', comment: null },
      { name: 'u', type: 'uniontype<int,string>', comment: null },
      { name: 'nested', type: 'array<struct<x:interval_day_time>>', comment: null },
      { name: 'c', type: 'char(10)', comment: null },
    ];
    const f = columnTypesRule(inv(table({ sd: { columns: cols } })), O);
    expect(f.map((x) => [x.code, x.column])).toEqual([
      ['TYPE_INVALID', 'broken'],
      ['TYPE_UNSUPPORTED', 'u'],
      ['TYPE_UNSUPPORTED', 'nested'],
      ['TYPE_WIDENED', 'c'],
    ]);
    expect(f[0]!.evidence).toContain('broken');
    expect(codes(columnTypesRule(inv(table({ partitionKeys: [{ name: 'k', type: 'void', comment: null }] })), O))).toEqual([
      'TYPE_UNSUPPORTED',
    ]);
  });

  it('storage handler and already-Iceberg tables are skipped', () => {
    const hbase = inv(table({ parameters: { storage_handler: 'org.apache.hadoop.hive.hbase.HBaseStorageHandler' } }));
    expect(codes(storageHandlerRule(hbase, O))).toEqual(['STORAGE_HANDLER']);
    expect(formatRule(hbase, O)).toEqual([]);
    expect(assessTable(hbase).class).toBe('skip');
    const ice = inv(table({ parameters: { table_type: 'ICEBERG', metadata_location: 's3a://x/m.json' }, sd: TEXT_SD }));
    expect(codes(alreadyIcebergRule(ice, O))).toEqual(['ALREADY_ICEBERG']);
    expect(assessTable(ice).class).toBe('skip');
    expect(codes(alreadyIcebergRule(inv(table({ parameters: { table_type: 'DELTA' } })), O))).toEqual(['NON_HIVE_TABLE']);
  });

  it('empty tables are info and still migrate', () => {
    expect(codes(emptyRule(inv(table({ parameters: { numFiles: '0', totalSize: '0' } })), O))).toEqual(['EMPTY_TABLE']);
    expect(codes(emptyRule(inv(table({ partitionKeys: P })), O))).toEqual(['EMPTY_TABLE']);
    expect(emptyRule(inv(table({ parameters: {} })), O)).toEqual([]);
    expect(assessTable(inv(table({ parameters: { numFiles: '0' } }))).class).toBe('migrate');
  });

  it('missing fast stats are info, on the table or per partition', () => {
    expect(codes(statsMissingRule(inv(table({ parameters: {} })), O))).toEqual(['STATS_MISSING']);
    const f = statsMissingRule(inv(table({ partitionKeys: P }), [partition('p=a'), partition('p=b', { parameters: {} })]), O);
    expect(f.map((x) => x.evidence)).toEqual(['numFiles absent on 1 of 2 partitions']);
    expect(statsMissingRule(inv(table()), O)).toEqual([]);
    expect(assessTable(inv(table({ parameters: {} }))).class).toBe('migrate');
  });

  it('views: virtual views warn and are kind view; materialized views skip', () => {
    const v = inv(
      table({
        tableType: 'VIRTUAL_VIEW',
        sd: { location: null, inputFormat: null, serde: { name: null, serializationLib: null, parameters: {} } },
        viewExpandedText: 'select 1',
      }),
    );
    expect(codes(viewRule(v, O))).toEqual(['VIEW']);
    const a = assessTable(v);
    expect([a.kind, a.class, codes(a.findings)]).toEqual(['view', 'migrate-with-warnings', ['VIEW']]);
    expect(assessTable(inv(table({ tableType: 'MATERIALIZED_VIEW' }))).class).toBe('skip');
  });

  it('classify: skip > rewrite > warn > migrate, exactly one class', () => {
    const f = (effect: 'skip' | 'rewrite' | 'warn' | 'info') => ({
      code: 'VIEW' as const,
      effect,
      severity: 'info' as const,
      evidence: '',
      remediation: '',
    });
    expect(classify([f('warn'), f('rewrite'), f('skip')])).toBe('skip');
    expect(classify([f('warn'), f('rewrite')])).toBe('rewrite-required');
    expect(classify([f('info'), f('warn')])).toBe('migrate-with-warnings');
    expect(classify([f('info')])).toBe('migrate');
  });
});
