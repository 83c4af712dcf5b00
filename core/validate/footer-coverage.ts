// Validation's footer coverage: every column path of every data file footer validation read must
// resolve to a field id through the table's name mapping (`schema.name-mapping.default`), the way
// readers apply it — names matched exactly (the mapping's names and aliases), through structs, list
// elements and map keys/values (core/iceberg/footer-paths.ts). A path that does not resolve is a
// VALIDATION_FOOTER_UNMAPPED finding:
// - it fails validation when Hive would read that column (the name resolves case-insensitively or as
//   `_colN` to a declared column or nested field): readers of the Iceberg table would read NULL where
//   Hive reads values;
// - it is a warning when Hive never declared it (a column dropped from the table, an extra writer
//   column): Hive ignores it too, so the Iceberg table reads the same rows.
// Pure; no I/O (the engine reads the footers: engine/validate-conversion.ts).
import { ErrorCode } from '../errors';
import { footerTree, hiveMatcher, walkFooter } from '../iceberg/footer-paths';
import type { MappedField, NameMapping } from '../iceberg/name-mapping';
import type { Schema } from '../iceberg/types';
import type { ValidationFinding } from './compare';

/** One distinct footer layout: its column paths, a file that has it, and how many files do. */
export interface FooterLayout {
  readonly columns: readonly (readonly string[])[];
  readonly file: string;
  readonly files: number;
}

const MAX_FINDINGS = 20;
const key = (path: readonly string[]): string => path.join('\u0000');

function namesById(mapping: NameMapping): Map<number, readonly string[]> {
  const out = new Map<number, readonly string[]>();
  const visit = (fs: readonly MappedField[]): void => {
    for (const f of fs) {
      out.set(f.fieldId, [...(out.get(f.fieldId) ?? []), ...f.names]);
      if (f.fields !== undefined) visit(f.fields);
    }
  };
  visit(mapping);
  return out;
}

/** Footer paths (prefixes) the name mapping does not resolve, and those Hive itself would not. */
function misses(schema: Schema, mapping: NameMapping | null, dataColumnCount: number, columns: readonly (readonly string[])[]) {
  const tree = footerTree(columns);
  const names = namesById(mapping ?? []);
  const unmapped: (readonly string[])[] = [];
  walkFooter(tree, schema.fields, {
    match: (name, fields) => fields.find((f) => names.get(f.id)?.includes(name) === true),
    unmatched: (p) => unmapped.push(p),
  });
  const undeclared = new Set<string>();
  walkFooter(tree, schema.fields, { match: hiveMatcher(dataColumnCount), unmatched: (p) => undeclared.add(key(p)) });
  return { unmapped, undeclared };
}

function isUndeclared(path: readonly string[], undeclared: ReadonlySet<string>): boolean {
  for (let n = 1; n <= path.length; n++) if (undeclared.has(key(path.slice(0, n)))) return true;
  return false;
}

function finding(path: readonly string[], layout: FooterLayout, declared: boolean, mapped: boolean): ValidationFinding {
  const dotted = path.join('.');
  const where = `${layout.file}${layout.files > 1 ? ` (and ${layout.files - 1} more file(s) of this layout)` : ''}`;
  const base = { code: ErrorCode.VALIDATION_FOOTER_UNMAPPED, check: 'footers' as const, path: dotted, actual: 'unmapped' };
  if (declared)
    return {
      ...base,
      expected: 'a field id',
      message: `footer column '${dotted}' of ${where} is a Hive column but the name mapping ${mapped ? 'has no name for it' : 'is missing'}: readers would read NULL`,
    };
  return {
    ...base,
    severity: 'warning',
    expected: 'a Hive column',
    message: `footer column '${dotted}' of ${where} is not a column of the Hive table: readers skip it, as Hive does`,
  };
}

/**
 * The footer columns of `layouts` the name mapping (null: the table has none) does not cover,
 * failures first, at most 20 findings (one per distinct path).
 */
export function footerCoverage(
  schema: Schema,
  mapping: NameMapping | null,
  dataColumnCount: number,
  layouts: readonly FooterLayout[],
): ValidationFinding[] {
  const seen = new Set<string>();
  const fail: ValidationFinding[] = [];
  const warn: ValidationFinding[] = [];
  for (const layout of layouts) {
    const { unmapped, undeclared } = misses(schema, mapping, dataColumnCount, layout.columns);
    for (const p of unmapped) {
      if (seen.has(key(p))) continue;
      seen.add(key(p));
      const declared = !isUndeclared(p, undeclared);
      (declared ? fail : warn).push(finding(p, layout, declared, mapping !== null));
    }
  }
  return [...fail, ...warn].slice(0, MAX_FINDINGS);
}
