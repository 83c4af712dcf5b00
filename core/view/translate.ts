// A Hive view's SQL as Spark SQL: the tables it reads renamed to the Iceberg names they migrate to,
// everything else kept byte for byte. Hive and Spark share the SELECT grammar the views use
// (backtick identifiers, the same built-ins for what Hive's expanded text holds); what does not
// carry over is refused with a code, never guessed: a permanent (database-qualified) UDF, a Hive-only
// built-in, or a table reference this scanner cannot place. Pure; no I/O.
//
// The expanded text names every table `db`.`table` after FROM or JOIN (or a comma inside a FROM
// list); a column reference `alias`.`col` has the same shape, so only identifiers in a table
// position are renamed. The caller re-parses the result and compares its references.

/** Hive built-ins with no Spark equivalent (Hive 3.1 FunctionRegistry minus Spark 4.0 built-ins). */
export const HIVE_ONLY_FUNCTIONS: ReadonlySet<string> = new Set([
  'compute_stats',
  'context_ngrams',
  'current_groups',
  'enforce_constraint',
  'extract_union',
  'get_splits',
  'in_file',
  'logged_in_user',
  'mask_first_n',
  'mask_last_n',
  'mask_show_first_n',
  'mask_show_last_n',
  'mask_hash',
  'matchpath',
  'noop',
  'noopwithmap',
  'restrict_information_schema',
  'sort_array_by',
  'surrogate_key',
  'tumbling_window',
  'windowingtablefunction',
]);

export type Token =
  | { readonly kind: 'ident'; readonly text: string; readonly value: string; readonly at: number }
  | { readonly kind: 'punct' | 'string' | 'number' | 'space'; readonly text: string; readonly at: number };

/**
 * Split SQL into tokens (quotes, backticks and comments respected); null when a quote never closes.
 * `trino`: Trino's lexis — `"…"` is an identifier, quotes are escaped by doubling, never by a backslash.
 */
export function tokenize(sql: string, dialect: 'hive' | 'trino' = 'hive'): Token[] | null {
  const trino = dialect === 'trino';
  const out: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql.charAt(i);
    const start = i;
    if (/\s/.test(c)) {
      while (i < sql.length && /\s/.test(sql.charAt(i))) i++;
      out.push({ kind: 'space', text: sql.slice(start, i), at: start });
    } else if (c === '-' && sql.charAt(i + 1) === '-') {
      while (i < sql.length && sql.charAt(i) !== '\n') i++;
      out.push({ kind: 'space', text: sql.slice(start, i), at: start });
    } else if (c === '`' || c === "'" || c === '"') {
      i++;
      for (;;) {
        while (i < sql.length && sql.charAt(i) !== c) i += sql.charAt(i) === '\\' && c !== '`' && !trino ? 2 : 1;
        if (i >= sql.length) return null;
        i++;
        // A doubled backtick inside a quoted identifier is one backtick (Hive, Spark); Trino doubles every quote.
        if ((c === '`' || trino) && sql.charAt(i) === c) i++;
        else break;
      }
      const text = sql.slice(start, i);
      const ident = c === '`' || (trino && c === '"');
      out.push(
        ident
          ? {
              kind: 'ident',
              text,
              value: text
                .slice(1, -1)
                .split(c + c)
                .join(c),
              at: start,
            }
          : { kind: 'string', text, at: start },
      );
    } else if (/[A-Za-z_]/.test(c)) {
      while (i < sql.length && /[A-Za-z0-9_$]/.test(sql.charAt(i))) i++;
      const text = sql.slice(start, i);
      out.push({ kind: 'ident', text, value: text, at: start });
    } else if (/[0-9]/.test(c)) {
      while (i < sql.length && /[0-9.eE]/.test(sql.charAt(i))) i++;
      out.push({ kind: 'number', text: sql.slice(start, i), at: start });
    } else {
      i++;
      out.push({ kind: 'punct', text: c, at: start });
    }
  }
  return out;
}

/** Where a FROM list ends (a keyword at the list's own depth). */
const CLAUSE_END = new Set([
  'where',
  'group',
  'having',
  'order',
  'limit',
  'union',
  'intersect',
  'except',
  'window',
  'cluster',
  'distribute',
  'sort',
  'lateral',
  'on',
  'using',
  'select',
]);
const TABLE_LEAD = new Set(['from', 'join']);

export type SparkTranslation =
  | { readonly ok: true; readonly sql: string; readonly renamed: readonly string[] }
  | { readonly ok: false; readonly why: 'function' | 'unplaced' | 'unparseable'; readonly message: string };

export interface Ref {
  readonly from: number;
  readonly to: number;
  readonly name: string;
}

const quotedIdent = (t: Token): boolean => t.kind === 'ident' && (t.text.startsWith('`') || t.text.startsWith('"'));

/** The dotted names (two parts or more) in table position: token index range and lower-case name; and the functions called. */
export function tableRefs(tokens: readonly Token[]): { refs: Ref[]; functions: string[] } {
  const sig = tokens.map((t, i) => ({ t, i })).filter((x) => x.t.kind !== 'space');
  const refs: Ref[] = [];
  const functions: string[] = [];
  const fromDepth: number[] = [];
  let depth = 0;
  for (let k = 0; k < sig.length; k++) {
    const { t } = sig[k]!;
    const lower = t.kind === 'ident' && !quotedIdent(t) ? t.text.toLowerCase() : null;
    if (t.text === '(') depth++;
    else if (t.text === ')') {
      depth--;
      while (fromDepth.length > 0 && fromDepth[fromDepth.length - 1]! > depth) fromDepth.pop();
    }
    if (t.kind === 'ident' && sig[k + 1]?.t.text === '(' && lower !== null) functions.push(lower);
    if (t.kind === 'ident' && sig[k + 1]?.t.text === '.' && sig[k + 2]?.t.kind === 'ident' && sig[k + 3]?.t.text === '(')
      functions.push(`${(t as { value: string }).value}.${(sig[k + 2]!.t as { value: string }).value}`.toLowerCase());
    if (lower !== null && CLAUSE_END.has(lower) && fromDepth[fromDepth.length - 1] === depth) fromDepth.pop();
    const lead = (lower !== null && TABLE_LEAD.has(lower)) || (t.text === ',' && fromDepth[fromDepth.length - 1] === depth);
    if (!lead) continue;
    if (lower === 'from' && fromDepth[fromDepth.length - 1] !== depth) fromDepth.push(depth);
    const a = sig[k + 1];
    if (a?.t.kind !== 'ident') continue;
    const parts = [(a.t as { value: string }).value];
    let to = a.i;
    for (let m = k + 2; sig[m]?.t.text === '.' && sig[m + 1]?.t.kind === 'ident'; m += 2) {
      parts.push((sig[m + 1]!.t as { value: string }).value);
      to = sig[m + 1]!.i;
    }
    if (parts.length >= 2) refs.push({ from: a.i, to, name: parts.join('.').toLowerCase() });
  }
  return { refs, functions };
}

const quote = (s: string): string => `\`${s.replace(/`/g, '``')}\``;

/**
 * Rename every `db`.`table` in table position found in `targets` (lower-case `db.table` → the
 * Iceberg namespace levels and name). A permanent UDF (`db.fn(…)`) or a Hive-only built-in refuses.
 */
export function toSparkSql(sql: string, targets: ReadonlyMap<string, { namespace: readonly string[]; name: string }>): SparkTranslation {
  const tokens = tokenize(sql);
  if (tokens === null) return { ok: false, why: 'unparseable', message: 'a quote or backtick is never closed' };
  const { refs, functions } = tableRefs(tokens);
  const udf = functions.find((f) => f.includes('.'));
  if (udf !== undefined) return { ok: false, why: 'function', message: `${udf}: a permanent Hive UDF (Spark has no such function)` };
  const hiveOnly = functions.find((f) => HIVE_ONLY_FUNCTIONS.has(f));
  if (hiveOnly !== undefined) return { ok: false, why: 'function', message: `${hiveOnly}: a Hive built-in Spark does not have` };
  const parts = tokens.map((t) => t.text);
  const renamed: string[] = [];
  for (const r of refs) {
    const to = targets.get(r.name);
    if (to === undefined) continue;
    parts[r.from] = [...to.namespace, to.name].map(quote).join('.');
    for (let j = r.from + 1; j <= r.to; j++) parts[j] = '';
    renamed.push(r.name);
  }
  const missing = [...targets.keys()].filter((k) => !renamed.includes(k));
  if (missing.length > 0)
    return { ok: false, why: 'unplaced', message: `${missing.join(', ')}: read by the view but not found in a table position of its SQL` };
  return { ok: true, sql: parts.join(''), renamed: [...new Set(renamed)].sort() };
}
