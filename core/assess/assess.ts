// Runs every assessment rule over a table and derives its one class: skip > rewrite-required >
// migrate-with-warnings > migrate (the strongest effect wins). Pure; no I/O.
import type { TableInventory } from '../hive/model';
import { TableClass } from './types';
import type { Risk, TableKind } from './types';
import { acidRule } from './rules/acid';
import { bucketedRule } from './rules/bucketed';
import { columnTypesRule } from './rules/column-types';
import { emptyRule } from './rules/empty';
import { formatRule } from './rules/format';
import { locationInvalidRule } from './rules/location';
import { managedRule } from './rules/managed';
import { partitionLocationRule } from './rules/partition-location';
import { partitionValueRule } from './rules/partition-values';
import { readerLimitsRule } from './rules/reader-limits';
import { schemaDriftRule } from './rules/schema-drift';
import { skewedRule } from './rules/skewed';
import { statsMissingRule } from './rules/stats-missing';
import { alreadyIcebergRule, storageHandlerRule } from './rules/storage-handler';
import { temporaryRule, viewRule } from './rules/view';
import { locationReservedRule } from './rules/location-reserved';
import { locationFenceRule } from './rules/location-fence';
import { sizeOf, withStorageSize } from './stats';
import type { AssessFinding, AssessOptions, Rule } from './types';
import { DEFAULT_ASSESS_OPTIONS, isView } from './types';

/** In report order. */
export const RULES: readonly Rule[] = [
  alreadyIcebergRule,
  storageHandlerRule,
  temporaryRule,
  viewRule,
  acidRule,
  formatRule,
  bucketedRule,
  skewedRule,
  managedRule,
  locationInvalidRule,
  locationReservedRule,
  locationFenceRule,
  partitionLocationRule,
  partitionValueRule,
  schemaDriftRule,
  columnTypesRule,
  readerLimitsRule,
  emptyRule,
  statsMissingRule,
];

export interface Assessment {
  readonly id: string;
  readonly database: string;
  readonly name: string;
  readonly kind: TableKind;
  readonly class: TableClass;
  readonly findings: readonly AssessFinding[];
  readonly files: number;
  readonly bytes: number;
  /** Where files/bytes come from: HMS fast stats, or the storage listing when those were absent or zero. */
  readonly sizeSource: 'hms' | 'storage';
  readonly risk: Risk;
}

export function classify(findings: readonly AssessFinding[]): TableClass {
  const has = (e: AssessFinding['effect']): boolean => findings.some((f) => f.effect === e);
  if (has('skip')) return TableClass.SKIP;
  if (has('rewrite')) return TableClass.REWRITE_REQUIRED;
  if (has('warn')) return TableClass.MIGRATE_WITH_WARNINGS;
  return TableClass.MIGRATE;
}

/** Low risk: small, warning-free tables (canary candidates); high: large or with several warnings. */
function riskOf(cls: TableClass, files: number, bytes: number, warnings: number): Risk {
  if (cls === TableClass.MIGRATE && files <= 100 && bytes <= 1 << 30) return 'low';
  if (warnings >= 2 || bytes > 100 * (1 << 30)) return 'high';
  return 'medium';
}

export function assessTable(
  t: TableInventory,
  options: AssessOptions = DEFAULT_ASSESS_OPTIONS,
  extra: readonly AssessFinding[] = [],
): Assessment {
  const findings = withStorageSize([...RULES.flatMap((r) => r(t, options)), ...extra]);
  const cls = classify(findings);
  const s = sizeOf(t, findings);
  const warnings = findings.filter((f) => f.effect === 'warn').length;
  const database = t.table.database.toLowerCase();
  const name = t.table.name.toLowerCase();
  return {
    id: `${database}.${name}`,
    database,
    name,
    kind: isView(t) ? 'view' : 'table',
    class: cls,
    findings,
    files: s.files,
    bytes: s.bytes,
    sizeSource: s.source,
    risk: riskOf(cls, s.files, s.bytes, warnings),
  };
}
