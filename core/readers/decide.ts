// What a table's encodings mean for its readers: its keys (core/readers/classify.ts, the union over
// its files) looked up in the reader matrix (core/readers/matrix.ts). A required reader that reads a
// key `wrong` makes the table not metadata-only (the assessment classes it rewrite-required, the
// conversion refuses the file); a non-required reader that is `wrong`, or any reader that `fails`, is
// a limit to warn about; a key the matrix has no row for is unmeasured. A key whose `wrong` needs certain values (a NULL list
// of structs: EncodingDef.wrongOnlyWith) is a limit naming them, never a refusal: the footers cannot
// say whether the files hold such values (the read-back proof, validation.readBack, can). Pure; no I/O.
import type { Reader } from './encodings';
import { ENCODINGS, READERS } from './encodings';
import type { MatrixRow } from './matrix';
import { READER_MATRIX } from './matrix';

/** Where a key was seen: the file (or `footer sample`) and the column. */
export interface KeySeen {
  readonly key: string;
  readonly file: string;
  readonly column: string;
}

export interface ReaderVerdictHit {
  readonly key: string;
  readonly reader: Reader;
  readonly detail: string;
  readonly seen: KeySeen;
  /** The values the wrong answer needs (EncodingDef.wrongOnlyWith), when it is not the layout alone. */
  readonly onlyWith?: string;
}

export interface ReaderDecision {
  /** A required reader reads the key wrong: not metadata-only. */
  readonly misread: readonly ReaderVerdictHit[];
  /** A non-required reader reads it wrong, or any reader fails on it. */
  readonly limits: readonly (ReaderVerdictHit & { readonly verdict: 'wrong' | 'fails' })[];
  /** Keys with no matrix row. */
  readonly unmeasured: readonly KeySeen[];
}

/**
 * Decides over `seen` (each key once is enough; the first occurrence is the one named). `required`:
 * the readers whose wrong answer refuses the table (`readers.required`, default all).
 */
export function decideReaders(
  seen: readonly KeySeen[],
  required: readonly Reader[] = READERS,
  matrix: readonly MatrixRow[] = READER_MATRIX,
): ReaderDecision {
  const rows = new Map(matrix.map((r) => [r.key, r]));
  const req = new Set(required);
  const misread: ReaderVerdictHit[] = [];
  const limits: (ReaderVerdictHit & { verdict: 'wrong' | 'fails' })[] = [];
  const unmeasured: KeySeen[] = [];
  const done = new Set<string>();
  const conditional = new Map(ENCODINGS.filter((e) => e.wrongOnlyWith !== undefined).map((e) => [e.key, e.wrongOnlyWith as string]));
  for (const s of seen) {
    if (done.has(s.key)) continue;
    done.add(s.key);
    const row = rows.get(s.key);
    if (row === undefined) {
      unmeasured.push(s);
      continue;
    }
    for (const reader of READERS) {
      const cell = row.cells[reader];
      const onlyWith = conditional.get(s.key);
      const hit = { key: s.key, reader, detail: cell.detail, seen: s, ...(onlyWith === undefined ? {} : { onlyWith }) };
      if (cell.verdict === 'wrong' && req.has(reader) && onlyWith === undefined) misread.push(hit);
      else if (cell.verdict === 'wrong' || cell.verdict === 'fails') limits.push({ ...hit, verdict: cell.verdict });
    }
  }
  return { misread, limits, unmeasured };
}

/** The first misread in `seen` for a required reader, or null: the conversion's per-file check. */
export function firstMisread(
  seen: readonly KeySeen[],
  required: readonly Reader[] = READERS,
  matrix: readonly MatrixRow[] = READER_MATRIX,
): ReaderVerdictHit | null {
  if (required.length === 0 || matrix.length === 0) return null;
  return decideReaders(seen, required, matrix).misread[0] ?? null;
}
