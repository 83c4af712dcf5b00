// `migrate plan` file handling: lineage YAML errors are coded with line:col, outputs are rendered in
// memory first and land via temp file + rename (no temp files left, nothing written on a bad --graph).
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BuiltPlan } from '../../../../app/plan/build';
import { DEFAULT_THROUGHPUT, readLineage, renderReviewOutputs, writePlanOutputs } from '../../../../app/plan/build';
import { readPlanFile } from '../../../../app/plan/plan-input';
import { renderDiff } from '../../../../cli/commands/plan';
import { buildGraph } from '../../../../core/plan/graph';
import { buildPlan } from '../../../../core/plan/plan-file';
import { planWaves } from '../../../../core/plan/waves';
import { baseOptions, edge, table } from '../fixtures';

let dir = '';
beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'him-plan-out-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function built(): BuiltPlan {
  const tables = [table('db.a'), table('db.v', { kind: 'view' })];
  const edges = [edge('db.a', 'db.v')];
  const waves = planWaves(buildGraph(tables, edges), baseOptions);
  const plan = buildPlan(
    {
      createdAt: '2026-01-01T00:00:00.000Z',
      toolVersion: 't',
      source: { uri: 'thrift://h:1', label: '' },
      targetCatalog: 'cat',
      throughput: DEFAULT_THROUGHPUT,
    },
    waves,
    {
      tables: [
        { id: 'db.v', class: 'migrate', kind: 'view', codes: ['VIEW'] },
        { id: 'db.a', class: 'migrate', codes: [] },
      ],
      edges: edges.map((e) => ({ from: e.from, to: e.to, reason: e.reason })),
    },
  );
  return { plan, edges, assessed: { tables: [], edges } };
}

describe('readLineage', () => {
  it('malformed YAML → LINEAGE_INVALID with file:line:col; schema errors name the path', () => {
    const bad = path.join(dir, 'l.yaml');
    writeFileSync(bad, 'version: 1\njobs: [ {name: x, reads: [a.b}\n');
    expect(() => readLineage(bad)).toThrow(
      expect.objectContaining({ code: 'LINEAGE_INVALID', message: expect.stringMatching(/l\.yaml:\d+:\d+: not valid YAML/) }),
    );
    writeFileSync(bad, 'version: 1\njobs:\n  - {name: j, reads: [a.b], writes: [c]}\n');
    expect(() => readLineage(bad)).toThrow(/jobs\[0\]\.writes\[0\]: expected db\.table/);
    expect(() => readLineage(path.join(dir, 'none.yaml'))).toThrow(expect.objectContaining({ code: 'LINEAGE_INVALID' }));
    writeFileSync(bad, 'version: 1\njobs:\n  - {name: j, reads: [A.B], writes: [c.d]}\n');
    expect(readLineage(bad)).toEqual([{ from: 'a.b', to: 'c.d', reason: 'lineage' }]);
  });
});

describe('writePlanOutputs', () => {
  it('writes plan, report and graph, leaving no temp files; the plan reads back', async () => {
    const b = built();
    const out = path.join(dir, 'p.json');
    await writePlanOutputs(b, { out, report: path.join(dir, 'r.md'), graph: path.join(dir, 'g.mmd') });
    expect(readdirSync(dir).sort()).toEqual(['g.mmd', 'p.json', 'r.md']);
    expect(readPlanFile(out).hash).toBe(b.plan.hash);
    expect(readFileSync(path.join(dir, 'r.md'), 'utf8')).toContain('db.v');
  });

  it('the report and graph re-rendered from the plan file read back (migrate show) are byte-identical to what was written', async () => {
    const out = path.join(dir, 'p.json');
    const [md, html, dot, mmd] = ['r.md', 'r.html', 'g.dot', 'g.mmd'].map((f) => path.join(dir, f)) as [string, string, string, string];
    await writePlanOutputs(built(), { out, report: md, graph: dot });
    await writePlanOutputs(built(), { out, report: html, graph: mmd });
    const again = await renderReviewOutputs(readPlanFile(out), { report: md, graph: dot });
    const again2 = await renderReviewOutputs(readPlanFile(out), { report: html, graph: mmd });
    for (const [f, text] of [...again, ...again2]) expect([f, text]).toEqual([f, readFileSync(f, 'utf8')]);
    expect(again.map(([f]) => f)).toEqual([md, dot]);
    const bare = { ...built().plan, review: undefined };
    await expect(renderReviewOutputs(bare, { report: md })).rejects.toMatchObject({ code: 'USAGE' });
  });

  it('a bad --graph extension writes nothing', async () => {
    await expect(writePlanOutputs(built(), { out: path.join(dir, 'p.json'), graph: path.join(dir, 'g.png') })).rejects.toMatchObject({
      code: 'USAGE',
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an edited plan file is refused with its path; an identical diff says so', async () => {
    const out = path.join(dir, 'p.json');
    await writePlanOutputs(built(), { out });
    writeFileSync(out, readFileSync(out, 'utf8').replace('"cat"', '"dog"'));
    expect(() => readPlanFile(out)).toThrow(expect.objectContaining({ code: 'PLAN_HASH_MISMATCH', message: expect.stringContaining(out) }));
    expect(existsSync(out)).toBe(true);
    expect(renderDiff({ added: [], removed: [], moved: [], classChanged: [], fingerprintChanged: [] })).toMatch(/same tables/);
  });
});
