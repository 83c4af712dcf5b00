// The single-table HMS read the steps share (ops/hms-read.ts) and rollback's last check over
// it: HMS equals the saved original, else SOURCE_CHANGED naming both digests — one function for the
// metadata-only, rewrite and view rollbacks.
import { assertHmsUnchanged, hmsTable } from '../../../ops/hms-read';
import { ErrorCode, MigrationError } from '../../../core/errors';
import { tableFingerprint } from '../../../core/hive/fingerprint';
import type { HmsReader, TableInventory } from '../../../core/hive/model';
import { inv, table } from '../assess/fixture';

const live = inv(table({ database: 'db', name: 't' }));

function hms(found: TableInventory | undefined) {
  const calls: [string, readonly string[]][] = [];
  const reader = {
    getTables: (db: string, names: readonly string[]) => (calls.push([db, names]), Promise.resolve(found === undefined ? [] : [found])),
  } as unknown as HmsReader;
  return { reader, calls };
}

async function outcome(p: Promise<void>): Promise<string> {
  try {
    await p;
    return 'unchanged';
  } catch (e) {
    if (!(e instanceof MigrationError)) throw e;
    return `${e.code} ${e.retryable ? 'retryable' : 'final'}: ${e.message}`;
  }
}

describe('hmsTable', () => {
  it('reads one table by its database and name; undefined when HMS has none', async () => {
    const h = hms(live);
    expect(await hmsTable(h.reader, 'db.t')).toBe(live);
    expect(h.calls).toEqual([['db', ['t']]]);
    expect(await hmsTable(hms(undefined).reader, 'db.t')).toBeUndefined();
  });
});

describe('assertHmsUnchanged', () => {
  const saved = tableFingerprint(live);

  it('passes when HMS equals the saved original', async () => {
    expect(await outcome(assertHmsUnchanged(hms(live).reader, 'db.t', saved, { what: 'the HMS object' }))).toBe('unchanged');
  });

  it('refuses a changed table with both digests, and what the rollback already did', async () => {
    const changed = inv(table({ database: 'db', name: 't', sd: { location: 's3://w/elsewhere' } }));
    const now = tableFingerprint(changed);
    expect(
      await outcome(
        assertHmsUnchanged(hms(changed).reader, 'db.t', saved, { what: 'the HMS object', after: '; the rewritten table was dropped' }),
      ),
    ).toBe(
      `${ErrorCode.SOURCE_CHANGED} final: db.t: the HMS object no longer equals the saved original (digest ${now.slice(0, 12)} ≠ ${saved.slice(0, 12)}); the rewritten table was dropped`,
    );
  });

  it('refuses a dropped view (digest null)', async () => {
    expect(await outcome(assertHmsUnchanged(hms(undefined).reader, 'db.v', saved, { what: 'the Hive view' }))).toBe(
      `${ErrorCode.SOURCE_CHANGED} final: db.v: the Hive view no longer equals the saved original (digest null ≠ ${saved.slice(0, 12)})`,
    );
  });
});
