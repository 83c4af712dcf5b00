// One Thrift connection to a Hive Metastore (unframed TBufferedTransport + TBinaryProtocol, the HMS
// default), with a connect timeout, a per-call timeout and error translation. Adapter code: the full
// client (batching, version probing, model mapping) builds on this; nothing outside adapters/
// sees a Thrift type.
import thrift from 'thrift';
import * as ThriftHiveMetastore from '../../../thrift-idl/gen/ThriftHiveMetastore';
import * as ttypes from '../../../thrift-idl/gen/hive_metastore_types';

export type HmsClient = ThriftHiveMetastore.Client;

/** The closed set of codes this module produces. */
export const HMS_ERROR_CODES = ['HMS_UNREACHABLE', 'HMS_TIMEOUT', 'HMS_THRIFT_ERROR'] as const;
export type HmsErrorCode = (typeof HMS_ERROR_CODES)[number];

/** A plain Error with a code; `thriftType` names the HMS exception or TApplicationException kind. */
export interface HmsError extends Error {
  readonly code: HmsErrorCode;
  /** e.g. 'NoSuchObjectException', 'TApplicationException' — set for HMS_THRIFT_ERROR only. */
  readonly thriftType?: string;
  /** TApplicationException type (1 = UNKNOWN_METHOD: the server does not have this method). */
  readonly applicationExceptionType?: number;
  readonly method?: string;
}

export function hmsError(code: HmsErrorCode, message: string, extra: { cause?: unknown; thriftType?: string; applicationExceptionType?: number; method?: string } = {}): HmsError {
  const err = new Error(message, extra.cause === undefined ? undefined : { cause: extra.cause }) as Error & Record<string, unknown>;
  err.name = 'HmsError';
  err.code = code;
  if (extra.thriftType !== undefined) err.thriftType = extra.thriftType;
  if (extra.applicationExceptionType !== undefined) err.applicationExceptionType = extra.applicationExceptionType;
  if (extra.method !== undefined) err.method = extra.method;
  return err as unknown as HmsError;
}

export function isHmsError(e: unknown): e is HmsError {
  if (!(e instanceof Error)) return false;
  const code = (e as Error & { code?: unknown }).code;
  return typeof code === 'string' && (HMS_ERROR_CODES as readonly string[]).includes(code);
}

// Generated exceptions have an empty constructor.name: identify them with instanceof.
const HMS_EXCEPTIONS: ReadonlyArray<readonly [string, new (...args: never[]) => object]> = [
  ['MetaException', ttypes.MetaException],
  ['NoSuchObjectException', ttypes.NoSuchObjectException],
  ['AlreadyExistsException', ttypes.AlreadyExistsException],
  ['InvalidObjectException', ttypes.InvalidObjectException],
  ['InvalidOperationException', ttypes.InvalidOperationException],
  ['UnknownDBException', ttypes.UnknownDBException],
  ['UnknownTableException', ttypes.UnknownTableException],
  ['ConfigValSecurityException', ttypes.ConfigValSecurityException],
];

/** Translate whatever a generated client call rejected with into an HmsError. */
export function translateCallError(e: unknown, method: string, endpoint: string): HmsError {
  if (isHmsError(e)) return e;
  for (const [name, cls] of HMS_EXCEPTIONS) {
    if (e instanceof cls) {
      const msg = (e as { message?: string }).message ?? '';
      return hmsError('HMS_THRIFT_ERROR', `${method} on ${endpoint}: ${name}: ${msg}`, { cause: e, thriftType: name, method });
    }
  }
  if (e instanceof thrift.Thrift.TApplicationException) {
    return hmsError('HMS_THRIFT_ERROR', `${method} on ${endpoint}: TApplicationException: ${e.message}`, {
      cause: e,
      thriftType: 'TApplicationException',
      applicationExceptionType: (e as unknown as { type?: number }).type,
      method,
    });
  }
  const msg = e instanceof Error ? e.message : String(e);
  return hmsError('HMS_THRIFT_ERROR', `${method} on ${endpoint}: ${msg}`, { cause: e, thriftType: e instanceof Error ? e.name : typeof e, method });
}

export function parseThriftUri(uri: string): { host: string; port: number } {
  const m = /^thrift:\/\/(\[[^\]]+\]|[^:/]+)(?::(\d+))?\/?$/.exec(uri.trim());
  if (!m || m[1] === undefined) throw hmsError('HMS_UNREACHABLE', `not a thrift://host:port URI: '${uri}'`);
  const port = m[2] === undefined ? 9083 : Number(m[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw hmsError('HMS_UNREACHABLE', `bad port in '${uri}'`);
  return { host: m[1].replace(/^\[|\]$/g, ''), port };
}

export interface HmsConnectOptions {
  /** TCP connect deadline. */
  readonly connectTimeoutMs: number;
  /** Deadline for each call; after a timeout the connection is closed (a late reply cannot be matched safely). */
  readonly callTimeoutMs: number;
}

export interface HmsConnection {
  readonly endpoint: string;
  /**
   * Run one call: `conn.call('get_all_databases', (c) => c.get_all_databases())`. The generated
   * .d.ts types results as plain values; at runtime they are promises — both are handled.
   */
  call<T>(method: string, fn: (client: HmsClient) => T): Promise<Awaited<T>>;
  close(): void;
}

type ThriftConnection = ReturnType<typeof thrift.createConnection>;

/** Wait for the TCP connect; on failure or deadline destroy the socket and reject HMS_UNREACHABLE. */
function awaitConnect(conn: ThriftConnection, endpoint: string, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const fail = (msg: string, cause?: unknown): void => {
      clearTimeout(timer);
      (conn as unknown as { destroy(): void }).destroy();
      reject(hmsError('HMS_UNREACHABLE', `cannot connect to ${endpoint}: ${msg}`, { cause }));
    };
    const timer = setTimeout(() => fail(`no answer within ${timeoutMs} ms`), timeoutMs);
    conn.once('connect', () => {
      clearTimeout(timer);
      resolve();
    });
    conn.once('error', (e: Error) => fail(e.message, e));
  });
}

/** Socket-level failures (reset, broken pipe) mean the server went away; anything else is a decode error. */
function connectionFailure(e: Error, endpoint: string): HmsError {
  const sys = typeof (e as NodeJS.ErrnoException).code === 'string';
  return sys
    ? hmsError('HMS_UNREACHABLE', `connection to ${endpoint} failed: ${e.message}`, { cause: e })
    : hmsError('HMS_THRIFT_ERROR', `bad reply from ${endpoint}: ${e.message}`, { cause: e, thriftType: e.name });
}

/** Open a connection; rejects with HMS_UNREACHABLE when the connect fails or times out. */
export async function openHms(uri: string, opts: HmsConnectOptions): Promise<HmsConnection> {
  const { host, port } = parseThriftUri(uri);
  const endpoint = `thrift://${host}:${port}`;
  // timeout 0: no idle timer on the socket — every call is timed below.
  const conn = thrift.createConnection(host, port, {
    transport: thrift.TBufferedTransport,
    protocol: thrift.TBinaryProtocol,
    connect_timeout: opts.connectTimeoutMs,
    timeout: 0,
  });
  await awaitConnect(conn, endpoint, opts.connectTimeoutMs);

  const state = { closed: false, busy: false, failPending: undefined as ((e: HmsError) => void) | undefined };
  // After connect: socket errors and server-side closes fail the call in flight.
  conn.on('error', (e: Error) => state.failPending?.(connectionFailure(e, endpoint)));
  conn.on('close', () => {
    state.closed = true;
    state.failPending?.(hmsError('HMS_UNREACHABLE', `${endpoint} closed the connection`));
  });
  const client = thrift.createClient(ThriftHiveMetastore.Client, conn);

  const timedCall = async <T>(method: string, fn: (client: HmsClient) => T): Promise<Awaited<T>> => {
    let timer: NodeJS.Timeout | undefined;
    const failure = new Promise<never>((_, reject) => {
      state.failPending = (e) => reject(hmsError(e.code, `${method}: ${e.message}`, { cause: e.cause, method }));
      timer = setTimeout(() => {
        // A reply that arrives after this could not be matched safely: drop the connection.
        state.closed = true;
        (conn as unknown as { destroy(): void }).destroy();
        reject(hmsError('HMS_TIMEOUT', `${method} on ${endpoint}: no reply within ${opts.callTimeoutMs} ms`, { method }));
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
    async call<T>(method: string, fn: (client: HmsClient) => T): Promise<Awaited<T>> {
      if (state.closed) throw hmsError('HMS_UNREACHABLE', `${method}: connection to ${endpoint} is closed`, { method });
      // One call at a time: replies are matched to the call in flight, and a timeout poisons the socket.
      if (state.busy) throw new Error(`HmsConnection.call(${method}): another call is in flight on this connection`);
      state.busy = true;
      try {
        return await timedCall(method, fn);
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
}

/**
 * One real round trip: connect + get_all_databases (the call every HMS since 0.x has), then a
 * best-effort fb303 getVersion. `timeoutMs` bounds the connect and each call. Used by
 * `migrate doctor` and the stack health check.
 */
export async function probeHms(uri: string, timeoutMs: number): Promise<HmsProbe> {
  const t0 = performance.now();
  return withHms(uri, { connectTimeoutMs: timeoutMs, callTimeoutMs: timeoutMs }, async (conn) => {
    const dbs = await conn.call('get_all_databases', (c) => c.get_all_databases());
    const latencyMs = Math.round(performance.now() - t0);
    let version: string | undefined;
    try {
      const v = await conn.call('getVersion', (c) => c.getVersion());
      if (typeof v === 'string' && v.trim() !== '') version = v.trim();
    } catch {
      // Not every server answers fb303 calls; the probe is about reachability.
    }
    return version === undefined ? { databases: dbs.length, latencyMs } : { databases: dbs.length, latencyMs, version };
  });
}
