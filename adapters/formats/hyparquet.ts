// Loads hyparquet's Thrift compact-protocol decoder. hyparquet is ESM-only and this project
// compiles to CommonJS: Node ≥ 20.19 (and tsx) can require() it natively; Jest's module loader
// cannot (it refuses require(esm) before Node 24.9), so there we import it through Node's own
// loader in the main context (vm USE_MAIN_CONTEXT_DEFAULT_LOADER). Objects then come from the
// main realm: callers copy byte arrays (`new Uint8Array(x)`) before `instanceof` checks.
import { pathToFileURL } from 'node:url';
import * as vm from 'node:vm';

/** A decoded Thrift struct: `field_<id>` → value (i64 as bigint, binary as Uint8Array, lists as arrays). */
export type ThriftStruct = { readonly [key: `field_${number}`]: unknown };

export interface ThriftModule {
  deserializeTCompactProtocol(reader: { view: DataView; offset: number }): ThriftStruct;
}

let loaded: Promise<ThriftModule> | undefined;

function viaMainContextImport<T>(specifier: string): Promise<T> {
  const constants = (vm as unknown as { constants?: { USE_MAIN_CONTEXT_DEFAULT_LOADER?: symbol } }).constants;
  const loader = constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  if (loader === undefined)
    return Promise.reject(
      new Error('this Node cannot import ESM from CommonJS (need Node ≥ 20.19 or vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER)'),
    );
  const importer = vm.runInThisContext('(s) => import(s)', { importModuleDynamically: loader } as vm.RunningScriptOptions) as (
    s: string,
  ) => Promise<T>;
  return importer(pathToFileURL(specifier).href);
}

/** An ESM-only module file, by require() where the runtime allows it, else through the main-context loader. */
export async function importEsmFile<T>(file: string): Promise<T> {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(file) as T;
  } catch {
    return viaMainContextImport<T>(file);
  }
}

/** hyparquet's `src/thrift.js`, loaded once. */
export function loadThrift(): Promise<ThriftModule> {
  loaded ??= (async () => {
    return importEsmFile<ThriftModule>(require.resolve('hyparquet/src/thrift.js'));
  })();
  return loaded;
}
