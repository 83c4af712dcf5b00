// Apply never trusts the plan's judgement: before anything is written, a table read live from HMS
// goes through the assessment rules again (with the worker's options), and a table whose live class
// is not migratable fails with its coded reason — whatever the plan file says.
import { ErrorCode, MigrationError } from '../core/errors';
import type { TableInventory } from '../core/hive/model';
import { assessTable } from '../core/plan/assess/assess';
import type { AssessFinding, AssessOptions } from '../core/plan/assess/types';
import { AssessCode, DEFAULT_ASSESS_OPTIONS, isView } from '../core/plan/assess/types';

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

/** The findings that keep this table out of a migration (class skip or rewrite-required); views pass. */
export function blockingFindings(inv: TableInventory, options: AssessOptions = DEFAULT_ASSESS_OPTIONS): AssessFinding[] {
  if (isView(inv)) return [];
  return assessTable(inv, options).findings.filter((f) => f.effect === 'skip' || f.effect === 'rewrite');
}

/** Throws the first blocking finding as a non-retryable coded error naming every one. */
export function assertMigratable(tableId: string, inv: TableInventory, options?: AssessOptions): void {
  const blockers = blockingFindings(inv, options);
  const first = blockers[0];
  if (first === undefined) return;
  const all = blockers.map((f) => `${f.code}: ${f.evidence}`).join('; ');
  throw new MigrationError(errorCodeOf(first), `${tableId} is not migratable as it is in HMS now (${all}); the plan listed it, apply re-checked it and wrote nothing. ${first.remediation}`, { tableId, findings: blockers.map((f) => f.code) }, { retryable: false });
}
