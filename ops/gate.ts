// Apply never trusts the plan's judgement: before anything is written, a table read live from HMS
// goes through the assessment rules again (with the worker's options), and a table whose live class
// is not migratable fails with its coded reason — whatever the plan file says.
import { ErrorCode, MigrationError } from '../core/errors';
import { isInsertOnly } from '../core/hive/acid';
import type { HmsReader, TableInventory } from '../core/hive/model';
import { liveBlockers } from '../core/assess/live-blockers';
import type { AssessFinding, AssessOptions } from '../core/assess/types';
import { AssessCode } from '../core/assess/types';

/** Finding codes with an apply error of their own; the rest fail as TABLE_NOT_MIGRATABLE. */
const ERROR_OF: Readonly<Partial<Record<string, ErrorCode>>> = {
  [AssessCode.BUCKETED]: ErrorCode.CONVERT_BUCKETED,
  [AssessCode.SKEWED_SUBDIRECTORIES]: ErrorCode.CONVERT_SUBDIRECTORY,
  [AssessCode.DATA_IN_SUBDIRECTORIES]: ErrorCode.CONVERT_SUBDIRECTORY,
  [AssessCode.INSERT_ONLY_TABLE]: ErrorCode.ACID_WRITE_IDS_UNAVAILABLE,
};

function errorCodeOf(f: AssessFinding): ErrorCode {
  const own = ERROR_OF[f.code];
  if (own !== undefined) return own;
  return (Object.values(ErrorCode) as string[]).includes(f.code) ? (f.code as ErrorCode) : ErrorCode.TABLE_NOT_MIGRATABLE;
}

/**
 * An insert-only ACID table read live gets its valid write ids (the reader's snapshot now): the
 * conversion takes exactly its committed writes. The backing-DB reader refuses (ACID_WRITE_IDS_UNAVAILABLE).
 */
export async function withLiveWriteIds(hms: HmsReader, inv: TableInventory): Promise<TableInventory> {
  if (!isInsertOnly(inv.table.parameters)) return inv;
  return { ...inv, writeIds: await hms.getValidWriteIds(inv.table.database, inv.table.name) };
}

/** A write open on an insert-only table: its files are not final, so nothing is converted now. */
export function assertNoOpenWrite(tableId: string, inv: TableInventory): void {
  const open = inv.writeIds?.open ?? [];
  if (open.length === 0) return;
  throw new MigrationError(
    ErrorCode.ACID_WRITE_OPEN,
    `${tableId} is an insert-only ACID table with write id(s) ${open.join(', ')} open (a transaction is writing to it); apply re-checked it and wrote nothing`,
    { tableId, open },
    { retryable: false },
  );
}

/** Throws the first blocking finding as a non-retryable coded error naming every one. */
export function assertMigratable(tableId: string, inv: TableInventory, options?: AssessOptions): void {
  const blockers = liveBlockers(inv, options);
  const first = blockers[0];
  if (first === undefined) return;
  const all = blockers.map((f) => `${f.code}: ${f.evidence}`).join('; ');
  throw new MigrationError(
    errorCodeOf(first),
    `${tableId} is not migratable as it is in HMS now (${all}); the plan listed it, apply re-checked it and wrote nothing. ${first.remediation}`,
    { tableId, findings: blockers.map((f) => f.code) },
    { retryable: false },
  );
}
