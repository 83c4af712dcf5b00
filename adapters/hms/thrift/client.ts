// The shared call path of the Thrift reader and writer: a connection pool, a calls-per-second
// limit, retries (transport errors only, never HMS exceptions), per-method latency statistics and
// the cached results of version probes. Adapter code.
import type { HmsAuth, HmsClient } from './connection';
import type { HmsKerberos } from './gssapi';
import { isTransportError, TokenBucket, withRetry } from './limits';
import type { RetryPolicy } from './limits';
import { HmsPool } from './pool';

export interface ThriftHmsOptions {
  readonly uri: string;
  readonly connectTimeoutMs?: number;
  /** Per call. A call that times out poisons its connection (closed and replaced). */
  readonly callTimeoutMs?: number;
  readonly auth?: HmsAuth;
  /** SASL/GSSAPI before the first call of every connection (gssapi.ts). */
  readonly kerberos?: HmsKerberos;
  /** Open connections at most. */
  readonly poolSize?: number;
  /** Tables whose partitions are read at the same time (bounded by the pool anyway). */
  readonly concurrency?: number;
  /** Tables per get_table_objects_by_name_req. */
  readonly tableBatchSize?: number;
  /** Partition names per get_partitions_by_names(_req); also partitions per add_partitions. */
  readonly partitionBatchSize?: number;
  /** Calls per second to HMS across this client (token bucket); 0 = unlimited. */
  readonly callsPerSecond?: number;
  readonly retry?: Partial<RetryPolicy>;
  /** Jitter source (tests pass a fixed one). */
  readonly random?: () => number;
}

export type ResolvedOptions = Required<Omit<ThriftHmsOptions, 'retry' | 'auth' | 'kerberos'>> & {
  readonly retry: RetryPolicy;
  readonly auth: HmsAuth;
  readonly kerberos: HmsKerberos | undefined;
};

export const DEFAULTS = {
  connectTimeoutMs: 10_000,
  callTimeoutMs: 60_000,
  poolSize: 4,
  tableBatchSize: 100,
  partitionBatchSize: 500,
  callsPerSecond: 200,
  retry: { attempts: 4, baseDelayMs: 200, maxDelayMs: 5_000 },
} as const;

export function resolveOptions(o: ThriftHmsOptions): ResolvedOptions {
  const callTimeoutMs = o.callTimeoutMs ?? DEFAULTS.callTimeoutMs;
  const poolSize = o.poolSize ?? DEFAULTS.poolSize;
  return {
    uri: o.uri,
    auth: o.auth ?? 'none',
    kerberos: o.kerberos,
    connectTimeoutMs: o.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
    callTimeoutMs,
    poolSize,
    concurrency: o.concurrency ?? poolSize,
    tableBatchSize: o.tableBatchSize ?? DEFAULTS.tableBatchSize,
    partitionBatchSize: o.partitionBatchSize ?? DEFAULTS.partitionBatchSize,
    callsPerSecond: o.callsPerSecond ?? DEFAULTS.callsPerSecond,
    // By default a dead HMS is given up on after about one call timeout of retrying.
    retry: { ...DEFAULTS.retry, maxElapsedMs: callTimeoutMs, ...o.retry },
    random: o.random ?? Math.random,
  };
}

export interface MethodStats {
  readonly calls: number;
  readonly totalMs: number;
  readonly maxMs: number;
}

/** What version probes found out about the server (undefined = not probed yet). */
export interface ServerFeatures {
  /** get_partitions_by_names_req: HMS 4.x yes, 3.1 no. */
  partitionsByNamesReq?: boolean;
}

export class HmsCaller {
  readonly opts: ResolvedOptions;
  readonly features: ServerFeatures = {};
  private readonly pool: HmsPool;
  private readonly limiter: TokenBucket;
  private readonly stats = new Map<string, { calls: number; totalMs: number; maxMs: number }>();

  constructor(options: ThriftHmsOptions) {
    this.opts = resolveOptions(options);
    const { connectTimeoutMs, callTimeoutMs, auth, kerberos } = this.opts;
    const connect = { connectTimeoutMs, callTimeoutMs, auth, ...(kerberos === undefined ? {} : { kerberos }) };
    this.pool = new HmsPool(this.opts.uri, connect, this.opts.poolSize);
    this.limiter = new TokenBucket(this.opts.callsPerSecond);
  }

  /** An idempotent call: retried on transport errors (connect failure, reset, timeout). */
  read<T>(method: string, fn: (client: HmsClient) => T): Promise<Awaited<T>> {
    return withRetry(this.opts.retry, isTransportError, () => this.once(method, fn), this.opts.random);
  }

  /**
   * A call with effects: retried only when the connection could not be opened (the request never
   * left); a failure after sending is reported as is — the write may or may not have happened.
   */
  async write<T>(method: string, fn: (client: HmsClient) => T): Promise<Awaited<T>> {
    const conn = await withRetry(this.opts.retry, isTransportError, () => this.pool.acquire(), this.opts.random);
    try {
      await this.limiter.take();
      return await this.timed(method, () => conn.call(method, fn));
    } finally {
      this.pool.release(conn);
    }
  }

  private async once<T>(method: string, fn: (client: HmsClient) => T): Promise<Awaited<T>> {
    await this.limiter.take();
    return this.pool.use((conn) => this.timed(method, () => conn.call(method, fn)));
  }

  private async timed<T>(method: string, fn: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      const ms = performance.now() - t0;
      const s = this.stats.get(method) ?? { calls: 0, totalMs: 0, maxMs: 0 };
      s.calls += 1;
      s.totalMs += ms;
      s.maxMs = Math.max(s.maxMs, ms);
      this.stats.set(method, s);
    }
  }

  /** Per-method call counts and latencies so far (for benchmarks and --verbose output). */
  callStats(): Record<string, MethodStats> {
    return Object.fromEntries([...this.stats].map(([m, s]) => [m, { ...s }]));
  }

  close(): void {
    this.pool.close();
  }
}
