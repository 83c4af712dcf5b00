// Bounded, order-preserving concurrent map over an async iterable: at most `concurrency` calls in
// flight, results yielded in input order (so manifests list files in a deterministic order and a
// rerun writes byte-identical files). Memory: at most `concurrency` pending results. Pure: no I/O of
// its own (the callers' functions do it), so engine/ and app/ both use it.

/** Yields fn(item) for each item in input order, with at most `concurrency` calls running. */
export async function* mapOrdered<T, R>(
  items: AsyncIterable<T> | Iterable<T>,
  concurrency: number,
  fn: (item: T) => Promise<R>,
): AsyncGenerator<R> {
  const limit = Math.max(1, Math.floor(concurrency));
  const window: Promise<R>[] = [];
  const it = (
    Symbol.asyncIterator in Object(items) ? (items as AsyncIterable<T>)[Symbol.asyncIterator]() : (items as Iterable<T>)[Symbol.iterator]()
  ) as AsyncIterator<T> | Iterator<T>;
  let done = false;
  try {
    for (;;) {
      while (!done && window.length < limit) {
        const next = await it.next();
        if (next.done === true) {
          done = true;
          break;
        }
        const p = fn(next.value);
        // Rejections surface when the promise reaches the head of the window; never unhandled.
        p.catch(() => undefined);
        window.push(p);
      }
      const head = window.shift();
      if (head === undefined) return;
      yield await head;
    }
  } finally {
    // Abandoned (a consumer stopped early or a call failed): let the iterator release its resources.
    if (!done) await it.return?.();
    await Promise.allSettled(window);
  }
}
