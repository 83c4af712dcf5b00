// Lint with the architecture's import fences (../shared/ARCHITECTURE.md "Layout"): core/ and
// workflows/ are pure — no Node built-ins, no adapters, no I/O libraries — so workflow code stays
// deterministic and the domain stays testable without components.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const builtins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
const ioLibraries = [
  '@aws-sdk/*', 'pg', 'mysql2', 'mysql2/*', 'thrift', 'avsc', 'hyparquet', 'yaml', 'commander',
  '@temporalio/client', '@temporalio/worker', '@temporalio/activity', '@temporalio/testing',
];
const fence = (extra) => ({
  'no-restricted-imports': ['error', {
    paths: builtins.map((name) => ({ name, message: 'core/ and workflows/ are pure: no Node built-ins (ARCHITECTURE.md).' })),
    patterns: [
      { group: ['**/adapters/**', '**/adapters'], message: 'core/ and workflows/ must not import adapters (ARCHITECTURE.md).' },
      { group: ['**/cli/**', '**/dev/**'], message: 'core/ and workflows/ must not import cli/ or dev/.' },
      { group: ioLibraries, message: 'core/ and workflows/ must not import I/O libraries (ARCHITECTURE.md).' },
      ...extra,
    ],
  }],
});

export default tseslint.config(
  { ignores: ['node_modules/**', 'thrift-idl/gen/**', '.stack/**', 'coverage/**', 'dist/**', 'test/fixtures/lint/**', '**/*.js', '**/*.mjs', '**/*.py'] },
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
  { files: ['core/**/*.ts'], rules: fence([{ group: ['**/activities/**', '**/workflows/**'], message: 'core/ is the bottom layer.' }, { group: ['@temporalio/*'], message: 'core/ does not know Temporal.' }]) },
  // cli/ is thin: flags, the application layer (app/), rendering. It reaches no adapter, activity,
  // workflow or I/O library directly (docs/architecture.md).
  {
    files: ['cli/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/adapters/**', '**/adapters', '**/activities/**', '**/engine/**', '**/workflows/**', '**/dev/**'], message: 'cli/ reaches adapters, activities and workflows only through app/ (docs/architecture.md).' },
          { group: [...ioLibraries.filter((l) => l !== 'yaml' && l !== 'commander'), '@temporalio/*'], message: 'cli/ imports no I/O library: app/ owns the connections (docs/architecture.md).' },
        ],
      }],
    },
  },
  // Function length in the upper floors: a function that does not fit a screen is split.
  { files: ['cli/**/*.ts', 'app/**/*.ts'], rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] } },
  // workflows may import activities only as types (checked by consistent-type-imports + this fence on values).
  { files: ['workflows/**/*.ts'], rules: fence([{ group: ['**/activities/**'], message: 'workflows/ import activities with `import type` only.', allowTypeImports: true }]) },
);
