// `findOrphans` / `repairOrphans` on real components (hms-pg, S3, the REST catalog, a state
// database of its own): the real activities take one table to `written`, one to `registered` and
// a third to `written` while someone else registers its target name with metadata we never wrote;
// and a fourth is killed inside its write step (files on storage, none recorded); then the
// "termination": no compensation runs. Repair must list exactly our leftovers, remove
// exactly those (never data, never the foreign entry or its file), audit it, close the records,
// and find nothing on a second run. A table whose workflow still runs is left alone.
import { REPAIRED, findOrphans, orphanSummary, repairOrphans } from '../../../ops/repair';
import type { TableLeftovers } from '../../../ops/repair';
import { targetOf } from '../../../core/convert/plan-conversion';
import type { RepairFixture } from '../../helpers/repair-fixture';
import { setupRepairFixture } from '../../helpers/repair-fixture';

let fx: RepairFixture;
let written = '';
let registered = '';
let contested = '';
let unrecorded = '';
let foreignLocation = '';

const ref = (tableId: string) => ({ planHash: fx.plan.hash, tableId });
const byId = (tables: readonly TableLeftovers[], id: string): TableLeftovers | undefined => tables.find((t) => t.tableId === id);
const recordedFiles = async (id: string): Promise<string[]> =>
  ((await fx.state.getTable(fx.plan.hash, id)).writtenFiles ?? []).map((f) => f.path).sort();

beforeAll(async () => {
  fx = await setupRepairFixture(4);
  expect(fx.tables).toHaveLength(4);
  [written, registered, contested, unrecorded] = fx.tables as [string, string, string, string];
  await fx.activity(() => fx.acts.saveOriginalAndWrite(ref(written)));
  await fx.activity(() => fx.acts.saveOriginalAndWrite(ref(registered)));
  await fx.acts.registerTable(ref(registered));
  await fx.activity(() => fx.acts.saveOriginalAndWrite(ref(contested)));
  // Someone else's table at the contested target: a metadata file we never wrote (a copy of ours
  // under another name) registered under that name.
  const rec = await fx.state.getTable(fx.plan.hash, contested);
  const dir = `${rec.original?.table.sd.location as string}/metadata/`;
  const store = fx.stores.storeFor([dir]);
  const ours = rec.metadataLocation as string;
  const { size } = await store.head(ours);
  foreignLocation = `${dir}00001-someone-else.metadata.json`;
  await store.put(foreignLocation, await store.readRange(ours, 0, size));
  const ident = targetOf(contested, fx.nsPrefix);
  await fx.catalog.createNamespace(ident.namespace);
  await fx.catalog.registerTable(ident, foreignLocation);
  // Its register step failed on that entry, and the compensation that should delete its files never ran.
  await fx.state.updateTable(fx.plan.hash, contested, {
    status: 'failed',
    errorCode: 'CATALOG_CONFLICT',
    errorMessage: 'held by an entry we never registered',
  });
  // A worker killed inside the write step: files on storage, the record still says original-saved.
  await fx.activity(() => fx.acts.saveOriginalAndWrite(ref(unrecorded)));
  await fx.state.updateTable(fx.plan.hash, unrecorded, {
    status: 'original-saved',
    metadataLocation: null,
    writtenFiles: null,
    target: null,
  });
}, 600_000);

afterAll(async () => {
  await fx?.close();
}, 300_000);

test('findOrphans lists both terminated tables with exactly their files and our entry, and the foreign entry as not ours', async () => {
  const report = await findOrphans(fx.deps(), fx.plan.hash);
  const w = byId(report.tables, written);
  const r = byId(report.tables, registered);
  const c = byId(report.tables, contested);
  expect(w).toMatchObject({ status: 'written', orphan: true, running: false, entry: null, staleState: true });
  expect([...(w?.files ?? [])].sort()).toEqual(await recordedFiles(written));
  expect([...(w?.files ?? [])].sort()).toEqual(await fx.metadataObjects(written));
  expect(w?.files.length).toBeGreaterThanOrEqual(3); // manifest(s), manifest list, metadata.json
  expect(w?.files[0]).toMatch(/\.metadata\.json$/); // deleted first: the reverse of writing
  const regRec = await fx.state.getTable(fx.plan.hash, registered);
  expect(r).toMatchObject({ status: 'registered', orphan: true, entry: { state: 'ours', location: regRec.metadataLocation } });
  expect([...(r?.files ?? [])].sort()).toEqual(await fx.metadataObjects(registered));
  expect(c).toMatchObject({
    status: 'failed',
    errorCode: 'CATALOG_CONFLICT',
    staleState: false,
    orphan: true,
    entry: { state: 'foreign', location: foreignLocation },
  });
  expect([...(c?.files ?? [])].sort()).toEqual((await fx.metadataObjects(contested)).filter((p) => p !== foreignLocation));
  // Unrecorded files are found by the names this conversion uses (plan hash + table identity).
  const u = byId(report.tables, unrecorded);
  expect(u).toMatchObject({ status: 'original-saved', orphan: true, entry: null });
  expect([...(u?.files ?? [])].sort()).toEqual(await fx.metadataObjects(unrecorded));
  expect(u?.files.length).toBeGreaterThanOrEqual(3);
  const summary = await orphanSummary(fx.deps(), fx.plan.hash);
  expect(summary).toMatchObject({ orphans: 4, ourCatalogEntries: 1, foreignEntries: 1, running: 0 });
  expect(summary.metadataFiles).toBe((w?.files.length ?? 0) + (r?.files.length ?? 0) + (c?.files.length ?? 0) + (u?.files.length ?? 0));
  expect(summary.markdown).toContain(`migrate repair ${fx.plan.hash.slice(0, 12)} --apply`);
});

test('a table whose workflow still runs is not an orphan and is left alone', async () => {
  const running = async (_p: string, t: string): Promise<boolean> => t === written;
  const report = await findOrphans(fx.deps(running), fx.plan.hash);
  expect(byId(report.tables, written)).toMatchObject({ running: true, orphan: false });
  const before = await fx.metadataObjects(written);
  const everythingRuns = await repairOrphans(
    fx.deps(async () => true),
    fx.plan.hash,
    { by: 'alice' },
  );
  expect(everythingRuns.repaired).toEqual([]);
  expect([...everythingRuns.running].sort()).toEqual([...fx.tables].sort());
  expect(await fx.metadataObjects(written)).toEqual(before);
  expect(await fx.catalog.tableExists(targetOf(registered, fx.nsPrefix))).toBe(true);
});

test('repairOrphans removes exactly those files and our entry; data, the foreign entry and its file stay; audited; a second run finds nothing', async () => {
  const shas = await fx.dataShas();
  expect(shas.size).toBe(8); // 4 tables × 1 partition × 2 files
  const files = new Map<string, string[]>();
  for (const t of [written, registered, unrecorded]) files.set(t, await fx.metadataObjects(t));
  files.set(
    contested,
    (await fx.metadataObjects(contested)).filter((p) => p !== foreignLocation),
  );
  const auditBefore = (await fx.auditVerdict()).events;

  const r = await repairOrphans(fx.deps(), fx.plan.hash, { by: 'alice' });
  expect(r.repaired.map((x) => [x.tableId, x.ok, x.error]).sort()).toEqual([...fx.tables].sort().map((t) => [t, true, undefined]));
  for (const x of r.repaired) expect([...x.removed.files].sort()).toEqual(files.get(x.tableId));
  expect(r.repaired.find((x) => x.tableId === registered)?.removed.entry).toBe('unregistered');
  expect(r.repaired.find((x) => x.tableId === contested)?.removed.entry).toBeNull();
  expect(r.foreign).toEqual([{ tableId: contested, target: `${fx.nsPrefix}${contested}`, location: foreignLocation }]);

  expect(await fx.metadataObjects(written)).toEqual([]);
  expect(await fx.metadataObjects(registered)).toEqual([]);
  expect(await fx.metadataObjects(unrecorded)).toEqual([]);
  expect(await fx.metadataObjects(contested)).toEqual([foreignLocation]);
  expect(await fx.catalog.tableExists(targetOf(registered, fx.nsPrefix))).toBe(false);
  expect((await fx.catalog.loadTable(targetOf(contested, fx.nsPrefix))).metadataLocation).toBe(foreignLocation);
  expect(await fx.dataShas()).toEqual(shas);
  // Closed as failed; a table that failed for a reason of its own keeps that reason.
  for (const t of fx.tables) {
    const rec = await fx.state.getTable(fx.plan.hash, t);
    expect(rec).toMatchObject({ status: 'failed', errorCode: t === contested ? 'CATALOG_CONFLICT' : REPAIRED, writtenFiles: null });
    expect(rec.errorMessage).toContain('repaired by alice');
  }

  const audit = await fx.auditVerdict();
  expect(audit.ok).toBe(true);
  const added = audit.actions.slice(auditBefore);
  expect(added.filter((a) => a === 'table.repaired')).toHaveLength(4);
  expect(added.filter((a) => a === 'table.unregistered')).toHaveLength(1);
  expect(added.filter((a) => a === 'table.metadata-deleted')).toHaveLength(4);

  const again = await findOrphans(fx.deps(), fx.plan.hash);
  expect(again.tables.filter((t) => t.orphan)).toEqual([]);
  expect(again.tables.map((t) => [t.tableId, t.entry?.state])).toEqual([[contested, 'foreign']]);
  const second = await repairOrphans(fx.deps(), fx.plan.hash, { by: 'alice' });
  expect(second.repaired).toEqual([]);
  expect((await fx.auditVerdict()).events).toBe(audit.events);
  expect((await orphanSummary(fx.deps(), fx.plan.hash)).orphans).toBe(0);
});
