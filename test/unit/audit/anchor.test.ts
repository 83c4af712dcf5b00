// Anchor object names and contents (core/audit/anchor.ts).
import { anchorJson, anchorName, anchorSeqOf, parseAnchor } from '../../../core/audit/anchor';
import { ErrorCode, MigrationError } from '../../../core/errors';

const a = { seq: 42, hash: 'ab'.repeat(32), at: '2026-12-04T10:00:00.000Z' };

describe('audit anchors', () => {
  it('names sort like their seq and parse back; other names are not anchors', () => {
    expect(anchorName(42)).toBe('anchor-000000000042.json');
    expect([anchorName(100), anchorName(9), anchorName(10)].sort()).toEqual([anchorName(9), anchorName(10), anchorName(100)]);
    expect(anchorSeqOf(anchorName(123456))).toBe(123456);
    expect(anchorSeqOf('anchor-42.json')).toBeUndefined();
    expect(anchorSeqOf('notes.txt')).toBeUndefined();
  });
  it('round-trips its JSON', () => {
    expect(parseAnchor(anchorJson(a), 'x', 42)).toEqual(a);
  });
  it.each([
    ['not JSON', 'garbage'],
    ['a seq other than its name', anchorJson({ ...a, seq: 41 })],
    ['another format', JSON.stringify({ v: 9, seq: 42, hash: a.hash, at: a.at })],
    ['a bad hash', JSON.stringify({ v: 1, seq: 42, hash: 'nope', at: a.at })],
  ])('refuses %s with AUDIT_ANCHOR_MISMATCH', (_what, text) => {
    let err: unknown;
    try {
      parseAnchor(text, 's3://b/anchors/anchor-000000000042.json', 42);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MigrationError);
    expect((err as MigrationError).code).toBe(ErrorCode.AUDIT_ANCHOR_MISMATCH);
    expect((err as MigrationError).message).toContain('anchor-000000000042.json');
  });
});
