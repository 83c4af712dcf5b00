// Apply never trusts the plan's judgement: before anything is written, a table read live from HMS
// goes through the assessment rules again (with the worker's options), and a table whose live class
// is not migratable fails with its coded reason — whatever the plan file says.
import { ErrorCode, MigrationError } from '../core/errors';
import type { TableInventory } from '../core/hive/model';
import { liveBlockers } from '../core/plan/assess/live-blockers';
import type { AssessFinding, AssessOptions } from '../core/plan/assess/types';
import { AssessCode } from '../core/plan/assess/types';

/** Finding codes with an apply error of their own; the rest fail as TABLE_NOT_MIGRATABLE. */
const ERROR_OF: Readonly<Partial<Record<string, ErrorCode>>> = {
  [AssessCode.BUCKETED]: ErrorCode.CONVERT_BUCKETED,
  [AssessCode.SKEWED_SUBDIRECTORIES]: ErrorCode.CONVERT_SUBDIRECTORY,
  [AssessCode.DATA_IN_SUBDIRECTORIES]: ErrorCode.CONVERT_SUBDIRECTORY,
};

function errorCodeOf(f: AssessFinding): ErrorCode {
  const own = ERROR_OF[f.code];
  if (own !== undefined) return own;
  return (Object.values(ErrorCode) as string[]).includes(f.code) ? (f.code as ErrorCode) : ErrorCode.TABLE_NOT_MIGRATABLE;
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
