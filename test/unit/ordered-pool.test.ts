// core/ordered-pool.ts: results in input order whatever the completion order, never more than
// `concurrency` calls in flight, and a failed call surfaces at its place in the order.
import { mapOrdered } from '../../core/ordered-pool';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function collect<R>(g: AsyncGenerator<R>): Promise<R[]> {
  const out: R[] = [];
  for await (const r of g) out.push(r);
  return out;
}

describe('mapOrdered', () => {
  it('yields in input order when later items finish first, with at most `concurrency` running', async () => {
    let running = 0;
    let peak = 0;
    const delays = [40, 5, 30, 1, 20, 2, 10];
    const out = await collect(
      mapOrdered(delays, 3, async (ms) => {
        running++;
        peak = Math.max(peak, running);
        await sleep(ms);
        running--;
        return ms * 2;
      }),
    );
    expect(out).toEqual(delays.map((d) => d * 2));
    expect(peak).toBe(3);
  });

  it('takes async iterables and treats a concurrency below 1 as 1', async () => {
    async function* items(): AsyncGenerator<number> {
      for (const i of [3, 1, 2]) yield i;
    }
    let running = 0;
    let peak = 0;
    const out = await collect(
      mapOrdered(items(), 0, async (i) => {
        running++;
        peak = Math.max(peak, running);
        await sleep(1);
        running--;
        return `#${i}`;
      }),
    );
    expect(out).toEqual(['#3', '#1', '#2']);
    expect(peak).toBe(1);
  });

  it('throws the failed call at its place, after the results before it', async () => {
    const seen: number[] = [];
    const g = mapOrdered([1, 2, 3, 4], 2, async (i) => {
      await sleep(5 - i);
      if (i === 3) throw new Error('three failed');
      return i;
    });
    await expect(
      (async () => {
        for await (const r of g) seen.push(r);
      })(),
    ).rejects.toThrow('three failed');
    expect(seen).toEqual([1, 2]);
  });
});
