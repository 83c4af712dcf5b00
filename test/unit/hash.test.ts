// Pure-TS SHA-256 against FIPS 180-2 vectors and node:crypto (the test may use Node; core may not),
// and canonical JSON ordering/format.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { canonicalJson, sha256Hex, utf8 } from '../../core/hash';

const nodeSha = (s: string | Uint8Array): string => createHash('sha256').update(s).digest('hex');

describe('sha256Hex', () => {
  it('matches the FIPS 180-2 vectors', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('handles every padding boundary (55, 56, 63, 64, 65 bytes) and a million a', () => {
    for (const n of [55, 56, 57, 63, 64, 65, 119, 120, 128]) expect(sha256Hex('x'.repeat(n))).toBe(nodeSha('x'.repeat(n)));
    expect(sha256Hex('a'.repeat(1_000_000))).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
  });

  it('agrees with node:crypto on random strings (UTF-8, astral planes, lone surrogates) and bytes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => sha256Hex(s) === nodeSha(Buffer.from(s, 'utf8'))),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (b) => sha256Hex(b) === nodeSha(b)),
      { numRuns: 200 },
    );
  });

  it('encodes UTF-8 like Buffer does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 100 }), (s) => Buffer.from(utf8(s)).equals(Buffer.from(s, 'utf8'))),
      { numRuns: 300 },
    );
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth, drops undefined members, no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null }, u: undefined })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('formats numbers stably and refuses NaN/Infinity', () => {
    expect(canonicalJson([1, 1.5, 1e21, -0, 0.1 + 0.2, 2 ** 53])).toBe('[1,1.5,1e+21,0,0.30000000000000004,9007199254740992]');
    expect(() => canonicalJson({ x: NaN })).toThrow(/no JSON form/);
    expect(() => canonicalJson([Infinity])).toThrow(/no JSON form/);
  });

  it('is independent of key insertion order and round-trips through JSON.parse', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = canonicalJson(v);
        return canonicalJson(JSON.parse(text)) === text;
      }),
      { numRuns: 200 },
    );
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
  });
});
