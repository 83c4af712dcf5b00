// The SASL/GSSAPI security-layer negotiation (adapters/hms/thrift/sasl-layer.ts, RFC 4752 §3.1):
// the server's offer as bit mask + 3-byte max buffer, the layer chosen from the operator's preference
// list (Hadoop's names), and our 4-byte answer. Pure; the real exchange is in
// test/adapters/hms-thrift/kerberos.test.ts.
import {
  DEFAULT_PROTECTION,
  LAYER_BIT,
  MAX_RECEIVE_BUFFER,
  chooseProtection,
  encodeAnswer,
  offeredProtections,
  parseOffer,
} from '../../../adapters/hms/thrift/sasl-layer';

describe('SASL security layer (RFC 4752 §3.1)', () => {
  it('the offer is a bit mask then a 3-byte big-endian max buffer; anything but 4 bytes is no offer', () => {
    expect(parseOffer(Buffer.from([0x05, 0x01, 0x00, 0x00]))).toEqual({ layers: 5, maxBuffer: 65536 });
    expect(parseOffer(Buffer.from([0x07, 0xff, 0xff, 0xff]))).toEqual({ layers: 7, maxBuffer: 0xffffff });
    expect(parseOffer(Buffer.from([0x01, 0x00, 0x00]))).toBeUndefined();
    expect(parseOffer(Buffer.from([0x01, 0x00, 0x00, 0x00, 0x00]))).toBeUndefined();
  });

  it("bits are 1 none (Hadoop's authentication), 2 integrity, 4 privacy; an offer reads in Hadoop's names", () => {
    expect(LAYER_BIT).toEqual({ authentication: 1, integrity: 2, privacy: 4 });
    expect(offeredProtections(0b101)).toEqual(['authentication', 'privacy']);
    expect(offeredProtections(0b010)).toEqual(['integrity']);
    expect(offeredProtections(0b1000)).toEqual([]);
  });

  it('the first preference the server offers wins; none in common is undefined', () => {
    expect(DEFAULT_PROTECTION).toEqual(['authentication', 'integrity', 'privacy']);
    expect(chooseProtection(0b101, DEFAULT_PROTECTION)).toBe('authentication');
    expect(chooseProtection(0b110, DEFAULT_PROTECTION)).toBe('integrity');
    expect(chooseProtection(0b100, DEFAULT_PROTECTION)).toBe('privacy');
    expect(chooseProtection(0b111, ['privacy', 'authentication'])).toBe('privacy');
    expect(chooseProtection(0b101, ['integrity'])).toBeUndefined();
  });

  it('the answer is the chosen bit then our max receive buffer, 0 when no layer is used', () => {
    expect(encodeAnswer('authentication').toString('hex')).toBe('01000000');
    expect(encodeAnswer('privacy').toString('hex')).toBe('04ffffff');
    expect(encodeAnswer('integrity', 65536).toString('hex')).toBe('02010000');
    expect(MAX_RECEIVE_BUFFER).toBe(0xffffff);
    expect(encodeAnswer('privacy', 1 << 30).toString('hex')).toBe('04ffffff');
  });
});
