// The read-back activities over a fake engine and state store (no components): which tables a wave's
// batches cover (migrated metadata-only tables without evidence, `tablesPerJob` each; none when off),
// each table's evidence recorded under validation.readBack with a table.read-back event, the failures
// the wave compensates (a retry reads no table twice and still reports the recorded failures), and
// markReadBackFailed moving only a migrated table to failed.
import type { OpsDeps } from '../../../ops/context';
import { opsContext } from '../../../ops/context';
import { readBackOps } from '../../../ops/readback';
import type { TableRecord, TableUpdate } from '../../../core/state/store';
import type { ReadBackEvidence } from '../../../core/validate/readback-spec';
import { BASE_DEPS, PLAN, migratedRecord } from '../activities/record';
import { inv, table } from '../assess/fixture';

const side = { rows: 3, checksum: 'a'.repeat(64) };
const other = { rows: 3, checksum: 'b'.repeat(64) };

const record = (name: string, o: Partial<TableRecord> = {}): TableRecord => migratedRecord({ snapshotId: '1', ...o }, name);

function setup(
  recs: TableRecord[],
  found: (ids: string[]) => Map<string, ReadBackEvidence>,
  readBack: OpsDeps['readBack'] | null = { filesPerTable: 2, tablesPerJob: 2 },
) {
  const byId = new Map(recs.map((r) => [r.tableId, r]));
  const events: { action: string; object: string; details: Record<string, unknown> }[] = [];
  const calls: string[][] = [];
  const deps = {
    ...BASE_DEPS,
    rewrite: {
      command: ['spark-submit'],
      env: {},
      warehouse: 's3://w/rw',
      catalogProperties: { type: 'rest' },
      timeoutMinutes: 3,
      workDir: '/tmp/x',
    },
    readBack: readBack ?? undefined,
    engine: {
      proveReadBack: (_d: unknown, _p: unknown, targets: { rec: TableRecord; ident: { namespace: string[]; name: string } }[]) => {
        calls.push(targets.map((t) => `${t.rec.tableId}@${t.ident.namespace.join('.')}.${t.ident.name}`));
        return Promise.resolve(found(targets.map((t) => t.rec.tableId)));
      },
    },
    state: {
      getPlan: () => Promise.resolve({ hash: PLAN, targetCatalog: 'lake' }),
      getTable: (_p: string, id: string) => Promise.resolve(byId.get(id)!),
      listTables: () => Promise.resolve([...byId.values()]),
      recordStep: (_p: string, id: string, u: TableUpdate, e: { action: string; object: string; details: Record<string, unknown> }) => {
        byId.set(id, { ...byId.get(id)!, ...u } as TableRecord);
        events.push(e);
        return Promise.resolve(e);
      },
    },
  } as unknown as OpsDeps;
  return { acts: readBackOps(opsContext(deps)), events, calls, rec: (id: string) => byId.get(id)! };
}

const evidence = (equal: boolean): ReadBackEvidence => ({
  engine: 'spark',
  jobId: 'j',
  files: ['s3a://w/db/t/f1'],
  iceberg: equal ? side : other,
  hive: side,
  equal,
  seconds: 2,
});

describe('readBackBatches', () => {
  it('the wave’s migrated metadata-only tables without evidence, tablesPerJob each; none when off', async () => {
    const recs = [
      record('a'),
      record('b'),
      record('c'),
      record('done', { validation: { readBack: evidence(true) } }),
      record('failed', { status: 'failed' }),
      record('rewritten', { validation: { rewrite: { jobId: 'r', location: 's3://w/rw/x' } } }),
      record('v', { original: inv(table({ database: 'db', name: 'v', tableType: 'VIRTUAL_VIEW' })) }),
    ];
    expect(await setup(recs, () => new Map()).acts.readBackBatches(PLAN, 1)).toEqual([['db.a', 'db.b'], ['db.c']]);
    expect(await setup(recs, () => new Map(), null).acts.readBackBatches(PLAN, 1)).toEqual([]);
  });
});

describe('readBackTables', () => {
  it('records each table’s evidence and audits it; unequal and unreadable tables come back as failures', async () => {
    const s = setup(
      [record('a'), record('b'), record('c')],
      () =>
        new Map<string, ReadBackEvidence>([
          ['db.a', evidence(true)],
          ['db.b', evidence(false)],
          ['db.c', { engine: 'spark', jobId: 'j', files: [], error: 'AnalysisException: x', seconds: 1 }],
        ]),
    );
    const r = await s.acts.readBackTables(PLAN, ['db.a', 'db.b', 'db.c']);
    expect(s.calls).toEqual([['db.a@ice_db.a', 'db.b@ice_db.b', 'db.c@ice_db.c']]);
    expect(r.failures.map((f) => [f.tableId, f.code])).toEqual([
      ['db.b', 'READBACK_MISMATCH'],
      ['db.c', 'READBACK_FAILED'],
    ]);
    expect(s.rec('db.a').validation).toEqual({ ok: true, readBack: evidence(true) });
    expect(s.events.map((e) => [e.action, e.object, e.details.ok, e.details.code])).toEqual([
      ['table.read-back', 'hms:db.a', true, undefined],
      ['table.read-back', 'hms:db.b', false, 'READBACK_MISMATCH'],
      ['table.read-back', 'hms:db.c', false, 'READBACK_FAILED'],
    ]);
    // A retry (the activity ran, its result was lost): nothing read again, the same failures.
    const again = await s.acts.readBackTables(PLAN, ['db.a', 'db.b', 'db.c']);
    expect(s.calls[1]).toEqual([]);
    expect(again.failures).toEqual(r.failures);
  });

  it('a skipped table is recorded with its reason and is no failure', async () => {
    const s = setup(
      [record('a')],
      () => new Map<string, ReadBackEvidence>([['db.a', { skipped: 'serde x is not one the read-back job reads' }]]),
    );
    expect((await s.acts.readBackTables(PLAN, ['db.a'])).failures).toEqual([]);
    expect((s.rec('db.a').validation as { readBack: unknown }).readBack).toEqual({ skipped: 'serde x is not one the read-back job reads' });
  });
});

describe('markReadBackFailed', () => {
  it('moves a migrated table to failed with the code and audits it; any other status is left alone', async () => {
    const s = setup([record('a'), record('b', { status: 'failed', errorCode: 'X' })], () => new Map());
    await s.acts.markReadBackFailed({ planHash: PLAN, tableId: 'db.a' }, 'READBACK_MISMATCH', 'db.a: differs');
    await s.acts.markReadBackFailed({ planHash: PLAN, tableId: 'db.b' }, 'READBACK_MISMATCH', 'db.b: differs');
    expect([s.rec('db.a').status, s.rec('db.a').errorCode, s.rec('db.b').errorCode]).toEqual(['failed', 'READBACK_MISMATCH', 'X']);
    expect(s.events.map((e) => [e.action, e.object, e.details.code, e.details.step])).toEqual([
      ['table.failed', 'hms:db.a', 'READBACK_MISMATCH', 'read-back'],
    ]);
  });
});
