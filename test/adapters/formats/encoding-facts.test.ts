// Footer encoding facts on real files: pyarrow (the verifier venv) writes Parquet files in the
// encodings Hive-era writers leave (timestamp units and UTC flag, INT96, decimals by physical type,
// unsigned ints, compliant and non-compliant lists, maps, page v1/v2, dictionary/plain/delta,
// codecs) and ORC files per codec; the adapters' facts (adapters/formats/parquet/encoding-facts.ts,
// orc/encoding-facts.ts) classified by core/readers/classify.ts must give the keys pyarrow was
// asked to write. Also the conversion's guard (engine/reader-guard.ts) over the same files.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeParquetFooterSync, readParquetFooterBytes } from '../../../adapters/formats/parquet';
import { parquetFileFacts, readFirstPageType } from '../../../adapters/formats/parquet/encoding-facts';
import { readOrcFacts } from '../../../adapters/formats/orc/encoding-facts';
import { LocalObjectStore } from '../../../adapters/storage/local-store';
import { ErrorCode } from '../../../core/errors';
import { classifyFile } from '../../../core/readers/classify';
import type { MatrixRow } from '../../../core/readers/matrix';
import { readerGuard } from '../../../engine/reader-guard';
import { testStack } from '../../helpers/stack-env';

const env = testStack();
const store = new LocalObjectStore({ metadataPrefixes: [] });
let dir = '';

const WRITER = `
import datetime as dt, decimal, sys, pyarrow as pa, pyarrow.parquet as pq, pyarrow.orc as orc
out = sys.argv[1]
ts = [dt.datetime(2024, 6, 1, 12, 0), None]
def w(name, cols, **kw):
    pq.write_table(pa.table(cols), f"{out}/{name}.parquet", **kw)
w("ts_millis_local", {"ts": pa.array(ts, pa.timestamp("ms"))}, coerce_timestamps="ms")
w("ts_micros_utc", {"ts": pa.array(ts, pa.timestamp("us", tz="UTC"))})
w("ts_nanos_local", {"ts": pa.array(ts, pa.timestamp("ns"))}, version="2.6")
w("ts_int96", {"ts": pa.array(ts, pa.timestamp("us"))}, use_deprecated_int96_timestamps=True)
w("dates", {"d": pa.array([dt.date(2024, 1, 1), None], pa.date32())})
d = [decimal.Decimal("1.25"), None]
w("dec", {"a": pa.array(d, pa.decimal128(5, 2)), "b": pa.array(d, pa.decimal128(15, 2)), "c": pa.array(d, pa.decimal128(30, 2))},
  store_decimal_as_integer=True)
w("dec_fixed", {"c": pa.array(d, pa.decimal128(5, 2))})
w("uints", {"u8": pa.array([1, None], pa.uint8()), "u64": pa.array([1, None], pa.uint64())})
lists = pa.array([["a"], None, []], pa.list_(pa.string()))
w("list_item", {"l": lists}, use_compliant_nested_type=False)
w("list_element", {"l": lists})
w("maps", {"m": pa.array([[("k", 1)], None], pa.map_(pa.string(), pa.int32()))})
w("page_v2", {"x": pa.array([1, 2, 3], pa.int64())}, data_page_version="2.0", compression="zstd")
w("plain_gzip", {"x": pa.array([1, 2, 3], pa.int64())}, use_dictionary=False, compression="gzip")
w("delta", {"x": pa.array([1, 2, 3], pa.int64())}, use_dictionary=False, column_encoding={"x": "DELTA_BINARY_PACKED"}, compression="none")
w("brotli", {"x": pa.array([1, 2, 3], pa.int64())}, compression="brotli")
w("lz4", {"x": pa.array([1, 2, 3], pa.int64())}, compression="lz4")
t = pa.table({"ts": pa.array(ts, pa.timestamp("ns")), "d": pa.array(d, pa.decimal128(5, 2)), "s": pa.array(["a", None])})
for c in ("zlib", "snappy", "zstd", "lz4", "uncompressed"):
    orc.write_table(t, f"{out}/{c}.orc", compression=c)
`;

async function keys(file: string): Promise<string[]> {
  const p = path.join(dir, file);
  const size = statSync(p).size;
  if (file.endsWith('.orc')) return classifyFile(await readOrcFacts(store, p, size)).hits.map((h) => h.key);
  const meta = await readParquetFooterBytes(store, p, size);
  const md = decodeParquetFooterSync(p, meta);
  return classifyFile(parquetFileFacts(meta, md, await readFirstPageType(store, p, md))).hits.map((h) => h.key);
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'him-enc-facts-'));
  execFileSync(env.HIM_VERIFIER_PYTHON as string, ['-c', WRITER, dir], { encoding: 'utf8' });
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('footer encoding facts → encoding keys', () => {
  it.each([
    ['ts_millis_local.parquet', ['parquet.ts.int64-millis-local']],
    ['ts_micros_utc.parquet', ['parquet.ts.int64-micros-utc']],
    ['ts_nanos_local.parquet', ['parquet.ts.int64-nanos-local']],
    ['ts_int96.parquet', ['parquet.ts.int96']],
    ['dates.parquet', ['parquet.date.int32']],
    ['dec.parquet', ['parquet.decimal.int32', 'parquet.decimal.int64', 'parquet.decimal.fixed']],
    ['dec_fixed.parquet', ['parquet.decimal.fixed']],
    ['uints.parquet', ['parquet.uint.8', 'parquet.uint.64']],
    ['list_item.parquet', ['parquet.list.3-level-item']],
    ['list_element.parquet', ['parquet.list.3-level-element']],
    ['maps.parquet', ['parquet.map.key_value']],
    ['page_v2.parquet', ['parquet.page.v2', 'parquet.codec.zstd', 'parquet.enc.dictionary']],
    ['plain_gzip.parquet', ['parquet.page.v1', 'parquet.enc.plain', 'parquet.codec.gzip']],
    ['delta.parquet', ['parquet.enc.delta-binary-packed', 'parquet.codec.uncompressed']],
    ['brotli.parquet', ['parquet.codec.brotli']],
    ['lz4.parquet', ['parquet.codec.lz4-raw']],
    ['zlib.orc', ['orc.codec.zlib', 'orc.type.timestamp', 'orc.type.decimal']],
    ['snappy.orc', ['orc.codec.snappy', 'orc.type.timestamp']],
    ['zstd.orc', ['orc.codec.zstd']],
    ['lz4.orc', ['orc.codec.lz4']],
    ['uncompressed.orc', ['orc.codec.none', 'orc.type.decimal']],
  ])('%s holds %j', async (file, expected) => {
    const got = await keys(file);
    expect(got).toEqual(expect.arrayContaining(expected));
  });

  it('a page v1 file is not page v2 and a dictionary file is not plain (the keys are not all set at once)', async () => {
    const v1 = await keys('plain_gzip.parquet');
    expect(v1).not.toContain('parquet.page.v2');
    expect(v1).not.toContain('parquet.enc.dictionary');
    const v2 = await keys('page_v2.parquet');
    expect(v2).not.toContain('parquet.page.v1');
  });
});

describe('the conversion guard (engine/reader-guard.ts)', () => {
  const matrix = (key: string, spark: 'ok' | 'wrong'): MatrixRow[] => [
    {
      key,
      cells: {
        pyiceberg: { verdict: 'ok', detail: 'ok' },
        spark: { verdict: spark, detail: 'measured' },
        trino: { verdict: 'ok', detail: 'ok' },
      },
    },
  ];
  const tsSchema = { schemaId: 0, fields: [{ id: 1, name: 'ts', required: false, type: { kind: 'timestamp' as const } }] };

  it('refuses a file a required reader misreads, naming file, column, reader and key; passes it when that reader is not required', async () => {
    const file = path.join(dir, 'ts_millis_local.parquet');
    const g = readerGuard(store, tsSchema, ['spark'], matrix('parquet.ts.int64-millis-local', 'wrong'));
    expect(g).not.toBeNull();
    await expect(g!.check(file, statSync(file).size, 'PARQUET')).rejects.toMatchObject({
      code: ErrorCode.CONVERT_READER_MISREAD,
      context: { path: file, column: 'ts', reader: 'spark', encoding: 'parquet.ts.int64-millis-local' },
    });
    const other = path.join(dir, 'ts_micros_utc.parquet');
    await expect(g!.check(other, statSync(other).size, 'PARQUET')).resolves.toBeUndefined();
    expect(readerGuard(store, tsSchema, ['pyiceberg', 'trino'], matrix('parquet.ts.int64-millis-local', 'wrong'))).toBeNull();
  });

  it('is off (no footer read) when nothing required is misread or the schema cannot hold the key', () => {
    expect(readerGuard(store, tsSchema, ['spark'], matrix('parquet.ts.int64-millis-local', 'ok'))).toBeNull();
    const noTs = { schemaId: 0, fields: [{ id: 1, name: 'x', required: false, type: { kind: 'long' as const } }] };
    expect(readerGuard(store, noTs, ['spark'], matrix('parquet.ts.int64-millis-local', 'wrong'))).toBeNull();
    expect(readerGuard(store, noTs, ['spark'], matrix('parquet.codec.zstd', 'wrong'))).not.toBeNull();
  });
});
