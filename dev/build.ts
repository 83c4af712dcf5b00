// `npm run build`: the tool compiled into dist/, what `npm pack` ships and bin/migrate runs.
// - Every TypeScript module of the runtime layers (core … cli) transpiled one to one to CommonJS
//   with esbuild (no bundling: dist/ mirrors the source tree, so `__dirname` arithmetic and stack
//   traces keep their shape); the generated Thrift JavaScript copied as is. Type-checking is tsc's
//   job (`npm run lint`); tsconfig.json already has isolatedModules, so one file at a time is exact.
// - `import()` becomes a lazy `require()` (as tsc does for CommonJS): the CLI loads each command's
//   application module only when the command runs. ESM-only packages load by require(esm) (Node
//   ≥ 20.19, package.json `engines`).
// - The footer threads' body (adapters/storage/object-read/footer-worker.ts) also bundled into one
//   file, footer-worker.bundle.js beside the compiled pool (dev/thread-bundle.ts), dependencies
//   external: two threads boot in ~70 ms of process CPU instead of ~130 when each loads the
//   one-to-one files (measured, 3 runs each).
// - The Temporal workflow bundle built ahead of time (bundleWorkflowCode over workflows/index.ts,
//   the very call Worker.create makes for `workflowsPath`) → dist/workflow-bundle.js, which the
//   compiled app/worker/worker.js hands to the worker as `workflowBundle`.
// At run time nothing compiles. Parallel first calls of bin/migrate serialize on a lock directory
// (dist.lock, owner pid inside; a dead owner's lock is taken over); the tree is built aside and
// renamed into place, its stamp (dist/.built, mtime = build start) last written.
// Usage: tsx dev/build.ts [--if-stale] [--quiet]      (bin/migrate passes both; errors always print)
import * as fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { bundleWorkflowCode } from '@temporalio/worker';
import { FOOTER_WORKER_BUNDLE } from '../adapters/storage/object-read/thread-start';
import { FOOTER_WORKER_ENTRY, footerWorkerBuildOptions } from './thread-bundle';

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const STAMP = '.built';
/** The runtime layers (docs/architecture.md), compiled. */
export const SOURCE_DIRS = ['core', 'adapters', 'engine', 'ops', 'activities', 'workflows', 'app', 'cli', 'thrift-idl/gen'] as const;
/** The footer threads' bundle, beside its compiled pool (thread-start.ts starts threads from it). */
const THREAD_BUNDLE = path.join(path.dirname(FOOTER_WORKER_ENTRY), FOOTER_WORKER_BUNDLE);
/**
 * Modules compiled with a package inlined (its runtime code in the module's own dist file), so that
 * package is a dev dependency only: the view SQL parser's Hive grammar (node-sql-parser's per-dialect
 * build and its big-integer; the whole package is 89 MB installed). Each may import nothing else at
 * run time (checked: the build fails when the bundle holds another input).
 */
const INLINED: readonly { readonly entry: string; readonly packages: readonly string[] }[] = [
  { entry: 'adapters/sql/view-deps.ts', packages: ['node-sql-parser', 'big-integer'] },
];
/** Files whose change also makes dist/ stale (dependencies end up in the workflow bundle). Keep in step with bin/migrate. */
export const INPUT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'dev/build.ts', 'dev/thread-bundle.ts'] as const;

function filesUnder(dir: string, withDirs = false): string[] {
  const out: string[] = withDirs ? [dir] : [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p, withDirs));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/**
 * dist/ is missing, or older than one of its inputs (mtime, as make does; bin/migrate checks the same
 * with find -newer). Directories count: a file added or removed makes its directory newer.
 */
export function isStale(root = ROOT): boolean {
  let built: number;
  try {
    built = fs.statSync(path.join(root, 'dist', STAMP)).mtimeMs;
  } catch {
    return true;
  }
  const inputs = [...SOURCE_DIRS.flatMap((d) => filesUnder(path.join(root, d), true)), ...INPUT_FILES.map((f) => path.join(root, f))];
  return inputs.some((f) => fs.existsSync(f) && fs.statSync(f).mtimeMs > built);
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Hold dist.lock while `fn` runs; wait (up to 10 min) while a live process holds it. */
async function withLock<T>(fn: () => Promise<T>): Promise<T> {
  const lock = path.join(ROOT, 'dist.lock');
  const deadline = Date.now() + 600_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = Number(fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }) || 0);
      // A lock without a pid yet is fresh (its owner is between mkdir and write): wait for it.
      if (owner > 0 && !alive(owner)) fs.rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`build: ${lock} held by pid ${owner} for 10 minutes`);
      else await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

async function compile(out: string): Promise<number> {
  const sources = SOURCE_DIRS.flatMap((d) => filesUnder(path.join(ROOT, d)));
  const ts = sources.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  await build({
    entryPoints: ts,
    outdir: out,
    outbase: ROOT,
    absWorkingDir: ROOT,
    bundle: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    supported: { 'dynamic-import': false },
    logLevel: 'warning',
  });
  // The footer threads' body as one file: a thread then starts without resolving and loading each
  // module itself (thread-start.ts footerThreadStart).
  await build(footerWorkerBuildOptions(path.join(out, THREAD_BUNDLE)));
  for (const { entry, packages } of INLINED) {
    const r = await build({
      entryPoints: [path.join(ROOT, entry)],
      outfile: path.join(out, entry.replace(/\.ts$/, '.js')),
      absWorkingDir: ROOT,
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      legalComments: 'inline',
      banner: { js: `// Inlined by dev/build.ts: ${packages.map(inlinedNotice).join('; ')}.` },
      metafile: true,
      logLevel: 'warning',
    });
    const others = Object.keys(r.metafile.inputs).filter((i) => i !== entry && !packages.some((p) => i.includes(`node_modules/${p}/`)));
    if (others.length > 0) throw new Error(`${entry}: inlined with ${packages.join(', ')} but also imports ${others.join(', ')}`);
  }
  for (const f of sources.filter((s) => s.endsWith('.js'))) {
    const to = path.join(out, path.relative(ROOT, f));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(f, to);
  }
  return ts.length;
}

/** The workflow bundle's code: bundleWorkflowCode over workflows/index.ts (test/workflows/replay.test.ts replays every history on it). */
export async function buildWorkflowBundle(): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve(path.join(ROOT, 'workflows', 'index.ts')),
    logger: { trace() {}, debug() {}, info() {}, warn: (m: string) => console.warn(m), error: (m: string) => console.error(m), log() {} },
  });
  return code;
}

/** `name version (license)` of an inlined package, for the banner of the file that carries it. */
function inlinedNotice(name: string): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
    version: string;
    license?: string;
  };
  return `${name} ${pkg.version} (${pkg.license ?? 'see its package'})`;
}

async function workflowBundle(out: string): Promise<number> {
  const code = await buildWorkflowBundle();
  fs.writeFileSync(path.join(out, 'workflow-bundle.js'), code);
  return code.length;
}

/** Build dist/ now (under the lock); with `ifStale`, only when it is stale once the lock is held. */
export async function buildDist(ifStale: boolean, quiet = false): Promise<boolean> {
  return withLock(async () => {
    if (ifStale && !isStale()) return false;
    const started = new Date();
    const tmp = path.join(ROOT, `dist.tmp-${process.pid}`);
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.mkdirSync(tmp);
    const t0 = Date.now();
    let modules = 0;
    let bytes = 0;
    try {
      modules = await compile(tmp);
      bytes = await workflowBundle(tmp);
      fs.writeFileSync(path.join(tmp, STAMP), `built ${started.toISOString()} by dev/build.ts\n`);
      fs.utimesSync(path.join(tmp, STAMP), started, started);
    } catch (e) {
      fs.rmSync(tmp, { recursive: true, force: true }); // a failed build leaves dist/ as it was
      throw e;
    }
    const old = path.join(ROOT, `dist.old-${process.pid}`);
    if (fs.existsSync(DIST)) fs.renameSync(DIST, old);
    fs.renameSync(tmp, DIST);
    fs.rmSync(old, { recursive: true, force: true });
    if (!quiet)
      process.stderr.write(
        `build: ${modules} modules + workflow bundle (${Math.round(bytes / 1024)} KiB) → dist/ in ${Date.now() - t0} ms\n`,
      );
    return true;
  });
}

if (require.main === module) {
  buildDist(process.argv.includes('--if-stale'), process.argv.includes('--quiet')).then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`build failed: ${(e as Error).stack ?? String(e)}\n`);
      process.exit(1);
    },
  );
}
