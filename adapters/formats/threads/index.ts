// adapters/formats/threads — the footer-thread pool: worker threads that decode Parquet footers
// (parquet/) off the main thread and, where they can, do the footer's I/O themselves. No format
// decoding lives here; this folder is the pool, its worker, how the worker's code is loaded, and the
// worker's HTTP transport.
//   pool.ts          FooterThreads (main thread side), the process-wide pool, how a thread starts
//   worker.ts        the worker body: requests in, FileStats out
//   stats-codec.ts   FileStats ⇄ bytes across postMessage
//   bundle.ts        from the sources only: worker.ts bundled with esbuild into node_modules/.cache
//                    (fast thread start); compiled (dist/), from worker.bundle.js (dev/build.ts)
//   entry.cjs        from the sources, fallback worker entry through tsx when no bundle can be had
//   http.ts          the worker's ranged GET of a signed S3 read: transport selection (raw default)
//   raw-http.ts      the raw-socket HTTP/1.1 client behind the default transport
// Imported by the rest of the repo through ../footer-threads.ts, its one entry point.
export { FooterThreads, footerThreadStart, footerThreadsOnEveryCpu, sharedFooterThreads, startFooterThread } from './pool';
