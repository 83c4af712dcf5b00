// docs/readers.md's generated section: the measured reader matrix (core/readers/matrix.ts), one row
// per encoding of core/readers/encodings.ts, a verdict and a short detail per reader. Only the text
// between the two markers is generated; the rest of the page is written by hand.
import { ENCODINGS, READERS } from '../../core/readers/encodings';
import { MATRIX_READERS, READER_MATRIX } from '../../core/readers/matrix';

export const BEGIN = '<!-- BEGIN GENERATED: reader matrix (dev/docs/gen.ts from core/readers/matrix.ts) -->';
export const END = '<!-- END GENERATED: reader matrix -->';

const cellText = (s: string): string => s.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/** The matrix as a Markdown table (verdict in bold unless ok), then the encodings not measured. */
export function matrixSection(): string {
  const rows = ENCODINGS.map((e) => ({ e, row: READER_MATRIX.find((r) => r.key === e.key) }));
  const head = [
    `| encoding | what writes it | ${READERS.map((r) => MATRIX_READERS[r]).join(' | ')} |`,
    `|---|---|${READERS.map(() => '---').join('|')}|`,
  ];
  const body = rows
    .filter((x) => x.row !== undefined)
    .map(({ e, row }) => {
      const cells = READERS.map((r) => {
        const c = row!.cells[r];
        const v = c.verdict === 'ok' ? 'ok' : `**${c.verdict}**`;
        return c.verdict === 'ok' ? v : `${v}: ${cellText(c.detail)}`;
      });
      return `| \`${e.key}\` | ${cellText(e.what)} | ${cells.join(' | ')} |`;
    });
  const missing = rows.filter((x) => x.row === undefined).map((x) => `\`${x.e.key}\``);
  const counts = READERS.map((r) => {
    const n = (v: string): number => READER_MATRIX.filter((row) => row.cells[r].verdict === v).length;
    return `${r}: ${n('ok')} ok, ${n('wrong')} wrong, ${n('fails')} fails, ${n('refused')} refused`;
  });
  return [
    BEGIN,
    '',
    `${READER_MATRIX.length} of ${ENCODINGS.length} encodings measured (${counts.join('; ')}).`,
    '',
    ...head,
    ...body,
    '',
    missing.length > 0 ? `Not measured: ${missing.join(', ')}.` : 'Every encoding is measured.',
    '',
    END,
  ].join('\n');
}

/** `current` (the committed docs/readers.md) with its generated section replaced. */
export function readersMd(current: string): string {
  const a = current.indexOf(BEGIN);
  const b = current.indexOf(END);
  if (a < 0 || b < a) throw new Error(`docs/readers.md: the markers of the generated matrix section are missing`);
  return current.slice(0, a) + matrixSection() + current.slice(b + END.length);
}
