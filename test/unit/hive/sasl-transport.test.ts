// The framing of the SASL security layer (adapters/hms/thrift/sasl-transport.ts) with a stand-in
// layer (bytes XOR 0x5a; the real gss_wrap is exercised against hms-krb in
// test/adapters/hms-thrift/kerberos.test.ts): a flush sends length + wrap(message); frames are
// reassembled across chunks and several in one chunk come out in order; a failure to unwrap ends
// the stream through onError once; a failure to wrap goes to onError and to the caller.
import type { TFramedTransport } from 'thrift';
import { securedFramedTransport } from '../../../adapters/hms/thrift/sasl-transport';
import type { SecurityLayer } from '../../../adapters/hms/thrift/sasl-transport';
import { ErrorCode, MigrationError } from '../../../core/errors';

const xor = (b: Buffer): Buffer => Buffer.from(b.map((x) => x ^ 0x5a));
const layer: SecurityLayer = { wrap: (m) => Buffer.concat([Buffer.from('W'), xor(m)]), unwrap: (t) => xor(t.subarray(1)) };
const frame = (payload: Buffer): Buffer => {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(payload.length, 0);
  return Buffer.concat([head, payload]);
};
/** The whole message a receiver delivered (the transport holds exactly one unwrapped message). */
const rest = (t: TFramedTransport): string => (t as unknown as { inBuf: Buffer }).inBuf.toString();

describe('securedFramedTransport', () => {
  it('flush sends a 4-byte big-endian length and the wrapped message', () => {
    const sent: Buffer[] = [];
    const T = securedFramedTransport(layer, () => undefined);
    const t = new T(undefined, (msg) => msg && sent.push(msg));
    t.write(Buffer.from('hello '));
    t.write(Buffer.from('metastore'));
    t.flush();
    expect(sent).toEqual([frame(layer.wrap(Buffer.from('hello metastore')))]);
  });

  it('reassembles frames split anywhere and delivers several from one chunk in order', () => {
    const got: string[] = [];
    const T = securedFramedTransport(layer, () => undefined);
    const receive = T.receiver((t) => got.push(rest(t)), 0);
    const wire = Buffer.concat(['one', 'two', 'three'].map((s) => frame(layer.wrap(Buffer.from(s)))));
    // Cuts inside a length, between length and token, inside a token; the last chunk holds two frames.
    const cuts = [0, 1, 3, 9, 10, wire.length];
    for (let i = 1; i < cuts.length; i++) receive(wire.subarray(cuts[i - 1], cuts[i]));
    expect(got).toEqual(['one', 'two', 'three']);
  });

  it('an unwrap failure goes to onError once and ends the stream; a wrap failure also reaches the caller', () => {
    const bad = new MigrationError(ErrorCode.HMS_THRIFT_ERROR, 'does not verify');
    const errors: unknown[] = [];
    const T = securedFramedTransport(
      {
        wrap: () => {
          throw bad;
        },
        unwrap: () => {
          throw bad;
        },
      },
      (e) => errors.push(e),
    );
    const got: unknown[] = [];
    const receive = T.receiver((t) => got.push(t), 0);
    receive(Buffer.concat([frame(Buffer.from('x')), frame(Buffer.from('y'))]));
    receive(frame(Buffer.from('z')));
    expect(got).toEqual([]);
    expect(errors).toEqual([bad]);
    const t = new T(undefined, () => undefined);
    t.write(Buffer.from('q'));
    expect(() => t.flush()).toThrow(bad);
    expect(errors).toEqual([bad, bad]);
  });
});
