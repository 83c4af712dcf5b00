// The client side of Thrift's SASL transport (libthrift TSaslClientTransport, what a Kerberized Hive
// Metastore runs behind hive.metastore.sasl.enabled=true) with the GSSAPI mechanism (RFC 4752):
// negotiate on the raw socket, choosing the quality of protection (hadoop.rpc.protection) from
// hms.thrift.kerberos.protection; after that every Thrift message is one frame with a 4-byte
// big-endian length — the message itself with "authentication", gss_wrap of it with integrity or
// privacy (sasl-transport.ts). Adapter code.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { createConnection as createSocket } from 'node:net';
import type { Socket } from 'node:net';
import { ErrorCode } from '../../../core/errors';
import type { MigrationError } from '../../../core/errors';
import { hmsError } from './errors';
import { GssContext, GssFailure, acquireCredentials, releaseCredentials } from './gssapi';
import type { HmsKerberos, KerberosIdentity } from './gssapi';
import { DEFAULT_PROTECTION, chooseProtection, encodeAnswer, offeredProtections, parseOffer } from './sasl-layer';
import type { LayerOffer, Protection } from './sasl-layer';

/** Negotiation status bytes (libthrift TSaslTransport.NegotiationStatus). */
export const SaslStatus = { START: 1, OK: 2, BAD: 3, ERROR: 4, COMPLETE: 5 } as const;
const MECHANISM = 'GSSAPI';
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

function authFailed(
  endpoint: string,
  principal: string,
  detail: string,
  cause?: unknown,
  extra: Record<string, unknown> = {},
): MigrationError {
  return hmsError(
    ErrorCode.HMS_KERBEROS_AUTH_FAILED,
    `Kerberos (SASL/GSSAPI) authentication to ${endpoint} as a client of ${principal} failed: ${detail}`,
    { endpoint, servicePrincipal: principal, ...extra },
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

/** The metastore accepts none of the protections we allow: say what it offers and which key to set. */
function noCommonProtection(endpoint: string, principal: string, offered: Protection[], allowed: readonly Protection[]): MigrationError {
  const offers = offered.length === 0 ? 'no protection we know' : offered.join(', ');
  const include = offered.length === 0 ? 'what the metastore runs' : offered.join(' or ');
  return authFailed(
    endpoint,
    principal,
    `the metastore offers protection ${offers} (its hadoop.rpc.protection) and hms.thrift.kerberos.protection allows ${allowed.join(', ')}: set hms.thrift.kerberos.protection to include ${include}`,
    undefined,
    { serverProtection: offered, protection: allowed },
  );
}

/**
 * RFC 4752 §3.1: unwrap the server's offer (layers + max buffer), choose the first protection of our
 * preference it contains (as the JDK's GSSAPI client does) and answer it with our max receive buffer,
 * wrapped with integrity only and no authorization id.
 */
function securityLayerAnswer(ctx: GssContext, challenge: Buffer, endpoint: string, principal: string, k: HmsKerberos) {
  const offer = parseOffer(ctx.unwrap(challenge).message);
  if (offer === undefined) throw authFailed(endpoint, principal, 'bad security-layer message (not 4 bytes)');
  const allowed = k.protection ?? DEFAULT_PROTECTION;
  const protection = chooseProtection(offer.layers, allowed);
  if (protection === undefined) throw noCommonProtection(endpoint, principal, offeredProtections(offer.layers), allowed);
  return { answer: ctx.wrap(encodeAnswer(protection)), protection, offer };
}

/** The negotiation to COMPLETE; resolves with the protection chosen and the server's offer. */
async function negotiate(socket: Socket, r: FrameReader, ctx: GssContext, endpoint: string, principal: string, k: HmsKerberos) {
  const first = await ctx.step(undefined);
  socket.write(Buffer.concat([encodeFrame(SaslStatus.START, Buffer.from(MECHANISM)), encodeFrame(SaslStatus.OK, first)]));
  for (;;) {
    const f = await expectFrame(r, endpoint, principal);
    if (!ctx.complete) {
      socket.write(encodeFrame(SaslStatus.OK, await ctx.step(f.payload)));
      continue;
    }
    // COMPLETE without a security-layer offer: the server negotiated no layer, which must be allowed (fail closed).
    if (f.status === SaslStatus.COMPLETE) {
      const allowed = k.protection ?? DEFAULT_PROTECTION;
      if (!allowed.includes('authentication')) throw noCommonProtection(endpoint, principal, ['authentication'], allowed);
      return { protection: 'authentication' as Protection, offer: undefined };
    }
    const { answer, protection, offer } = securityLayerAnswer(ctx, f.payload, endpoint, principal, k);
    socket.write(encodeFrame(SaslStatus.COMPLETE, answer));
    const done = await expectFrame(r, endpoint, principal);
    if (done.status !== SaslStatus.COMPLETE) throw authFailed(endpoint, principal, `expected SASL COMPLETE, got status ${done.status}`);
    return { protection, offer };
  }
}

/** What a handshake established. With integrity or privacy, `context` stays open for the connection's life. */
export interface SaslSession {
  readonly identity: KerberosIdentity;
  readonly protection: Protection;
  /** What the server offered (RFC 4752 §3.1), for diagnostics; undefined when it sent no offer. */
  readonly offer?: LayerOffer;
  /** The security context that wraps and unwraps every message; undefined with "authentication" (disposed). */
  readonly context?: GssContext;
}

/**
 * SASL/GSSAPI on a connected socket, within `timeoutMs`. Resolves once the server said COMPLETE; the
 * socket then carries framed Thrift (wrapped unless the protection is "authentication", when the
 * context is released at once). On failure the socket is destroyed.
 */
export async function saslGssapiHandshake(
  socket: Socket,
  host: string,
  endpoint: string,
  k: HmsKerberos,
  timeoutMs: number,
): Promise<SaslSession> {
  const principal = resolveServicePrincipal(k.servicePrincipal, host);
  const reader = new FrameReader(socket);
  const timer = setTimeout(() => reader.fail(new Error(`gave no answer within ${timeoutMs} ms`)), timeoutMs);
  let cred: unknown = null;
  let ctx: GssContext | undefined;
  let keep = false;
  try {
    await assertKeytabReadable(endpoint, k);
    cred = await acquireCredentials(k);
    ctx = GssContext.create(cred, principal);
    const { protection, offer } = await negotiate(socket, reader, ctx, endpoint, principal, k);
    const identity = ctx.identity(k.keytabFile === undefined ? 'ccache' : 'keytab');
    keep = protection !== 'authentication';
    return { identity, protection, ...(offer === undefined ? {} : { offer }), ...(keep ? { context: ctx } : {}) };
  } catch (e) {
    socket.destroy();
    throw gssError(e, endpoint, k, principal);
  } finally {
    clearTimeout(timer);
    reader.detach();
    if (!keep) ctx?.dispose();
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
