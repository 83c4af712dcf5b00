// The read-back proof's pure parts (core/validate/readback-spec.ts): the deterministic sample, each
// sampled file read with its own partition's values on the Hive side, the tables the job cannot read
// left out with a reason, and when two sides count as equal.
import {
  hiveSourceFor,
  readBackEqual,
  readBackJobId,
  readBackRow,
  readBackSpec,
  readBackVerdict,
  sampleFiles,
} from '../../../core/validate/readback-spec';
import { TEXT_SD, inv, partition, table } from '../assess/fixture';

const PLAN = 'p'.repeat(64);
const dt = { name: 'dt', type: 'string', comment: null };
const parted = () =>
  inv(table({ database: 'db', name: 't', partitionKeys: [dt] }), [
    partition('dt=2024-01-01'),
    partition('dt=2024-01-02'),
    { ...partition('dt=2024-01-02/sub'), values: ['nested'] },
  ]);

describe('sampleFiles', () => {
  const files = Array.from({ length: 20 }, (_, i) => `s3a://wh/db/t/dt=2024-01-0${i % 2 ? 1 : 2}/f${i}.parquet`);

  it('is the same for any order of the listing and for a retry, different for another plan', () => {
    const a = sampleFiles(PLAN, files, 3);
    expect(a).toHaveLength(3);
    expect(sampleFiles(PLAN, [...files].reverse(), 3)).toEqual(a);
    expect(sampleFiles('q'.repeat(64), files, 3)).not.toEqual(a);
  });

  it('takes every file when there are fewer than asked, each once', () => {
    expect(sampleFiles(PLAN, ['s3a://a/1', 's3a://a/1', 's3a://a/2'], 5).sort()).toEqual(['s3a://a/1', 's3a://a/2']);
    expect(sampleFiles(PLAN, [], 2)).toEqual([]);
  });
});

describe('hiveSourceFor', () => {
  it('reads each sampled file with the values of the partition that holds it (the longest location), spelled as Hive spells it', () => {
    const r = hiveSourceFor(parted(), 'db.t', ['s3://wh/db/t/dt=2024-01-02/sub/x.parquet', 's3a://wh/db/t/dt=2024-01-01/y.parquet']);
    if (!r.ok) throw new Error(r.why);
    expect(r.source.locations).toEqual([
      { location: 's3a://wh/db/t/dt=2024-01-02/sub/x.parquet', values: ['nested'] },
      { location: 's3a://wh/db/t/dt=2024-01-01/y.parquet', values: ['2024-01-01'] },
    ]);
    expect(r.source.partitionKeys).toEqual([{ name: 'dt', type: 'string' }]);
  });

  it('refuses a file no partition holds (a prefix of a name is not a parent)', () => {
    const r = hiveSourceFor(parted(), 'db.t', ['s3a://wh/db/t/dt=2024-01-011/z.parquet']);
    expect(r).toEqual({ ok: false, why: 's3a://wh/db/t/dt=2024-01-011/z.parquet is under no location of the Hive table' });
  });
});

describe('readBackSpec', () => {
  const base = { planHash: PLAN, filesPerTable: 2, catalogName: 'lake', catalogProperties: { type: 'rest' } };
  const unpart = inv(table({ database: 'db', name: 'u' }));

  it('one spec for the batch, tables in id order, the sample recorded, the job id stable', () => {
    const files = ['a', 'b', 'c', 'd'].map((n) => `s3a://wh/db/t/${n}.parquet`);
    const r = readBackSpec({
      ...base,
      tables: [
        { tableId: 'db.u', inventory: unpart, iceberg: { namespace: 'ice_db', name: 'u' }, files },
        {
          tableId: 'db.t',
          inventory: parted(),
          iceberg: { namespace: 'ice_db', name: 't' },
          files: ['s3a://wh/db/t/dt=2024-01-01/1.parquet'],
        },
      ],
    });
    expect(r.skipped.size).toBe(0);
    expect(r.spec).toMatchObject({ version: 1, jobId: readBackJobId(PLAN, ['db.u', 'db.t']), catalog: { name: 'lake' } });
    expect(r.spec!.tables.map((t) => t.tableId)).toEqual(['db.t', 'db.u']);
    expect(r.spec!.tables[1]!.files).toEqual(sampleFiles(PLAN, files, 2));
    expect(r.spec!.tables[1]!.source.locations.map((l) => l.location)).toEqual(r.spec!.tables[1]!.files);
    expect(readBackJobId(PLAN, ['db.t', 'db.u'])).toBe(r.spec!.jobId);
  });

  it('leaves out with a reason a table without files and one whose serde the job does not read', () => {
    const odd = inv(
      table({ database: 'db', name: 'o', sd: { ...TEXT_SD, serde: { name: null, serializationLib: 'com.x.Odd', parameters: {} } } }),
    );
    const r = readBackSpec({
      ...base,
      tables: [
        { tableId: 'db.u', inventory: unpart, iceberg: { namespace: 'n', name: 'u' }, files: [] },
        { tableId: 'db.o', inventory: odd, iceberg: { namespace: 'n', name: 'o' }, files: ['s3a://wh/db/t/x'] },
      ],
    });
    expect(r.spec).toBeNull();
    expect(Object.fromEntries(r.skipped)).toEqual({
      'db.u': 'the table has no data files',
      'db.o': 'serde com.x.Odd is not one the read-back job reads',
    });
  });
});

describe('readBackEqual', () => {
  const side = { rows: 3, checksum: 'abc' };
  it('needs both sides, equal rows and equal non-empty checksums', () => {
    expect(readBackEqual({ tableId: 't', status: 'checked', iceberg: side, hive: side })).toBe(true);
    expect(readBackEqual({ tableId: 't', status: 'checked', iceberg: side, hive: { ...side, checksum: 'abd' } })).toBe(false);
    expect(readBackEqual({ tableId: 't', status: 'checked', iceberg: side, hive: { ...side, rows: 4 } })).toBe(false);
    expect(readBackEqual({ tableId: 't', status: 'checked', iceberg: { rows: 0, checksum: '' }, hive: { rows: 0, checksum: '' } })).toBe(
      false,
    );
    expect(readBackEqual({ tableId: 't', status: 'failed', error: 'x' })).toBe(false);
    expect(readBackEqual({ tableId: 't', status: 'checked', iceberg: side })).toBe(false);
  });
});

describe('readBackVerdict and readBackRow', () => {
  const side = { rows: 3, checksum: 'a'.repeat(64) };
  const base = { engine: 'spark' as const, jobId: 'j1', files: ['s3a://wh/db/t/a.parquet'], seconds: 4 };

  it('equal: no verdict, an ok row; not made: no verdict, an ok row saying why', () => {
    expect(readBackVerdict('db.t', { ...base, iceberg: side, hive: side, equal: true })).toBeNull();
    expect(readBackRow({ ...base, iceberg: side, hive: side, equal: true })).toMatchObject({
      check: 'read-back',
      status: 'ok',
      code: 'OK',
    });
    expect(readBackVerdict('db.t', { skipped: 'the table has no data files' })).toBeNull();
    expect(readBackRow({ skipped: 'the table has no data files' })).toMatchObject({
      status: 'ok',
      actual: 'not made: the table has no data files',
    });
  });

  it('unequal: READBACK_MISMATCH naming both sides; unreadable: READBACK_FAILED (a failed row)', () => {
    const other = { rows: 3, checksum: 'b'.repeat(64) };
    const v = readBackVerdict('db.t', { ...base, iceberg: other, hive: side, equal: false });
    expect(v?.code).toBe('READBACK_MISMATCH');
    expect(v?.message).toContain('checksum aaaaaaaaaaaa → bbbbbbbbbbbb');
    expect(readBackRow({ ...base, iceberg: other, hive: side, equal: false })).toMatchObject({
      status: 'drift',
      code: 'READBACK_MISMATCH',
    });
    const f = readBackVerdict('db.t', { ...base, error: 'AnalysisException: no such column' });
    expect(f).toEqual({ code: 'READBACK_FAILED', message: expect.stringContaining('AnalysisException') as string });
    expect(readBackRow({ ...base, error: 'x' })).toMatchObject({ status: 'failed', code: 'CHECK_FAILED' });
  });
});
