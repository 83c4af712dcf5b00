// Bench only: the footer threads' body built with bench/convert/thread-transports.ts in place of
// the product's transport (the footer worker's import of ./thread-transport redirected), so the
// bench's A/B runs the very worker the product runs but for the GET. Returns the bundle's path,
// for HIM_FOOTER_WORKER_BUNDLE (adapters/storage/object-read/thread-start.ts).
import path from 'node:path';
import type { Plugin } from 'esbuild';
import { buildSourceThreadBundle } from '../../dev/thread-bundle';

const SWAP: Plugin = {
  name: 'bench-thread-transports',
  setup(b) {
    b.onResolve({ filter: /^\.\/thread-transport$/ }, (args) =>
      path.basename(args.importer) === 'footer-worker.ts' ? { path: path.join(__dirname, 'thread-transports.ts') } : undefined,
    );
  },
};

export function buildTransportAbBundle(): Promise<string> {
  return buildSourceThreadBundle('footer-worker-transport-ab', [SWAP]);
}
