// adapters/storage/object-read/thread-start.ts: which file a footer thread runs — compiled, the
// build's bundle beside the pool; from the sources, the bundle this run's set-up built
// (HIM_FOOTER_WORKER_BUNDLE, test/helpers/thread-bundle-setup.ts) or the tsx entry — and that the
// threads answer from each. Nothing is bundled at run time by the product.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FooterThreads } from '../../../adapters/storage/object-read/footer-pool';
import { footerThreadStart, withoutTsx } from '../../../adapters/storage/object-read/thread-start';
import { ErrorCode, MigrationError } from '../../../core/errors';

const OBJECT_READ = path.resolve(__dirname, '..', '..', '..', 'adapters', 'storage', 'object-read');
const ctx = { schema: { schemaId: 0, fields: [] }, nameMapping: [] };

/** A pool of one thread from `start` answers: bytes that are not a footer → a coded error naming the file. */
async function answers(pool: FooterThreads): Promise<void> {
  try {
    await pool.ready();
    const err = await pool.stats('s3://b/x.parquet', new Uint8Array([1, 2, 3]), ctx).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MigrationError);
    expect((err as MigrationError).code).toBe(ErrorCode.FORMAT_CORRUPT_FOOTER);
    expect((err as MigrationError).message).toContain('s3://b/x.parquet');
  } finally {
    await pool.close();
  }
}

test('compiled (dist/), footer threads start from the bundle the build put beside the pool, whatever the environment says', () => {
  expect(footerThreadStart(true, { HIM_FOOTER_WORKER_BUNDLE: '/elsewhere.cjs' })).toEqual({
    file: path.join(OBJECT_READ, 'footer-worker.bundle.js'),
    options: {},
  });
});

test("from the sources, this run's prebuilt bundle (set up before the tests), without tsx flags; the threads answer", async () => {
  const file = process.env.HIM_FOOTER_WORKER_BUNDLE as string;
  expect(file).toMatch(/\.build\/footer-worker\.cjs$/);
  expect((await fs.stat(file)).isFile()).toBe(true);
  const start = footerThreadStart(false);
  expect(start).toEqual({ file, options: { execArgv: withoutTsx(process.execArgv) } });
  await answers(new FooterThreads(1, start));
});

test('from the sources without a prebuilt bundle (unset, or a file that is not there): the tsx entry, and the threads answer', async () => {
  const entry = { file: path.join(OBJECT_READ, 'footer-worker-entry.cjs'), options: {} };
  expect(footerThreadStart(false, {})).toEqual(entry);
  expect(footerThreadStart(false, { HIM_FOOTER_WORKER_BUNDLE: path.join(os.tmpdir(), 'him-no-such-bundle.cjs') })).toEqual(entry);
  await answers(new FooterThreads(1, footerThreadStart(false, {})));
});

test('withoutTsx drops exactly the flags that load tsx (workers inherit execArgv)', () => {
  // What the tsx CLI and `node --import tsx` put there, among flags that must stay.
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
    "const { FooterThreads } = require('./adapters/storage/object-read/footer-pool');",
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
