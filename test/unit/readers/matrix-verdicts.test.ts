// The reader matrix's tooling: a reader's measured read → its cell (dev/readers/verdicts.ts), the
// comparison of a run with core/readers/matrix.ts, the generated core/readers/matrix.ts
// rows and docs/readers.md's generated section (dev/docs/readers.ts).
import { ENCODINGS, READERS } from '../../../core/readers/encodings';
import type { MatrixRow } from '../../../core/readers/matrix';
import { READER_MATRIX } from '../../../core/readers/matrix';
import { BEGIN, END, matrixSection, readersMd } from '../../../dev/docs/readers';
import type { MatrixPredicate, MatrixTable } from '../../../dev/readers/seed';
import { cellOf, differences, firstLine, refusedRow, sortRows, stable } from '../../../dev/readers/verdicts';

const pred: MatrixPredicate = { column: 'v', op: '>', literal: '2024-06-04 00:00:00', type: 'timestamp', expected: 2 };
const table = {
  name: 't',
  encoding: 'parquet.ts.int64-millis-utc',
  rows: 2,
  checksum: 'abc',
  predicates: [pred],
  canonical: [
    { id: 1, v: '2024-06-01T00:00:00' },
    { id: 2, v: '2040-01-01T00:00:00' },
  ],
} as unknown as MatrixTable & { readonly canonical: readonly Record<string, unknown>[] };

describe('cellOf', () => {
  it('ok when the checksum equals Hive and every count is right', () => {
    const c = cellOf(table, { rows: 2, checksum: 'abc' }, [{ index: 0, count: 2 }]);
    expect(c.verdict).toBe('ok');
  });

  it('wrong, naming the first differing value, when the checksum differs', () => {
    const c = cellOf(
      table,
      {
        rows: 2,
        checksum: 'xyz',
        sample: [
          { id: 1, v: '1970-01-20T21:00:00' },
          { id: 2, v: '2040-01-01T00:00:00' },
        ],
      },
      [{ index: 0, count: 2 }],
    );
    expect(c).toEqual({ verdict: 'wrong', detail: 'full read: id=1 v: got "1970-01-20T21:00:00", want "2024-06-01T00:00:00"' });
  });

  it('wrong when a predicate count differs, even with the right checksum', () => {
    const c = cellOf(table, { rows: 2, checksum: 'abc' }, [{ index: 0, count: 0 }]);
    expect(c).toEqual({ verdict: 'wrong', detail: "v > timestamp '2024-06-04 00:00:00': 0 rows, want 2" });
  });

  it('fails on a read error or a predicate error; a missing result is a failure too', () => {
    expect(cellOf(table, { error: 'ValueError: cannot read\n  at x' }, []).detail).toBe('ValueError: cannot read');
    expect(cellOf(table, { rows: 2, checksum: 'abc' }, [{ index: 0, error: 'Boom: no' }])).toEqual({
      verdict: 'fails',
      detail: "v > timestamp '2024-06-04 00:00:00': Boom: no",
    });
    expect(cellOf(table, undefined, []).verdict).toBe('fails');
    expect(cellOf(table, { rows: 2, checksum: 'abc' }, []).verdict).toBe('fails');
  });

  it('an OverflowError converting the answer is a wrong read (values no datetime holds)', () => {
    expect(cellOf(table, { error: 'OverflowError: date value out of range' }, []).verdict).toBe('wrong');
  });
});

describe('errors, names and rows', () => {
  it('firstLine takes the Java cause of a Py4J error', () => {
    const e =
      'Py4JJavaError: An error occurred while calling o1.collect.\n: org.apache.spark.SparkException: Job aborted\nCaused by: java.lang.IllegalStateException: bad page\n\tat x';
    expect(firstLine(e)).toBe('Caused by: java.lang.IllegalStateException: bad page');
  });

  it('stable removes the run-specific database and file names', () => {
    expect(stable('table himx_1_enc.t at s3://hive/seed/x.parquet  failed', 'himx_1_enc')).toBe('table <db>.t at <file> failed');
  });

  it('differences names each changed cell, and a row missing on either side', () => {
    const ok = { verdict: 'ok', detail: '' } as const;
    const row = (key: string, spark: MatrixRow['cells']['spark']): MatrixRow => ({ key, cells: { pyiceberg: ok, spark, trino: ok } });
    const committed = [row('parquet.ts.int96', ok), row('parquet.date.int32', ok)];
    const measured = [row('parquet.ts.int96', { verdict: 'wrong', detail: 'x' }), refusedRow('orc.type.union', 'no union')];
    const d = differences(measured, committed);
    expect(d).toContain('parquet.ts.int96 × spark: measured wrong (x), matrix says ok');
    expect(d.filter((x) => x.startsWith('parquet.date.int32'))).toHaveLength(3);
    expect(d.filter((x) => x.startsWith('orc.type.union'))).toHaveLength(3);
    expect(differences(committed, committed)).toEqual([]);
  });

  it('sortRows orders rows as core/readers/encodings.ts lists the keys', () => {
    const keys = [ENCODINGS[5], ENCODINGS[0], ENCODINGS[3]].map((e) => e!.key);
    expect(sortRows(keys.map((k) => refusedRow(k, '-'))).map((r) => r.key)).toEqual([keys[1], keys[2], keys[0]]);
  });
});

describe('the committed matrix and its renderings', () => {
  it('every row is a known key with one cell per reader', () => {
    const keys = new Set(ENCODINGS.map((e) => e.key));
    for (const r of READER_MATRIX) {
      expect(keys.has(r.key)).toBe(true);
      expect(Object.keys(r.cells).sort()).toEqual([...READERS].sort());
    }
  });

  it('docs/readers.md gets the matrix between its markers, the rest untouched', () => {
    const md = readersMd(`# head\n\n${BEGIN}\nold\n${END}\n\n## tail\n`);
    expect(md.startsWith('# head\n\n')).toBe(true);
    expect(md.endsWith('\n\n## tail\n')).toBe(true);
    expect(md).toContain(matrixSection());
    expect(md).not.toContain('\nold\n');
    expect(() => readersMd('# no markers')).toThrow(/markers/);
  });
});
