// The CLI's compile cache: imported first by cli/main.ts, so every module the command loads after it
// (ours and node_modules') starts from V8 code cached by an earlier call instead of being parsed and
// compiled again — about a third of a short command's CPU (`migrate plans`: 0.60 → 0.4x CPU s,
// docs/timings.md). Node 22 has this built in (module.enableCompileCache); on Node 20 the CommonJS
// loader's compile step is replaced by one that compiles through vm.Script with the cached data.
//
// The cache: HIM_COMPILE_CACHE (a directory; `off` disables it), else <HIM_CACHE_DIR or
// ${XDG_CACHE_HOME:-~/.cache}/hms-iceberg-migrator>/compile-cache, one directory per Node version and
// architecture, one file per module named by the hash of its path and wrapped source: a changed
// module has another name, so a stale entry is never read.
// Files are written once, at exit, whole (written aside, then renamed); V8 rejects data that is not
// its own (another V8, other flags) and the module is compiled as usual. Any error of the cache only
// makes it slower, never fails a command.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';

type Compile = (this: NodeModule, content: string, filename: string, format?: string) => unknown;
interface ModuleInternals {
  prototype: { _compile: Compile; require(id: string): unknown };
  wrap(content: string): string;
  _resolveFilename(request: string, parent: NodeModule, isMain: boolean, options?: { paths?: string[] }): string;
  _resolveLookupPaths(request: string, parent: NodeModule): string[] | null;
  _extensions: NodeJS.RequireExtensions;
  _cache: NodeJS.Dict<NodeModule>;
}

const DYNAMIC_IMPORT = /\bimport\s*\(/;

/** The cache directory for this Node, or undefined when disabled. */
export function compileCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const set = env.HIM_COMPILE_CACHE;
  if (set === 'off' || env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const base =
    set !== undefined && set !== ''
      ? set
      : path.join(
          env.HIM_CACHE_DIR
            ? env.HIM_CACHE_DIR
            : path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'hms-iceberg-migrator'),
          'compile-cache',
        );
  return path.join(path.resolve(base), `${process.version}-${process.arch}`);
}

/** The source without a leading `#!` line (the line's end kept, so line numbers hold). */
function withoutShebang(content: string): string {
  if (!content.startsWith('#!')) return content;
  const eol = content.search(/[\r\n]/);
  return eol < 0 ? '' : content.slice(eol);
}

function requireFor(mod: NodeModule, M: ModuleInternals): NodeJS.Require {
  const req = ((id: string) => M.prototype.require.call(mod, id)) as NodeJS.Require;
  const resolve = ((request: string, options?: { paths?: string[] }) =>
    M._resolveFilename(request, mod, false, options)) as NodeJS.RequireResolve;
  resolve.paths = (request: string) => M._resolveLookupPaths(request, mod);
  req.resolve = resolve;
  req.main = (process as { mainModule?: NodeModule }).mainModule;
  req.extensions = M._extensions;
  req.cache = M._cache;
  return req;
}

/** Install the cache into the CommonJS loader (once; not where Node has its own). */
export function installCompileCache(dir: string | undefined = compileCacheDir()): boolean {
  const M = Module as unknown as ModuleInternals & { enableCompileCache?: (dir: string) => unknown };
  if (dir === undefined) return false;
  if (typeof M.enableCompileCache === 'function') {
    M.enableCompileCache(dir);
    return true;
  }
  const pending: { file: string; script: vm.Script }[] = [];
  const original = M.prototype._compile;
  M.prototype._compile = function compileCached(this: NodeModule, content: string, filename: string, format?: string): unknown {
    // Node's own compile for an ES module required from CommonJS (require(esm), format 'module'), and
    // for a module that may call import(): Node 20 loses a script's dynamic-import hook when it comes
    // from cached data (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING).
    if (format === 'module' || DYNAMIC_IMPORT.test(content)) return original.call(this, content, filename, format);
    const wrapper = M.wrap(withoutShebang(content));
    // The path is in the name: V8 keeps the script name it was first compiled under (stack traces).
    const key = createHash('sha256').update(filename).update('\0').update(wrapper).digest('hex');
    const file = path.join(dir, `${key.slice(0, 40)}.bin`);
    let cachedData: Buffer | undefined;
    try {
      cachedData = readFileSync(file);
    } catch {
      cachedData = undefined;
    }
    let script: vm.Script;
    try {
      script = new vm.Script(wrapper, { filename, cachedData });
    } catch (e) {
      // ES module syntax in a .js file of no declared type: Node's compile detects it and loads it as one.
      if (e instanceof SyntaxError) return original.call(this, content, filename, format);
      throw e;
    }
    if (cachedData === undefined || script.cachedDataRejected === true) pending.push({ file, script });
    const fn = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return fn.call(this.exports, this.exports, requireFor(this, M), this, filename, path.dirname(filename));
  };
  process.once('exit', () => {
    if (pending.length === 0) return;
    try {
      mkdirSync(dir, { recursive: true });
      for (const { file, script } of pending) {
        const tmp = `${file}.${process.pid}.tmp`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, file);
      }
    } catch {
      // A cache that cannot be written (read-only home, disk full): the next call compiles again.
    }
  });
  return true;
}

/**
 * Only in the CLI's own process (`node dist/cli/main.js`, the installed `migrate`): a program or a
 * test that imports cli/main keeps its own loader (jest workers compile through theirs).
 */
function isCliProcess(): boolean {
  return require.main !== undefined && require.main.filename === path.join(__dirname, 'main.js');
}

if (isCliProcess()) installCompileCache();
