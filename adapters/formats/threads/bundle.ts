// Worker-thread code as one prebuilt CommonJS file — when running from the TypeScript sources only
// (Jest, `tsx bench/…`, `tsx dev/…`). The compiled tool (dist/: bin/migrate, an installed
// `migrate`) starts its threads from dist/…/threads/worker.bundle.js (dev/build.ts) and never loads this file, so at run
// time it compiles nothing and writes nothing into node_modules (pool.ts footerThreadStart).
// From the sources, a worker that registers tsx and resolves, transforms and loads each module
// itself spends ~120–135 ms of CPU per thread before its first request (two footer threads: 307–343
// ms of process CPU against 75–79 ms bundled, 60 of which any two threads cost) — in a 2 s
// conversion on 2 cores that is several percent of the run. So the thread body is bundled once with
// esbuild (the transformer tsx itself uses) into node_modules/.cache/hms-iceberg-migrator/, and
// rebuilt when any file that went into it changes (size and mtime of each, recorded beside the
// bundle). Node modules stay external (required from the project's node_modules at run time).
// Anything unexpected (no esbuild, a read-only tree, a build error) → null: the caller starts the
// thread through its tsx entry instead (slower to start, same behaviour). HIM_THREAD_BUNDLE=0 forces that.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');

interface Recorded {
  readonly esbuild: string;
  readonly node: string;
  /** Project-relative input path → [size, mtimeMs]. */
  readonly inputs: Readonly<Record<string, readonly [number, number]>>;
}

interface Esbuild {
  readonly version: string;
  buildSync(options: Record<string, unknown>): {
    outputFiles?: { text: string }[];
    metafile?: { inputs: Record<string, unknown> };
    errors: unknown[];
  };
}

function loadEsbuild(): Esbuild | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('esbuild') as Esbuild;
  } catch {
    return null;
  }
}

function stamp(file: string): readonly [number, number] | null {
  try {
    const st = fs.statSync(file);
    return [st.size, st.mtimeMs];
  } catch {
    return null;
  }
}

/** The recorded build is current: same esbuild and Node major, every input unchanged. */
function current(recordFile: string, bundleFile: string, esbuildVersion: string, root: string): boolean {
  let rec: Recorded;
  try {
    rec = JSON.parse(fs.readFileSync(recordFile, 'utf8')) as Recorded;
  } catch {
    return false;
  }
  if (rec.esbuild !== esbuildVersion || rec.node !== process.versions.node.split('.')[0] || !fs.existsSync(bundleFile)) return false;
  for (const [rel, want] of Object.entries(rec.inputs)) {
    const got = stamp(path.join(root, rel));
    if (got === null || got[0] !== want[0] || got[1] !== want[1]) return false;
  }
  return true;
}

/** Write `text` to `file` atomically (concurrent processes may build the same bundle). */
function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

export interface BundleOptions {
  /** Where bundles go (default node_modules/.cache/hms-iceberg-migrator under the project). */
  readonly cacheDir?: string;
  /** Project root the inputs are recorded relative to (default: this checkout). */
  readonly root?: string;
  readonly env?: NodeJS.ProcessEnv;
}

const memo = new Map<string, string | null>();

/**
 * The bundled CommonJS file for the TypeScript `entry`, built or reused; null when it cannot be
 * had (the caller falls back to tsx). Memoised per process.
 */
export function threadBundle(entry: string, opts: BundleOptions = {}): string | null {
  const env = opts.env ?? process.env;
  if (env.HIM_THREAD_BUNDLE === '0') return null;
  const root = opts.root ?? ROOT;
  const cacheDir = opts.cacheDir ?? path.join(root, 'node_modules', '.cache', 'hms-iceberg-migrator');
  const memoKey = `${cacheDir}\0${entry}`;
  const known = memo.get(memoKey);
  if (known !== undefined) return known;
  const built = buildOrReuse(entry, root, cacheDir);
  memo.set(memoKey, built);
  return built;
}

/** As threadBundle, without the per-process memo (tests: a second process's view). */
export function buildOrReuse(entry: string, root: string, cacheDir: string): string | null {
  const esbuild = loadEsbuild();
  if (esbuild === null) return null;
  // One bundle per entry path (two checkouts sharing a cache never share a bundle).
  const id = createHash('sha256').update(entry).digest('hex').slice(0, 12);
  const base = path.join(cacheDir, `${path.basename(entry, path.extname(entry))}-${id}`);
  const bundleFile = `${base}.cjs`;
  const recordFile = `${base}.json`;
  try {
    if (current(recordFile, bundleFile, esbuild.version, root)) return bundleFile;
    const out = esbuild.buildSync({
      entryPoints: [entry],
      absWorkingDir: root,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: `node${process.versions.node.split('.')[0]}`,
      packages: 'external',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const text = out.outputFiles?.[0]?.text;
    if (text === undefined || out.metafile === undefined || out.errors.length > 0) return null;
    const inputs: Record<string, readonly [number, number]> = {};
    for (const rel of Object.keys(out.metafile.inputs)) {
      const s = stamp(path.join(root, rel));
      if (s === null) return null;
      inputs[rel] = s;
    }
    fs.mkdirSync(cacheDir, { recursive: true });
    writeAtomic(bundleFile, text);
    const rec: Recorded = { esbuild: esbuild.version, node: process.versions.node.split('.')[0] as string, inputs };
    writeAtomic(recordFile, JSON.stringify(rec));
    return bundleFile;
  } catch {
    return null;
  }
}

/** A `--import`/`--require`/`--loader` value that loads tsx (`tsx`, `tsx/esm`, a path into tsx's dist). */
function isTsx(spec: string): boolean {
  return /^tsx(\/|$)/.test(spec) || /[\\/]node_modules[\\/]tsx[\\/]/.test(spec);
}

const LOADER_FLAGS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader']);

/**
 * `execArgv` for a worker that runs a bundle: the process's own flags without those that load tsx.
 * Workers inherit the parent's execArgv, so under `tsx` (bin/migrate) or `node --import tsx` each
 * thread would still register tsx's loader — the very start-up cost the bundle avoids.
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
