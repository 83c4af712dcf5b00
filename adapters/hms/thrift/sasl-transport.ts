// The SASL security layer on a node `thrift` connection after a GSSAPI negotiation chose integrity or
// privacy (hadoop.rpc.protection): what libthrift's TSaslTransport does once its QOP is not "auth" —
// every flushed message goes out as a 4-byte big-endian length + gss_wrap(message), every frame read
// is a length + a token to gss_unwrap. Messages are neither split nor refused by size (libthrift and
// the JDK's GSSAPI client do neither; the server's max buffer is advisory to them). Adapter code.
import thrift from 'thrift';
import { ErrorCode } from '../../../core/errors';
import type { MigrationError } from '../../../core/errors';
import { hmsError } from './errors';
import { GssFailure } from './gssapi';
import type { GssContext } from './gssapi';

/** libthrift's frame header: the payload's length, 4 bytes big-endian (TFramedTransport.encodeFrameSize). */
const FRAME_HEADER = 4;

/** Wraps and unwraps whole messages; both throw a MigrationError. */
export interface SecurityLayer {
  wrap(message: Buffer): Buffer;
  unwrap(token: Buffer): Buffer;
}

function frame(payload: Buffer): Buffer {
  const head = Buffer.alloc(FRAME_HEADER);
  head.writeUInt32BE(payload.length, 0);
  return Buffer.concat([head, payload]);
}

/**
 * A GSSAPI failure on one message. MIT krb5 (1.20) keeps wrapping after the service ticket's end (a
 * privacy connection outlives a 4 s ticket in kerberos.test.ts); a library that reports
 * GSS_S_CONTEXT_EXPIRED ends the connection, not the call's answer: HMS_UNREACHABLE, retryable, so
 * the pool authenticates a new one. Anything else (a token that does not verify or decrypt) is a bad reply.
 */
function layerError(e: unknown, what: 'wrap' | 'unwrap', endpoint: string): MigrationError {
  if (!(e instanceof GssFailure)) return e as MigrationError;
  if (e.contextExpired)
    return hmsError(
      ErrorCode.HMS_UNREACHABLE,
      `the Kerberos security context of the connection to ${endpoint} expired (the service ticket's lifetime): a new connection authenticates again`,
      { endpoint },
      e,
    );
  const verb = what === 'wrap' ? 'protect a message to' : 'verify or decrypt a message from';
  return hmsError(ErrorCode.HMS_THRIFT_ERROR, `GSSAPI could not ${verb} ${endpoint}: ${e.text}`, { endpoint, thriftType: 'GssFailure' }, e);
}

/** gss_wrap/gss_unwrap on the negotiated context: sealed with privacy, signed only with integrity. */
export function gssSecurityLayer(ctx: GssContext, protection: 'integrity' | 'privacy', endpoint: string): SecurityLayer {
  const privacy = protection === 'privacy';
  return {
    wrap(message) {
      try {
        return ctx.wrap(message, privacy);
      } catch (e) {
        throw layerError(e, 'wrap', endpoint);
      }
    },
    unwrap(token) {
      let out: ReturnType<GssContext['unwrap']>;
      try {
        out = ctx.unwrap(token);
      } catch (e) {
        throw layerError(e, 'unwrap', endpoint);
      }
      // The JDK's GSSAPI client refuses the same ("Privacy not protected"): a signed-only reply under privacy.
      if (privacy && !out.confidential)
        throw hmsError(
          ErrorCode.HMS_KERBEROS_AUTH_FAILED,
          `${endpoint} sent a message that was not encrypted although privacy was negotiated`,
          { endpoint },
        );
      return out.message;
    },
  };
}

/**
 * A TFramedTransport whose frames carry wrapped messages, for `new thrift.Connection(socket, {transport})`.
 * One class per connection: it closes over that connection's layer. A failure to wrap or unwrap goes to
 * `onError` (which ends the connection: later frames could not be trusted or matched) and, when
 * writing, is thrown to the caller as well.
 */
export function securedFramedTransport(layer: SecurityLayer, onError: (e: MigrationError) => void): typeof thrift.TFramedTransport {
  const wrapped = (message: Buffer): Buffer => {
    try {
      return frame(layer.wrap(message));
    } catch (e) {
      onError(e as MigrationError);
      throw e;
    }
  };
  class SecuredFramedTransport extends thrift.TFramedTransport {
    constructor(buffer?: Buffer, callback?: thrift.TTransportCallback) {
      // The base class frames the message (length + bytes) on flush; what goes out is length + wrap(bytes).
      super(buffer, callback && ((framed, seqid) => callback(framed && wrapped(framed.subarray(FRAME_HEADER)), seqid)));
    }

    static override receiver(callback: (t: thrift.TFramedTransport, seqid: number) => void, seqid: number): (data: Buffer) => void {
      let residual = Buffer.alloc(0);
      let failed = false;
      return (data: Buffer) => {
        if (failed) return;
        residual = Buffer.concat([residual, data]);
        while (residual.length >= FRAME_HEADER) {
          const end = FRAME_HEADER + residual.readUInt32BE(0);
          if (residual.length < end) return;
          const token = residual.subarray(FRAME_HEADER, end);
          residual = residual.subarray(end);
          let message: Buffer;
          try {
            message = layer.unwrap(token);
          } catch (e) {
            failed = true;
            onError(e as MigrationError);
            return;
          }
          callback(new SecuredFramedTransport(message), seqid);
        }
      };
    }
  }
  return SecuredFramedTransport;
}
