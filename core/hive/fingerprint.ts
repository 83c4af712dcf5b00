// The identity of a Hive table as plan and apply see it, decided in one place. A fingerprint is the
// sha256 of the canonical JSON of the whole inventory as read from HMS: the table (name, type,
// storage descriptor, columns, partition keys, parameters — `transient_lastDdlTime` and stats
// included) and every partition with its own storage descriptor and parameters. `migrate plan`
// records it per table; apply refuses a table whose live fingerprint differs (SOURCE_CHANGED);
// rollback checks the HMS object equals the saved original by it. Pure; no I/O.
import type { TableInventory } from './model';
import { canonicalJson, sha256Hex } from '../hash';

export function tableFingerprint(inv: TableInventory): string {
  // An insert-only table's valid write ids are the metastore's transaction state, not the table
  // object: a new committed write is new files, never a changed table (core/hive/acid.ts).
  const { writeIds: _state, ...object } = inv;
  return sha256Hex(canonicalJson(object));
}

/** The digest of the table object alone (no partitions): nightly validation's HMS_OBJECT_CHANGED. */
export function tableObjectDigest(table: TableInventory['table']): string {
  return sha256Hex(canonicalJson(table));
}
