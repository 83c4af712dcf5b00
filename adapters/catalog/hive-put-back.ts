// The way back of an in-place conversion on the Hive catalog (hive.ts): the saved Hive table takes
// its name back — an unpartitioned one altered back (only while it still points at our metadata, when
// asked), a partitioned one renamed back from aside after the Iceberg entry is dropped — and a
// conversion stopped halfway is finished in either direction. Data files are never touched: the
// table aside is EXTERNAL, so the rename moves nothing.
import type { Namespace, TableIdent } from '../../core/catalog/catalog';
import { formatTableIdent } from '../../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { HiveTable } from '../../core/hive/model';
import type { ThriftHmsWriter } from '../hms/thrift/writer';
import {
  EXPECTED_PARAMETER_KEY,
  EXPECTED_PARAMETER_VALUE,
  comparable,
  externalized,
  isIceberg,
  isOriginal,
  originalAsideName,
} from './hive-forms';

/** What the steps need of the catalog: the HMS writer, a namespace's database, the table object now. */
export interface HmsSide {
  readonly writer: ThriftHmsWriter;
  db(ns: Namespace): string;
  current(ident: TableIdent): Promise<HiveTable | undefined>;
}

/**
 * In place: the saved Hive table takes its name back. With `ours` (unregister) an unpartitioned
 * table is altered back only while it still points at our metadata (atomic on HMS 4); without it
 * (a forced drop) whatever it points at. A stop halfway through either direction is finished.
 * True when an Iceberg entry was replaced or a table aside renamed back.
 */
export async function putBack(
  h: HmsSide,
  ident: TableIdent,
  now: HiveTable | undefined,
  original: HiveTable,
  ours?: string,
): Promise<boolean> {
  const partitioned = original.partitionKeys.length > 0;
  if (now !== undefined && !isIceberg(now)) {
    if (partitioned) await undoExternalized(h, ident, now, original);
    return false;
  }
  if (partitioned) return restoreAside(h, ident, original, now !== undefined);
  if (now === undefined) return false;
  const check: Record<string, string> =
    ours === undefined ? {} : { [EXPECTED_PARAMETER_KEY]: 'metadata_location', [EXPECTED_PARAMETER_VALUE]: ours };
  await h.writer.alterTable(h.db(ident.namespace), ident.name, original, { DO_NOT_UPDATE_STATS: 'true', ...check });
  return true;
}

/**
 * A conversion that stopped after making the Hive table EXTERNAL and before renaming it: put the
 * saved table type back (nothing else was changed). Any other difference is not ours to undo.
 */
async function undoExternalized(h: HmsSide, ident: TableIdent, now: HiveTable, original: HiveTable): Promise<void> {
  if (comparable(now) === comparable(original) || comparable(now) !== comparable(externalized(original))) return;
  await h.writer.alterTable(h.db(ident.namespace), ident.name, original, { DO_NOT_UPDATE_STATS: 'true' });
}

/**
 * Partitioned in place: drop the Iceberg entry (when `dropIceberg`), then rename the original
 * back from aside, as the saved object. False when there was nothing aside to restore.
 */
async function restoreAside(h: HmsSide, ident: TableIdent, original: HiveTable, dropIceberg: boolean): Promise<boolean> {
  const db = h.db(ident.namespace);
  const asideName = originalAsideName(ident.name);
  const aside = await h.current({ namespace: ident.namespace, name: asideName });
  if (aside !== undefined && !isOriginal(aside, original)) {
    throw new MigrationError(
      ErrorCode.CATALOG_CONFLICT,
      `${db}.${asideName} is no longer the saved original of ${formatTableIdent(ident)}; not restoring it`,
      { table: formatTableIdent(ident), aside: `${db}.${asideName}` },
    );
  }
  if (dropIceberg) {
    if (aside === undefined)
      throw new MigrationError(
        ErrorCode.CATALOG_CONFLICT,
        `${formatTableIdent(ident)}: its Hive original is not at ${db}.${asideName}; not dropping the Iceberg table`,
        { table: formatTableIdent(ident) },
      );
    await h.writer.dropTable(db, ident.name);
  }
  if (aside === undefined) return false;
  // The table aside is EXTERNAL, so the rename back moves nothing; the saved object returns whole.
  await h.writer.alterTable(db, asideName, original, { DO_NOT_UPDATE_STATS: 'true' });
  return true;
}
