// The footer threads' raw HTTP/1.1 GET (adapters/storage/object-read/raw-http.ts rawGet) against a TCP
// server on loopback that answers with exact bytes: keep-alive reuse, `Connection: close`, heads
// and bodies split across packets, and every answer it must refuse (so the caller falls back to
// the store's own read): chunked bodies, missing Content-Length, other statuses, a connection cut
// mid-body, silence past the timeout. Then the product's footer thread, and the bench's A/B
// transports (bench/convert/thread-transports.ts) as a footer thread uses them. The real S3 server
// is covered in test/adapters/formats/parquet.test.ts (every transport).
import * as net from 'node:net';
import { FooterThreads } from '../../../adapters/storage/object-read/footer-pool';
import { RawHttpError, idleSockets, rawGet } from '../../../adapters/storage/object-read/raw-http';
import { THREAD_HTTP_TRANSPORTS, threadHttpTransport } from '../../../bench/convert/thread-transports';
import { transportAbStart } from '../../helpers/transport-ab';
import { ErrorCode, MigrationError } from '../../../core/errors';
import type { SignedRead } from '../../../core/storage/object-store';

type Reply = (req: string, socket: net.Socket, n: number) => void;

/** A server that calls `reply` for each complete request head; counts connections. */
async function server(
  reply: Reply,
): Promise<{ url: (p: string) => URL; connections: () => number; requests: string[]; close: () => Promise<void> }> {
  let connections = 0;
  const requests: string[] = [];
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buf = '';
    socket.on('data', (d) => {
      buf += d.toString('latin1');
      let end: number;
      while ((end = buf.indexOf('\r\n\r\n')) >= 0) {
        const req = buf.slice(0, end);
        buf = buf.slice(end + 4);
        requests.push(req);
        reply(req, socket, requests.length);
      }
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  return {
    url: (p) => new URL(`http://127.0.0.1:${port}${p}`),
    connections: () => connections,
    requests,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => srv.close(() => r()));
    },
  };
}

const ok = (body: string, extra = ''): string =>
  `HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-${body.length - 1}/${body.length}\r\nContent-Length: ${body.length}\r\n${extra}\r\n${body}`;
const text = (b: Uint8Array): string => Buffer.from(b).toString('latin1');

test('keep-alive: three GETs on one connection, signed headers sent as given', async () => {
  const s = await server((_req, socket, n) => socket.write(ok(`body-${n}`)));
  try {
    const headers = {
      host: 'bucket.example:9000',
      range: 'bytes=10-20',
      authorization: 'AWS4-HMAC-SHA256 Credential=x/y, SignedHeaders=host;range, Signature=abc',
    };
    for (let i = 1; i <= 3; i++) expect(text(await rawGet(s.url('/b/k%20y.parquet?x=1'), headers, 2000))).toBe(`body-${i}`);
    expect(s.connections()).toBe(1);
    expect(s.requests[0]).toBe(
      ['GET /b/k%20y.parquet?x=1 HTTP/1.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join('\r\n'),
    );
    expect(idleSockets()).toBeGreaterThanOrEqual(1);
  } finally {
    await s.close();
  }
});

test('Connection: close and HTTP/1.0 answers are not reused; a stale idle socket is replaced', async () => {
  const s = await server((req, socket, n) => {
    if (n === 1) socket.end(ok('a', 'Connection: close\r\n'));
    else if (n === 2) socket.end(`HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nb`);
    else if (n === 3) socket.write(ok('c'));
    else socket.write(ok(req.includes('/d') ? 'd' : '?'));
  });
  try {
    expect(text(await rawGet(s.url('/a'), {}, 2000))).toBe('a');
    expect(text(await rawGet(s.url('/b'), {}, 2000))).toBe('b');
    expect(text(await rawGet(s.url('/c'), {}, 2000))).toBe('c');
    expect(s.connections()).toBe(3);
    // The server drops the idle connection; the next GET still succeeds (fresh connection).
    await s.close();
    const s2 = await server((_r, socket) => socket.write(ok('d')));
    try {
      expect(text(await rawGet(s2.url('/d'), {}, 2000))).toBe('d');
    } finally {
      await s2.close();
    }
  } finally {
    await s.close().catch(() => undefined);
  }
});

test('a reused socket that dies before answering: one retry on a fresh connection', async () => {
  const served = new WeakMap<net.Socket, number>();
  const s = await server((_req, socket) => {
    const n = (served.get(socket) ?? 0) + 1;
    served.set(socket, n);
    if (n === 2)
      socket.destroy(); // the second request on a kept-alive connection: cut, no answer
    else socket.write(ok(`r${n}`));
  });
  try {
    expect(text(await rawGet(s.url('/one'), {}, 2000))).toBe('r1');
    expect(text(await rawGet(s.url('/two'), {}, 2000))).toBe('r1'); // answered on the new connection
    expect(s.connections()).toBe(2);
  } finally {
    await s.close();
  }
});

test('heads and bodies split across packets', async () => {
  const body = 'x'.repeat(70_000);
  const s = await server((_req, socket) => {
    const all = Buffer.from(ok(body), 'latin1');
    const cuts = [5, 20, 40, 100, 30_000, all.length];
    let at = 0;
    const next = (): void => {
      const c = cuts.shift();
      if (c === undefined) return;
      socket.write(all.subarray(at, c));
      at = c;
      setTimeout(next, 5);
    };
    next();
  });
  try {
    const got = await rawGet(s.url('/big'), {}, 2000);
    expect(got.length).toBe(70_000);
    expect(text(got)).toBe(body);
  } finally {
    await s.close();
  }
});

test('refused answers: chunked, no Content-Length, 404, cut mid-body, silence', async () => {
  const s = await server((req, socket) => {
    if (req.includes('/chunked')) socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n');
    else if (req.includes('/nolength')) socket.end('HTTP/1.1 200 OK\r\n\r\nabc');
    else if (req.includes('/missing')) socket.write('HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\n<NoSuch/>');
    else if (req.includes('/cut')) socket.end('HTTP/1.1 206 Partial Content\r\nContent-Length: 10\r\n\r\nabc');
    else if (req.includes('/garbage')) socket.write('SSH-2.0-OpenSSH\r\n\r\n');
    // '/silent': no answer at all
  });
  try {
    await expect(rawGet(s.url('/chunked'), {}, 2000)).rejects.toBeInstanceOf(RawHttpError);
    await expect(rawGet(s.url('/nolength'), {}, 2000)).rejects.toThrow(/no Content-Length/);
    await expect(rawGet(s.url('/missing'), {}, 2000)).rejects.toThrow('HTTP 404');
    await expect(rawGet(s.url('/cut'), {}, 2000)).rejects.toThrow(/closed before the whole response/);
    await expect(rawGet(s.url('/garbage'), {}, 2000)).rejects.toThrow(/malformed status line/);
    const t0 = Date.now();
    await expect(rawGet(s.url('/silent'), {}, 300)).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - t0).toBeLessThan(2000);
  } finally {
    await s.close();
  }
});

test('nothing listening: a connection error, not a hang', async () => {
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  await expect(rawGet(new URL(`http://127.0.0.1:${port}/x`), {}, 2000)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
});

// The product's footer thread (`product`: its one transport) and each transport of the bench's A/B
// (HIM_THREAD_HTTP=raw|undici|fetch in the bench's build of the thread body), against exact
// answers: the body of a 206 reaches the decoder (here: not Parquet, so a coded corrupt-footer
// error naming the file); a 404, a body cut short and silence past the timeout make the thread
// hand the read back (`fallback`: the store's own read retries and maps the error). The request
// head shows which transport sent it (raw and the product: exactly the signed headers; undici adds
// `connection: keep-alive`; fetch adds its `sec-fetch-mode`).
describe.each(['product', ...THREAD_HTTP_TRANSPORTS] as const)('a footer thread with the %s transport', (via) => {
  const schema = { schemaId: 0, fields: [] };
  const ctx = { schema, nameMapping: [] };
  const read = (url: URL, timeoutMs = 2000): SignedRead => ({ url: url.href, headers: { host: url.host, range: 'bytes=0-15' }, timeoutMs });

  test('206 body decoded, error status / short body / silence handed back', async () => {
    const s = await server((req, socket) => {
      if (req.includes('/ok')) socket.write(ok('not a parquet!!!'));
      else if (req.includes('/missing')) socket.write('HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\n<NoSuch/>');
      else if (req.includes('/cut')) socket.end('HTTP/1.1 206 Partial Content\r\nContent-Length: 16\r\n\r\nabc');
      // '/silent': no answer at all
    });
    const pool = via === 'product' ? new FooterThreads(1) : new FooterThreads(1, await transportAbStart(via));
    try {
      const err = await pool.statsRemote('s3://b/ok.parquet', read(s.url('/ok')), 16, 0, ctx).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(MigrationError);
      expect((err as MigrationError).code).toBe(ErrorCode.FORMAT_CORRUPT_FOOTER);
      expect((err as MigrationError).message).toContain('s3://b/ok.parquet');
      const head = s.requests[0] as string;
      expect(head).toMatch(/^GET \/ok HTTP\/1\.1\r\n/);
      expect(head).toContain('range: bytes=0-15');
      expect(head.includes('connection: keep-alive')).toBe(via !== 'raw' && via !== 'product');
      expect(head.includes('sec-fetch-mode')).toBe(via === 'fetch');
      expect(await pool.statsRemote('s3://b/m.parquet', read(s.url('/missing')), 16, 0, ctx)).toEqual({
        kind: 'fallback',
        why: 'HTTP 404',
      });
      expect(await pool.statsRemote('s3://b/c.parquet', read(s.url('/cut')), 16, 0, ctx)).toMatchObject({ kind: 'fallback' });
      const t0 = Date.now();
      expect(await pool.statsRemote('s3://b/s.parquet', read(s.url('/silent'), 300), 16, 0, ctx)).toMatchObject({ kind: 'fallback' });
      expect(Date.now() - t0).toBeLessThan(2000);
    } finally {
      await pool.close();
      await s.close();
    }
  });
});

test("the bench's HIM_THREAD_HTTP picks the transport; unset or unknown is raw", () => {
  expect(threadHttpTransport({})).toBe('raw');
  expect(threadHttpTransport({ HIM_THREAD_HTTP: 'undici' })).toBe('undici');
  expect(threadHttpTransport({ HIM_THREAD_HTTP: 'fetch' })).toBe('fetch');
  expect(threadHttpTransport({ HIM_THREAD_HTTP: 'curl' })).toBe('raw');
});
