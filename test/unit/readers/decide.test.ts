// decideReaders over a synthetic matrix, and over every ENCODINGS key x reader of READER_MATRIX
// (whatever rows it holds: the expectations are derived from the row, never hard-coded).
import type { KeySeen } from '../../../core/readers/decide';
import { decideReaders, firstMisread } from '../../../core/readers/decide';
import type { Reader, Verdict } from '../../../core/readers/encodings';
import { ENCODINGS, READERS } from '../../../core/readers/encodings';
import type { MatrixRow } from '../../../core/readers/matrix';
import { READER_MATRIX } from '../../../core/readers/matrix';
import { readerEncodingFindings } from '../../../core/assess/rules/reader-encodings';
import { readersSchema } from '../../../core/config/readers';

const row = (key: string, v: Partial<Record<Reader, Verdict>>): MatrixRow => ({
  key,
  cells: {
    pyiceberg: { verdict: v.pyiceberg ?? 'ok', detail: `pyiceberg on ${key}` },
    spark: { verdict: v.spark ?? 'ok', detail: `spark on ${key}` },
    trino: { verdict: v.trino ?? 'ok', detail: `trino on ${key}` },
  },
});
const SYNTH: MatrixRow[] = [
  row('parquet.ts.int64-millis-utc', { spark: 'wrong', trino: 'fails' }),
  row('parquet.list.3-level-item', { pyiceberg: 'wrong' }),
  row('parquet.codec.snappy', {}),
];
const at = (key: string, column = 'c'): KeySeen => ({ key, file: 's3://b/t/f.parquet', column });

describe('decideReaders (synthetic matrix)', () => {
  it('a required reader wrong is a misread; a failing reader a limit', () => {
    const d = decideReaders([at('parquet.ts.int64-millis-utc'), at('parquet.codec.snappy', '')], READERS, SYNTH);
    expect(d.misread.map((h) => [h.reader, h.key, h.detail])).toEqual([
      ['spark', 'parquet.ts.int64-millis-utc', 'spark on parquet.ts.int64-millis-utc'],
    ]);
    expect(d.limits.map((h) => [h.reader, h.verdict])).toEqual([['trino', 'fails']]);
    expect(d.unmeasured).toEqual([]);
  });

  it('a reader not required that is wrong is only a limit', () => {
    const d = decideReaders([at('parquet.list.3-level-item')], ['spark', 'trino'], SYNTH);
    expect(d.misread).toEqual([]);
    expect(d.limits.map((h) => [h.reader, h.verdict])).toEqual([['pyiceberg', 'wrong']]);
  });

  it('required [] refuses nothing', () => {
    expect(decideReaders([at('parquet.ts.int64-millis-utc')], [], SYNTH).misread).toEqual([]);
    expect(firstMisread([at('parquet.ts.int64-millis-utc')], [], SYNTH)).toBeNull();
  });

  it('a key without a row is unmeasured, each key once', () => {
    const d = decideReaders([at('parquet.uint.8', 'a'), at('parquet.uint.8', 'b')], READERS, SYNTH);
    expect(d.unmeasured).toEqual([at('parquet.uint.8', 'a')]);
  });

  it('firstMisread names file, column and reader', () => {
    const h = firstMisread([at('parquet.codec.snappy', ''), at('parquet.ts.int64-millis-utc', 'ts')], READERS, SYNTH);
    expect(h).toMatchObject({ reader: 'spark', key: 'parquet.ts.int64-millis-utc', seen: { file: 's3://b/t/f.parquet', column: 'ts' } });
  });

  it('findings: READER_MISREAD rewrite, READER_ENCODING_LIMIT warn, READER_ENCODING_UNMEASURED info', () => {
    const f = readerEncodingFindings(decideReaders([at('parquet.ts.int64-millis-utc', 'ts'), at('parquet.uint.8')], READERS, SYNTH));
    expect(f.map((x) => [x.code, x.effect, x.column])).toEqual([
      ['READER_MISREAD', 'rewrite', 'ts'],
      ['READER_ENCODING_LIMIT', 'warn', undefined],
      ['READER_ENCODING_UNMEASURED', 'info', undefined],
    ]);
    expect(f[0]!.evidence).toContain(
      'spark reads parquet.ts.int64-millis-utc wrong (ts in s3://b/t/f.parquet): spark on parquet.ts.int64-millis-utc',
    );
  });

  it('a wrong that needs certain values (a NULL list of structs) is a limit naming them, never a misread', () => {
    const key = 'parquet.list.3-level-item-struct';
    expect(ENCODINGS.find((e) => e.key === key)?.wrongOnlyWith).toBe('a NULL list (read as [])');
    const d = decideReaders([at(key, 'items')], READERS, [row(key, { pyiceberg: 'wrong' })]);
    expect(d.misread).toEqual([]);
    expect(firstMisread([at(key, 'items')], READERS, [row(key, { pyiceberg: 'wrong' })])).toBeNull();
    const f = readerEncodingFindings(d);
    expect(f.map((x) => [x.code, x.effect])).toEqual([['READER_ENCODING_LIMIT', 'warn']]);
    expect(f[0]!.evidence).toContain(
      `pyiceberg reads wrong ${key} (items in s3://b/t/f.parquet): pyiceberg on ${key} — only where the column holds a NULL list (read as []); the footers cannot tell whether it does`,
    );
  });

  it('readers.required defaults to every reader and takes []', () => {
    expect(readersSchema.parse({}).required).toEqual([...READERS]);
    expect(readersSchema.parse({ required: [] }).required).toEqual([]);
    expect(() => readersSchema.parse({ required: ['hive'] })).toThrow();
  });
});

describe('decideReaders over READER_MATRIX, every key x reader', () => {
  const rows = new Map(READER_MATRIX.map((r) => [r.key, r]));
  const cases = ENCODINGS.flatMap((e) => READERS.map((r) => [e.key, r] as const));
  it.each(cases)('%s, required %s', (key, reader) => {
    const d = decideReaders([at(key)], [reader]);
    const r = rows.get(key);
    if (r === undefined) {
      expect(d.unmeasured.map((s) => s.key)).toEqual([key]);
      expect(d.misread).toEqual([]);
      return;
    }
    // A wrong that needs certain values (wrongOnlyWith) is a limit even for the required reader.
    const conditional = ENCODINGS.find((e) => e.key === key)?.wrongOnlyWith !== undefined;
    expect(d.misread.map((h) => h.reader)).toEqual(r.cells[reader].verdict === 'wrong' && !conditional ? [reader] : []);
    const others = READERS.filter((o) => o !== reader && (r.cells[o].verdict === 'wrong' || r.cells[o].verdict === 'fails'));
    const selfFails = r.cells[reader].verdict === 'fails' || (conditional && r.cells[reader].verdict === 'wrong') ? [reader] : [];
    expect(d.limits.map((h) => h.reader).sort()).toEqual([...others, ...selfFails].sort());
  });
});
