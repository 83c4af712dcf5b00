// The footer thread's own send of a pre-signed ranged read (ObjectStore.signedRead). Anything but a
// 200/206 with its whole body is a failure for the caller to fall back on the store's own path,
// which retries and maps errors (adapters/storage/s3-store.ts); nothing here is translated.
//
// Plain-HTTP endpoints go through a minimal HTTP/1.1 client on raw sockets (rawGet below): a footer
// GET is a few hundred bytes of headers and a 20–60 KB body, and node:http's request/response
// objects, agent bookkeeping and events cost several times the decode of the footer itself (bench/
// convert: ~400 µs of thread CPU per file against ~100 for the decode). It handles exactly the
// common answer — a status line, headers, a Content-Length body — and treats anything else
// (chunked encoding, no Content-Length, a malformed head) as a failure, so the fallback covers it.
// Sockets are kept per host for reuse unless the server says `Connection: close`. HTTPS goes
// through node:https (storage/s3-ranged-get.ts httpGet), where TLS dominates anyway.
import * as https from 'node:https';
import * as net from 'node:net';
import type { SignedRead } from '../../core/storage/object-store';
import { httpGet } from '../storage/s3-ranged-get';

const tlsAgent = new https.Agent({ keepAlive: true, maxSockets: 64 });

export async function threadGet(read: SignedRead): Promise<Uint8Array> {
  const url = new URL(read.url);
  if (url.protocol === 'http:') return rawGet(url, read.headers, read.timeoutMs);
  const res = await httpGet(url, read.headers, tlsAgent, read.timeoutMs);
  if (res.status !== 200 && res.status !== 206) throw new Error(`HTTP ${res.status}`);
  return res.body;
}

/** Idle keep-alive sockets per `host:port`, each with the listener that drops it from the pool. */
const idle = new Map<string, { socket: net.Socket; drop: () => void }[]>();
const MAX_IDLE_PER_HOST = 64;
/** Response heads larger than this are refused (S3 heads are well under 2 KB). */
const MAX_HEAD_BYTES = 64 * 1024;
const CRLFCRLF = Buffer.from('\r\n\r\n');

export class RawHttpError extends Error {}

function takeIdle(key: string): net.Socket | undefined {
  const list = idle.get(key);
  while (list !== undefined && list.length > 0) {
    const { socket, drop } = list.pop() as { socket: net.Socket; drop: () => void };
    socket.removeListener('close', drop);
    socket.removeListener('error', drop);
    socket.removeListener('data', drop);
    if (!socket.destroyed && socket.readyState === 'open') return socket;
    socket.destroy();
  }
  return undefined;
}

function keepIdle(key: string, socket: net.Socket): void {
  const list = idle.get(key) ?? [];
  idle.set(key, list);
  if (list.length >= MAX_IDLE_PER_HOST) {
    socket.destroy();
    return;
  }
  socket.setTimeout(0);
  // An idle socket the server closes, that errors, or that receives unsolicited bytes leaves the pool.
  const entry = {
    socket,
    drop: (): void => {
      const i = list.indexOf(entry);
      if (i >= 0) list.splice(i, 1);
      socket.destroy();
    },
  };
  socket.once('close', entry.drop);
  socket.once('error', entry.drop);
  socket.once('data', entry.drop);
  list.push(entry);
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
      const tokens = value.toLowerCase().split(',').map((t) => t.trim());
      if (tokens.includes('close')) close = true;
      else if (tokens.includes('keep-alive')) close = false;
    }
  }
  if (length < 0) throw new RawHttpError('no Content-Length');
  return { status: Number(m[2]), length, close };
}

/**
 * One GET with the given (signed) headers over a raw socket: resolves the body of a 200/206,
 * rejects on any other status, a network error, a malformed or unsupported response, or no
 * complete answer within `timeoutMs`. A reused socket that fails before answering is replaced by a
 * fresh connection once (the server may have closed it while idle).
 */
export function rawGet(url: URL, headers: Readonly<Record<string, string>>, timeoutMs: number): Promise<Uint8Array> {
  const port = Number(url.port || 80);
  const key = `${url.hostname}:${port}`;
  let request = `GET ${url.pathname}${url.search} HTTP/1.1\r\n`;
  for (const name of Object.keys(headers)) request += `${name}: ${headers[name] as string}\r\n`;
  request += '\r\n';
  const connect = (): net.Socket => net.connect({ host: url.hostname, port, noDelay: true });
  const attempt = (socket: net.Socket, reused: boolean): Promise<Uint8Array> =>
    new Promise<Uint8Array>((resolve, reject) => {
      let head: Buffer | undefined;
      let parsed: { status: number; length: number; close: boolean } | undefined;
      let body: Buffer | undefined;
      let got = 0;
      let answered = false;
      const done = (err: Error | undefined, out?: Uint8Array): void => {
        if (answered) return;
        answered = true;
        socket.removeListener('data', onData);
        socket.removeListener('error', onError);
        socket.removeListener('close', onClose);
        socket.removeListener('timeout', onTimeout);
        if (err !== undefined) {
          socket.destroy();
          if (reused && head === undefined && !(err instanceof RawHttpError) && err.name !== 'TimeoutError') {
            attempt(connect(), false).then(resolve, reject);
          } else reject(err);
          return;
        }
        if (parsed?.close === true) socket.destroy();
        else keepIdle(key, socket);
        resolve(out as Uint8Array);
      };
      const answer = (status: number, bytes: Uint8Array): void => (status === 200 || status === 206 ? done(undefined, bytes) : done(new Error(`HTTP ${status}`)));
      const onBody = (chunk: Buffer): void => {
        const p = parsed as { status: number; length: number };
        if (got + chunk.length > p.length) return done(new RawHttpError('more bytes than Content-Length'));
        if (body === undefined) body = chunk.length === p.length ? chunk : Buffer.allocUnsafe(p.length);
        if (body !== chunk) chunk.copy(body, got);
        got += chunk.length;
        if (got === p.length) answer(p.status, new Uint8Array(body.buffer, body.byteOffset, body.length));
      };
      function onData(chunk: Buffer): void {
        if (parsed !== undefined) return onBody(chunk);
        head = head === undefined ? chunk : Buffer.concat([head, chunk]);
        const end = head.indexOf(CRLFCRLF);
        if (end < 0) {
          if (head.length > MAX_HEAD_BYTES) done(new RawHttpError('response head too large'));
          return;
        }
        try {
          parsed = parseHead(head.toString('latin1', 0, end));
        } catch (e) {
          return done(e as Error);
        }
        const rest = head.subarray(end + 4);
        if (parsed.length === 0) {
          if (rest.length > 0) return done(new RawHttpError('bytes after an empty body'));
          return answer(parsed.status, new Uint8Array(0));
        }
        if (rest.length > 0) onBody(rest);
      }
      function onError(e: Error): void {
        done(e);
      }
      function onClose(): void {
        done(new Error('connection closed before the whole response'));
      }
      function onTimeout(): void {
        const e = new Error(`no complete response in ${timeoutMs} ms`);
        e.name = 'TimeoutError';
        done(e);
      }
      socket.on('data', onData);
      socket.on('error', onError);
      socket.on('close', onClose);
      socket.on('timeout', onTimeout);
      socket.setTimeout(timeoutMs);
      socket.write(request, 'latin1');
    });
  const reuse = takeIdle(key);
  if (reuse !== undefined) return attempt(reuse, true);
  return attempt(connect(), false);
}
