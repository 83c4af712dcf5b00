// File names readers cannot open from a manifest path (core/storage/file-names.ts).
import { unreadableFileName } from '../../../core/storage/file-names';

describe('unreadableFileName', () => {
  it.each([
    ['s3://b/t/part;1.parquet', "';'"],
    ['s3://b/t/part?v=1.parquet', "'?'"],
    ['s3://b/t/part#2.parquet', "'#'"],
    ['s3://b/t/part;0?v=1#x.parquet', "';', '?', '#'"],
    ['s3://b/t/part\n1.parquet', '\\x0a'],
  ])('%j has %s', (p, what) => {
    expect(unreadableFileName(p)).toBe(what);
  });
  it.each([
    's3://b/t/p=a;b/part-0.parquet',
    's3://b/t/part-00000-1f2e.c000.snappy.parquet',
    '/data/t/000000_0',
    's3://b/t/p=2024-01-01 00%3A00/x.parquet',
  ])('%j is fine (only the file name counts)', (p) => {
    expect(unreadableFileName(p)).toBeNull();
  });
});
