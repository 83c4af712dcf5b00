// A Hive view's SQL as Trino SQL, for the `trino` representation Trino's Iceberg connector reads
// (it asks a view for the dialect `trino` and refuses any other: docs/design/iceberg-spec.md §10).
// Only what carries over with the same result is translated; anything else refuses with a reason
// and the view keeps its hive and spark representations. Pure; no I/O.
//
// Translated: backtick identifiers → double-quoted ones; every table read → `"catalog"."ns"."table"`
// in Trino's catalog (the view's default catalog names the Spark catalog, so nothing is left to it);
// Hive string literals (single or double quotes, the escapes \\ \' \") → Trino's '…' with quotes
// doubled; `==` → `=`; a decimal-point literal (a DOUBLE in Hive, a DECIMAL in Trino) → its DOUBLE
// form `…E0`; `nvl` → `coalesce`. The result is wrapped as `SELECT * FROM (…) "view" ("c1", …)` so
// its columns carry the Hive view's column names (Trino refuses a view whose query names differ).
//
// Refused: a function outside TRINO_SAME_FUNCTIONS, CAST (Hive answers NULL where Trino fails, and
// the type names differ), `/` and DIV (integer division in Trino, double in Hive), ORDER BY (NULLs
// sort first ascending in Hive, last in Trino), subscripts (arrays are 0-based in Hive), the
// Hive-only clauses and operators, numeric suffixes (10L, 1BD), other string escapes.
import type { Token } from './translate';
import { tableRefs, tokenize } from './translate';

/** Functions Hive 3.1 and Trino 476 both have under this name, with the same result for the same arguments. */
export const TRINO_SAME_FUNCTIONS: ReadonlySet<string> = new Set([
  'abs',
  'avg',
  'coalesce',
  'concat',
  'concat_ws',
  'count',
  'exp',
  'greatest',
  'if',
  'least',
  'length',
  'ln',
  'lower',
  'ltrim',
  'max',
  'min',
  'nullif',
  'power',
  'reverse',
  'round',
  'rtrim',
  'sqrt',
  'sum',
  'trim',
  'upper',
]);

/** Hive functions with a Trino equivalent under another name (same arguments, same result). */
export const TRINO_RENAMED_FUNCTIONS: ReadonlyMap<string, string> = new Map([['nvl', 'coalesce']]);

/** Words followed by `(` that are syntax, not function calls. */
const SYNTAX_BEFORE_PAREN = new Set([
  'all',
  'and',
  'any',
  'as',
  'between',
  'by',
  'distinct',
  'else',
  'exists',
  'from',
  'having',
  'in',
  'join',
  'not',
  'on',
  'or',
  'over',
  'partition',
  'select',
  'some',
  'then',
  'union',
  'using',
  'when',
  'where',
  'with',
]);

/** Hive words whose meaning Trino does not share (or has no such clause). */
const REFUSED_WORDS: ReadonlyMap<string, string> = new Map([
  ['cast', 'CAST: Hive answers NULL where Trino fails, and the type names differ'],
  ['div', 'DIV: integer division'],
  ['order', 'ORDER BY: Hive sorts NULLs first ascending, Trino last'],
  ['sort', 'SORT BY: Hive only'],
  ['cluster', 'CLUSTER BY: Hive only'],
  ['distribute', 'DISTRIBUTE BY: Hive only'],
  ['lateral', 'LATERAL VIEW: Hive only'],
  ['semi', 'LEFT SEMI JOIN: Hive only'],
  ['rlike', 'RLIKE: Hive only'],
  ['regexp', 'REGEXP: Hive only'],
  ['tablesample', 'TABLESAMPLE: the sampling differs'],
  ['transform', 'TRANSFORM: Hive only'],
  ['interval', 'INTERVAL literals differ'],
]);

/** Punctuation Trino reads differently (or not at all). */
const REFUSED_PUNCT: ReadonlyMap<string, string> = new Map([
  ['/', '`/`: Trino divides integers as integers, Hive as doubles'],
  ['[', 'a subscript: Hive arrays are 0-based, Trino 1-based'],
  ['&', '`&`: no such operator in Trino'],
  ['|', '`|`: no such operator in Trino'],
  ['^', '`^`: no such operator in Trino'],
  ['~', '`~`: no such operator in Trino'],
  [';', 'more than one statement'],
  ['$', 'a `$` outside an identifier'],
]);

export type TrinoTranslation =
  | { readonly ok: true; readonly sql: string }
  | { readonly ok: false; readonly why: 'function' | 'syntax' | 'literal' | 'unplaced' | 'unparseable'; readonly message: string };

const dq = (s: string): string => `"${s.replace(/"/g, '""')}"`;

/** A Hive string literal as Trino's, or null when it holds an escape other than \\ \' \". */
function trinoString(text: string): string | null {
  const body = text.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body.charAt(i);
    if (c !== '\\') out += c;
    else {
      const n = body.charAt(++i);
      if (n !== '\\' && n !== "'" && n !== '"') return null;
      out += n;
    }
  }
  return `'${out.replace(/'/g, "''")}'`;
}

type Step = { readonly out: string; readonly skip?: number } | { readonly refuse: TrinoTranslation & { ok: false } };

/** Token `i`'s Trino text (`skip`: the tokens after it it consumed). */
function translateToken(tokens: readonly Token[], i: number): Step {
  const t = tokens[i]!;
  const prev = tokens[i - 1];
  const next = tokens[i + 1];
  const nextSig = tokens.slice(i + 1).find((x) => x.kind !== 'space');
  const refuse = (why: 'function' | 'syntax' | 'literal', message: string): Step => ({ refuse: { ok: false, why, message } });
  // A database-qualified or quoted name called: a permanent Hive UDF, which Trino does not have.
  const called = t.kind === 'ident' && nextSig?.text === '(';
  if (called && (t.text.startsWith('`') || [...tokens.slice(0, i)].reverse().find((x) => x.kind !== 'space')?.text === '.'))
    return refuse('function', `${t.value.toLowerCase()}: a permanent Hive UDF`);
  if (t.kind === 'ident' && t.text.startsWith('`')) return { out: dq(t.value) };
  if (t.kind === 'ident') {
    const lower = t.text.toLowerCase();
    const why = REFUSED_WORDS.get(lower);
    if (why !== undefined) return refuse('syntax', why);
    if (prev?.kind === 'number') return refuse('literal', `a numeric literal with a suffix (${prev.text}${t.text})`);
    if (nextSig?.text !== '(' || SYNTAX_BEFORE_PAREN.has(lower)) return { out: t.text };
    const renamed = TRINO_RENAMED_FUNCTIONS.get(lower);
    if (renamed !== undefined) return { out: renamed };
    if (!TRINO_SAME_FUNCTIONS.has(lower)) return refuse('function', `${lower}: not known to give the same result in Trino`);
    return { out: t.text };
  }
  if (t.kind === 'string') {
    const s = trinoString(t.text);
    if (s === null) return refuse('literal', `the string ${t.text.slice(0, 40)} holds an escape Trino does not read`);
    if (nextSig?.kind === 'string') return refuse('literal', 'adjacent string literals');
    return { out: s };
  }
  if (t.kind === 'number') {
    if (prev?.text === '.') return refuse('literal', `a literal starting with a point (.${t.text})`);
    return { out: /\./.test(t.text) && !/[eE]/.test(t.text) ? `${t.text}E0` : t.text };
  }
  if (t.kind === 'punct') {
    const why = REFUSED_PUNCT.get(t.text);
    if (why !== undefined) return refuse('syntax', why);
    if (t.text === '=' && next?.text === '=') return { out: '=', skip: 1 };
    if (t.text === '<' && next?.text === '=' && tokens[i + 2]?.text === '>') return refuse('syntax', '`<=>`: write IS NOT DISTINCT FROM');
    if (t.text === '!' && next?.text !== '=') return refuse('syntax', '`!` as NOT');
  }
  return { out: t.text };
}

/**
 * The Hive view's SQL for Trino: its table reads (`db.table` → the Iceberg name in `targets`)
 * qualified with Trino's catalog `trinoCatalog`, wrapped to carry `columns` (the Hive view's column
 * names); or why it does not translate.
 */
export function toTrinoSql(
  sql: string,
  targets: ReadonlyMap<string, { namespace: readonly string[]; name: string }>,
  trinoCatalog: string,
  view: { readonly name: string; readonly columns: readonly string[] },
): TrinoTranslation {
  const tokens = tokenize(sql);
  if (tokens === null) return { ok: false, why: 'unparseable', message: 'a quote or backtick is never closed' };
  const { refs } = tableRefs(tokens);
  const parts: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const step = translateToken(tokens, i);
    if ('refuse' in step) return step.refuse;
    parts.push(step.out);
    for (let s = 0; s < (step.skip ?? 0); s++) {
      parts.push('');
      i++;
    }
  }
  const renamed = new Set<string>();
  for (const r of refs) {
    const to = targets.get(r.name);
    if (to === undefined) continue;
    parts[r.from] = [trinoCatalog, ...to.namespace, to.name].map(dq).join('.');
    for (let j = r.from + 1; j <= r.to; j++) parts[j] = '';
    renamed.add(r.name);
  }
  const missing = [...targets.keys()].filter((k) => !renamed.has(k));
  if (missing.length > 0)
    return { ok: false, why: 'unplaced', message: `${missing.join(', ')}: read by the view but not found in a table position of its SQL` };
  const out = `SELECT * FROM (\n${parts.join('')}\n) ${dq(view.name)} (${view.columns.map(dq).join(', ')})`;
  return checkReads(out, trinoCatalog, targets);
}

/** The Trino text reads exactly the targets, each catalog-qualified (a reference the scanner missed would read something else). */
function checkReads(
  sql: string,
  trinoCatalog: string,
  targets: ReadonlyMap<string, { namespace: readonly string[]; name: string }>,
): TrinoTranslation {
  const tokens = tokenize(sql, 'trino');
  if (tokens === null) return { ok: false, why: 'unparseable', message: 'the Trino text does not tokenize' };
  const got = [...new Set(tableRefs(tokens).refs.map((r) => r.name))].sort();
  const want = [...new Set([...targets.values()].map((t) => [trinoCatalog, ...t.namespace, t.name].join('.').toLowerCase()))].sort();
  if (JSON.stringify(got) !== JSON.stringify(want))
    return { ok: false, why: 'unplaced', message: `the Trino text reads ${got.join(', ') || 'nothing'}, not exactly ${want.join(', ')}` };
  return { ok: true, sql };
}
