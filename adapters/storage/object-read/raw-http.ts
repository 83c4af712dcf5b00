// The footer threads' minimal HTTP/1.1 client on raw sockets (the `raw` transport of http.ts, the
// default for plain-HTTP endpoints): a footer GET is a few hundred bytes of headers and a 20–60 KB
// body, and node:http's request/response objects, agent bookkeeping and events cost several times
// the decode of the footer itself (bench/convert: ~400 µs of thread CPU per file against ~100 for
// the decode). It handles exactly the common answer — a status line, headers, a Content-Length
// body — and treats anything else (chunked encoding, no Content-Length, a malformed head) as a
// failure, so the caller's fallback covers it. Sockets are kept per host for reuse unless the
// server says `Connection: close`. Nothing here is translated into MigrationErrors.
import * as net from 'node:net';

/** Response heads larger than this are refused (S3 heads are well under 2 KB). */
const MAX_HEAD_BYTES = 64 * 1024;
/** Idle keep-alive connections kept per `host:port`. */
const MAX_IDLE_PER_HOST = 64;
/**
 * Every socket of this thread reads into this one buffer (net `onread`): its bytes are copied out
 * (head parsed, body copied into the response buffer) before the callback returns, so sockets can
 * share it. Node would otherwise allocate a fresh 64 KiB buffer per read, and those external
 * allocations drove most of the thread's garbage collection (bench/convert on S3).
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

export class RawHttpError extends Error {}

/** The request a connection is answering. */
interface Exchange {
  /** Bytes of this connection's data: `n` bytes at the start of `buf`, valid during the call. */
  data(buf: Buffer, n: number): void;
  /** The connection failed or closed before the exchange ended. */
  fail(e: Error): void;
  timeout(): void;
}

/** One kept-alive socket: listeners registered once, each event handed to the current exchange. */
class Conn {
  readonly socket: net.Socket;
  exchange: Exchange | undefined;
  /** Set while in the idle pool: removes the connection from it. */
  unpool: (() => void) | undefined;

  constructor(host: string, port: number) {
    this.socket = net.connect({
      host,
      port,
      noDelay: true,
      onread: {
        buffer: READ_BUFFER,
        callback: (n: number, buf: Uint8Array): boolean => {
          if (this.exchange !== undefined) this.exchange.data(buf as Buffer, n);
          else this.drop(); // unsolicited bytes on an idle connection
          return true;
        },
      },
    });
    const failed = (e: Error): void => {
      if (this.exchange !== undefined) this.exchange.fail(e);
      else this.drop();
    };
    this.socket.on('error', failed);
    this.socket.on('close', () => failed(new Error('connection closed before the whole response')));
    this.socket.on('timeout', () => this.exchange?.timeout());
  }

  /** Leave the pool (if in it) and close. */
  drop(): void {
    this.unpool?.();
    this.unpool = undefined;
    this.socket.destroy();
  }
}

/** Idle keep-alive connections per `host:port`. */
const idle = new Map<string, Conn[]>();

function takeIdle(key: string): Conn | undefined {
  const list = idle.get(key);
  while (list !== undefined && list.length > 0) {
    const conn = list.pop() as Conn;
    conn.unpool = undefined;
    if (!conn.socket.destroyed && conn.socket.readyState === 'open') return conn;
    conn.socket.destroy();
  }
  return undefined;
}

function keepIdle(key: string, conn: Conn): void {
  let list = idle.get(key);
  if (list === undefined) idle.set(key, (list = []));
  if (list.length >= MAX_IDLE_PER_HOST) {
    conn.socket.destroy();
    return;
  }
  conn.socket.setTimeout(0);
  const pool = list;
  conn.unpool = (): void => {
    const i = pool.indexOf(conn);
    if (i >= 0) pool.splice(i, 1);
  };
  pool.push(conn);
}

/** Idle sockets kept (tests). */
export function idleSockets(): number {
  let n = 0;
  for (const list of idle.values()) n += list.length;
  return n;
}

/** Status, whether the connection may be reused, and the body length, from a response head. */
function parseHead(head: string): { status: number; length: number; close: boolean } {
  const lines = head.split('\r\n');
  const m = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0] ?? '');
  if (m === null) throw new RawHttpError(`malformed status line ${JSON.stringify((lines[0] ?? '').slice(0, 80))}`);
  let length = -1;
  let close = m[1] === '0';
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new RawHttpError('malformed header line');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-length') {
      if (!/^\d+$/.test(value) || length >= 0) throw new RawHttpError('bad or repeated Content-Length');
      length = Number(value);
    } else if (name === 'transfer-encoding') throw new RawHttpError(`Transfer-Encoding ${value} is not handled here`);
    else if (name === 'connection') {
      const tokens = value
        .toLowerCase()
        .split(',')
        .map((t) => t.trim());
      if (tokens.includes('close')) close = true;
      else if (tokens.includes('keep-alive')) close = false;
    }
  }
  if (length < 0) throw new RawHttpError('no Content-Length');
  return { status: Number(m[2]), length, close };
}

/** Index of CRLFCRLF in `b[from, to)`, or -1. */
function headEnd(b: Uint8Array, from: number, to: number): number {
  for (let i = Math.max(from, 3); i < to; i++) {
    if (b[i] === 10 && b[i - 1] === 13 && b[i - 2] === 10 && b[i - 3] === 13) return i - 3;
  }
  return -1;
}

/** Where a response body goes: a buffer of exactly `length` bytes (the caller may hand out pooled ones). */
export type BodyAllocator = (length: number) => Uint8Array;

const allocate: BodyAllocator = (n) => new Uint8Array(n);

/** What one GET sends, and where. */
interface Target {
  readonly host: string;
  readonly port: number;
  /** `host:port`, the idle pool's key. */
  readonly key: string;
  /** The request head, ready to write. */
  readonly request: string;
  readonly timeoutMs: number;
  readonly alloc: BodyAllocator;
}

/**
 * One GET with the given (signed) headers over a raw socket: resolves the body of a 200/206,
 * rejects on any other status, a network error, a malformed or unsupported response, or no
 * complete answer within `timeoutMs`. A reused socket that fails before answering is replaced by a
 * fresh connection once (the server may have closed it while idle). The body lands in
 * `alloc(length)`.
 */
export function rawGet(
  url: URL,
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
  alloc: BodyAllocator = allocate,
): Promise<Uint8Array> {
  const port = Number(url.port || 80);
  let request = `GET ${url.pathname}${url.search} HTTP/1.1\r\n`;
  for (const name of Object.keys(headers)) request += `${name}: ${headers[name] as string}\r\n`;
  request += '\r\n';
  const target: Target = { host: url.hostname, port, key: `${url.hostname}:${port}`, request, timeoutMs, alloc };
  const reuse = takeIdle(target.key);
  if (reuse !== undefined) return attempt(target, reuse, true);
  return attempt(target, new Conn(target.host, port), false);
}

/** The GET on `conn`; a `reused` connection that fails before any answer byte is retried on a fresh one. */
function attempt(t: Target, conn: Conn, reused: boolean): Promise<Uint8Array> {
  return new Promise<Uint8Array>((resolve, reject) => {
    /** Head bytes so far, when the head spans reads. */
    let head: Buffer | undefined;
    let headSeen = false;
    let parsed: { status: number; length: number; close: boolean } | undefined;
    let body: Uint8Array | undefined;
    let got = 0;
    const done = (err: Error | undefined, out?: Uint8Array): void => {
      if (conn.exchange !== exchange) return;
      conn.exchange = undefined;
      if (err !== undefined) {
        conn.socket.destroy();
        if (reused && !headSeen && !(err instanceof RawHttpError) && err.name !== 'TimeoutError') {
          attempt(t, new Conn(t.host, t.port), false).then(resolve, reject);
        } else reject(err);
        return;
      }
      if (parsed?.close === true) conn.socket.destroy();
      else keepIdle(t.key, conn);
      resolve(out as Uint8Array);
    };
    const answer = (status: number, bytes: Uint8Array): void =>
      status === 200 || status === 206 ? done(undefined, bytes) : done(new Error(`HTTP ${status}`));
    /** Body bytes b[from, to). */
    const onBody = (b: Uint8Array, from: number, to: number): void => {
      const p = parsed as { status: number; length: number };
      if (got + (to - from) > p.length) return done(new RawHttpError('more bytes than Content-Length'));
      body ??= t.alloc(p.length);
      body.set(b.subarray(from, to), got);
      got += to - from;
      if (got === p.length) answer(p.status, body);
    };
    /** Bytes of the head (and maybe the body's start), `n` at the start of `buf`. */
    const onHead = (buf: Buffer, n: number): void => {
      let b: Uint8Array = buf;
      let len = n;
      let from = 0;
      if (head !== undefined) {
        from = Math.max(0, head.length - 3);
        head = Buffer.concat([head, buf.subarray(0, n)]);
        b = head;
        len = head.length;
      }
      const end = headEnd(b, from, len);
      if (end < 0) {
        if (head === undefined) head = Buffer.from(buf.subarray(0, n));
        if (head.length > MAX_HEAD_BYTES) done(new RawHttpError('response head too large'));
        return;
      }
      try {
        parsed = parseHead(Buffer.from(b.buffer, b.byteOffset, end).toString('latin1'));
      } catch (e) {
        return done(e as Error);
      }
      if (parsed.length === 0) {
        if (end + 4 < len) return done(new RawHttpError('bytes after an empty body'));
        return answer(parsed.status, t.alloc(0));
      }
      if (end + 4 < len) onBody(b, end + 4, len);
    };
    const exchange: Exchange = {
      data(buf, n) {
        headSeen = true;
        if (parsed !== undefined) onBody(buf, 0, n);
        else onHead(buf, n);
      },
      fail: (e) => done(e),
      timeout() {
        const e = new Error(`no complete response in ${t.timeoutMs} ms`);
        e.name = 'TimeoutError';
        done(e);
      },
    };
    conn.exchange = exchange;
    conn.socket.setTimeout(t.timeoutMs);
    conn.socket.write(t.request, 'latin1');
  });
}
