// Jest's TypeScript transformer: each file compiled on its own by esbuild, to CommonJS for Node 20
// with `import()` as a lazy require() — the compile dev/build.ts makes of the product for dist/ (so
// the suites run the code as the CLI runs it). Type-checking is tsc's job (`npm run lint`);
// tsconfig.json has isolatedModules, so one file at a time is exact. Replaces ts-jest: jest's
// transform cache is keyed by the clone's path, so every fresh clone compiles every file, and the
// unit project from an empty cache took 164.0 CPU s with ts-jest, 152.8 with this (docs/timings.md).
const crypto = require('node:crypto');
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { transformSync, version } = require('esbuild');

const root = path.resolve(__dirname, '..', '..');
// What esbuild reads of tsconfig.json's compilerOptions (class field semantics follow `target`).
const { compilerOptions } = JSON.parse(readFileSync(path.join(root, 'tsconfig.json'), 'utf8'));
const tsconfigRaw = { compilerOptions: { target: compilerOptions.target, verbatimModuleSyntax: compilerOptions.verbatimModuleSyntax } };
const options = {
  loader: 'ts',
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  supported: { 'dynamic-import': false },
  sourcemap: 'inline',
  tsconfigRaw,
};
const self = crypto.createHash('sha256').update(readFileSync(__filename)).update(version).update(JSON.stringify(options)).digest('hex');

// The output names its source by the file's base name only (the inline source map's `sources`, which
// stack traces resolve against the compiled file's own path), so it is the same in every clone: with
// jest.config.js's fixed project ids and cache directory, a fresh clone reuses what an earlier clone
// compiled (the key below: this transformer, the path inside the repo, the source).
module.exports = {
  process(source, file) {
    return { code: transformSync(source, { ...options, sourcefile: path.basename(file) }).code };
  },
  getCacheKey(source, file) {
    const rel = path.relative(root, file);
    return crypto.createHash('sha256').update(self).update(rel).update('\0').update(source).digest('hex');
  },
};
