// DOT → SVG in-process with the Graphviz WASM build (@hpcc-js/wasm-graphviz): no `dot` binary on
// the machine. The package is ESM-only, so it is loaded lazily (tsx resolves it; jest's CommonJS
// loader cannot, so tests render through the CLI). Adapter code.
import { ErrorCode, MigrationError } from '../../core/errors';

type Layout = (dot: string, format: 'svg', engine: 'dot') => string;

let loaded: Promise<{ layout: Layout }> | undefined;

async function graphviz(): Promise<{ layout: Layout }> {
  loaded ??= import('@hpcc-js/wasm-graphviz').then(async (m) => {
    const gv = await m.Graphviz.load();
    return { layout: (dot, format, engine) => gv.layout(dot, format, engine) };
  });
  return loaded;
}

/** Lay out `dot` with the dot engine and return the SVG document. A DOT syntax error → INTERNAL (our DOT is generated). */
export async function dotToSvg(dot: string): Promise<string> {
  const gv = await graphviz();
  try {
    return gv.layout(dot, 'svg', 'dot');
  } catch (e) {
    throw new MigrationError(ErrorCode.INTERNAL, `graphviz could not lay out the plan graph: ${(e as Error).message}`, {}, { cause: e });
  }
}
