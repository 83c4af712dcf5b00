// Apply's re-check of a table's database (ops/siblings.ts) over a fake HMS whose reads we hold open:
// one read per database shared by the tables in flight; past five minutes the next read runs in the
// background while tables go on against the previous one, which a table sharing a location created
// since then then fails; past ten minutes a table waits for the new read; a failed read is not kept.
import { ErrorCode, MigrationError } from '../../../core/errors';
import type { HmsReader, TableInventory } from '../../../core/hive/model';
import { siblingCheck } from '../../../ops/siblings';
import { inv, table } from '../assess/fixture';

const at = (name: string, location: string): TableInventory => inv(table({ name, sd: { location } }));
const MIN = 60_000;

function fakeHms() {
  let tables: TableInventory[] = [at('a', 's3://b/w/a'), at('b', 's3://b/w/b')];
  const pending: { resolve: () => void; reject: (e: Error) => void }[] = [];
  let reads = 0;
  const hms = {
    listTables: () => {
      reads++;
      return new Promise<string[]>((resolve, reject) => {
        const snapshot = tables.map((t) => t.table.name);
        pending.push({ resolve: () => resolve(snapshot), reject });
      });
    },
    getTables: (_db: string, names: readonly string[]) => Promise.resolve(tables.filter((t) => names.includes(t.table.name))),
  } as unknown as HmsReader;
  return {
    hms,
    reads: () => reads,
    /** Let the oldest read still open answer (or fail). */
    answer: async (fail?: Error) => {
      const p = pending.shift();
      if (p === undefined) throw new Error('no read open');
      if (fail === undefined) p.resolve();
      else p.reject(fail);
      for (let i = 0; i < 5; i++) await Promise.resolve();
    },
    open: () => pending.length,
    add: (t: TableInventory) => void (tables = [...tables, t]),
  };
}

const settled = async <T>(p: Promise<T>): Promise<'pending' | 'ok' | string> => {
  let state: string = 'pending';
  p.then(
    () => void (state = 'ok'),
    (e: unknown) => void (state = e instanceof MigrationError ? e.code : String(e)),
  );
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return state;
};

it('reads a database once for the tables in flight, then from the cache', async () => {
  const f = fakeHms();
  let clock = 0;
  const check = siblingCheck(f.hms, () => clock);
  const a = check('db.a', at('a', 's3://b/w/a'));
  const b = check('db.b', at('b', 's3://b/w/b'));
  expect([f.reads(), await settled(a), await settled(b)]).toEqual([1, 'pending', 'pending']);
  await f.answer();
  expect([await settled(a), await settled(b)]).toEqual(['ok', 'ok']);
  clock = 4 * MIN;
  await expect(check('db.a', at('a', 's3://b/w/a'))).resolves.toBeUndefined();
  expect(f.reads()).toBe(1);
});

/** A check whose first read of db is done, then a table c created inside a's location, and the clock at `later`. */
async function readThenAdded(later: number) {
  const f = fakeHms();
  let clock = 0;
  const check = siblingCheck(f.hms, () => clock);
  const first = check('db.a', at('a', 's3://b/w/a'));
  await f.answer();
  await first;
  f.add(at('c', 's3://b/w/a/inside'));
  clock = later;
  return { f, check };
}

it('past five minutes refreshes in the background: tables go on meanwhile, the new read then sees a new sharing table', async () => {
  const { f, check } = await readThenAdded(6 * MIN);
  // Answered from the previous read (which has no c) while the new read is open; one read at a time.
  expect(await settled(check('db.a', at('a', 's3://b/w/a')))).toBe('ok');
  expect(await settled(check('db.a', at('a', 's3://b/w/a')))).toBe('ok');
  expect([f.reads(), f.open()]).toEqual([2, 1]);
  await f.answer();
  expect(await settled(check('db.a', at('a', 's3://b/w/a')))).toBe(ErrorCode.LOCATION_SHARED);
  expect(f.reads()).toBe(2);
});

it('past ten minutes a table waits for the new read', async () => {
  const { f, check } = await readThenAdded(11 * MIN);
  const late = check('db.a', at('a', 's3://b/w/a'));
  expect(await settled(late)).toBe('pending');
  await f.answer();
  expect(await settled(late)).toBe(ErrorCode.LOCATION_SHARED);
});

it('a failed background read keeps the previous one and is tried again; a failed first read is not cached', async () => {
  const f = fakeHms();
  let clock = 0;
  const check = siblingCheck(f.hms, () => clock);
  const first = check('db.a', at('a', 's3://b/w/a'));
  await f.answer(new Error('hms down'));
  await expect(first).rejects.toThrow('hms down');
  const again = check('db.a', at('a', 's3://b/w/a'));
  expect(f.reads()).toBe(2);
  await f.answer();
  await again;
  clock = 6 * MIN;
  expect(await settled(check('db.a', at('a', 's3://b/w/a')))).toBe('ok');
  await f.answer(new Error('hms down'));
  expect(await settled(check('db.a', at('a', 's3://b/w/a')))).toBe('ok');
  expect([f.reads(), f.open()]).toEqual([4, 1]);
  await f.answer();
});
