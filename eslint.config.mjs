// Lint with the architecture's import fences (docs/architecture.md "Layers"): core/ and
// workflows/ are pure — no Node built-ins, no adapters, no engine, no I/O libraries — so workflow
// code stays deterministic and the domain stays testable without components; ops/ (the table
// operations), activities/ and app/ reach the engine only through its port (core/engine-port/),
// constructed by one composition root, cli/compose.ts; ops/ knows no Temporal, and activities/ are
// shims over ops/ that only app/worker/worker.ts (the worker's assembly) imports.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const builtins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
const ioLibraries = [
  '@aws-sdk/*',
  'pg',
  'mysql2',
  'mysql2/*',
  'thrift',
  'avsc',
  'hyparquet',
  'yaml',
  'commander',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
  '@temporalio/testing',
];
const fence = (extra) => ({
  'no-restricted-imports': [
    'error',
    {
      paths: builtins.map((name) => ({ name, message: 'core/ and workflows/ are pure: no Node built-ins (docs/architecture.md).' })),
      patterns: [
        { group: ['**/adapters/**', '**/adapters'], message: 'core/ and workflows/ must not import adapters (docs/architecture.md).' },
        { group: ['**/cli/**', '**/app/**', '**/dev/**'], message: 'core/ and workflows/ must not import cli/, app/ or dev/.' },
        { group: ioLibraries, message: 'core/ and workflows/ must not import I/O libraries (docs/architecture.md).' },
        ...extra,
      ],
    },
  ],
});

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'thrift-idl/gen/**',
      '.stack/**',
      'coverage/**',
      'dist/**',
      'test/fixtures/lint/**',
      '.build/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.py',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['core/**/*.ts'],
    rules: fence([
      {
        group: ['**/ops/**', '**/ops', '**/activities/**', '**/workflows/**', '**/engine/**', '**/engine'],
        message: 'core/ is the bottom layer.',
      },
      { group: ['@temporalio/*'], message: 'core/ does not know Temporal.' },
    ]),
  },
  // cli/ is thin: flags, the application layer (app/), rendering. It reaches no adapter, activity,
  // workflow or I/O library directly (docs/architecture.md); the engine only through the composition
  // root cli/compose.ts (below).
  {
    files: ['cli/**/*.ts'],
    ignores: ['cli/compose.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/adapters/**', '**/adapters', '**/ops/**', '**/activities/**', '**/engine/**', '**/workflows/**', '**/dev/**'],
              message: 'cli/ reaches adapters, operations, activities and workflows only through app/ (docs/architecture.md).',
            },
            {
              group: [...ioLibraries.filter((l) => l !== 'yaml' && l !== 'commander'), '@temporalio/*'],
              message: 'cli/ imports no I/O library: app/ owns the connections (docs/architecture.md).',
            },
          ],
        },
      ],
    },
  },
  // The composition root: the one module that constructs the conversion engine (engine/engine.ts)
  // and hands it to app/. It imports that module and nothing else above core/ but app/.
  {
    files: ['cli/compose.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/adapters/**', '**/adapters', '**/ops/**', '**/activities/**', '**/workflows/**', '**/dev/**'],
              message: 'cli/compose.ts constructs the engine and nothing else (docs/architecture.md).',
            },
            {
              group: ['**/engine/**', '!**/engine/engine'],
              message: 'cli/compose.ts constructs the engine through engine/engine.ts createEngine() only (docs/architecture.md).',
            },
          ],
        },
      ],
    },
  },
  // app/ reaches the engine through its port (core/engine-port/conversion-engine.ts), handed in by the
  // composition root cli/compose.ts: no engine/ module, not even a type.
  {
    files: ['app/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/engine/**', '**/engine'],
              message: 'app/ must not import engine/: the engine comes in through its port (core/engine-port/), built by cli/compose.ts.',
            },
            {
              group: ['**/cli/**', '**/dev/**'],
              message: 'app/ must not import the layer above it (cli/) or dev/.',
            },
            {
              group: ['**/activities/**', '**/activities'],
              message:
                'app/ calls the table operations (ops/), never activities/: only the worker assembly (app/worker/worker.ts) registers them.',
            },
          ],
        },
      ],
    },
  },
  // The worker's assembly registers the activities with its Temporal worker: app/'s fence but for activities/index.ts.
  {
    files: ['app/worker/worker.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/engine/**', '**/engine'],
              message: 'app/ must not import engine/: the engine comes in through its port (core/engine-port/), built by cli/compose.ts.',
            },
            {
              group: ['**/cli/**', '**/dev/**'],
              message: 'app/ must not import the layer above it (cli/) or dev/.',
            },
            {
              group: ['**/activities/**', '!**/activities/index'],
              message: 'the worker assembly registers the activities through activities/index.ts only.',
            },
          ],
        },
      ],
    },
  },
  // workflows may import activities only as types (checked by consistent-type-imports + this fence on values).
  {
    files: ['workflows/**/*.ts'],
    rules: fence([
      { group: ['**/activities/**'], message: 'workflows/ import activities with `import type` only.', allowTypeImports: true },
      { group: ['**/engine/**', '**/engine'], message: 'workflows/ must not import engine/ (it does I/O).' },
      { group: ['**/ops/**', '**/ops'], message: 'workflows/ must not import ops/ (it does I/O): they call activities.' },
    ]),
  },
  // ops/ — the table operations — work over the ports in OpsDeps: no adapter, the conversion engine
  // only as a type (the worker's assembly injects it as OpsDeps.engine) but for engine/record-transition.ts,
  // the lifecycle's recording function over the state store port; no Temporal (what an operation needs
  // of the running activity comes in as ops/runtime.ts's OpsRuntime); nothing above them.
  {
    files: ['ops/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/adapters/**', '**/adapters'],
              message: 'ops/ must not import adapters: reach them through the ports in OpsDeps (docs/architecture.md).',
            },
            {
              regex: '(^|/)engine(/(?!record-transition$).*)?$',
              message: 'ops/ import engine/ with `import type` only: the engine comes in as OpsDeps.engine.',
              allowTypeImports: true,
            },
            {
              group: ['@temporalio/*'],
              message: 'ops/ knows no Temporal: the activity shims hand in an OpsRuntime (ops/runtime.ts).',
            },
            {
              group: ['**/activities/**', '**/activities', '**/workflows/**', '**/app/**', '**/cli/**', '**/dev/**'],
              message: 'ops/ must not import the layers above them (activities/, workflows/, app/, cli/) or dev/.',
            },
          ],
        },
      ],
    },
  },
  // activities/ are Temporal shims over ops/: no adapter, no I/O library but Temporal's, the engine only
  // as a type (the operations do the work and record it).
  {
    files: ['activities/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/adapters/**', '**/adapters'],
              message: 'activities/ must not import adapters: reach them through the ports in OpsDeps (docs/architecture.md).',
            },
            {
              group: ioLibraries.filter((l) => !l.startsWith('@temporalio/')),
              message: 'activities/ are shims over ops/: no I/O library (docs/architecture.md).',
            },
            {
              group: ['**/engine/**', '**/engine'],
              message: 'activities/ import engine/ with `import type` only: the operations (ops/) do the work and record it.',
              allowTypeImports: true,
            },
            {
              group: ['**/app/**', '**/cli/**', '**/dev/**'],
              message: 'activities/ must not import the layers above them (app/, cli/) or dev/.',
            },
          ],
        },
      ],
    },
  },
  // adapters/ and engine/ serve the layers above; they never reach up into them.
  {
    files: ['adapters/**/*.ts', 'engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/ops/**', '**/ops', '**/activities/**', '**/workflows/**', '**/app/**', '**/cli/**', '**/dev/**'],
              message: 'adapters/ and engine/ must not import the layers above them (ops/, activities/, workflows/, app/, cli/) or dev/.',
            },
          ],
        },
      ],
    },
  },
  // engine/ modules export only what they define: the port's types are imported from core/engine-port/,
  // the lifecycle's from core/state/lifecycle.ts, where they are defined.
  {
    files: ['engine/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ExportNamedDeclaration[source], ExportAllDeclaration',
          message: 'engine/ re-exports nothing: import a type from the module that defines it (core/engine-port/, core/).',
        },
      ],
    },
  },
  // adapters/formats/ decodes bytes it is given (through the ObjectStore port at most): sockets, files,
  // threads and S3 clients belong to adapters/storage/ (object-read/ fetches the bytes). This block
  // restates the adapters/ fence above, since a later no-restricted-imports replaces an earlier one.
  {
    files: ['adapters/formats/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['fs', 'fs/promises', 'net', 'tls', 'http', 'https', 'http2', 'worker_threads', 'child_process', 'dgram'].flatMap((m) => [
            { name: m, message: 'adapters/formats/ decodes bytes: fetching (files, sockets, threads) lives in adapters/storage/.' },
            {
              name: `node:${m}`,
              message: 'adapters/formats/ decodes bytes: fetching (files, sockets, threads) lives in adapters/storage/.',
            },
          ]),
          patterns: [
            {
              group: ['**/ops/**', '**/activities/**', '**/workflows/**', '**/app/**', '**/cli/**', '**/dev/**'],
              message: 'adapters/ and engine/ must not import the layers above them (ops/, activities/, workflows/, app/, cli/) or dev/.',
            },
            {
              group: ['../storage/**', '../../storage/**', '**/adapters/storage/**', '@aws-sdk/*', 'undici'],
              message: 'adapters/formats/ decodes bytes: fetching (files, sockets, threads) lives in adapters/storage/.',
            },
          ],
        },
      ],
    },
  },
  // Small functions (docs/architecture.md "Habits" 11): the guide is 40 lines; this is the hard ceiling where the
  // orchestration and the work on one table live.
  {
    files: ['cli/**/*.ts', 'app/**/*.ts', 'ops/**/*.ts', 'activities/**/*.ts', 'workflows/**/*.ts', 'engine/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
);
