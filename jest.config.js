// Two projects: `unit` (pure, no components) and `integration` (real components of the local
// stack, which dev/test.sh brings up before jest runs). TypeScript compiled one file at a time by
// esbuild (test/helpers/esbuild-transform.js, as dev/build.ts compiles dist/): no per-suite
// type-check (tsc runs in `npm run lint`).
const os = require('node:os');
const path = require('node:path');

// Jest's transform cache lives with the stack's install cache, outside the clone, under fixed project
// ids (jest's default id is a hash of the clone's path, which made every fresh clone compile every
// file again): entries are keyed by content (test/helpers/esbuild-transform.js), so clones share them.
// (dev/stack/manifest.ts defaultCacheDir's rule.)
const cacheDirectory = path.join(
  process.env.HIM_CACHE_DIR
    ? path.resolve(process.env.HIM_CACHE_DIR)
    : path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'hms-iceberg-migrator'),
  'jest',
);
const common = {
  cacheDirectory,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': '<rootDir>/test/helpers/esbuild-transform.js' },
  moduleFileExtensions: ['ts', 'js', 'json'],
  // thrift@0.23 requires its own uuid@13, which is ESM-only; jest's module loader cannot require()
  // ESM on Node 20 (tsx/node can). Point it at the top-level uuid@11 CommonJS build (thrift only
  // uses parse/stringify, for the UUID wire type HMS does not use).
  moduleNameMapper: { '^uuid$': require.resolve('uuid') },
};
module.exports = {
  testTimeout: 180000,
  // test/schedule.txt's slow suites first (dev/test.sh runs the stack-bound project in parallel).
  testSequencer: '<rootDir>/test/helpers/sequencer.js',
  projects: [
    {
      ...common,
      displayName: 'unit',
      id: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts', '<rootDir>/test/workflows/**/*.test.ts'],
      globalSetup: '<rootDir>/test/helpers/thread-bundle-setup.ts',
    },
    {
      ...common,
      displayName: 'integration',
      id: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/adapters/**/*.test.ts', '<rootDir>/test/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      slowTestThreshold: 30,
    },
  ],
};
