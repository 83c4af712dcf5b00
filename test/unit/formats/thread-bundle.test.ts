// adapters/formats/threads/bundle.ts: a worker body bundled once and reused while its inputs are
// unchanged; rebuilt when any file that went into it changes; null (the tsx fallback) on a build
// error or when switched off; and the footer threads actually run from the bundle.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { footerThreadStart } from '../../../adapters/formats/footer-threads';
import { buildOrReuse, threadBundle, withoutTsx } from '../../../adapters/formats/threads/bundle';

let root: string;
let cache: string;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'him-bundle-'));
  cache = path.join(root, 'cache');
  await fs.writeFile(path.join(root, 'dep.ts'), 'export const answer = (n: number): number => n * 2;\n');
  await fs.writeFile(
    path.join(root, 'entry.ts'),
    "import { parentPort } from 'node:worker_threads';\nimport { answer } from './dep';\nparentPort?.postMessage(answer(21));\n",
  );
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

function run(file: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const w = new Worker(file);
    w.once('message', (m) => {
      void w.terminate();
      resolve(m);
    });
    w.once('error', reject);
  });
}

test('built once, reused while unchanged, rebuilt when an imported file changes', async () => {
  const entry = path.join(root, 'entry.ts');
  const file = buildOrReuse(entry, root, cache);
  expect(file).not.toBeNull();
  expect(await run(file as string)).toBe(42);
  const built = (await fs.stat(file as string)).mtimeMs;
  const record = JSON.parse(await fs.readFile((file as string).replace(/\.cjs$/, '.json'), 'utf8')) as { inputs: Record<string, unknown> };
  expect(Object.keys(record.inputs).sort()).toEqual(['dep.ts', 'entry.ts']);

  // Another process's view: same inputs → the same file, not rewritten.
  await new Promise((r) => setTimeout(r, 20));
  expect(buildOrReuse(entry, root, cache)).toBe(file);
  expect((await fs.stat(file as string)).mtimeMs).toBe(built);

  // A changed dependency (not the entry) → rebuilt with the new code.
  await fs.writeFile(path.join(root, 'dep.ts'), 'export const answer = (n: number): number => n * 3;\n');
  expect(buildOrReuse(entry, root, cache)).toBe(file);
  expect(await run(file as string)).toBe(63);
});

test('a build error gives null (the caller falls back to tsx) and leaves no bundle', async () => {
  await fs.writeFile(path.join(root, 'dep.ts'), 'export const answer = (n: number): number => ;\n');
  expect(buildOrReuse(path.join(root, 'entry.ts'), root, cache)).toBeNull();
  const left = await fs.readdir(cache).catch(() => [] as string[]);
  expect(left.filter((f) => f.endsWith('.cjs'))).toEqual([]);
});

test('HIM_THREAD_BUNDLE=0 switches bundling off', () => {
  expect(threadBundle(path.join(root, 'entry.ts'), { root, cacheDir: cache, env: { HIM_THREAD_BUNDLE: '0' } })).toBeNull();
  expect(threadBundle(path.join(root, 'entry.ts'), { root, cacheDir: cache, env: {} })).not.toBeNull();
});

test('compiled (dist/), footer threads start from the worker.bundle.js the build put beside the pool: nothing bundled at run time', () => {
  const pool = path.resolve(__dirname, '..', '..', '..', 'adapters', 'formats', 'threads');
  expect(footerThreadStart(true)).toEqual({ file: path.join(pool, 'worker.bundle.js'), options: {} });
});

test('from the TypeScript sources, footer threads run from the bundle of threads/worker.ts, without tsx flags', () => {
  const start = footerThreadStart();
  expect(start.file).toMatch(/node_modules\/\.cache\/hms-iceberg-migrator\/worker-[0-9a-f]{12}\.cjs$/);
  expect(start.options.execArgv).toEqual(withoutTsx(process.execArgv));
});

test('withoutTsx drops exactly the flags that load tsx (workers inherit execArgv)', () => {
  // What the tsx CLI (bin/migrate) and `node --import tsx` put there, among flags that must stay.
  const viaCli = ['--require', '/w/node_modules/tsx/dist/preflight.cjs', '--import', 'file:///w/node_modules/tsx/dist/loader.mjs'];
  expect(withoutTsx(viaCli)).toEqual([]);
  expect(withoutTsx(['--cpu-prof', '--import', 'tsx', '--max-old-space-size=512'])).toEqual(['--cpu-prof', '--max-old-space-size=512']);
  expect(withoutTsx(['--import=tsx', '-r', 'tsx/cjs', '--loader', 'tsx/esm', '--enable-source-maps'])).toEqual(['--enable-source-maps']);
  expect(withoutTsx(['--import', './my-hooks.mjs', '--require', 'dotenv/config'])).toEqual([
    '--import',
    './my-hooks.mjs',
    '--require',
    'dotenv/config',
  ]);
  expect(withoutTsx(['--import'])).toEqual(['--import']);
});

test('a process started with V8 flags (node --max-old-space-size=…) still gets footer threads that answer', () => {
  // Node refuses V8 flags in a worker's explicit execArgv; the pool must start its threads anyway.
  const script = [
    "const { FooterThreads } = require('./adapters/formats/footer-threads');",
    'const t = new FooterThreads(1);',
    "t.ready().then(() => { process.stdout.write('ready ' + process.execArgv.filter((a) => a.startsWith('--max-old')).join(' ')); return t.close(); })",
    '  .catch((e) => { process.stdout.write(`failed ${e.code ?? e.message}`); process.exitCode = 1; });',
  ].join('\n');
  const out = execFileSync(process.execPath, ['--max-old-space-size=600', '--stack-size=900', '--import', 'tsx', '-e', script], {
    cwd: path.resolve(__dirname, '../../..'),
    encoding: 'utf8',
  });
  expect(out).toBe('ready --max-old-space-size=600');
});
