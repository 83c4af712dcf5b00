// Flow control for calls to a production HMS: a token bucket (calls per second), bounded
// concurrency over a list, and retries with exponential backoff + full jitter. Adapter code.
import { ErrorCode, MigrationError } from '../../../core/errors';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** At most `ratePerSecond` takes per second on average, bursts up to `burst`. rate 0 = unlimited. */
export class TokenBucket {
  private tokens: number;
  private last = performance.now();
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst = Math.max(1, Math.ceil(ratePerSecond / 10)),
  ) {
    this.tokens = this.burst;
  }

  /** Resolves when the caller may make one call. FIFO. */
  take(): Promise<void> {
    if (this.ratePerSecond <= 0) return Promise.resolve();
    const turn = this.queue.then(() => this.waitForToken());
    this.queue = turn;
    return turn;
  }

  private async waitForToken(): Promise<void> {
    for (;;) {
      const now = performance.now();
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.ratePerSecond);
      this.last = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await sleep(Math.ceil(((1 - this.tokens) / this.ratePerSecond) * 1000));
    }
  }
}

/** `items` in consecutive slices of at most `size`. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += Math.max(1, size)) out.push(items.slice(i, i + Math.max(1, size)));
  return out;
}

/** map over `items` with at most `limit` in flight; results in input order; the first failure rejects. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i] as T, i);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

export interface RetryPolicy {
  /** Total attempts (1 = no retry). */
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** No new attempt starts after this much time since the first one (bounds a dead-HMS failure). */
  readonly maxElapsedMs: number;
}

/** Transport failures only: the request may not have reached HMS, or its answer was lost. */
export function isTransportError(e: unknown): e is MigrationError {
  return e instanceof MigrationError && (e.code === ErrorCode.HMS_UNREACHABLE || e.code === ErrorCode.HMS_TIMEOUT);
}

/**
 * Run `fn`; on an error `shouldRetry` accepts, wait base·2^n with full jitter (capped) and try again,
 * within `attempts` and `maxElapsedMs`. The final error names the attempts made.
 */
export async function withRetry<T>(
  policy: RetryPolicy,
  shouldRetry: (e: unknown) => boolean,
  fn: (attempt: number) => Promise<T>,
  random: () => number = Math.random,
): Promise<T> {
  const t0 = performance.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (e) {
      if (!shouldRetry(e)) throw e;
      const delay = Math.floor(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)));
      const elapsed = performance.now() - t0;
      if (attempt >= policy.attempts || elapsed + delay > policy.maxElapsedMs) {
        if (!(e instanceof MigrationError) || attempt === 1) throw e;
        throw new MigrationError(
          e.code,
          `${e.message} (gave up after ${attempt} attempts in ${Math.round(elapsed)} ms)`,
          { ...e.context, attempts: attempt },
          { cause: e.cause, retryable: e.retryable },
        );
      }
      await sleep(delay);
    }
  }
}
