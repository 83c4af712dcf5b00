// The client side of Thrift's SASL transport (libthrift TSaslClientTransport, what a Kerberized Hive
// Metastore runs behind hive.metastore.sasl.enabled=true) with the GSSAPI mechanism (RFC 4752) and
// the "auth" quality of protection: negotiate on the raw socket, after which every Thrift message is
// one frame with a 4-byte big-endian length (what TFramedTransport sends and reads). Integrity and
// privacy layers (hadoop.rpc.protection=integrity|privacy) are refused with a coded error. Adapter code.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { createConnection as createSocket } from 'node:net';
import type { Socket } from 'node:net';
import { ErrorCode } from '../../../core/errors';
import type { MigrationError } from '../../../core/errors';
import { hmsError } from './errors';
import { GssContext, GssFailure, acquireCredentials, releaseCredentials } from './gssapi';
import type { HmsKerberos, KerberosIdentity } from './gssapi';

/** Negotiation status bytes (libthrift TSaslTransport.NegotiationStatus). */
export const SaslStatus = { START: 1, OK: 2, BAD: 3, ERROR: 4, COMPLETE: 5 } as const;
const MECHANISM = 'GSSAPI';
/** RFC 4752 §3.1: security layer bit masks; we take "no security layer" (QOP auth). */
const LAYER_NONE = 1;
/** A negotiation frame longer than this is not SASL (a plain Thrift server's bytes, or garbage). */
const MAX_FRAME = 1 << 20;

export interface SaslFrame {
  readonly status: number;
  readonly payload: Buffer;
}

export function encodeFrame(status: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(status, 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

/** Reads negotiation frames off a socket; fails on close, error or the deadline. */
class FrameReader {
  private buf = Buffer.alloc(0);
  private wake: (() => void) | undefined;
  private failure: Error | undefined;
  received = 0;

  constructor(private readonly socket: Socket) {
    socket.on('data', this.onData);
    socket.on('close', this.onClose);
    socket.on('error', this.onError);
  }

  private readonly onData = (chunk: Buffer): void => {
    this.received += chunk.length;
    this.buf = Buffer.concat([this.buf, chunk]);
    this.wake?.();
  };
  private readonly onClose = (): void => this.fail(new Error('closed'));
  private readonly onError = (e: Error): void => this.fail(e);

  fail(e: Error): void {
    this.failure ??= e;
    this.wake?.();
  }

  async next(): Promise<SaslFrame> {
    for (;;) {
      if (this.buf.length >= 5) {
        const len = this.buf.readUInt32BE(1);
        const status = this.buf[0] ?? 0;
        if (status < SaslStatus.START || status > SaslStatus.COMPLETE || len > MAX_FRAME)
          throw new Error(`not a SASL frame (status byte ${status})`);
        if (this.buf.length >= 5 + len) {
          const payload = this.buf.subarray(5, 5 + len);
          this.buf = this.buf.subarray(5 + len);
          return { status, payload };
        }
      }
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  detach(): void {
    this.socket.off('data', this.onData);
    this.socket.off('close', this.onClose);
    this.socket.off('error', this.onError);
  }
}

/** `_HOST` → the lower-cased host of the URI, as Hadoop's SecurityUtil.getServerPrincipal does. */
export function resolveServicePrincipal(principal: string, host: string): string {
  return principal.replace('_HOST', host.toLowerCase());
}

function authFailed(endpoint: string, principal: string, detail: string, cause?: unknown): MigrationError {
  return hmsError(
    ErrorCode.HMS_KERBEROS_AUTH_FAILED,
    `Kerberos (SASL/GSSAPI) authentication to ${endpoint} as a client of ${principal} failed: ${detail}`,
    { endpoint, servicePrincipal: principal },
    cause,
  );
}

function noTicket(endpoint: string, k: HmsKerberos, detail: string, cause: unknown): MigrationError {
  const who = k.clientPrincipal ?? '<principal>';
  const remedy =
    k.keytabFile === undefined
      ? `run 'kinit -kt <keytab> ${who}' (or 'kinit ${who}') for this user's credential cache (KRB5CCNAME), or set hms.thrift.kerberos.keytabFile and clientPrincipal`
      : `check that ${k.keytabFile} holds ${who} ('klist -kt ${k.keytabFile}'), or get a ticket by hand: 'kinit -kt ${k.keytabFile} ${who}'`;
  return hmsError(
    ErrorCode.HMS_KERBEROS_NO_TICKET,
    `no usable Kerberos ticket to reach ${endpoint}: ${detail}: ${remedy}`,
    {
      endpoint,
      ...(k.clientPrincipal === undefined ? {} : { clientPrincipal: k.clientPrincipal }),
    },
    cause,
  );
}

/** A keytab that cannot be read would otherwise surface as GSSAPI's "No credentials cache found". */
async function assertKeytabReadable(endpoint: string, k: HmsKerberos): Promise<void> {
  if (k.keytabFile === undefined) return;
  try {
    await access(k.keytabFile, constants.R_OK);
  } catch (e) {
    throw noTicket(endpoint, k, `the keytab ${k.keytabFile} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`, e);
  }
}

/** A GSSAPI failure → NO_TICKET (credentials) or AUTH_FAILED (service principal, KDC, server). */
function gssError(e: unknown, endpoint: string, k: HmsKerberos, principal: string): MigrationError {
  if (e instanceof GssFailure)
    return e.noTicket ? noTicket(endpoint, k, e.text, e) : authFailed(endpoint, principal, `the KDC or GSSAPI said: ${e.text}`, e);
  return e as MigrationError;
}

/** The server's reply, or what its silence or hang-up means. */
async function expectFrame(r: FrameReader, endpoint: string, principal: string): Promise<SaslFrame> {
  let f: SaslFrame;
  try {
    f = await r.next();
  } catch (e) {
    const why = (e as Error).message;
    const hint =
      r.received === 0 ? ' (a metastore without hive.metastore.sasl.enabled does not answer a SASL start: remove hms.thrift.kerberos)' : '';
    throw authFailed(
      endpoint,
      principal,
      `the server ${why === 'closed' ? 'closed the connection' : why} during the SASL negotiation${hint}`,
      e,
    );
  }
  if (f.status === SaslStatus.BAD || f.status === SaslStatus.ERROR)
    throw authFailed(
      endpoint,
      principal,
      `the metastore refused it: '${f.payload.toString('utf8')}' (does servicePrincipal match its hive.metastore.kerberos.principal?)`,
    );
  if (f.status !== SaslStatus.OK && f.status !== SaslStatus.COMPLETE)
    throw authFailed(endpoint, principal, `unexpected SASL status ${f.status}`);
  return f;
}

/** RFC 4752 §3.1: unwrap the server's layers + max buffer, answer "no security layer" (wrapped, no authzid). */
function securityLayerAnswer(ctx: GssContext, challenge: Buffer, endpoint: string, principal: string): Buffer {
  const offer = ctx.unwrap(challenge);
  if (offer.length !== 4) throw authFailed(endpoint, principal, `bad security-layer message (${offer.length} bytes)`);
  if (((offer[0] ?? 0) & LAYER_NONE) === 0)
    throw authFailed(
      endpoint,
      principal,
      'the metastore requires an integrity or privacy layer (hadoop.rpc.protection); only authentication is supported',
    );
  return ctx.wrap(Buffer.from([LAYER_NONE, 0, 0, 0]));
}

async function negotiate(socket: Socket, r: FrameReader, ctx: GssContext, endpoint: string, principal: string): Promise<void> {
  const first = await ctx.step(undefined);
  socket.write(Buffer.concat([encodeFrame(SaslStatus.START, Buffer.from(MECHANISM)), encodeFrame(SaslStatus.OK, first)]));
  for (;;) {
    const f = await expectFrame(r, endpoint, principal);
    if (!ctx.complete) {
      socket.write(encodeFrame(SaslStatus.OK, await ctx.step(f.payload)));
      continue;
    }
    if (f.status === SaslStatus.COMPLETE) return;
    socket.write(encodeFrame(SaslStatus.COMPLETE, securityLayerAnswer(ctx, f.payload, endpoint, principal)));
    const done = await expectFrame(r, endpoint, principal);
    if (done.status !== SaslStatus.COMPLETE) throw authFailed(endpoint, principal, `expected SASL COMPLETE, got status ${done.status}`);
    return;
  }
}

/**
 * SASL/GSSAPI on a connected socket, within `timeoutMs`. Resolves with who we are once the server
 * said COMPLETE; the socket then carries framed Thrift. On failure the socket is destroyed.
 */
export async function saslGssapiHandshake(
  socket: Socket,
  host: string,
  endpoint: string,
  k: HmsKerberos,
  timeoutMs: number,
): Promise<KerberosIdentity> {
  const principal = resolveServicePrincipal(k.servicePrincipal, host);
  const reader = new FrameReader(socket);
  const timer = setTimeout(() => reader.fail(new Error(`gave no answer within ${timeoutMs} ms`)), timeoutMs);
  let cred: unknown = null;
  let ctx: GssContext | undefined;
  try {
    await assertKeytabReadable(endpoint, k);
    cred = await acquireCredentials(k);
    ctx = GssContext.create(cred, principal);
    await negotiate(socket, reader, ctx, endpoint, principal);
    return ctx.identity(k.keytabFile === undefined ? 'ccache' : 'keytab');
  } catch (e) {
    socket.destroy();
    throw gssError(e, endpoint, k, principal);
  } finally {
    clearTimeout(timer);
    reader.detach();
    ctx?.dispose();
    releaseCredentials(cred);
  }
}

/**
 * Does the server at host:port speak Thrift SASL? A SASL server answers a START with a mechanism it
 * does not know by a BAD frame ("Unsupported mechanism type"); a plain one answers nothing that
 * parses as a frame. Used to explain a plain connection the server closed without a word.
 */
export function speaksSasl(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = createSocket({ host, port });
    let head = Buffer.alloc(0);
    const done = (v: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.on('error', () => done(false));
    socket.on('close', () => done(false));
    socket.on('connect', () => socket.write(encodeFrame(SaslStatus.START, Buffer.from('HIM-PROBE'))));
    socket.on('data', (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      if (head.length >= 5) done(head[0] === SaslStatus.BAD || head[0] === SaslStatus.ERROR);
    });
  });
}
