// Findings from the reader matrix (core/readers/decide.ts) over the encodings of a table's sampled
// footers (app/plan/storage-sample.ts classifies them): a required reader that reads one wrong makes
// the table rewrite-required (READER_MISREAD), other wrong or failing readers warn
// (READER_ENCODING_LIMIT), encodings the matrix has not measured are info (READER_ENCODING_UNMEASURED).
// Pure; no I/O.
import type { ReaderDecision } from '../../readers/decide';
import type { AssessFinding } from '../types';
import { AssessCode, finding } from '../types';

const where = (h: { seen: { file: string; column: string } }): string =>
  h.seen.column === '' ? h.seen.file : `${h.seen.column} in ${h.seen.file}`;

/** The findings of `d` (none when every key is measured ok). */
export function readerEncodingFindings(d: ReaderDecision): AssessFinding[] {
  const out: AssessFinding[] = [];
  if (d.misread.length > 0) {
    const first = d.misread[0]!;
    out.push(
      finding(
        AssessCode.READER_MISREAD,
        'rewrite',
        d.misread.map((h) => `${h.reader} reads ${h.key} wrong (${where(h)}): ${h.detail}`).join('; '),
        `not metadata-only: ${[...new Set(d.misread.map((h) => h.reader))].join(', ')} would return values Hive does not. ` +
          'Plan it with --rewrite (the Spark job rewrites the files), or drop the reader from readers.required if it will never read the table (docs/readers.md)',
        first.seen.column === '' ? undefined : first.seen.column,
      ),
    );
  }
  if (d.limits.length > 0) {
    out.push(
      finding(
        AssessCode.READER_ENCODING_LIMIT,
        'warn',
        d.limits
          .map(
            (h) =>
              `${h.reader} ${h.verdict === 'fails' ? 'fails on' : 'reads wrong'} ${h.key} (${where(h)}): ${h.detail}` +
              (h.onlyWith === undefined ? '' : ` — only where the column holds ${h.onlyWith}; the footers cannot tell whether it does`),
          )
          .join('; '),
        'migrates as is: the named reader(s) fail or answer wrong on these files (docs/readers.md); rewrite the table if they must read it, or prove it with the read-back (validation.readBack) where the wrong answer needs certain values',
      ),
    );
  }
  if (d.unmeasured.length > 0) {
    out.push(
      finding(
        AssessCode.READER_ENCODING_UNMEASURED,
        'info',
        `no reader matrix row for ${d.unmeasured.map((s) => `${s.key} (${where({ seen: s })})`).join(', ')}`,
        'migrates as is; how each reader handles these encodings is not measured: check a read-back (migrate validate) before relying on it',
      ),
    );
  }
  return out;
}
