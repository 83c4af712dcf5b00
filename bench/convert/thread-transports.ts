// Bench only: the footer threads' transport A/B (bench/convert --transport raw,undici,fetch). The
// product's threads have one transport (adapters/storage/object-read/thread-transport.ts, `raw`
// here); for the A/B the bench builds a variant of the thread body whose transport is this module
// (transport-ab-bundle.ts), and each thread picks by HIM_THREAD_HTTP from its environment (a
// worker thread gets a copy of the process's). Measured: bench/RESULTS.md "footer threads' HTTP
// transport".
//   raw     the product's transport
//   undici  undici's Agent#request (the `undici` package when installed, else the copy Node bundles
//           behind its global fetch), one keep-alive pool per origin
//   fetch   the global fetch (Node's bundled undici through the WHATWG Fetch layer)
import type { Readable } from 'node:stream';
import type { SignedRead } from '../../core/storage/object-store';
import { threadGet as rawOrTlsGet } from '../../adapters/storage/object-read/thread-transport';
import type { BodyAllocator } from '../../adapters/storage/object-read/thread-transport';

export type { BodyAllocator };

export const THREAD_HTTP_TRANSPORTS = ['raw', 'undici', 'fetch'] as const;
export type ThreadHttpTransport = (typeof THREAD_HTTP_TRANSPORTS)[number];

/** HIM_THREAD_HTTP as a transport; unset, empty or unknown → `raw`. */
export function threadHttpTransport(env: NodeJS.ProcessEnv = process.env): ThreadHttpTransport {
  const v = env.HIM_THREAD_HTTP;
  return (THREAD_HTTP_TRANSPORTS as readonly string[]).includes(v ?? '') ? (v as ThreadHttpTransport) : 'raw';
}

const via = threadHttpTransport();
const allocate: BodyAllocator = (n) => new Uint8Array(n);

/** The body of a signed ranged GET through this thread's transport (the product's signature). */
export function threadGet(read: SignedRead, alloc: BodyAllocator = allocate): Promise<Uint8Array> {
  if (via === 'undici') return undiciGet(read, alloc);
  if (via === 'fetch') return fetchGet(read, alloc);
  return rawOrTlsGet(read, alloc);
}

/** A body of exactly Content-Length bytes, or a failure (a short or long body, no length). */
function sized(
  length: string | null | undefined,
  alloc: BodyAllocator,
): { readonly out: Uint8Array; add(chunk: Uint8Array): void; whole(): Uint8Array } {
  if (length === null || length === undefined || !/^\d+$/.test(length)) throw new Error('no Content-Length');
  const out = alloc(Number(length));
  let got = 0;
  return {
    out,
    add(chunk) {
      if (got + chunk.length > out.length) throw new Error('more bytes than Content-Length');
      out.set(chunk, got);
      got += chunk.length;
    },
    whole() {
      if (got !== out.length) throw new Error(`body ended after ${got} of ${out.length} bytes`);
      return out;
    },
  };
}

async function fetchGet(read: SignedRead, alloc: BodyAllocator): Promise<Uint8Array> {
  const res = await fetch(read.url, { headers: read.headers, signal: AbortSignal.timeout(read.timeoutMs) });
  if (res.status !== 200 && res.status !== 206) {
    await res.body?.cancel();
    throw new Error(`HTTP ${res.status}`);
  }
  const body = sized(res.headers.get('content-length'), alloc);
  if (res.body !== null) for await (const chunk of res.body) body.add(chunk);
  return body.whole();
}

/** What this file uses of undici's Agent (Dispatcher#request). */
interface UndiciAgent {
  request(opts: {
    origin: string;
    path: string;
    method: 'GET';
    headers: Readonly<Record<string, string>>;
    headersTimeout: number;
    bodyTimeout: number;
  }): Promise<{
    statusCode: number;
    headers: Readonly<Record<string, string | string[] | undefined>>;
    body: Readable & { dump(): Promise<void> };
  }>;
}
type UndiciAgentClass = new (opts: { keepAliveTimeout: number; connections: number }) => UndiciAgent;

let undiciAgent: UndiciAgent | undefined;

/** The undici package's Agent when installed, else the class of Node's own global dispatcher. */
function agentClass(): UndiciAgentClass {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('undici') as { Agent: UndiciAgentClass }).Agent;
  } catch {
    // Node creates its bundled undici's global dispatcher on the first fetch() call (synchronously):
    // a data: URL fetch makes it exist without a request on the network.
    void fetch('data:,').then(
      (r) => r.arrayBuffer(),
      () => undefined,
    );
    const d = (globalThis as Record<symbol, unknown>)[Symbol.for('undici.globalDispatcher.1')] as
      | { constructor: UndiciAgentClass }
      | undefined;
    if (d === undefined) throw new Error("no undici available (neither the package nor Node's global dispatcher)");
    return d.constructor;
  }
}

function undiciGet(read: SignedRead, alloc: BodyAllocator): Promise<Uint8Array> {
  undiciAgent ??= new (agentClass())({ keepAliveTimeout: 30_000, connections: 64 });
  const url = new URL(read.url);
  const sent = undiciAgent.request({
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: 'GET',
    headers: read.headers,
    headersTimeout: read.timeoutMs,
    bodyTimeout: read.timeoutMs,
  });
  return sent.then(async (res) => {
    if (res.statusCode !== 200 && res.statusCode !== 206) {
      await res.body.dump();
      throw new Error(`HTTP ${res.statusCode}`);
    }
    const length = res.headers['content-length'];
    const body = sized(Array.isArray(length) ? undefined : length, alloc);
    return new Promise<Uint8Array>((resolve, reject) => {
      res.body.on('data', (c: Buffer) => {
        try {
          body.add(c);
        } catch (e) {
          res.body.destroy();
          reject(e as Error);
        }
      });
      res.body.on('error', reject);
      res.body.on('end', () => {
        try {
          resolve(body.whole());
        } catch (e) {
          reject(e as Error);
        }
      });
    });
  });
}
