// Repair with the Hive catalog in place (HMS 3.1.3, partitioned tables: the original waits aside
// as <name>__him_original while the Iceberg table holds its name). Real activities take one table
// through register (moved aside + Iceberg created), one only through the write, and one is stopped
// half-way through the move (renamed aside, nothing created yet); no compensation runs. Repair
// must give each Hive table back exactly as saved (fingerprint = the saved original's), delete
// only our metadata, leave data alone, and find nothing on a second run.
import { REPAIRED, findOrphans, repairOrphans } from '../../../ops/repair';
import { fingerprintOf } from '../../../activities/index';
import { dbOf, nameOf } from '../../../core/convert/plan-conversion';
import { originalAsideName } from '../../../adapters/catalog/hive';
import { ThriftHmsWriter } from '../../../adapters/hms/thrift/writer';
import type { RepairFixture } from '../../helpers/repair-fixture';
import { setupRepairFixture } from '../../helpers/repair-fixture';

let fx: RepairFixture;
let moved = '';
let writtenOnly = '';
let halfMoved = '';
const ref = (tableId: string) => ({ planHash: fx.plan.hash, tableId });

beforeAll(async () => {
  fx = await setupRepairFixture(3, true);
  [moved, writtenOnly, halfMoved] = fx.tables as [string, string, string];
  for (const t of fx.tables) await fx.activity(() => fx.acts.saveOriginalAndWrite(ref(t)));
  await fx.acts.registerTable(ref(moved));
  const rec = await fx.state.getTable(fx.plan.hash, halfMoved);
  const original = rec.original?.table;
  if (original === undefined) throw new Error('no saved original');
  await new ThriftHmsWriter(fx.hms.caller).alterTable(
    dbOf(halfMoved),
    nameOf(halfMoved),
    { ...original, name: originalAsideName(original.name) },
    { DO_NOT_UPDATE_STATS: 'true' },
  );
}, 600_000);

afterAll(async () => {
  await fx?.close();
}, 300_000);

test('in place: repair puts every Hive table back as saved, deletes only our metadata, and a second run finds nothing', async () => {
  const shas = await fx.dataShas();
  expect(shas.size).toBe(6);
  const found = await findOrphans(fx.deps(), fx.plan.hash);
  const rec = await fx.state.getTable(fx.plan.hash, moved);
  expect(found.tables.map((t) => [t.tableId, t.orphan, t.entry?.state ?? null]).sort()).toEqual(
    [
      [moved, true, 'ours'],
      [writtenOnly, true, null],
      [halfMoved, true, null],
    ].sort(),
  );
  expect(found.tables.find((t) => t.tableId === moved)?.entry?.location).toBe(rec.metadataLocation);
  expect(await fx.hms.listTables(fx.db)).toEqual(
    expect.arrayContaining([originalAsideName(nameOf(moved)), originalAsideName(nameOf(halfMoved))]),
  );

  const r = await repairOrphans(fx.deps(), fx.plan.hash, { by: 'carol' });
  expect(r.repaired.map((x) => [x.tableId, x.ok, x.removed.entry, x.error]).sort()).toEqual(
    [
      [moved, true, 'unregistered', undefined],
      [writtenOnly, true, null, undefined],
      [halfMoved, true, 'hive-original-restored', undefined],
    ].sort(),
  );
  for (const t of fx.tables) {
    const saved = await fx.state.getTable(fx.plan.hash, t);
    const [now] = await fx.hms.getTables(dbOf(t), [nameOf(t)]);
    expect({ t, digest: now === undefined ? null : fingerprintOf(now) }).toEqual({ t, digest: saved.originalDigest });
    expect(saved).toMatchObject({ status: 'failed', errorCode: REPAIRED, writtenFiles: null });
    expect(await fx.metadataObjects(t)).toEqual([]);
  }
  expect((await fx.hms.listTables(fx.db)).sort()).toEqual(fx.tables.map(nameOf).sort());
  expect(await fx.dataShas()).toEqual(shas);
  const audit = await fx.auditVerdict();
  expect(audit.ok).toBe(true);
  expect(audit.actions.filter((a) => a === 'table.repaired')).toHaveLength(3);

  expect((await findOrphans(fx.deps(), fx.plan.hash)).tables).toEqual([]);
  expect((await repairOrphans(fx.deps(), fx.plan.hash, { by: 'carol' })).repaired).toEqual([]);
});
