import { accurateNumRows, canonicalPath, compareFiles, compareRowCounts } from '../../../core/validate/compare';
import { compareSchemaTree } from '../../../core/validate/schema-tree';

const types = [{ kind: 'int' }, { kind: 'string' }] as const;
const f = (path: string, size: number, partition: (number | string | bigint | null)[]) => ({ path, size, partition });

describe('validation comparisons', () => {
  it('equal sides → no finding; s3/s3a spellings of one object are the same file', () => {
    const r = compareFiles(types, [f('s3a://b/t/y=1/a', 10, [1, 'x'])], [f('s3://b/t/y=1/a', 10, [1, 'x'])]);
    expect(r).toEqual({ findings: [], listed: 1, inManifests: 1 });
    expect(canonicalPath('s3n://b/k')).toBe('s3://b/k');
  });
  it('missing, extra, size, partition and duplicate differences are each reported with evidence', () => {
    const listed = [f('s3://b/a', 10, [1, 'x']), f('s3://b/b', 20, [1, 'x']), f('s3://b/c', 30, [2, null]), f('s3://b/d', 40, [3, 'z'])];
    const manifest = [
      f('s3://b/a', 10, [1, 'x']),
      f('s3://b/b', 21, [1, 'x']),
      f('s3://b/c', 30, [2, 'lost']),
      f('s3://b/e', 5, [1, 'x']),
      f('s3://b/a', 10, [1, 'x']),
    ];
    const { findings } = compareFiles(types, listed, manifest);
    const msgs = findings.map((x) => x.message);
    expect(findings.every((x) => x.code === 'VALIDATION_FILES_MISMATCH')).toBe(true);
    expect(msgs).toEqual(
      expect.arrayContaining([
        's3://b/b: size 21 in the manifest, 20 in storage',
        expect.stringContaining('s3://b/c: partition'),
        's3://b/e is in the Iceberg table but not in storage',
        's3://b/d is in storage but not in the Iceberg table',
        's3://b/a is listed twice in the manifests',
      ]),
    );
    expect(findings).toHaveLength(5);
  });
  it('a partition value of the same number given as number or bigint is equal; null differs from "null"', () => {
    const t = [{ kind: 'long' }, { kind: 'string' }] as const;
    expect(compareFiles(t, [f('a', 1, [5, null])], [f('a', 1, [5n, null])]).findings).toEqual([]);
    expect(compareFiles(t, [f('a', 1, [5, null])], [f('a', 1, [5n, 'null'])]).findings).toHaveLength(1);
  });
  it('row counts: every source must equal the footer sum', () => {
    expect(compareRowCounts({ footers: 10, snapshotTotal: 10, manifests: 10, hms: 10 })).toEqual([]);
    const r = compareRowCounts({ footers: 10, snapshotTotal: 11, manifests: 10, hms: 9 });
    expect(r.map((x) => [x.code, x.expected, x.actual])).toEqual([
      ['VALIDATION_ROW_COUNT_MISMATCH', '10', '11'],
      ['VALIDATION_ROW_COUNT_MISMATCH', '10', '9'],
    ]);
  });
  it('HMS numRows counts only when BASIC_STATS is marked accurate', () => {
    expect(accurateNumRows({ numRows: '5', COLUMN_STATS_ACCURATE: '{"BASIC_STATS":"true"}' })).toBe(5);
    expect(accurateNumRows({ numRows: '5' })).toBeUndefined();
    expect(accurateNumRows({ numRows: '5', COLUMN_STATS_ACCURATE: 'garbage' })).toBeUndefined();
  });
  it('schema: every Hive column has a field (case-insensitive)', () => {
    const schema = { schemaId: 0, fields: [{ id: 1, name: 'id', required: false, type: { kind: 'long' } }] } as never;
    expect(compareSchemaTree([{ name: 'ID', type: 'bigint' }], schema)).toEqual([]);
    expect(
      compareSchemaTree(
        [
          { name: 'id', type: 'bigint' },
          { name: 'gone', type: 'int' },
        ],
        schema,
      ).map((x) => x.code),
    ).toEqual(['VALIDATION_SCHEMA_MISMATCH']);
  });
});
