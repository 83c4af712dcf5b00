// From what one reader did with one migrated matrix table (its full read and its predicate counts) to
// the cell of the reader matrix (core/readers/matrix.ts): ok, wrong (what differs, first value
// first), fails (the error's first line) or refused (the tool did not migrate the table). And the
// comparison of a run's cells with the committed matrix. Dev tooling.
import type { Reader, Verdict } from '../../core/readers/encodings';
import { ENCODINGS, READERS } from '../../core/readers/encodings';
import type { MatrixRow, ReaderCell } from '../../core/readers/matrix';
import type { MatrixPredicate, MatrixTable } from './seed';

export interface FullRead {
  readonly rows?: number;
  readonly checksum?: string;
  readonly sample?: readonly Record<string, unknown>[];
  readonly error?: string;
}

export interface PredicateCount {
  readonly index: number;
  readonly count?: number;
  readonly error?: string;
}

/** The results file a run writes and `dev/readers/matrix.ts --write` reads. */
export interface MatrixResults {
  readonly rows: readonly MatrixRow[];
  /** Wall seconds per phase of the run (seed, migrate, read). */
  readonly seconds?: Readonly<Record<string, number>>;
}

/** An error's first line; for a Py4J error the Java exception's (its first line names only the call). */
export function firstLine(s: string): string {
  const lines = s
    .trim()
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines[0]?.startsWith('Py4JJavaError')) {
    const java = lines.slice(1).filter((l) => /^(Caused by: )?[\w.$]+(Exception|Error)\b/.test(l));
    const cause = [...java].reverse().find((l) => l.startsWith('Caused by'));
    if (cause !== undefined || java[0] !== undefined) return (cause ?? java[0] ?? '').slice(0, 240);
  }
  return (lines[0] ?? '').slice(0, 240);
}

/** Names that change from run to run (the test's database, file locations) out of a detail. */
export function stable(detail: string, db: string): string {
  return detail
    .replaceAll(db, '<db>')
    .replace(/s3a?:\/\/[^\s'"\])]+/g, '<file>')
    .replace(/\s+/g, ' ');
}

export function describePredicate(p: MatrixPredicate): string {
  return p.op === 'is_null' ? `${p.column} IS NULL` : `${p.column} ${p.op} ${p.type} '${p.literal ?? ''}'`;
}

const canon = (r: unknown): string => JSON.stringify(r, Object.keys((r ?? {}) as object).sort());

/** The first expected row the reader did not return, and the row it returned in its place. */
function firstDifference(want: readonly Record<string, unknown>[], got: readonly Record<string, unknown>[]): string {
  const have = new Set(got.map(canon));
  const missing = want.find((r) => !have.has(canon(r)));
  if (missing === undefined) return `${got.length} rows read, ${want.length} expected`;
  const id = missing.id;
  const other = got.find((r) => r.id === id);
  if (other === undefined) return `row id=${String(id)} missing`;
  const col = Object.keys(missing).find((k) => canon(missing[k]) !== canon(other[k])) ?? '?';
  return `id=${String(id)} ${col}: got ${JSON.stringify(other[col])}, want ${JSON.stringify(missing[col])}`;
}

export function cellOf(
  t: MatrixTable & { readonly canonical: readonly Record<string, unknown>[] },
  read: FullRead | undefined,
  counts: readonly PredicateCount[],
): ReaderCell {
  if (read === undefined) return { verdict: 'fails', detail: 'no result from the reader' };
  // The engine answered, but with values no datetime holds: the conversion of its answer overflowed.
  if (read.error?.startsWith('OverflowError')) return { verdict: 'wrong', detail: `values out of range: ${firstLine(read.error)}` };
  if (read.error !== undefined) return { verdict: 'fails', detail: firstLine(read.error) };
  const wrong: string[] = [];
  if (read.checksum !== t.checksum) wrong.push(`full read: ${firstDifference(t.canonical, read.sample ?? [])}`);
  const failed: string[] = [];
  t.predicates.forEach((p, i) => {
    const c = counts.find((x) => x.index === i);
    if (c === undefined || c.error !== undefined) failed.push(`${describePredicate(p)}: ${firstLine(c?.error ?? 'no result')}`);
    else if (c.count !== p.expected) wrong.push(`${describePredicate(p)}: ${c.count} rows, want ${p.expected}`);
  });
  if (wrong.length > 0) return { verdict: 'wrong', detail: wrong.join('; ') };
  if (failed.length > 0) return { verdict: 'fails', detail: failed.join('; ') };
  return { verdict: 'ok', detail: `checksum = Hive (${t.rows} rows); ${t.predicates.length} predicate count(s) right` };
}

export function refusedRow(key: string, why: string): MatrixRow {
  const cell: ReaderCell = { verdict: 'refused', detail: why };
  return { key, cells: { pyiceberg: cell, spark: cell, trino: cell } };
}

/** Rows in core/readers/encodings.ts order. */
export function sortRows(rows: readonly MatrixRow[]): MatrixRow[] {
  const order = new Map(ENCODINGS.map((e, i) => [e.key, i]));
  return [...rows].sort((a, b) => (order.get(a.key) ?? 1e9) - (order.get(b.key) ?? 1e9));
}

/** Every cell whose verdict differs from the committed matrix (a key missing on either side included). */
export function differences(measured: readonly MatrixRow[], committed: readonly MatrixRow[]): string[] {
  const out: string[] = [];
  const keys = new Set([...measured.map((r) => r.key), ...committed.map((r) => r.key)]);
  for (const key of sortRows([...keys].map((k) => ({ key: k }) as MatrixRow)).map((r) => r.key)) {
    const m = measured.find((r) => r.key === key);
    const c = committed.find((r) => r.key === key);
    for (const reader of READERS as readonly Reader[]) {
      const mv: Verdict | 'not measured' = m?.cells[reader].verdict ?? 'not measured';
      const cv: Verdict | 'not measured' = c?.cells[reader].verdict ?? 'not measured';
      if (mv !== cv) out.push(`${key} × ${reader}: measured ${mv}${m ? ` (${m.cells[reader].detail})` : ''}, matrix says ${cv}`);
    }
  }
  return out;
}
