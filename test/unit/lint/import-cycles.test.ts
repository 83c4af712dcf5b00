// No import cycle among the product's modules (dev/tools/import-cycles.ts: every import, type-only
// ones too). A circle means one concept cut in two files; open it by moving what both need to a
// module below them (docs/architecture.md "Layers").
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cyclesOf, importGraph, productCycles } from '../../../dev/tools/import-cycles';

describe('import cycles', () => {
  it('finds a circle of three, a self-import, and none in a tree', () => {
    const g = new Map<string, string[]>([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
      ['f', ['d']],
    ]);
    expect(cyclesOf(g)).toEqual([['a', 'b', 'c'], ['e']]);
    expect(
      cyclesOf(
        new Map([
          ['x', ['y']],
          ['y', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('reads type-only imports, re-exports and index files from source', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'him-cycles-'));
    mkdirSync(path.join(dir, 'm'));
    writeFileSync(path.join(dir, 'a.ts'), "import type { B } from './m';\nexport type A = B;\n");
    writeFileSync(path.join(dir, 'm', 'index.ts'), "export { c } from '../c';\nexport type B = number;\n");
    writeFileSync(path.join(dir, 'c.ts'), "import type { A } from './a';\nimport { z } from 'zod';\nexport const c: A = 1;\nvoid z;\n");
    const files = ['a.ts', 'm/index.ts', 'c.ts'].map((f) => path.join(dir, f));
    expect(cyclesOf(importGraph(files)).map((c) => c.map((f) => path.relative(dir, f)))).toEqual([['a.ts', 'c.ts', 'm/index.ts']]);
  });

  it('the product has none', () => {
    expect(productCycles(path.resolve(__dirname, '..', '..', '..'))).toEqual([]);
  });
});
