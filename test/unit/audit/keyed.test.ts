// The pure HMAC-SHA256 of the keyed audit chain against node:crypto and RFC 4231's test vectors.
import { createHmac, randomBytes } from 'node:crypto';
import { chainKeyFrom, hmacSha256Hex } from '../../../core/audit/keyed';

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'hex'));

describe('hmacSha256Hex', () => {
  it('RFC 4231 test cases 1, 2 and 6 (a key longer than the block)', () => {
    expect(hmacSha256Hex(hex('0b'.repeat(20)), 'Hi There')).toBe('b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7');
    expect(hmacSha256Hex(new TextEncoder().encode('Jefe'), 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
    expect(hmacSha256Hex(hex('aa'.repeat(131)), 'Test Using Larger Than Block-Size Key - Hash Key First')).toBe(
      '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
    );
  });
  it('equals node:crypto for random keys and messages of every length around the block size', () => {
    for (const n of [0, 1, 55, 56, 63, 64, 65, 127, 128, 1000]) {
      const key = randomBytes(n % 97);
      const msg = randomBytes(n);
      expect(hmacSha256Hex(key, msg)).toBe(createHmac('sha256', key).update(msg).digest('hex'));
    }
  });
});

describe('chainKeyFrom', () => {
  it('gives a stable id that differs per key and is not the key or its plain hash', () => {
    const a = chainKeyFrom('k'.repeat(40));
    expect(chainKeyFrom('k'.repeat(40)).id).toBe(a.id);
    expect(chainKeyFrom('j'.repeat(40)).id).not.toBe(a.id);
    expect(a.id).toMatch(/^[0-9a-f]{16}$/);
    expect(a.id).not.toContain('kkkk');
  });
});
