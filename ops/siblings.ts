// Apply's cross-table re-check: before a table is converted, the other tables of its HMS database
// are read (once per database per 5 minutes per worker, shared by the tables in flight) and a
// location equal to, inside or containing one of theirs fails the table LOCATION_SHARED — so a
// forged plan cannot move one of two tables sharing a location into a wave. Tables in other
// databases are covered by the state store's location claim (ops/table.ts).
import { ErrorCode, MigrationError } from '../core/errors';
import type { HmsReader, TableInventory } from '../core/hive/model';
import type { LocationIndex } from '../core/assess/shared-locations';
import { locationIndex, sharedLocationsOf } from '../core/assess/shared-locations';

/** Long enough that a large database is read once per wave, short enough to see new tables. */
const TTL_MS = 300_000;
const CHUNK = 200;

type Entry = { readonly at: number; readonly index: Promise<LocationIndex> };

async function readDatabase(hms: HmsReader, db: string): Promise<TableInventory[]> {
  const names = await hms.listTables(db);
  const out: TableInventory[] = [];
  for (let i = 0; i < names.length; i += CHUNK) out.push(...(await hms.getTables(db, names.slice(i, i + CHUNK))));
  return out;
}

export function siblingCheck(hms: HmsReader, now: () => number = Date.now) {
  const cache = new Map<string, Entry>();
  // The database's locations indexed once per read: each table is then checked in O(its locations).
  const indexOf = (db: string): Promise<LocationIndex> => {
    const hit = cache.get(db);
    if (hit !== undefined && now() - hit.at < TTL_MS) return hit.index;
    const index = readDatabase(hms, db).then(locationIndex);
    cache.set(db, { at: now(), index });
    index.catch(() => cache.delete(db));
    return index;
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
