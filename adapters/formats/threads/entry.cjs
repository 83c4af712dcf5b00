/* eslint-disable @typescript-eslint/no-require-imports, no-undef */
// Worker-thread entry for pool.ts: registers tsx (the project runs TypeScript through it,
// bin/migrate and Jest alike) and loads the TypeScript worker body.
require('tsx/cjs/api').register();
require('./worker.ts');
