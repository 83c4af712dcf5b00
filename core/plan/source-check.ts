// Apply's check that a table still converts the way its plan said (SOURCE_CHANGED otherwise). A
// pinned entry (plan file version 3) is compared by its conversion pin: new partitions and files,
// stats and DDL times pass, and a refusal names each difference. An unpinned entry (an upgraded
// version 2 plan) keeps the version 2 rule: the whole inventory's fingerprint must be the planned
// one. Sync (and only sync) also accepts columns added at the end of the table
// (`syncSourceChange`): the Iceberg table gains them as a schema update. Pure; no I/O.
import { ErrorCode, MigrationError } from '../errors';
import { tableFingerprint } from '../hive/fingerprint';
import type { HiveColumn, TableInventory } from '../hive/model';
import { AssessCode } from '../assess/types';
import type { ConversionPin } from './types';
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

/**
 * Sync's check: as apply's, except that columns added after the planned ones (ALTER TABLE … ADD
 * COLUMNS) are accepted — when everything else still converts as planned — and named in `added`.
 * A type change, a dropped, renamed or reordered column, or a column added anywhere but the end,
 * stays SOURCE_CHANGED naming the difference.
 */
export function syncSourceChange(
  tableId: string,
  planned: PlannedSource,
  live: TableInventory,
): { readonly error: MigrationError | null; readonly added: readonly string[] } {
  const pin = planned.pin;
  const cols = live.table.sd.columns;
  const trailing =
    pin !== null &&
    cols.length > pin.columns.length &&
    pin.columns.every((c, i) => cols[i]?.name === c.name && cols[i]?.type.trim() === c.type) &&
    cols.slice(pin.columns.length).every((c) => !pin.partitionKeys.some((k) => k.name.toLowerCase() === c.name.toLowerCase()));
  if (!trailing) {
    const error = sourceChange(tableId, planned, live);
    const note =
      pin !== null && error !== null && cols.length > pin.columns.length ? ' (a sync accepts only columns added at the end)' : '';
    return {
      error: error === null || note === '' ? error : new MigrationError(error.code, `${error.message}${note}`, error.context),
      added: [],
    };
  }
  const n = pin.columns.length;
  // The table as planned: the new columns cut from it and from the partitions written since (ADD COLUMNS without CASCADE leaves the old ones as they were).
  const cut = (cs: readonly HiveColumn[]): HiveColumn[] =>
    cs.length > n && cs.slice(n).every((c, i) => cols[n + i]?.name === c.name) ? cs.slice(0, n) : [...cs];
  const kept: TableInventory = {
    ...live,
    table: { ...live.table, sd: { ...live.table.sd, columns: cols.slice(0, n) } },
    partitions: live.partitions.map((p) => ({ ...p, sd: { ...p.sd, columns: cut(p.sd.columns) } })),
  };
  const keptPin = conversionPin(kept);
  // The new columns must not bring a finding of their own (an unsupported type, …); partitions without them are expected.
  const own = (xs: readonly string[]) => xs.filter((c) => c !== AssessCode.PARTITION_SCHEMA_DRIFT).join(',');
  const differences = diffPins(pin, keptPin);
  if (differences.length > 0 || own(conversionPin(live).assessment.findings) !== own(keptPin.assessment.findings))
    return { error: sourceChange(tableId, planned, live), added: [] };
  return { error: null, added: cols.slice(n).map((c) => c.name) };
}
