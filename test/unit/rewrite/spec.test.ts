// The rewrite path's pure decisions (core/rewrite/spec.ts), its planning (waves: opt-in only) and
// its estimate (core/plan/estimates.ts), and the job's copy of the canonical checksum definition.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ErrorCode } from '../../../core/errors';
import { assessTable } from '../../../core/assess/assess';
import { estimateWave, tableSeconds } from '../../../core/plan/estimates';
import { buildGraph } from '../../../core/plan/graph';
import { TableClass } from '../../../core/assess/types';
import { planWaves } from '../../../core/plan/waves';
import { REWRITE_MARKER, rewritable, rewriteJobId, rewriteLocation, rewriteRefusal, rewriteSpec } from '../../../core/rewrite/spec';
import { errorOf } from '../../helpers/errors';
import { inv, partition, table, TEXT_SD } from '../assess/fixture';
import { baseOptions, table as planTable } from '../plan/fixtures';

const text = (params: Record<string, string> = {}, tableParams: Record<string, string> = {}) =>
  inv(
    table({
      sd: { ...TEXT_SD, serde: { name: null, serializationLib: TEXT_SD.serde!.serializationLib, parameters: params } },
      parameters: tableParams,
    }),
  );

describe('rewrite spec', () => {
  it('a text table with a header line is rewritable; its spec carries serde and table properties, locations and the marker-free target', () => {
    const t = text({ 'field.delim': '|' }, { 'skip.header.line.count': '1' });
    const a = assessTable(t);
    expect(a.class).toBe(TableClass.REWRITE_REQUIRED);
    expect(rewritable(t, a.findings)).toBe(true);
    const s = rewriteSpec({
      inv: t,
      planHash: 'p1',
      tableId: 'db.t',
      target: { namespace: 'x_db', name: 't' },
      warehouse: 's3a://lake/rw/',
      catalogProperties: { type: 'rest' },
    });
    expect(s.jobId).toBe(rewriteJobId('p1', 'db.t'));
    expect(s.jobId).toMatch(/^[0-9a-f]{16}$/);
    expect(s.target.location).toBe(`s3://lake/rw/x_db/t-${s.jobId}`);
    expect(s.source.serdeParams).toEqual({ 'field.delim': '|' });
    expect(s.source.tableParams['skip.header.line.count']).toBe('1');
    expect(s.source.locations).toEqual([{ location: 's3a://wh/db/t', values: [] }]);
    expect(Object.keys(s.target.properties)).not.toContain(REWRITE_MARKER);
  });

  it('job id and location are fixed per (plan, table) and differ across plans and tables', () => {
    expect(rewriteJobId('p', 'db.a')).toBe(rewriteJobId('p', 'db.a'));
    expect(new Set([rewriteJobId('p', 'db.a'), rewriteJobId('q', 'db.a'), rewriteJobId('p', 'db.b')]).size).toBe(3);
    expect(rewriteLocation('s3://w', 'n', 't', 'abc')).toBe('s3://w/n/t-abc');
  });

  it('partitions: one location per partition, the default partition as null', () => {
    const t = inv(table({ sd: TEXT_SD, partitionKeys: [{ name: 'dt', type: 'string', comment: null }] }), [
      partition('dt=a', { sd: TEXT_SD }),
      { ...partition('dt=x', { sd: TEXT_SD }), values: ['__HIVE_DEFAULT_PARTITION__'] },
    ]);
    const s = rewriteSpec({
      inv: t,
      planHash: 'p',
      tableId: 'db.t',
      target: { namespace: 'n', name: 't' },
      warehouse: 's3://w',
      catalogProperties: {},
    });
    expect(s.source.locations).toEqual([
      { location: 's3a://wh/db/t/dt=a', values: ['a'] },
      { location: 's3a://wh/db/t/dt=x', values: [null] },
    ]);
  });

  it.each([
    [{ 'skip.header.line.count': '2' }, 'skip.header.line.count=2'],
    [{ 'escape.delim': '\\' }, 'escape.delim'],
    [{ 'line.delim': '\r' }, 'line.delim'],
    [{ 'skip.footer.line.count': '1' }, 'skip.footer.line.count'],
  ])('refuses %j (REWRITE_UNSUPPORTED names it)', (params, named) => {
    const t = text(params);
    expect(rewriteRefusal(t)).toContain(named);
    expect(rewritable(t, assessTable(t).findings)).toBe(false);
    const e = errorOf(() =>
      rewriteSpec({
        inv: t,
        planHash: 'p',
        tableId: 'db.t',
        target: { namespace: 'n', name: 't' },
        warehouse: 's3://w',
        catalogProperties: {},
      }),
    );
    expect(e.code).toBe(ErrorCode.REWRITE_UNSUPPORTED);
    expect(e.message).toContain(named);
  });

  it('an unknown serde is not rewritable', () => {
    const t = inv(
      table({ sd: { ...TEXT_SD, serde: { name: null, serializationLib: 'org.apache.hadoop.hive.serde2.RegexSerDe', parameters: {} } } }),
    );
    expect(rewriteRefusal(t)).toContain('RegexSerDe');
  });
});

describe('planning the rewrite path', () => {
  const tables = [
    planTable('db.a', { class: TableClass.REWRITE_REQUIRED, rewritable: true, bytes: 8_000_000 }),
    planTable('db.b', { class: TableClass.REWRITE_REQUIRED, rewritable: false }),
    planTable('db.c'),
  ];
  it('without rewrite: both rewrite-required tables not planned', () => {
    const w = planWaves(buildGraph(tables, []), baseOptions);
    expect(w.notPlanned).toEqual([
      { id: 'db.a', reason: 'CLASS_REWRITE_REQUIRED' },
      { id: 'db.b', reason: 'CLASS_REWRITE_REQUIRED' },
    ]);
  });
  it('with rewrite: the rewritable one is planned, the other still not', () => {
    const w = planWaves(buildGraph(tables, []), { ...baseOptions, rewrite: true });
    expect(w.waves.flatMap((x) => x.tables.map((t) => t.id)).sort()).toEqual(['db.a', 'db.c']);
    expect(w.notPlanned).toEqual([{ id: 'db.b', reason: 'CLASS_REWRITE_REQUIRED' }]);
  });
  it('the estimate of a rewrite table is its bytes at the rewrite rate', () => {
    const tp = { filesPerSecond: 100, bytesPerSecond: 50e6, perTableOverheadSeconds: 5, rewriteBytesPerSecond: 2e6 };
    expect(tableSeconds({ files: 10, bytes: 8e6, class: 'rewrite-required' }, tp)).toBe(4 + 5);
    expect(tableSeconds({ files: 10, bytes: 8e6, class: 'migrate' }, tp)).toBeCloseTo(0.1 + 0.16 + 5);
    expect(estimateWave([{ files: 10, bytes: 8e6, class: 'rewrite-required' }], tp).expectedSeconds).toBe(9);
  });
});

describe('jobs/canonical.py', () => {
  // One definition: the job ships it, and every verifier, seed and test script imports that copy.
  const root = path.resolve(__dirname, '..', '..', '..');
  const scripts = execFileSync('git', ['ls-files', '*.py'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f !== '');
  it('is defined once, in jobs/canonical.py', () => {
    const defining = scripts.filter((f) => /^def canonical_json\(/m.test(readFileSync(path.join(root, f), 'utf8')));
    expect(defining).toEqual(['jobs/canonical.py']);
  });
  it('every script that imports it puts jobs/ on its path first', () => {
    const importers = scripts.filter((f) => /^\s*from canonical import/m.test(readFileSync(path.join(root, f), 'utf8')));
    expect(importers.length).toBeGreaterThan(5);
    for (const f of importers) {
      const text = readFileSync(path.join(root, f), 'utf8');
      const at = text.search(/^\s*from canonical import/m);
      if (f.startsWith('jobs/')) continue;
      expect([f, text.slice(0, at).includes('"jobs"))')]).toEqual([f, true]);
    }
  });
});
