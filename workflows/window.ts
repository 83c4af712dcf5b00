// A bounded set of running promises keyed by id, settled one at a time in completion order: the
// sliding window the wave and the nightly validation run their tables in, far below Temporal's
// 2,000 pending activities/children per execution (docs/design/temporal-rules.md §0, §4). Deterministic.
// Every promise added is first given a recovery, so none can reject unobserved (an unhandled
// rejection fails the workflow task, which Temporal then retries for ever).

export class SlidingWindow<R> {
  private readonly running = new Map<string, Promise<{ key: string; value: R }>>();

  constructor(private readonly limit: number) {}

  get size(): number {
    return this.running.size;
  }

  get full(): boolean {
    return this.running.size >= this.limit;
  }

  /** Run `p` in the window; a rejection becomes `recover(e)`'s value. */
  add(key: string, p: Promise<R>, recover: (e: unknown) => R): void {
    this.running.set(
      key,
      p.then(
        (value) => ({ key, value }),
        (e: unknown) => ({ key, value: recover(e) }),
      ),
    );
  }

  /** The next one to finish (the window must not be empty). */
  async next(): Promise<R> {
    const r = await Promise.race(this.running.values());
    this.running.delete(r.key);
    return r.value;
  }

  /** Wait for every running one, in completion order. */
  async drain(each: (r: R) => void): Promise<void> {
    while (this.running.size > 0) each(await this.next());
  }
}

/** The window size from a requested concurrency: at least 1, at most 200 children at once. */
export const windowLimit = (requested: number | undefined, fallback: number): number => Math.max(1, Math.min(requested ?? fallback, 200));
