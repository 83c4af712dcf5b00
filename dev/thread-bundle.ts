// The footer threads' body (adapters/storage/object-read/footer-worker.ts) bundled into one CommonJS
// file with esbuild, dependencies external. dev/build.ts puts it into dist/ beside the compiled pool;
// tests and benches that run the TypeScript sources build it once per run into .build/ and name it
// in HIM_FOOTER_WORKER_BUNDLE (inherited by their workers and child processes), where the pool's
// thread-start.ts looks for it. The product never bundles anything at run time.
import * as fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import type { BuildOptions, Plugin } from 'esbuild';

const ROOT = path.resolve(__dirname, '..');
/** The thread body, relative to the repository root. */
export const FOOTER_WORKER_ENTRY = 'adapters/storage/object-read/footer-worker.ts';
/** Where runs from the sources put their bundle (git-ignored). */
export const SOURCE_BUNDLE_DIR = path.join(ROOT, '.build');

/** esbuild's options for the thread bundle written to `outfile` (extra plugins: a bench's variant). */
export function footerWorkerBuildOptions(outfile: string, plugins: readonly Plugin[] = []): BuildOptions {
  return {
    entryPoints: [path.join(ROOT, FOOTER_WORKER_ENTRY)],
    outfile,
    absWorkingDir: ROOT,
    bundle: true,
    packages: 'external',
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    plugins: [...plugins],
  };
}

/**
 * Builds the thread bundle as `<SOURCE_BUNDLE_DIR>/<name>.cjs` (written aside and renamed, so
 * concurrent runs never load half a file) and returns its path.
 */
export async function buildSourceThreadBundle(name = 'footer-worker', plugins: readonly Plugin[] = []): Promise<string> {
  fs.mkdirSync(SOURCE_BUNDLE_DIR, { recursive: true });
  const file = path.join(SOURCE_BUNDLE_DIR, `${name}.cjs`);
  const tmp = `${file}.${process.pid}.tmp`;
  await build(footerWorkerBuildOptions(tmp, plugins));
  fs.renameSync(tmp, file);
  return file;
}

/** Builds the thread bundle for a run from the sources and points HIM_FOOTER_WORKER_BUNDLE at it. */
export async function useSourceThreadBundle(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const file = await buildSourceThreadBundle();
  env.HIM_FOOTER_WORKER_BUNDLE = file;
  return file;
}
