// Typed client for the Toxiproxy HTTP API (v2.12), for fault-injection tests against the local
// stack. Proxies live in the toxiproxy server's memory; tests create and delete their own.
// API reference: Shopify/toxiproxy README "HTTP API" and api.go.

/** Toxic types Toxiproxy 2.12 ships, with the attributes each takes. */
export interface ToxicAttributes {
  /** Adds `latency` ms (± `jitter`) to the data passing through. */
  latency: { latency: number; jitter?: number };
  /** Limits the rate to `rate` KB/s. */
  bandwidth: { rate: number };
  /** Closes connections after `timeout` ms, once data has been delayed. */
  slow_close: { delay: number };
  /** Stops all data; closes the connection after `timeout` ms (0 = never, data is dropped). */
  timeout: { timeout: number };
  /** Resets the connection (TCP RST) after `timeout` ms (0 = at once). */
  reset_peer: { timeout: number };
  /** Delays each TCP packet of average size `average_size` by `delay` µs. */
  slicer: { average_size: number; size_variation?: number; delay?: number };
  /** Closes the connection once `bytes` have been sent. */
  limit_data: { bytes: number };
}
export type ToxicType = keyof ToxicAttributes;

export interface Proxy {
  readonly name: string;
  /** host:port the proxy listens on. */
  readonly listen: string;
  /** host:port it forwards to. */
  readonly upstream: string;
  readonly enabled: boolean;
}

export interface Toxic<T extends ToxicType = ToxicType> {
  readonly name: string;
  readonly type: T;
  /** `downstream` (server → client, default) or `upstream` (client → server). */
  readonly stream: 'upstream' | 'downstream';
  /** Probability 0..1 that the toxic applies to a connection. */
  readonly toxicity: number;
  readonly attributes: ToxicAttributes[T];
}

export class ToxiproxyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ToxiproxyError';
  }
}

export class ToxiproxyClient {
  /** @param baseUrl the API, e.g. HIM_TOXIPROXY_URL (`http://127.0.0.1:8474`). */
  constructor(
    readonly baseUrl: string,
    private readonly timeoutMs = 5_000,
  ) {}

  async version(): Promise<string> {
    const body = await this.call<{ version: string }>('GET', '/version');
    return body.version;
  }

  /** Create a proxy listening on `listen` (127.0.0.1:port) in front of `upstream`. */
  createProxy(p: { name: string; listen: string; upstream: string; enabled?: boolean }): Promise<Proxy> {
    return this.call<Proxy>('POST', '/proxies', { enabled: true, ...p });
  }

  /** Delete a proxy (and its toxics). Idempotent: a missing proxy is not an error. */
  async deleteProxy(name: string): Promise<void> {
    await this.call('DELETE', `/proxies/${encodeURIComponent(name)}`, undefined, [404]);
  }

  addToxic<T extends ToxicType>(
    proxy: string,
    t: { name: string; type: T; attributes: ToxicAttributes[T]; stream?: 'upstream' | 'downstream'; toxicity?: number },
  ): Promise<Toxic<T>> {
    return this.call<Toxic<T>>('POST', `/proxies/${encodeURIComponent(proxy)}/toxics`, { stream: 'downstream', toxicity: 1, ...t });
  }

  /** Remove a toxic. Idempotent: a missing toxic is not an error. */
  async removeToxic(proxy: string, toxic: string): Promise<void> {
    await this.call('DELETE', `/proxies/${encodeURIComponent(proxy)}/toxics/${encodeURIComponent(toxic)}`, undefined, [404]);
  }

  private async call<R>(method: string, path: string, body?: unknown, tolerated: readonly number[] = []): Promise<R> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.text();
    if (!res.ok && !tolerated.includes(res.status)) {
      throw new ToxiproxyError(res.status, `toxiproxy ${method} ${path}: HTTP ${res.status} ${text.trim()}`);
    }
    return (text.trim() === '' || !res.ok ? undefined : JSON.parse(text)) as R;
  }
}

/** First proxy listen port: the toxiproxy API port + this, so HIM_PORT_OFFSET moves both together. */
const LISTEN_PORT_BASE_OFFSET = 10;
/** Listen ports handed out per stack (slots 0..LISTEN_PORT_SLOTS-1). */
export const LISTEN_PORT_SLOTS = 20;

/**
 * The listen port for proxy slot `slot`, derived from the stack's toxiproxy port (never hard-coded).
 * Each test file uses its own slot, so suites running side by side do not collide.
 */
export function proxyListenPort(toxiproxyApiPort: number, slot: number): number {
  if (!Number.isInteger(slot) || slot < 0 || slot >= LISTEN_PORT_SLOTS)
    throw new RangeError(`proxy slot must be 0..${LISTEN_PORT_SLOTS - 1}, got ${slot}`);
  return toxiproxyApiPort + LISTEN_PORT_BASE_OFFSET + slot;
}
