// One Thrift connection to a Hive Metastore (unframed TBufferedTransport + TBinaryProtocol, the HMS
// default), with a connect timeout, a per-call timeout, SASL detection and error translation into
// MigrationError. Adapter code: the pool, retries, batching and model mapping build on this
// (reader.ts); nothing outside adapters/ sees a Thrift type.
import { createConnection as createSocket } from 'node:net';
import type { Socket } from 'node:net';
import thrift from 'thrift';
import { ErrorCode, MigrationError } from '../../../core/errors';
import * as ThriftHiveMetastore from '../../../thrift-idl/gen/ThriftHiveMetastore';
import { hmsError, translateCallError } from './errors';
import { installSkewedCodec } from './skewed';
import type { HmsKerberos, KerberosIdentity } from './gssapi';
import { saslGssapiHandshake, speaksSasl } from './sasl';
import type { LayerOffer, Protection } from './sasl-layer';
import { gssSecurityLayer, securedFramedTransport } from './sasl-transport';

export { isUnknownMethod, translateCallError } from './errors';

export type HmsClient = ThriftHiveMetastore.Client;

// Before any Table/Partition is read or written: SkewedInfo's list-keyed map done right (skewed.ts).
installSkewedCodec();

export function parseThriftUri(uri: string): { host: string; port: number } {
  const m = /^thrift:\/\/(\[[^\]]+\]|[^:/]+)(?::(\d+))?\/?$/.exec(uri.trim());
  if (!m || m[1] === undefined)
    throw hmsError(ErrorCode.HMS_UNREACHABLE, `not a thrift://host:port URI: '${uri}'`, { endpoint: uri }, undefined);
  const port = m[2] === undefined ? 9083 : Number(m[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw hmsError(ErrorCode.HMS_UNREACHABLE, `bad port in '${uri}'`, { endpoint: uri });
  return { host: m[1].replace(/^\[|\]$/g, ''), port };
}

/** Authentication the server expects: `none` (plain binary Thrift), or Kerberos when `kerberos` options are given. */
export type HmsAuth = 'none' | 'sasl' | 'kerberos';

export interface HmsConnectOptions {
  /** TCP connect deadline. */
  readonly connectTimeoutMs: number;
  /** Deadline for each call; after a timeout the connection is closed (a late reply cannot be matched safely). */
  readonly callTimeoutMs: number;
  /** Default `none`. `sasl`, or `kerberos` without `kerberos` options, fail at once with HMS_UNSUPPORTED_AUTH. */
  readonly auth?: HmsAuth;
  /** SASL/GSSAPI (Kerberos) before the first call, then framed Thrift (sasl.ts). */
  readonly kerberos?: HmsKerberos;
}

export interface HmsConnection {
  readonly endpoint: string;
  /** False once the socket closed, failed or a call timed out: the pool discards it. */
  readonly usable: boolean;
  /** Who we authenticated as (Kerberos connections only). */
  readonly identity?: KerberosIdentity;
  /** The SASL quality of protection negotiated (Kerberos connections only). */
  readonly protection?: Protection;
  /** The metastore's security-layer offer (layers and max buffer), for diagnostics (Kerberos connections only). */
  readonly saslOffer?: LayerOffer;
  /**
   * Run one call: `conn.call('get_all_databases', (c) => c.get_all_databases())`. The generated
   * .d.ts types results as plain values; at runtime they are promises — both are handled.
   */
  call<T>(method: string, fn: (client: HmsClient) => T): Promise<Awaited<T>>;
  close(): void;
}

const SASL_REMEDY =
  'the server requires SASL (hive.metastore.sasl.enabled=true): for Kerberos set hms.thrift.kerberos.servicePrincipal ' +
  "(the metastore's hive.metastore.kerberos.principal, e.g. hive/_HOST@REALM) and a ticket ('kinit') or keytabFile; " +
  'or read the backing database (--source db)';

export function unsupportedAuth(endpoint: string, detail: string): MigrationError {
  return hmsError(ErrorCode.HMS_UNSUPPORTED_AUTH, `${endpoint}: ${detail}: ${SASL_REMEDY}`, { endpoint });
}

/**
 * A SASL server (TSaslServerTransport) reads our binary message header (0x80 0x01 …) as a SASL
 * status byte, answers with an ERROR (4) or BAD (3) frame — status byte, 4-byte big-endian length,
 * message — and closes. Recognise that frame in the first bytes the server sent.
 */
export function saslRejection(firstBytes: Buffer): string | undefined {
  if (firstBytes.length < 5) return undefined;
  const status = firstBytes[0];
  if (status !== 3 && status !== 4) return undefined;
  const len = firstBytes.readUInt32BE(1);
  if (len > 4096 || firstBytes.length < 5 + len) return undefined;
  return firstBytes.subarray(5, 5 + len).toString('utf8');
}

type ThriftConnection = ReturnType<typeof thrift.createConnection>;
const socketOf = (conn: ThriftConnection): Socket => (conn as unknown as { connection: Socket }).connection;

/** Wait for the TCP connect; on failure or deadline destroy the socket and reject HMS_UNREACHABLE. */
function awaitConnect(conn: ThriftConnection, endpoint: string, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const fail = (msg: string, cause?: unknown): void => {
      clearTimeout(timer);
      conn.removeAllListeners('connect');
      socketOf(conn).destroy();
      reject(hmsError(ErrorCode.HMS_UNREACHABLE, `cannot connect to ${endpoint}: ${msg}`, { endpoint }, cause));
    };
    const timer = setTimeout(() => fail(`no answer within ${timeoutMs} ms`), timeoutMs);
    conn.once('connect', () => {
      clearTimeout(timer);
      conn.removeAllListeners('error');
      resolve();
    });
    conn.once('error', (e: Error) => fail(e.message, e));
  });
}

/** Socket-level failures (reset, broken pipe) mean the server went away; anything else is a decode error. */
function connectionFailure(e: Error, endpoint: string): MigrationError {
  // The security layer (sasl-transport.ts) ends the connection with its own coded error.
  if (e instanceof MigrationError) return e;
  const sys = typeof (e as NodeJS.ErrnoException).code === 'string';
  return sys
    ? hmsError(ErrorCode.HMS_UNREACHABLE, `connection to ${endpoint} failed: ${e.message}`, { endpoint }, e)
    : hmsError(ErrorCode.HMS_THRIFT_ERROR, `bad reply from ${endpoint}: ${e.message}`, { endpoint, thriftType: e.name }, e);
}

interface ConnState {
  closed: boolean;
  busy: boolean;
  calls: number;
  /** The first bytes the server sent (kept until 64 bytes), for SASL detection. */
  head: Buffer;
  failPending: ((e: MigrationError) => void) | undefined;
}

/** The server hung up: a SASL rejection frame says why; a close on the very first call hints at it. */
function closedError(state: ConnState, endpoint: string): MigrationError {
  const sasl = saslRejection(state.head);
  if (sasl !== undefined) return unsupportedAuth(endpoint, `the server rejected the plain Thrift handshake ('${sasl}')`);
  const hint =
    state.calls === 1 && state.head.length === 0
      ? ' before answering the first call (a SASL/Kerberos-only HMS does this; so does a crashed handler)'
      : '';
  return hmsError(ErrorCode.HMS_UNREACHABLE, `${endpoint} closed the connection${hint}`, { endpoint });
}

/** TCP connect of a bare socket within the deadline; HMS_UNREACHABLE otherwise. */
function connectSocket(host: string, port: number, endpoint: string, timeoutMs: number): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const socket = createSocket({ host, port });
    const fail = (msg: string, cause?: unknown): void => {
      clearTimeout(timer);
      socket.destroy();
      reject(hmsError(ErrorCode.HMS_UNREACHABLE, `cannot connect to ${endpoint}: ${msg}`, { endpoint }, cause));
    };
    const timer = setTimeout(() => fail(`no answer within ${timeoutMs} ms`), timeoutMs);
    socket.once('error', (e: Error) => fail(e.message, e));
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
  });
}

/**
 * TCP connect, SASL/GSSAPI on the bare socket, then a Thrift connection over it with framed messages:
 * plain frames with "authentication", wrapped ones with integrity or privacy — then the security
 * context lives as long as the socket and is released when it closes.
 */
async function openKerberized(host: string, port: number, endpoint: string, k: HmsKerberos, timeoutMs: number) {
  const socket = await connectSocket(host, port, endpoint, timeoutMs);
  const { identity, protection, offer, context } = await saslGssapiHandshake(socket, host, endpoint, k, timeoutMs);
  socket.setNoDelay(true);
  let transport = thrift.TFramedTransport;
  if (context !== undefined && protection !== 'authentication') {
    socket.once('close', () => context.dispose());
    transport = securedFramedTransport(gssSecurityLayer(context, protection, endpoint), (e) => socket.destroy(e));
  }
  const conn = new thrift.Connection(socket, { transport, protocol: thrift.TBinaryProtocol, timeout: 0 });
  // The socket connected before the Connection existed: its 'connect' handler never runs, so say it.
  (conn as unknown as { connected: boolean }).connected = true;
  return { conn, identity, protection, offer };
}

async function openPlain(host: string, port: number, endpoint: string, timeoutMs: number) {
  // timeout 0: no idle timer on the socket — every call is timed below. No reconnects (max_attempts unset).
  const conn = thrift.createConnection(host, port, {
    transport: thrift.TBufferedTransport,
    protocol: thrift.TBinaryProtocol,
    connect_timeout: timeoutMs,
    timeout: 0,
  });
  await awaitConnect(conn, endpoint, timeoutMs);
  return { conn, identity: undefined, protection: undefined, offer: undefined };
}

/** Open a connection; rejects with HMS_UNREACHABLE when the connect fails or times out (HMS_KERBEROS_* when authentication does). */
export async function openHms(uri: string, opts: HmsConnectOptions): Promise<HmsConnection> {
  const { host, port } = parseThriftUri(uri);
  const endpoint = `thrift://${host}:${port}`;
  if (opts.kerberos === undefined && opts.auth !== undefined && opts.auth !== 'none')
    throw unsupportedAuth(endpoint, `auth '${opts.auth}' is configured`);
  const { conn, identity, protection, offer } =
    opts.kerberos === undefined
      ? await openPlain(host, port, endpoint, opts.connectTimeoutMs)
      : await openKerberized(host, port, endpoint, opts.kerberos, opts.connectTimeoutMs);

  const state: ConnState = { closed: false, busy: false, calls: 0, head: Buffer.alloc(0), failPending: undefined };
  socketOf(conn).prependListener('data', (chunk: Buffer) => {
    if (state.head.length < 64) state.head = Buffer.concat([state.head, chunk]).subarray(0, 64);
  });
  // After connect: socket errors and server-side closes fail the call in flight.
  conn.on('error', (e: Error) => {
    state.closed = true;
    const sasl = saslRejection(state.head);
    state.failPending?.(
      sasl === undefined
        ? connectionFailure(e, endpoint)
        : unsupportedAuth(endpoint, `the server rejected the plain Thrift handshake ('${sasl}')`),
    );
  });
  conn.on('close', () => {
    state.closed = true;
    state.failPending?.(closedError(state, endpoint));
  });
  const client = thrift.createClient(ThriftHiveMetastore.Client, conn);

  const timedCall = async <T>(method: string, fn: (client: HmsClient) => T): Promise<Awaited<T>> => {
    let timer: NodeJS.Timeout | undefined;
    const failure = new Promise<never>((_, reject) => {
      state.failPending = (e) =>
        reject(new MigrationError(e.code, `${method}: ${e.message}`, { ...e.context, method }, { cause: e.cause }));
      timer = setTimeout(() => {
        // A reply that arrives after this could not be matched safely: drop the connection.
        state.closed = true;
        socketOf(conn).destroy();
        reject(hmsError(ErrorCode.HMS_TIMEOUT, `${method} on ${endpoint}: no reply within ${opts.callTimeoutMs} ms`, { endpoint, method }));
      }, opts.callTimeoutMs);
    });
    try {
      return (await Promise.race([Promise.resolve().then(() => fn(client)), failure])) as Awaited<T>;
    } catch (e) {
      throw translateCallError(e, method, endpoint);
    } finally {
      clearTimeout(timer);
      state.failPending = undefined;
    }
  };

  return {
    endpoint,
    ...(identity === undefined ? {} : { identity }),
    ...(protection === undefined ? {} : { protection }),
    ...(offer === undefined ? {} : { saslOffer: offer }),
    get usable() {
      return !state.closed;
    },
    async call<T>(method: string, fn: (client: HmsClient) => T): Promise<Awaited<T>> {
      if (state.closed) throw hmsError(ErrorCode.HMS_UNREACHABLE, `${method}: connection to ${endpoint} is closed`, { endpoint, method });
      // One call at a time: replies are matched to the call in flight, and a timeout poisons the socket.
      if (state.busy)
        throw hmsError(ErrorCode.INTERNAL, `HmsConnection.call(${method}): another call is in flight on this connection`, {
          endpoint,
          method,
        });
      state.busy = true;
      state.calls += 1;
      try {
        return await timedCall(method, fn);
      } catch (e) {
        // A plain connection closed without a word before its first answer: a SASL-only metastore does that.
        const silentClose = state.calls === 1 && state.head.length === 0 && opts.kerberos === undefined;
        if (
          silentClose &&
          (e as MigrationError).code === ErrorCode.HMS_UNREACHABLE &&
          (await speaksSasl(host, port, opts.connectTimeoutMs))
        )
          throw unsupportedAuth(endpoint, `${method}: the server closed the plain Thrift connection and answers a SASL negotiation`);
        throw e;
      } finally {
        state.busy = false;
      }
    },
    close(): void {
      if (state.closed) return;
      state.closed = true;
      conn.end();
    },
  };
}

/** Open, run `fn`, always close. */
export async function withHms<T>(uri: string, opts: HmsConnectOptions, fn: (conn: HmsConnection) => Promise<T>): Promise<T> {
  const conn = await openHms(uri, opts);
  try {
    return await fn(conn);
  } finally {
    conn.close();
  }
}

export interface HmsProbe {
  readonly databases: number;
  readonly latencyMs: number;
  /** fb303 getVersion(), when the server answers it with something non-empty. */
  readonly version?: string;
  /** Kerberos: who we are to the metastore. */
  readonly identity?: KerberosIdentity;
  /** Kerberos: the SASL quality of protection negotiated. */
  readonly protection?: Protection;
}

/**
 * One real round trip: connect + get_all_databases (the call every HMS since 0.x has), then a
 * best-effort fb303 getVersion. `timeoutMs` bounds the connect and each call. Used by
 * `migrate doctor` and the stack health check.
 */
export async function probeHms(uri: string, timeoutMs: number, kerberos?: HmsKerberos): Promise<HmsProbe> {
  const t0 = performance.now();
  const opts = { connectTimeoutMs: timeoutMs, callTimeoutMs: timeoutMs, ...(kerberos === undefined ? {} : { kerberos }) };
  return withHms(uri, opts, async (conn) => {
    const dbs = await conn.call('get_all_databases', (c) => c.get_all_databases());
    const latencyMs = Math.round(performance.now() - t0);
    let version: string | undefined;
    try {
      const v = await conn.call('getVersion', (c) => c.getVersion());
      if (typeof v === 'string' && v.trim() !== '') version = v.trim();
    } catch {
      // Not every server answers fb303 calls; the probe is about reachability.
    }
    return {
      databases: dbs.length,
      latencyMs,
      ...(version === undefined ? {} : { version }),
      ...(conn.identity ? { identity: conn.identity } : {}),
      ...(conn.protection ? { protection: conn.protection } : {}),
    };
  });
}
