// Apply's check that a table still converts the way its plan said (SOURCE_CHANGED otherwise). A
// pinned entry (plan file version 3) is compared by its conversion pin: new partitions and files,
// stats and DDL times pass, and a refusal names each difference. An unpinned entry (an upgraded
// version 2 plan) keeps the version 2 rule: the whole inventory's fingerprint must be the planned
// one. Pure; no I/O.
import { ErrorCode, MigrationError } from '../errors';
import { tableFingerprint } from '../hive/fingerprint';
import type { TableInventory } from '../hive/model';
import type { ConversionPin } from './pin';
import { conversionPin, diffPins } from './pin';

/** The most differences a message lists (the context carries them all). */
const MAX_LISTED = 20;

export interface PlannedSource {
  readonly fingerprint: string;
  readonly pin: ConversionPin | null;
}

/** The SOURCE_CHANGED error for a live table that does not convert as planned, or null when it does. */
export function sourceChange(tableId: string, planned: PlannedSource, live: TableInventory): MigrationError | null {
  if (planned.pin === null) {
    const digest = tableFingerprint(live);
    if (digest === planned.fingerprint) return null;
    return new MigrationError(
      ErrorCode.SOURCE_CHANGED,
      `${tableId} changed in HMS since the plan was made (fingerprint ${digest.slice(0, 12)} ≠ planned ${planned.fingerprint.slice(0, 12)}; a version 2 plan pins the whole inventory); run migrate plan again`,
      { tableId },
    );
  }
  const differences = diffPins(planned.pin, conversionPin(live));
  if (differences.length === 0) return null;
  const listed = differences.slice(0, MAX_LISTED).join('; ');
  const more = differences.length > MAX_LISTED ? `; and ${differences.length - MAX_LISTED} more` : '';
  return new MigrationError(
    ErrorCode.SOURCE_CHANGED,
    `${tableId} changed in HMS since the plan was made in a way that changes its conversion: ${listed}${more}; run migrate plan again (new partitions, files, stats and DDL times alone are accepted)`,
    { tableId, differences },
  );
}
