// How a footer thread starts: which file it runs and with which flags. The thread body
// (footer-worker.ts) is bundled into one CommonJS file at build time (dev/build.ts: dist/…/
// footer-worker.bundle.js beside the compiled pool), so a thread loads one file instead of resolving
// and loading each module (two threads boot in ~70 ms of process CPU instead of ~130:
// bench/RESULTS.md "start-up"). Nothing is compiled or written at run time.
// From the TypeScript sources (Jest, `tsx bench/…`), the compiled bundle is not there: the thread
// runs the bundle the test or bench set-up built (HIM_FOOTER_WORKER_BUNDLE: dev/thread-bundle.ts),
// else footer-worker-entry.cjs, which loads the TypeScript body through tsx (slower to start, same
// behaviour).
import * as fs from 'node:fs';
import path from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';

export interface ThreadStart {
  readonly file: string;
  readonly options: WorkerOptions;
}

/** The bundle file dev/build.ts writes beside the compiled pool. */
export const FOOTER_WORKER_BUNDLE = 'footer-worker.bundle.js';

/** A `--import`/`--require`/`--loader` value that loads tsx (`tsx`, `tsx/esm`, a path into tsx's dist). */
function isTsx(spec: string): boolean {
  return /^tsx(\/|$)/.test(spec) || /[\\/]node_modules[\\/]tsx[\\/]/.test(spec);
}

const LOADER_FLAGS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader']);

/**
 * `execArgv` for a worker that runs a bundle: the process's own flags without those that load tsx.
 * Workers inherit the parent's execArgv, so under `tsx` or `node --import tsx` each thread would
 * still register tsx's loader — the very start-up cost the bundle avoids.
 */
export function withoutTsx(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const a = execArgv[i] as string;
    const eq = a.indexOf('=');
    if (eq > 0 && LOADER_FLAGS.has(a.slice(0, eq)) && isTsx(a.slice(eq + 1))) continue;
    if (LOADER_FLAGS.has(a) && i + 1 < execArgv.length && isTsx(execArgv[i + 1] as string)) {
      i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/**
 * The file a footer thread runs. Compiled (dist/: bin/migrate, an installed `migrate`): the build's
 * bundle beside this file. From the sources: the prebuilt bundle HIM_FOOTER_WORKER_BUNDLE names when
 * that file exists (without the tsx loader flags a worker would inherit), else the tsx entry.
 */
export function footerThreadStart(compiled = __filename.endsWith('.js'), env: NodeJS.ProcessEnv = process.env): ThreadStart {
  if (compiled) return { file: path.join(__dirname, FOOTER_WORKER_BUNDLE), options: {} };
  const prebuilt = env.HIM_FOOTER_WORKER_BUNDLE;
  if (prebuilt !== undefined && prebuilt !== '' && fs.existsSync(prebuilt))
    return { file: prebuilt, options: { execArgv: withoutTsx(process.execArgv) } };
  return { file: path.join(__dirname, 'footer-worker-entry.cjs'), options: {} };
}

/**
 * A footer thread. Node refuses V8 and per-process flags in a worker's explicit execArgv
 * (`node --max-old-space-size=4096 …` would fail every conversion with ERR_WORKER_INVALID_EXEC_ARGV);
 * they are process-wide, so the thread has them anyway: it then starts with none listed.
 */
export function startFooterThread(start: ThreadStart = footerThreadStart()): Worker {
  try {
    return new Worker(start.file, start.options);
  } catch (e) {
    if ((e as { code?: unknown }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV' || start.options.execArgv === undefined) throw e;
    return new Worker(start.file, { ...start.options, execArgv: [] });
  }
}
