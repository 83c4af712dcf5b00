// Cutover's steps over fake ports (no components): the HMS fence resumes from wherever a killed
// step stopped (open → marked → fenced) and does nothing when done; it refuses a conflict (the old
// name re-created, a foreign table under the fenced name) and a rename that moved a location;
// unfence restores the exact original; in place the fence is recorded as not needed; every state
// change goes through recordStep with its audit event, once.
import type { OpsDeps } from '../../../ops/context';
import { opsContext } from '../../../ops/context';
import { cutoverOps } from '../../../ops/cutover';
import { fenceHiveTable, unfenceHiveTable } from '../../../ops/fence';
import { fencedName, markedForFence } from '../../../core/cutover/fence';
import { ErrorCode, MigrationError } from '../../../core/errors';
import type { HiveTable, TableInventory } from '../../../core/hive/model';
import type { TableRecord, TableUpdate } from '../../../core/state/store';
import { part, table } from './fixtures';

const original: HiveTable = table({
  parameters: { transient_lastDdlTime: '1700000000' },
  sd: { ...table().sd, location: 's3a://hive/sales.db/orders' },
});
const partition = part('day=1', 's3a://hive/sales.db/orders/day=1');

/** A metastore of one database: alter_table replaces (renames when the name differs), as HMS does for an EXTERNAL table. */
function fakeHms(tables: Record<string, HiveTable>, o: { moveOnRename?: boolean } = {}) {
  const alters: string[] = [];
  const parts = new Map<string, (typeof partition)[]>(Object.keys(tables).map((k) => [k, [partition]]));
  const hms = {
    getTables: (_db: string, names: readonly string[]): Promise<TableInventory[]> => {
      const t = tables[names[0] as string];
      if (t === undefined) return Promise.reject(new MigrationError(ErrorCode.HMS_NOT_FOUND, `no ${names[0]}`));
      return Promise.resolve([{ table: t, partitions: parts.get(t.name) ?? [] }]);
    },
  };
  const hmsWriter = {
    alterTable: (_db: string, name: string, t: HiveTable): Promise<void> => {
      alters.push(name === t.name ? `alter ${name}` : `rename ${name} → ${t.name}`);
      const moved = o.moveOnRename === true && name !== t.name ? { ...t, sd: { ...t.sd, location: `${t.sd.location}_moved` } } : t;
      delete tables[name];
      tables[t.name] = moved;
      parts.set(t.name, parts.get(name) ?? []);
      return Promise.resolve();
    },
  };
  return { hms, hmsWriter, alters, tables };
}

function setup(
  tables: Record<string, HiveTable>,
  o: { moveOnRename?: boolean; inPlace?: boolean; status?: TableRecord['status']; icebergAt?: string } = {},
) {
  const f = fakeHms(tables, o);
  let rec = {
    planHash: 'h',
    tableId: 'sales.orders',
    wave: 1,
    status: o.status ?? 'migrated',
    original: { table: original, partitions: [partition] },
    originalDigest: 'd0',
    metadataLocation: 's3://w/orders/metadata/00000.metadata.json',
    target: 'rest:sales.orders',
    snapshotId: '1',
    errorCode: null,
  } as unknown as TableRecord;
  const steps: { u: TableUpdate; action: string; details: Record<string, unknown> }[] = [];
  const deps = {
    hms: f.hms,
    hmsWriter: f.hmsWriter,
    catalog: {
      hiveOriginalPlace: () => (o.inPlace === true ? { kind: 'altered' } : { kind: 'untouched' }),
      tableExists: () => Promise.resolve(true),
      // The Iceberg entry: at our metadata unless the test says someone else's is there.
      loadTable: () => Promise.resolve({ metadataLocation: o.icebergAt ?? rec.metadataLocation, metadata: { metadataLog: [] } }),
    },
    state: {
      getTable: () => Promise.resolve(rec),
      recordStep: (_p: string, _t: string, u: TableUpdate, e: { action: string; details: Record<string, unknown> }) => {
        rec = { ...rec, ...u } as TableRecord;
        steps.push({ u, action: e.action, details: e.details });
        return Promise.resolve(e);
      },
    },
    actor: 'worker:test',
    failpoint: () => undefined,
  } as unknown as OpsDeps;
  const c = opsContext(deps);
  return { c, acts: cutoverOps(c), steps, ...f, rec: () => rec };
}

const FENCED = fencedName('orders');

describe('the HMS fence, resumed from each point', () => {
  it('open: marked (EXTERNAL) then renamed; the locations checked', async () => {
    const s = setup({ orders: original });
    const r = await fenceHiveTable(s.c, 'sales.orders');
    expect(s.alters).toEqual(['alter orders', `rename orders → ${FENCED}`]);
    expect(r.steps).toEqual(['marked', 'renamed']);
    expect(Object.keys(s.tables)).toEqual([FENCED]);
    expect(s.tables[FENCED]?.tableType).toBe('EXTERNAL_TABLE');
  });

  it('killed after marking: only the rename; killed after the rename: nothing', async () => {
    const marked = setup({ orders: markedForFence(original, 'sales.orders') });
    await fenceHiveTable(marked.c, 'sales.orders');
    expect(marked.alters).toEqual([`rename orders → ${FENCED}`]);
    const fenced = setup({ [FENCED]: { ...markedForFence(original, 'sales.orders'), name: FENCED } });
    expect((await fenceHiveTable(fenced.c, 'sales.orders')).steps).toEqual([]);
    expect(fenced.alters).toEqual([]);
  });

  it('refuses a conflict with nothing changed: the old name re-created while fenced, a foreign table under the fenced name', async () => {
    const recreated = setup({ orders: original, [FENCED]: { ...markedForFence(original, 'sales.orders'), name: FENCED } });
    await expect(fenceHiveTable(recreated.c, 'sales.orders')).rejects.toMatchObject({ code: 'CUTOVER_FENCE_CONFLICT' });
    const foreign = setup({ orders: original, [FENCED]: { ...original, name: FENCED } });
    await expect(fenceHiveTable(foreign.c, 'sales.orders')).rejects.toMatchObject({ code: 'CUTOVER_FENCE_CONFLICT' });
    expect([...recreated.alters, ...foreign.alters]).toEqual([]);
    await expect(fenceHiveTable(setup({}).c, 'sales.orders')).rejects.toMatchObject({ code: 'HMS_NOT_FOUND' });
  });

  it('a rename that moved the location is refused, naming it', async () => {
    const s = setup({ orders: original }, { moveOnRename: true });
    await expect(fenceHiveTable(s.c, 'sales.orders')).rejects.toMatchObject({
      code: 'CUTOVER_FENCE_CONFLICT',
      message: expect.stringContaining('table location s3a://hive/sales.db/orders → s3a://hive/sales.db/orders_moved'),
    });
  });

  it('unfence restores the exact original under its name, from fenced or only marked; nothing to do when open', async () => {
    const s = setup({ orders: original });
    await fenceHiveTable(s.c, 'sales.orders');
    const r = await unfenceHiveTable(s.c, 'sales.orders');
    expect([r.steps, Object.keys(s.tables), s.tables.orders]).toEqual([['renamed-back'], ['orders'], original]);
    const m = setup({ orders: markedForFence(original, 'sales.orders') });
    expect((await unfenceHiveTable(m.c, 'sales.orders')).restored.table).toEqual(original);
    const open = setup({ orders: original });
    expect((await unfenceHiveTable(open.c, 'sales.orders')).steps).toEqual([]);
    expect(open.alters).toEqual([]);
  });
});

describe('the fence and unfence activities', () => {
  it('register mode: fenced once with table.fenced; a rerun is "already"; unfence returns the record to migrated with table.unfenced', async () => {
    const s = setup({ orders: original });
    await expect(s.acts.fenceTable({ planHash: 'h', tableId: 'sales.orders' }, 'alice')).resolves.toMatchObject({ done: 'now' });
    await expect(s.acts.fenceTable({ planHash: 'h', tableId: 'sales.orders' }, 'alice')).resolves.toMatchObject({ done: 'already' });
    await expect(s.acts.unfenceTable({ planHash: 'h', tableId: 'sales.orders' }, 'alice')).resolves.toMatchObject({ done: 'now' });
    await expect(s.acts.unfenceTable({ planHash: 'h', tableId: 'sales.orders' }, 'alice')).resolves.toMatchObject({ done: 'not-needed' });
    expect(s.steps.map((x) => [x.action, x.u.status, x.details.mode])).toEqual([
      ['table.fenced', 'fenced', 'register'],
      ['table.unfenced', 'migrated', 'register'],
    ]);
    expect(s.tables.orders).toEqual(original);
  });

  it('a rollback that would be refused leaves the fence: an entry that is not ours → ROLLBACK_NOT_OURS, nothing renamed or recorded', async () => {
    const s = setup(
      { [FENCED]: { ...markedForFence(original, 'sales.orders'), name: FENCED } },
      { status: 'cutover', icebergAt: 's3://other/x.metadata.json' },
    );
    await expect(s.acts.unfenceTable({ planHash: 'h', tableId: 'sales.orders' }, 'alice')).rejects.toMatchObject({
      code: 'ROLLBACK_NOT_OURS',
    });
    expect([Object.keys(s.tables), s.steps, s.rec().status]).toEqual([[FENCED], [], 'cutover']);
  });

  it('rollback after a cutover killed between its rename and its record: the record says migrated, the fence is undone all the same', async () => {
    const s = setup({ [FENCED]: { ...markedForFence(original, 'sales.orders'), name: FENCED } });
    await expect(s.acts.unfenceTable({ planHash: 'h', tableId: 'sales.orders' }, 'alice')).resolves.toMatchObject({ done: 'now' });
    expect([Object.keys(s.tables), s.tables.orders, s.steps.map((x) => [x.action, x.details.from])]).toEqual([
      ['orders'],
      original,
      [['table.unfenced', 'migrated']],
    ]);
    const plain = setup({ orders: original });
    await expect(plain.acts.unfenceTable({ planHash: 'h', tableId: 'sales.orders' }, 'alice')).resolves.toMatchObject({
      done: 'not-needed',
    });
    expect([plain.alters, plain.steps]).toEqual([[], []]);
  });

  it('in place: no HMS call, the fence recorded as not needed; the final sync and validation are not needed either', async () => {
    const s = setup({ orders: original }, { inPlace: true });
    const ref = { planHash: 'h', tableId: 'sales.orders' };
    await expect(s.acts.fenceTable(ref, 'alice')).resolves.toMatchObject({ done: 'not-needed' });
    await expect(s.acts.finalSync(ref)).resolves.toMatchObject({ done: 'not-needed' });
    await expect(s.acts.finalValidation(ref)).resolves.toMatchObject({ done: 'not-needed' });
    await expect(s.acts.markCutOver(ref, { done: 'not-needed', detail: '' }, 'alice')).resolves.toMatchObject({ done: 'now' });
    expect(s.alters).toEqual([]);
    expect(s.steps.map((x) => [x.action, x.u.status, x.details.mode])).toEqual([
      ['table.fenced', 'fenced', 'in-place'],
      ['table.cutover', 'cutover', 'in-place'],
    ]);
  });

  it('a table that is not migrated is refused CUTOVER_NOT_MIGRATED, nothing recorded', async () => {
    const s = setup({ orders: original }, { status: 'failed' });
    await expect(s.acts.fenceTable({ planHash: 'h', tableId: 'sales.orders' }, 'alice')).rejects.toMatchObject({
      code: 'CUTOVER_NOT_MIGRATED',
    });
    expect([s.steps, s.alters]).toEqual([[], []]);
  });
});
