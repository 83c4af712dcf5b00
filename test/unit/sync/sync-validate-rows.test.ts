// A fresh sync commit's footer check (engine/sync-validate.ts rowsAsRead): the added entries read back
// from the committed manifest must be exactly the files whose footers the sync read, with their rows.
import { rowsAsRead } from '../../../engine/sync-validate';
import type { IcebergFile } from '../../../core/sync/diff';

const file = (path: string, records: number): IcebergFile => ({ path, size: 10, records, manifest: 'm.avro', partition: '' });

describe('rowsAsRead', () => {
  const footers = new Map([
    ['s3://b/t/p=1/a.parquet', 5],
    ['s3://b/t/p=1/b.parquet', 7],
  ]);

  it('sums the footer rows when every added entry carries its footer count', () => {
    expect(rowsAsRead('d.t', 9n, [file('s3://b/t/p=1/a.parquet', 5), file('s3://b/t/p=1/b.parquet', 7)], footers)).toBe(12);
  });

  it('an entry whose rows differ from its footer fails, naming the file and both counts', () => {
    expect(() => rowsAsRead('d.t', 9n, [file('s3://b/t/p=1/a.parquet', 5), file('s3://b/t/p=1/b.parquet', 8)], footers)).toThrow(
      expect.objectContaining({
        code: 'SYNC_VALIDATION_FAILED',
        message: expect.stringMatching(/b\.parquet with 8 row\(s\); its footer has 7/),
      }),
    );
  });

  it('an entry for a file whose footer the sync did not read fails', () => {
    expect(() => rowsAsRead('d.t', 9n, [file('s3://b/t/p=1/c.parquet', 5)], footers)).toThrow(/read no footer of that file/);
  });

  it('a file read but missing from the committed entries fails', () => {
    expect(() => rowsAsRead('d.t', 9n, [file('s3://b/t/p=1/a.parquet', 5)], footers)).toThrow(
      /added 1 file\(s\); this sync read the footers of 2/,
    );
  });
});
