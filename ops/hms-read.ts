// The single-table HMS read the steps share, and rollback's last check over it: the Hive table (or
// view) now equals its saved original, else SOURCE_CHANGED naming both digests.
import { dbOf, nameOf } from '../core/convert/plan-conversion';
import { ErrorCode, MigrationError } from '../core/errors';
import { tableFingerprint } from '../core/hive/fingerprint';
import type { HmsReader, TableInventory } from '../core/hive/model';

/** The table `tableId` (`db.name`) as HMS has it now, undefined when HMS has no such table. */
export async function hmsTable(hms: HmsReader, tableId: string): Promise<TableInventory | undefined> {
  const [found] = await hms.getTables(dbOf(tableId), [nameOf(tableId)]);
  return found;
}

/**
 * The HMS object now equals the saved original whose digest is `saved` (register mode never altered
 * it; in place, the undo has just put it back); SOURCE_CHANGED (not retryable) otherwise. `what`
 * names the object in the message, `after` ends it (what the rollback already did).
 */
export async function assertHmsUnchanged(
  hms: HmsReader,
  tableId: string,
  saved: string | null,
  o: { readonly what: string; readonly after?: string },
): Promise<void> {
  const now = await hmsTable(hms, tableId);
  const digest = now === undefined ? null : tableFingerprint(now);
  if (digest !== saved)
    throw new MigrationError(
      ErrorCode.SOURCE_CHANGED,
      `${tableId}: ${o.what} no longer equals the saved original (digest ${String(digest).slice(0, 12)} ≠ ${String(saved).slice(0, 12)})${o.after ?? ''}`,
      { tableId },
      { retryable: false },
    );
}
