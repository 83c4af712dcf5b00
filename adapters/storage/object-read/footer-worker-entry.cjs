/* eslint-disable @typescript-eslint/no-require-imports, no-undef */
// A footer thread's entry from the TypeScript sources when no prebuilt bundle is at hand
// (thread-start.ts): registers tsx, which runs the sources, and loads the TypeScript thread body.
require('tsx/cjs/api').register();
require('./footer-worker.ts');
