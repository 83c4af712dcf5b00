// Apply's per-table LOCATION_SHARED check (sharedLocationsOf over a database's location index) gives
// each table exactly the finding the whole-inventory pass (sharedLocationFindings) gives it: over
// generated databases with equal, nested, sibling-prefix, partition and scheme-variant locations.
import { locationIndex, sharedLocationFindings, sharedLocationsOf } from '../../../core/assess/shared-locations';
import type { HiveColumn, TableInventory } from '../../../core/hive/model';
import { inv, partition, table } from './fixture';

const key = (name: string, type: string): HiveColumn => ({ name, type, comment: null });

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function database(seed: number, n: number): TableInventory[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const dirs = ['a', 'a/b', 'a/b/c', 'a2', 'b', 'b/x', 't', 't2', 't/p=1', 'c/d'];
  const scheme = (): string => pick(['s3://', 's3a://', 's3n://']);
  const loc = (): string => `${scheme()}wh/${pick(dirs)}${r() < 0.3 ? '/' : ''}`;
  const out: TableInventory[] = [];
  for (let i = 0; i < n; i++) {
    const name = `t${i}`;
    if (r() < 0.1) {
      out.push(inv(table({ name, tableType: 'VIRTUAL_VIEW', sd: { location: loc() }, viewExpandedText: 'select 1' })));
      continue;
    }
    const location = r() < 0.05 ? null : r() < 0.05 ? 'relative/dir' : loc();
    if (r() < 0.4) {
      const parts = Array.from({ length: 1 + Math.floor(r() * 3) }, (_, k) =>
        partition(`p=${k}`, { sd: { location: r() < 0.5 ? `${location ?? 's3://wh/z'}/p=${k}` : loc() } }),
      );
      out.push(inv(table({ name, sd: { location }, partitionKeys: [key('p', 'string')] }), parts));
    } else out.push(inv(table({ name, sd: { location } })));
  }
  return out;
}

describe('sharedLocationsOf (one table against the database index)', () => {
  it('agrees with sharedLocationFindings for every table of 200 generated databases', () => {
    let clashing = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const db = database(seed, 2 + (seed % 25));
      const whole = sharedLocationFindings(db);
      const index = locationIndex(db);
      for (const t of db) {
        const id = `${t.table.database}.${t.table.name}`.toLowerCase();
        const one = sharedLocationsOf(index, t);
        expect(one).toEqual(whole.get(id) ?? []);
        if (one.length > 0) clashing++;
      }
    }
    // The generator does make clashes (the comparison is not between two empty answers).
    expect(clashing).toBeGreaterThan(500);
  });

  it('a table checked with its live form while the index holds its older form: only the others count', () => {
    const old = inv(table({ name: 'x', sd: { location: 's3://wh/shared' } }));
    const other = inv(table({ name: 'y', sd: { location: 's3://wh/other' } }));
    const index = locationIndex([old, other]);
    expect(sharedLocationsOf(index, inv(table({ name: 'x', sd: { location: 's3://wh/moved' } })))).toEqual([]);
    const inside = sharedLocationsOf(index, inv(table({ name: 'x', sd: { location: 's3://wh/other/sub' } })));
    expect(inside[0]!.evidence).toBe('table location s3://wh/other/sub lies inside the table location of db.y (s3://wh/other)');
    const contains = sharedLocationsOf(index, inv(table({ name: 'x', sd: { location: 's3a://wh/' } })));
    expect(contains[0]!.evidence).toContain('contains the table location of db.y (s3://wh/other)');
  });
});
