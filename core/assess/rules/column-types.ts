// Rule: every column type must parse (core/hive/types.ts) and have an Iceberg equivalent: uniontype,
// interval_* and void have none (rewrite); char/varchar become string and tinyint/smallint widen to
// int (warn) (docs/design/hive-metastore.md §5 "Types"). Pure; no I/O.
import type { HiveColumn } from '../../hive/model';
import type { HiveType } from '../../hive/types';
import { parseHiveType } from '../../hive/types';
import type { AssessFinding, Rule } from '../types';
import { AssessCode, finding, isView } from '../types';

/** The first construct in `t` with no Iceberg type, or null. */
function unsupported(t: HiveType): string | null {
  switch (t.kind) {
    case 'union':
      return 'uniontype';
    case 'primitive':
      return t.name === 'void' || t.name.startsWith('interval_') ? t.name : null;
    case 'array':
      return unsupported(t.element);
    case 'map':
      return unsupported(t.key) ?? unsupported(t.value);
    case 'struct':
      return t.fields.reduce<string | null>((acc, f) => acc ?? unsupported(f.type), null);
    default:
      return null;
  }
}

/** The first lossy-but-legal mapping in `t`, or null. */
function widened(t: HiveType): string | null {
  switch (t.kind) {
    case 'char':
    case 'varchar':
      return `${t.kind}(${t.length}) → string`;
    case 'primitive':
      return t.name === 'tinyint' || t.name === 'smallint' ? `${t.name} → int` : null;
    case 'array':
      return widened(t.element);
    case 'map':
      return widened(t.key) ?? widened(t.value);
    case 'struct':
      return t.fields.reduce<string | null>((acc, f) => acc ?? widened(f.type), null);
    default:
      return null;
  }
}

function checkColumn(c: HiveColumn): AssessFinding | null {
  let t: HiveType;
  try {
    t = parseHiveType(c.type, c.name);
  } catch (e) {
    return finding(
      AssessCode.TYPE_INVALID,
      'rewrite',
      `column ${c.name}: ${(e as Error).message}`,
      `fix the type of column ${c.name} in HMS (ALTER TABLE … CHANGE COLUMN) or rewrite the table`,
      c.name,
    );
  }
  const bad = unsupported(t);
  if (bad !== null)
    return finding(
      AssessCode.TYPE_UNSUPPORTED,
      'rewrite',
      `column ${c.name} has type ${c.type} (${bad} has no Iceberg type)`,
      `rewrite with column ${c.name} cast to a supported type`,
      c.name,
    );
  const wide = widened(t);
  if (wide !== null)
    return finding(
      AssessCode.TYPE_WIDENED,
      'info',
      `column ${c.name}: ${wide}`,
      'readers see the Iceberg type; lengths are not enforced',
      c.name,
    );
  return null;
}

export const columnTypesRule: Rule = (t) => {
  if (isView(t)) return [];
  const cols = [...t.table.sd.columns, ...t.table.partitionKeys];
  return cols.map(checkColumn).filter((f): f is AssessFinding => f !== null);
};
