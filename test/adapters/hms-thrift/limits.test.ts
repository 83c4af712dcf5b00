// Flow control of the Thrift client, as pure logic (no HMS): the token bucket's rate, bounded
// concurrency in input order, retries on transport errors only with capped full-jitter backoff.
import { chunks, mapLimit, TokenBucket, withRetry } from '../../../adapters/hms/thrift/limits';
import { ErrorCode, MigrationError } from '../../../core/errors';

const policy = { attempts: 4, baseDelayMs: 10, maxDelayMs: 40, maxElapsedMs: 10_000 };
const transport = (e: unknown): boolean => e instanceof MigrationError && e.retryable;

describe('hms-thrift limits', () => {
  it('token bucket: 20 takes at 50/s (burst 5) take ~300 ms', async () => {
    const b = new TokenBucket(50, 5);
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 20 }, () => b.take()));
    const ms = performance.now() - t0;
    expect(ms).toBeGreaterThanOrEqual(280);
    expect(ms).toBeLessThan(1_500);
  });

  it('mapLimit keeps input order and never exceeds the limit', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapLimit([5, 1, 4, 2, 3, 0], 2, async (n) => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((r) => setTimeout(r, n * 5));
      inFlight--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 0]);
    expect(peak).toBe(2);
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('retries transport errors with backoff, then names the attempts; never retries HMS exceptions', async () => {
    let calls = 0;
    const e = await withRetry(
      policy,
      transport,
      () => {
        calls++;
        return Promise.reject(new MigrationError(ErrorCode.HMS_UNREACHABLE, 'reset'));
      },
      () => 1,
    ).catch((x: MigrationError) => x);
    expect(calls).toBe(4);
    expect(e).toMatchObject({ code: 'HMS_UNREACHABLE', retryable: true, context: { attempts: 4 } });
    expect(e.message).toMatch(/gave up after 4 attempts/);

    calls = 0;
    const nf = await withRetry(policy, transport, () => {
      calls++;
      return Promise.reject(new MigrationError(ErrorCode.HMS_NOT_FOUND, 'no such table'));
    }).catch((x: MigrationError) => x);
    expect(calls).toBe(1);
    expect(nf.code).toBe('HMS_NOT_FOUND');
  });

  it('recovers when a later attempt succeeds; stops at maxElapsedMs', async () => {
    let calls = 0;
    expect(
      await withRetry(policy, transport, () =>
        ++calls < 3 ? Promise.reject(new MigrationError(ErrorCode.HMS_TIMEOUT, 't')) : Promise.resolve('ok'),
      ),
    ).toBe('ok');
    expect(calls).toBe(3);

    calls = 0;
    const t0 = performance.now();
    await withRetry(
      { ...policy, attempts: 100, baseDelayMs: 50, maxDelayMs: 50, maxElapsedMs: 200 },
      transport,
      () => {
        calls++;
        return Promise.reject(new MigrationError(ErrorCode.HMS_TIMEOUT, 't'));
      },
      () => 1,
    ).catch(() => undefined);
    expect(performance.now() - t0).toBeLessThan(400);
    expect(calls).toBeLessThan(10);
  });
});
