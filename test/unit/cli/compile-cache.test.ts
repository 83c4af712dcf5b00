// The CLI's compile cache (cli/compile-cache.ts) in real Node processes: a module tree (a `#!` entry,
// require, require.resolve, require.main, ES modules required from CommonJS, a module calling
// import(), an error's stack) gives the same answers with the cache as without; the second run reads
// every module from the cache (nothing rewritten); a changed module is compiled again, never served
// from its old entry; a corrupt entry is rejected and replaced; `off` writes nothing.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';

let dir = '';
let hook = '';

function run(cache: string, env: Record<string, string> = {}): { stdout: string; files: Map<string, number> } {
  const stdout = execFileSync(process.execPath, ['-r', hook, path.join(dir, 'app', 'main.js')], {
    env: { ...process.env, HIM_COMPILE_CACHE: cache, ...env },
    encoding: 'utf8',
  });
  const files = new Map<string, number>();
  if (cache !== 'off' && cache !== '')
    for (const sub of readdirSync(cache))
      for (const f of readdirSync(path.join(cache, sub))) files.set(f, statSync(path.join(cache, sub, f)).mtimeMs);
  return { stdout, files };
}

function lib(value: string): void {
  writeFileSync(
    path.join(dir, 'app', 'lib.js'),
    `exports.value = ${JSON.stringify(value)};\nexports.fail = () => {\n  throw new Error('from lib');\n};\n`,
  );
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-compile-cache-'));
  hook = path.join(dir, 'hook.js');
  // The module installs itself only as the CLI entry's first import: here, installed by hand.
  const source = path.join(__dirname, '..', '..', '..', 'cli', 'compile-cache.ts');
  buildSync({
    stdin: { contents: `require(${JSON.stringify(source)}).installCompileCache();`, resolveDir: dir, loader: 'js' },
    outfile: hook,
    format: 'cjs',
    platform: 'node',
    bundle: true,
    logLevel: 'silent',
  });
  writeFileSync(path.join(dir, 'package.json'), '{}');
  execFileSync('mkdir', ['-p', path.join(dir, 'app')]);
  writeFileSync(
    path.join(dir, 'app', 'main.js'),
    [
      '#!/usr/bin/env node',
      "const lib = require('./lib');",
      "const where = path => require('path').relative(__dirname, path);",
      'let line = 0;',
      'try { lib.fail(); } catch (e) { line = /lib\\.js:(\\d+)/.exec(e.stack)[1]; }',
      "const esm = require('./esm-pkg').value + require('./esm-syntax').value;",
      "require('./dyn')().then((m) => console.log(JSON.stringify({ value: lib.value, resolved: where(require.resolve('./lib')), line, esm: m.default, main: require.main === module, required: esm })));",
    ].join('\n'),
  );
  writeFileSync(path.join(dir, 'app', 'esm.mjs'), 'export default 42;\n');
  // ES modules required from CommonJS (Node 20.19+): a package of type module, and ES syntax in a .js
  // file of no declared type; Node's own compile loads both.
  execFileSync('mkdir', ['-p', path.join(dir, 'app', 'esm-pkg')]);
  writeFileSync(path.join(dir, 'app', 'esm-pkg', 'package.json'), '{"type": "module", "main": "index.js"}');
  writeFileSync(path.join(dir, 'app', 'esm-pkg', 'index.js'), 'export const value = 1;\n');
  writeFileSync(path.join(dir, 'app', 'esm-syntax.js'), 'export const value = 2;\n');
  // A module that calls import() compiles as usual (Node 20 drops its import hook with cached data).
  writeFileSync(path.join(dir, 'app', 'dyn.js'), "module.exports = () => import('./esm.mjs');\n");
  lib('one');
});

afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

describe('the CLI compile cache', () => {
  const expected = (value: string): string =>
    `${JSON.stringify({ value, resolved: 'lib.js', line: '3', esm: 42, main: true, required: 3 })}\n`;

  it('answers as without a cache, then serves every module from it', () => {
    const cache = path.join(dir, 'cache');
    const first = run(cache);
    expect(first.stdout).toBe(expected('one'));
    expect(first.files.size).toBe(2); // main.js and lib.js (not dyn.js, nor esm.mjs: not CommonJS)
    const second = run(cache);
    expect(second.stdout).toBe(expected('one'));
    expect(second.files).toEqual(first.files); // nothing compiled again, nothing rewritten
  });

  it('compiles a changed module again instead of serving its old entry', () => {
    const cache = path.join(dir, 'cache');
    const before = run(cache).files;
    lib('two');
    const after = run(cache);
    expect(after.stdout).toBe(expected('two'));
    expect(after.files.size).toBe(before.size + 1);
    lib('one');
  });

  it('rejects and replaces an entry that is not V8 code', () => {
    const cache = path.join(dir, 'cache');
    const [sub] = readdirSync(cache);
    const entries = readdirSync(path.join(cache, sub as string));
    for (const f of entries) writeFileSync(path.join(cache, sub as string, f), 'not code');
    expect(run(cache).stdout).toBe(expected('one'));
    // main.js and lib.js as it is now rewritten; the entry of lib.js as it was ('two') not loaded, left.
    const sizes = entries.map((f) => statSync(path.join(cache, sub as string, f)).size);
    expect(sizes.filter((n) => n > 100)).toHaveLength(entries.length - 1);
  });

  it('is not installed by a program that imports the CLI (only by the CLI entry itself)', async () => {
    const proto = (Module as unknown as { prototype: { _compile: unknown } }).prototype;
    const before = proto._compile;
    await import('../../../cli/compile-cache');
    expect(proto._compile).toBe(before);
  });

  it('writes nothing when off', () => {
    const home = path.join(dir, 'home');
    expect(run('off', { HIM_CACHE_DIR: home, XDG_CACHE_HOME: home }).stdout).toBe(expected('one'));
    expect(() => statSync(home)).toThrow();
    // Unset, it takes HIM_CACHE_DIR's compile-cache/.
    expect(run('', { HIM_CACHE_DIR: home }).stdout).toBe(expected('one'));
    expect(readdirSync(path.join(home, 'compile-cache'))).toEqual([`${process.version}-${process.arch}`]);
  });
});
