// Apply's cross-table re-check: before a table is converted, the other tables of its HMS database
// are read (once per database per 5 minutes per worker, shared by the tables in flight, refreshed
// in the background) and a location equal to, inside or containing one of theirs fails the table
// LOCATION_SHARED — so a forged plan cannot move one of two tables sharing a location into a wave.
// Tables in other databases are covered by the state store's location claim (ops/table.ts).
import { ErrorCode, MigrationError } from '../core/errors';
import type { HmsReader, TableInventory } from '../core/hive/model';
import type { LocationIndex } from '../core/assess/shared-locations';
import { locationIndex, sharedLocationsOf } from '../core/assess/shared-locations';

/** Long enough that a large database is read once per wave, short enough to see new tables. */
const TTL_MS = 300_000;
/** Past this age a read is not used while the next one runs: the table waits for the new read. */
const MAX_AGE_MS = 2 * TTL_MS;
const CHUNK = 200;

type Entry = {
  readonly at: number;
  readonly index: Promise<LocationIndex>;
  /** The next read of the database, started when this one passed TTL_MS (one at a time). */
  next?: Promise<LocationIndex>;
};

async function readDatabase(hms: HmsReader, db: string): Promise<TableInventory[]> {
  const names = await hms.listTables(db);
  const out: TableInventory[] = [];
  for (let i = 0; i < names.length; i += CHUNK) out.push(...(await hms.getTables(db, names.slice(i, i + CHUNK))));
  return out;
}

/**
 * The check, with its per-database cache: the first table of a database waits for the read; once a
 * read is older than TTL_MS the next one starts in the background and tables go on against the
 * previous read until it lands (up to MAX_AGE_MS; older, they wait for it). A large database takes
 * tens of seconds to read (10,000 tables and 40,000 partitions: ~45 s on 2 cores), and every table
 * in flight used to stop for it every five minutes.
 */
export function siblingCheck(hms: HmsReader, now: () => number = Date.now) {
  const cache = new Map<string, Entry>();
  const read = (db: string): Entry => {
    const entry: Entry = { at: now(), index: readDatabase(hms, db).then(locationIndex) };
    entry.index.then(
      () => undefined,
      () => cache.get(db) === entry && cache.delete(db),
    );
    return entry;
  };
  const refresh = (db: string, stale: Entry): Promise<LocationIndex> => {
    if (stale.next !== undefined) return stale.next;
    const fresh = read(db);
    stale.next = fresh.index;
    fresh.index.then(
      () => void (cache.get(db) === stale && cache.set(db, fresh)),
      () => void (stale.next = undefined), // the next table retries; the old read serves meanwhile
    );
    return fresh.index;
  };
  // The database's locations indexed once per read: each table is then checked in O(its locations).
  const indexOf = (db: string): Promise<LocationIndex> => {
    const hit = cache.get(db);
    if (hit === undefined) {
      const entry = read(db);
      cache.set(db, entry);
      return entry.index;
    }
    const age = now() - hit.at;
    if (age < TTL_MS) return hit.index;
    const next = refresh(db, hit);
    return age < MAX_AGE_MS ? hit.index : next;
  };
  /** Throws LOCATION_SHARED when another table of `inv`'s database shares its location. */
  return async (tableId: string, inv: TableInventory): Promise<void> => {
    // The index holds this table too (as the database was read): its own locations are skipped by id.
    const shared = sharedLocationsOf(await indexOf(inv.table.database), inv);
    const first = shared[0];
    if (first === undefined) return;
    throw new MigrationError(
      ErrorCode.LOCATION_SHARED,
      `${tableId}: ${first.evidence}; a table that shares its location cannot be converted on its own (its listing would take the other's files) — nothing was written. ${first.remediation}`,
      { tableId },
      { retryable: false },
    );
  };
}
