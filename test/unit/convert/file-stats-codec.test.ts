// The footer threads' reply codec (adapters/formats/file-stats-codec.ts): a FileStats survives the
// round trip exactly — present, empty and absent maps alike, bounds byte for byte, key order kept.
import { decodeFileStats, encodeFileStats } from '../../../adapters/formats/file-stats-codec';
import type { FileStats } from '../../../core/storage/file-stats';

describe('file-stats codec', () => {
  it('round-trips a full FileStats, keeping map order and bound bytes', () => {
    const s: FileStats = {
      recordCount: 2 ** 40 + 3,
      columnSizes: new Map([
        [3, 120],
        [1, 2 ** 35],
      ]),
      valueCounts: new Map([
        [1, 10],
        [3, 10],
      ]),
      nullValueCounts: new Map([[1, 0]]),
      lowerBounds: new Map([
        [1, Uint8Array.of(1, 2, 3, 4)],
        [3, new Uint8Array(0)],
      ]),
      upperBounds: new Map([
        [1, Uint8Array.of(255, 0, 7)],
        [3, new TextEncoder().encode('café ü')],
      ]),
      splitOffsets: [4, 1_000_000],
      fileColumns: [['id'], ['s', 'a'], ['Ünïcode "q"']],
      boundsWithheld: new Map([
        [7, 'int96'],
        [2, 'missing-stats'],
        [9, ''],
      ]),
      encodedMetrics: Uint8Array.of(2, 4, 6, 0, 0, 0),
    };
    const back = decodeFileStats(encodeFileStats(s));
    expect(back).toEqual(s);
    expect([...(back.columnSizes?.keys() ?? [])]).toEqual([3, 1]);
    expect([...(back.upperBounds?.get(3) ?? [])]).toEqual([...new TextEncoder().encode('café ü')]);
  });

  it('keeps absent maps absent and empty ones empty', () => {
    const s: FileStats = { recordCount: 0, valueCounts: new Map(), lowerBounds: new Map() };
    const back = decodeFileStats(encodeFileStats(s));
    expect(back).toEqual(s);
    expect('columnSizes' in back).toBe(false);
    expect('splitOffsets' in back).toBe(false);
    expect(back.valueCounts?.size).toBe(0);
    const withEmpty: FileStats = { recordCount: 1, boundsWithheld: new Map(), fileColumns: [] };
    expect(decodeFileStats(encodeFileStats(withEmpty))).toEqual(withEmpty);
  });

  it('refuses a withheld reason that is not short ASCII instead of mangling it', () => {
    expect(() => encodeFileStats({ recordCount: 0, boundsWithheld: new Map([[1, 'ünsafe']]) })).toThrow(/not short ASCII/);
    expect(() => encodeFileStats({ recordCount: 0, boundsWithheld: new Map([[1, 'x'.repeat(256)]]) })).toThrow(/not short ASCII/);
  });
});
