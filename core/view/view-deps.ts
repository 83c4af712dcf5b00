// The port for reading a view's dependencies out of its SQL, and its result types. The parser
// itself (node-sql-parser) lives in adapters/sql so core stays dependency-light. Pure; no I/O.
import type { TableId } from '../plan/types';

export type ViewReferences =
  /** `tables`: every `db.table` the SQL reads (CTE names excluded), lower-case, sorted, unique. */
  | { readonly ok: true; readonly tables: readonly TableId[]; readonly sql: 'expanded' | 'original' }
  /** No usable SQL, or it does not parse: the view's dependencies are unknown. */
  | { readonly ok: false; readonly error: string };

export interface ViewSqlParser {
  /**
   * References of one view's SQL. Unqualified names resolve to `defaultDatabase` (the view's own
   * database, as Hive resolves them). Never throws: a parse failure is `{ ok: false }`.
   */
  references(sql: string, defaultDatabase: string): ViewReferences;
}

/** Expanded text first (Hive fully qualifies it), the original text as the fallback. */
export function viewReferences(parser: ViewSqlParser, database: string, expanded: string | null, original: string | null): ViewReferences {
  const tryOne = (sql: string | null, which: 'expanded' | 'original'): ViewReferences | null => {
    if (sql === null || sql.trim() === '') return null;
    const r = parser.references(sql, database);
    return r.ok ? { ...r, sql: which } : r;
  };
  const first = tryOne(expanded, 'expanded');
  if (first?.ok) return first;
  const second = tryOne(original, 'original');
  if (second?.ok) return second;
  const error = first?.ok === false ? first.error : second?.ok === false ? second.error : 'the view has no SQL text';
  return { ok: false, error };
}
