// ViewSqlParser over node-sql-parser (Hive dialect): the `db.table` names a view's SQL reads —
// through CTEs, subqueries, joins, unions, backticks and db-qualified names; CTE names are not
// tables. A few Hive constructs the grammar lacks (LEFT SEMI JOIN, LATERAL VIEW) are rewritten to
// equivalents with the same table references first. I/O-free, but kept out of core so core stays
// dependency-light. Only the Hive grammar is loaded (the package's per-dialect build, 0.2 MB of its
// 89 MB); dev/build.ts bundles it into this module's compiled file, so the installed tool does not
// depend on the package.
import { Parser } from 'node-sql-parser/build/hive';
import type { ViewReferences, ViewSqlParser } from '../../core/view/view-deps';

const DIALECT = { database: 'hive' } as const;

/** Index just past the parenthesised group opening at `open` (quotes respected), or -1. */
function closeParen(sql: string, open: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < sql.length; i++) {
    const c = sql.charAt(i);
    if (quote !== null) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i + 1;
  }
  return -1;
}

const IDENT = String.raw`(?:\`[^\`]+\`|[A-Za-z_][A-Za-z0-9_]*)`;
const LATERAL = /\bLATERAL\s+VIEW\s+(?:OUTER\s+)?[A-Za-z_][A-Za-z0-9_.]*\s*\(/i;
const LATERAL_TAIL = new RegExp(String.raw`^\s*(?!AS\b)${IDENT}?\s*(?:AS\s+${IDENT}(?:\s*,\s*${IDENT})*)?`, 'i');

/**
 * `LATERAL VIEW [OUTER] f(args) alias AS c1, c2` only generates rows from the current one: drop it
 * (its arguments read columns, never tables). `LEFT SEMI JOIN` reads its right side like a join.
 */
export function normalizeHiveSql(sql: string): string {
  let out = sql.replace(/\bLEFT\s+SEMI\s+JOIN\b/gi, 'JOIN');
  for (let guard = 0; guard < 100; guard++) {
    const m = LATERAL.exec(out);
    if (m === null) break;
    const end = closeParen(out, m.index + m[0].length - 1);
    if (end < 0) break;
    const tail = LATERAL_TAIL.exec(out.slice(end));
    out = `${out.slice(0, m.index)} ${out.slice(end + (tail?.[0].length ?? 0))}`;
  }
  return out;
}

/** CTE names anywhere in the AST (`WITH name AS (…)`, at any nesting depth). */
function cteNames(node: unknown, into: Set<string>, depth = 0): Set<string> {
  if (depth > 500 || node === null || typeof node !== 'object') return into;
  if (Array.isArray(node)) {
    for (const n of node) cteNames(n, into, depth + 1);
    return into;
  }
  const rec = node as Record<string, unknown>;
  if (Array.isArray(rec.with)) {
    for (const w of rec.with as { name?: { value?: unknown } | string }[]) {
      const name = typeof w.name === 'string' ? w.name : w.name?.value;
      if (typeof name === 'string') into.add(name.toLowerCase());
    }
  }
  for (const v of Object.values(rec)) cteNames(v, into, depth + 1);
  return into;
}

export class NodeSqlViewParser implements ViewSqlParser {
  private readonly parser = new Parser();

  references(sql: string, defaultDatabase: string): ViewReferences {
    let parsed: { tableList: string[]; ast: unknown };
    try {
      parsed = this.parser.parse(normalizeHiveSql(sql), DIALECT) as { tableList: string[]; ast: unknown };
    } catch (e) {
      return { ok: false, error: firstLine(e) };
    }
    const ctes = cteNames(parsed.ast, new Set());
    const out = new Set<string>();
    for (const entry of parsed.tableList) {
      // Entries are `<statement>::<db|null>::<table>`.
      const [kind, db, table] = entry.split('::');
      if (kind !== 'select' || table === undefined || table === '') {
        return { ok: false, error: `a view must be one SELECT; found a ${kind ?? 'statement'} on ${table ?? '?'}` };
      }
      const unqualified = db === undefined || db === 'null' || db === '';
      if (unqualified && ctes.has(table.toLowerCase())) continue;
      out.add(`${(unqualified ? defaultDatabase : db).toLowerCase()}.${table.toLowerCase()}`);
    }
    if (!isSelect(parsed.ast)) return { ok: false, error: 'a view must be one SELECT statement' };
    return { ok: true, tables: [...out].sort(), sql: 'expanded' };
  }
}

function isSelect(ast: unknown): boolean {
  const one = Array.isArray(ast) ? (ast.length === 1 ? (ast[0] as unknown) : null) : ast;
  return one !== null && typeof one === 'object' && (one as { type?: unknown }).type === 'select';
}

function firstLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  const line = msg.split('\n')[0] ?? msg;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

export interface ViewDependencies {
  /** `db.table` names the view reads (lower-case, sorted, unique; the view itself left out). */
  readonly refs: readonly string[];
  /** Why no references could be read (`expanded text: …`), or null. */
  readonly error: string | null;
  readonly parsedFrom: 'expanded' | 'original' | null;
}

const shared = new NodeSqlViewParser();

/** A view's dependencies: expanded text first, the original as fallback; never throws. */
export function viewDependencies(v: {
  readonly database: string;
  readonly name: string;
  readonly viewExpandedText: string | null;
  readonly viewOriginalText: string | null;
}): ViewDependencies {
  const db = v.database.toLowerCase();
  const self = `${db}.${v.name.toLowerCase()}`;
  const errors: string[] = [];
  for (const [which, sql] of [
    ['expanded', v.viewExpandedText],
    ['original', v.viewOriginalText],
  ] as const) {
    if (sql === null || sql.trim() === '') continue;
    const r = shared.references(sql, db);
    if (r.ok) return { refs: r.tables.filter((t) => t !== self), error: null, parsedFrom: which };
    errors.push(`${which} text: ${r.error}`);
  }
  return { refs: [], error: errors[0] ?? 'the view has no SQL text', parsedFrom: null };
}
