// Parquet footer stats against real pyarrow-written files on the stack's S3: every count, size,
// bound and split offset must equal what pyarrow's read_metadata reports; INT96 gets no bounds;
// corrupt footers are coded errors naming the file; a footer larger than the first tail read costs
// exactly two GETs.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AvroBytes, encodeMetrics } from '../../../adapters/avro/entry-encoder';
import { FooterThreads } from '../../../adapters/storage/object-read/footer-pool';
import { DEFAULT_TAIL_BYTES, decodeParquetFooterGeneric, decodeParquetFooterSync } from '../../../adapters/formats/parquet';
import { ParquetFooterReader } from '../../../adapters/storage/object-read/parquet-footer-reader';
import { trustsBinaryDeprecatedStats } from '../../../adapters/formats/parquet/bounds';
import { LocalObjectStore } from '../../../adapters/storage/local-store';
import { ErrorCode, MigrationError } from '../../../core/errors';
import { bigIntFromBytes, serializeBound } from '../../../core/iceberg/bounds';
import { buildNameMapping } from '../../../core/iceberg/name-mapping';
import { decimalType, prim } from '../../../core/iceberg/types';
import type { NestedField, PrimitiveType, PrimitiveValue, Schema } from '../../../core/iceberg/types';
import type { FileStats } from '../../../core/storage/file-stats';
import { createFixture } from './fixture';
import { THREAD_HTTP_TRANSPORTS } from '../../../bench/convert/thread-transports';
import { transportAbStart } from '../../helpers/transport-ab';
import type { ColumnFacts, Fixture } from './fixture';

const f = (id: number, name: string, type: NestedField['type']): NestedField => ({ id, name, required: false, type });
const schema: Schema = {
  schemaId: 0,
  fields: [
    f(1, 'id', prim.long),
    f(2, 'small', prim.int),
    f(3, 'name', prim.string),
    f(4, 'amount', decimalType(10, 2)),
    f(5, 'big', decimalType(38, 6)),
    f(6, 'd', prim.date),
    f(7, 'ts_ms', prim.timestamp),
    f(8, 'ts_us', prim.timestamptz),
    f(9, 'ts_ns', prim.timestamp),
    f(10, 'flag', prim.boolean),
    f(11, 'f', prim.float),
    f(12, 'dbl', prim.double),
    f(13, 'bin', prim.binary),
    f(14, 's', { kind: 'struct', fields: [f(15, 'a', prim.int), f(16, 'b', prim.string)] }),
    f(17, 'l', { kind: 'list', elementId: 18, elementRequired: false, element: prim.int }),
    f(19, 'm', { kind: 'map', keyId: 20, key: prim.string, valueId: 21, valueRequired: false, value: prim.int }),
  ],
};
const ctx = { schema, nameMapping: buildNameMapping(schema) };
/** Column path (pyarrow's path_in_schema) → field id, type, and whether bounds are expected. */
const COLUMNS: Record<string, [number, PrimitiveType, boolean]> = {
  id: [1, prim.long, true],
  small: [2, prim.int, true],
  name: [3, prim.string, true],
  amount: [4, decimalType(10, 2), true],
  big: [5, decimalType(38, 6), true],
  d: [6, prim.date, true],
  ts_ms: [7, prim.timestamp, true],
  ts_us: [8, prim.timestamptz, true],
  ts_ns: [9, prim.timestamp, true],
  flag: [10, prim.boolean, true],
  f: [11, prim.float, true],
  dbl: [12, prim.double, true],
  bin: [13, prim.binary, true],
  's.a': [15, prim.int, true],
  's.b': [16, prim.string, true],
  // Inside lists and maps: counts only (ParquetUtil.shouldStoreBounds).
  'l.list.element': [18, prim.int, false],
  'm.key_value.key': [20, prim.string, false],
  'm.key_value.value': [21, prim.int, false],
};

/** pyarrow's raw physical min/max → the Iceberg value (independently of the reader under test). */
function expectedValue(path: string, type: PrimitiveType, raw: ColumnFacts['min'], side: 'lower' | 'upper'): PrimitiveValue {
  if (raw !== null && typeof raw === 'object') {
    const bytes = Uint8Array.from(Buffer.from(raw.hex, 'hex'));
    if (type.kind === 'decimal') return bigIntFromBytes(bytes);
    return type.kind === 'string' ? Buffer.from(bytes).toString('utf8') : bytes;
  }
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'number') return raw === 0 ? (side === 'lower' ? -0 : 0) : raw;
  const n = BigInt(raw ?? '0');
  if (path === 'ts_ms') return n * 1000n;
  if (path === 'ts_ns')
    return side === 'lower' ? (n - (((n % 1000n) + 1000n) % 1000n)) / 1000n : -((-n - (((-n % 1000n) + 1000n) % 1000n)) / 1000n);
  if (type.kind === 'long' || type.kind === 'timestamp' || type.kind === 'timestamptz' || type.kind === 'decimal') return n;
  return Number(n);
}

const hex = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : Buffer.from(b).toString('hex'));

let fx: Fixture;
beforeAll(async () => {
  fx = await createFixture();
}, 120_000);
afterAll(async () => fx?.cleanup());

async function read(name: string, tail?: number): Promise<FileStats> {
  const facts = fx.facts[name];
  if (facts === undefined) throw new Error(`no facts for ${name}`);
  return new ParquetFooterReader(fx.store(), tail).readStats(fx.uri(name), facts.size, ctx);
}

describe('Parquet footer stats equal pyarrow read_metadata', () => {
  test.each(['basic.parquet', 'dec_int.parquet'])('%s', async (name) => {
    const facts = fx.facts[name];
    if (facts === undefined) throw new Error(name);
    const before = fx.gets();
    const stats = await read(name);
    expect(fx.gets() - before).toBe(1);
    expect(stats.recordCount).toBe(facts.num_rows);
    expect(stats.splitOffsets).toEqual(facts.split_offsets);
    expect(facts.split_offsets.length).toBe(facts.num_row_groups);
    for (const [path, c] of Object.entries(facts.columns)) {
      const col = COLUMNS[path];
      if (col === undefined) throw new Error(`unmapped column ${path}`);
      const [id, type, bounded] = col;
      expect([path, stats.columnSizes?.get(id)]).toEqual([path, c.compressed]);
      expect([path, stats.valueCounts?.get(id)]).toEqual([path, c.num_values]);
      expect([path, stats.nullValueCounts?.get(id)]).toEqual([path, c.null_count]);
      const lower = bounded && c.all_min_max ? serializeBound(type, expectedValue(path, type, c.min, 'lower'), 'lower') : null;
      const upper = bounded && c.all_min_max ? serializeBound(type, expectedValue(path, type, c.max, 'upper'), 'upper') : null;
      expect([path, hex(stats.lowerBounds?.get(id))]).toEqual([path, hex(lower ?? undefined)]);
      expect([path, hex(stats.upperBounds?.get(id))]).toEqual([path, hex(upper ?? undefined)]);
    }
    // Strings longer than 16 code points are truncated, the upper bound rounded up.
    expect(Buffer.from(stats.lowerBounds?.get(3) ?? []).toString('utf8')).toBe('name-00000-long-');
    expect(Buffer.from(stats.upperBounds?.get(3) ?? []).toString('utf8')).toBe('name-00999-long.');
  });

  test('INT96 timestamps: counts, but no bounds', async () => {
    const facts = fx.facts['int96.parquet'];
    const stats = await read('int96.parquet');
    expect(facts?.columns.ts_us?.physical).toBe('INT96');
    expect(stats.recordCount).toBe(facts?.num_rows);
    expect(stats.valueCounts?.get(8)).toBe(facts?.columns.ts_us?.num_values);
    expect(stats.nullValueCounts?.get(8)).toBe(facts?.columns.ts_us?.null_count ?? undefined);
    expect(stats.lowerBounds?.has(8)).toBe(false);
    expect(stats.upperBounds?.has(8)).toBe(false);
    expect(stats.boundsWithheld?.get(8)).toBe('int96');
    expect(stats.lowerBounds?.has(1)).toBe(true);
  });

  test('Parquet field ids win over names; unsigned columns: counts, but no bounds', async () => {
    const facts = fx.facts['ids_unsigned.parquet'];
    if (facts === undefined) throw new Error('ids_unsigned.parquet');
    // Names the file does not use: a by-name lookup would map nothing.
    const idSchema: Schema = {
      schemaId: 0,
      fields: [f(1, 'id', prim.long), f(2, 'b8', prim.int), f(3, 'b32', prim.long), f(4, 'b64', prim.long), f(5, 'label', prim.string)],
    };
    const stats = await new ParquetFooterReader(fx.store()).readStats(fx.uri('ids_unsigned.parquet'), facts.size, {
      schema: idSchema,
      nameMapping: buildNameMapping(idSchema),
    });
    expect(stats.recordCount).toBe(facts.num_rows);
    expect(stats.splitOffsets).toEqual(facts.split_offsets);
    const byId: Record<string, number> = { renamed_id: 1, u8: 2, u32: 3, u64: 4, who: 5 };
    for (const [path, c] of Object.entries(facts.columns)) {
      const id = byId[path] ?? -1;
      expect([path, stats.valueCounts?.get(id), stats.nullValueCounts?.get(id), stats.columnSizes?.get(id)]).toEqual([
        path,
        c.num_values,
        c.null_count,
        c.compressed,
      ]);
    }
    expect(hex(stats.lowerBounds?.get(1))).toBe(hex(serializeBound(prim.long, 0n, 'lower') ?? undefined));
    expect(hex(stats.upperBounds?.get(1))).toBe(hex(serializeBound(prim.long, 999n, 'upper') ?? undefined));
    expect(Buffer.from(stats.lowerBounds?.get(5) ?? []).toString()).toBe('w0001');
    expect(Buffer.from(stats.upperBounds?.get(5) ?? []).toString()).toBe('w0999');
    // UINT_8 / UINT_64 (and UINT_32 when written as INT32): unsigned order, no bounds.
    const unsigned = [2, 4, ...(facts.columns.u32?.physical === 'INT32' ? [3] : [])];
    for (const id of unsigned) {
      expect([id, stats.lowerBounds?.has(id), stats.upperBounds?.has(id), stats.boundsWithheld?.get(id)]).toEqual([
        id,
        false,
        false,
        'unsigned',
      ]);
    }
  });

  test('a footer larger than the first tail read costs exactly two GETs', async () => {
    const facts = fx.facts['bigfooter.parquet'];
    expect(facts?.footer_length).toBeGreaterThan(DEFAULT_TAIL_BYTES);
    const bigSchema: Schema = {
      schemaId: 0,
      fields: Array.from({ length: 400 }, (_, i) =>
        f(i + 1, `column_with_a_rather_long_name_to_grow_the_footer_${String(i).padStart(4, '0')}`, prim.string),
      ),
    };
    const before = fx.gets();
    const stats = await new ParquetFooterReader(fx.store()).readStats(fx.uri('bigfooter.parquet'), facts?.size ?? 0, {
      schema: bigSchema,
      nameMapping: buildNameMapping(bigSchema),
    });
    expect(fx.gets() - before).toBe(2);
    expect(stats.recordCount).toBe(facts?.num_rows);
    expect(stats.valueCounts?.size).toBe(400);
    expect(Buffer.from(stats.lowerBounds?.get(400) ?? []).toString()).toBe('v399-0v399-0v399');
  });

  test.each([
    ['truncated.parquet', /no PAR1 magic at the end/],
    ['badlen.parquet', /footer length 1000000 does not fit/],
    ['rows.avro', /no PAR1 magic/],
  ])('%s → FORMAT_CORRUPT_FOOTER naming the file', async (name, why) => {
    const size =
      name === 'badlen.parquet'
        ? 32
        : (fx.facts[name]?.size ?? (name === 'truncated.parquet' ? (fx.facts['basic.parquet']?.size ?? 0) - 100 : 0));
    const err = await new ParquetFooterReader(fx.store()).readStats(fx.uri(name), size, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationError);
    expect((err as MigrationError).code).toBe(ErrorCode.FORMAT_CORRUPT_FOOTER);
    expect((err as MigrationError).message).toContain(fx.uri(name));
    expect((err as MigrationError).message).toMatch(why);
  });

  test('a listed size larger than the object → corrupt, not a silent short read', async () => {
    const size = (fx.facts['basic.parquet']?.size ?? 0) + 10;
    const err = await new ParquetFooterReader(fx.store()).readStats(fx.uri('basic.parquet'), size, ctx).catch((e: unknown) => e);
    expect((err as MigrationError).code).toBe(ErrorCode.FORMAT_CORRUPT_FOOTER);
  });
});

test('binary deprecated-stats writer rule (PARQUET-251/PARQUET-1025)', () => {
  expect(trustsBinaryDeprecatedStats(undefined)).toBe(false);
  expect(trustsBinaryDeprecatedStats('parquet-mr version 1.6.0 (build abc)')).toBe(false);
  expect(trustsBinaryDeprecatedStats('parquet-mr version 1.9.0 (build abc)')).toBe(false);
  expect(trustsBinaryDeprecatedStats('parquet-mr version 1.10.0 (build abc)')).toBe(true);
  expect(trustsBinaryDeprecatedStats('parquet-mr')).toBe(false);
  expect(trustsBinaryDeprecatedStats('parquet-cpp-arrow version 26.0.1')).toBe(true);
});

describe('the compact FileMetaData decoder (parquet/compact.ts)', () => {
  const footerOf = (file: string): Uint8Array => {
    const b = readFileSync(file);
    const len = b.readUInt32LE(b.length - 8);
    return new Uint8Array(b.subarray(b.length - 8 - len, b.length - 8));
  };
  const parquetFiles = (): string[] =>
    readdirSync(fx.dir)
      .filter((n) => n.endsWith('.parquet') && n !== 'badlen.parquet' && n !== 'truncated.parquet')
      .map((n) => join(fx.dir, n));

  test('decodes every pyarrow-written fixture footer exactly as the generic Thrift decoder does', async () => {
    const files = parquetFiles();
    expect(files.length).toBeGreaterThanOrEqual(4);
    let withBoth = 0; // chunks with both stat pairs: the normalisation below must have work to do
    for (const file of files) {
      const meta = footerOf(file);
      const ours = decodeParquetFooterSync(file, meta);
      const full = await decodeParquetFooterGeneric(file, meta);
      // The compact decoder leaves the deprecated min/max out where min_value/max_value are both
      // present (never read then: pickMinMax); everything else must be equal.
      const generic = {
        ...full,
        rowGroups: full.rowGroups.map((rg) => ({
          ...rg,
          columns: rg.columns.map((c) =>
            c.statistics?.minValue !== undefined && c.statistics.maxValue !== undefined
              ? { ...c, statistics: { ...c.statistics, min: undefined, max: undefined } }
              : c,
          ),
        })),
      };
      withBoth += full.rowGroups.reduce(
        (n, rg) => n + rg.columns.filter((c) => c.statistics?.min !== undefined && c.statistics.minValue !== undefined).length,
        0,
      );
      // Byte views compare by content; the generic decoder's live in another realm under Jest.
      const norm = (md: unknown): string =>
        JSON.stringify(md, (_k, v: unknown) =>
          typeof v === 'bigint' ? `${v}n` : ArrayBuffer.isView(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex') : v,
        );
      expect(norm(ours)).toBe(norm(generic));
      expect(ours.rowGroups.length).toBeGreaterThan(0);
    }
    expect(withBoth).toBeGreaterThan(10);
  });

  test('every truncation and many byte flips of a footer end in FORMAT_CORRUPT_FOOTER or a decoded value, never a crash or a hang', () => {
    const meta = footerOf(join(fx.dir, 'basic.parquet'));
    let coded = 0;
    for (let cut = 0; cut < meta.length; cut++) {
      try {
        decodeParquetFooterSync('cut.parquet', meta.subarray(0, cut));
      } catch (e) {
        expect(e).toBeInstanceOf(MigrationError);
        expect((e as MigrationError).code).toBe(ErrorCode.FORMAT_CORRUPT_FOOTER);
        coded++;
      }
    }
    // A cut inside the footer loses at least the STOP byte of FileMetaData: every one must fail.
    expect(coded).toBe(meta.length);
    let seed = 7;
    for (let i = 0; i < 2000; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const copy = Uint8Array.from(meta);
      copy[seed % copy.length] = (seed >> 8) & 0xff;
      try {
        decodeParquetFooterSync('flip.parquet', copy);
      } catch (e) {
        expect((e as MigrationError).code).toBe(ErrorCode.FORMAT_CORRUPT_FOOTER);
      }
    }
  });
});

/**
 * A footer thread's reply carries the five metric maps already Avro-encoded for the manifest
 * (encodeMetrics, byte-checked against avsc in test/unit/avro/entry-encoder.test.ts): the inline
 * stats in that form.
 */
function asThreaded(s: FileStats): FileStats {
  const out = new AvroBytes();
  encodeMetrics(out, s);
  const { columnSizes: _s, valueCounts: _v, nullValueCounts: _n, lowerBounds: _l, upperBounds: _u, ...rest } = s;
  return { ...rest, encodedMetrics: Uint8Array.from(out.view()) };
}

describe('footer threads (adapters/storage/object-read/footer-pool.ts)', () => {
  test('ready() resolves once every thread has loaded, then the threads answer at once', async () => {
    const pool = new FooterThreads(2);
    try {
      let ready = false;
      const waiting = pool.ready().then(() => (ready = true));
      expect(ready).toBe(false);
      await waiting;
      expect(ready).toBe(true);
      await pool.ready(); // again: already loaded
      const size = fx.facts['basic.parquet']?.size ?? 0;
      const stats = await new ParquetFooterReader(fx.store(), DEFAULT_TAIL_BYTES, pool).readStats(fx.uri('basic.parquet'), size, ctx);
      expect(stats.recordCount).toBe(fx.facts['basic.parquet']?.num_rows);
    } finally {
      await pool.close();
    }
  });

  test("stats from a worker thread equal the calling thread's, and a corrupt footer fails with its code and file", async () => {
    const pool = new FooterThreads(2);
    try {
      const inline = new ParquetFooterReader(fx.store());
      const threaded = new ParquetFooterReader(fx.store(), DEFAULT_TAIL_BYTES, pool);
      for (const name of ['basic.parquet', 'dec_int.parquet', 'int96.parquet', 'bigfooter.parquet']) {
        const size = fx.facts[name]?.size ?? 0;
        const [a, b] = await Promise.all([inline.readStats(fx.uri(name), size, ctx), threaded.readStats(fx.uri(name), size, ctx)]);
        expect(b).toEqual(asThreaded(a));
        expect(b.recordCount).toBe(fx.facts[name]?.num_rows);
      }
      // More tables than a thread keeps contexts for (64), revisited: evicted ones are sent again.
      const size = fx.facts['basic.parquet']?.size ?? 0;
      const expected = await inline.readStats(fx.uri('basic.parquet'), size, ctx);
      const tables = Array.from({ length: 150 }, () => ({ ...ctx, schema: { ...schema } }));
      for (const order of [tables, [...tables].reverse()]) {
        const got = await Promise.all(order.map((c) => threaded.readStats(fx.uri('basic.parquet'), size, c)));
        for (const g of got) expect(g).toEqual(asThreaded(expected));
      }
      // One table whose files spell their columns differently, interleaved and in flight together:
      // a reply that reuses the last column paths (sameColumns) must carry the right ones.
      const names = [
        'basic.parquet',
        'basic.parquet',
        'dec_int.parquet',
        'dec_int.parquet',
        'basic.parquet',
        'int96.parquet',
        'int96.parquet',
        'basic.parquet',
      ];
      const want = new Map<string, FileStats>();
      for (const name of new Set(names)) want.set(name, await inline.readStats(fx.uri(name), fx.facts[name]?.size ?? 0, ctx));
      expect(want.get('basic.parquet')?.fileColumns).not.toEqual(want.get('dec_int.parquet')?.fileColumns);
      const mixed = Array.from({ length: 120 }, (_, i) => names[i % names.length] as string);
      const stats = await Promise.all(mixed.map((name) => threaded.readStats(fx.uri(name), fx.facts[name]?.size ?? 0, ctx)));
      stats.forEach((s, i) => expect(s).toEqual(asThreaded(want.get(mixed[i] as string) as FileStats)));
      const meta = readFileSync(join(fx.dir, 'basic.parquet'));
      const len = meta.readUInt32LE(meta.length - 8);
      const cut = new Uint8Array(meta.subarray(meta.length - 8 - len, meta.length - 8 - Math.floor(len / 2)));
      const err = await pool.stats('s3://warehouse/x/cut.parquet', cut, ctx).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(MigrationError);
      expect((err as MigrationError).code).toBe(ErrorCode.FORMAT_CORRUPT_FOOTER);
      expect((err as MigrationError).message).toContain('s3://warehouse/x/cut.parquet');
    } finally {
      await pool.close();
    }
  }, 60_000);

  // The product's transport (`raw`) and the bench's A/B ones (bench/convert/thread-transports.ts, in
  // the bench's build of the thread body) against the stack's S3 server: an error status (404) and a
  // short read (an object shorter than listed) end as the same coded errors as on the main thread.
  test.each(THREAD_HTTP_TRANSPORTS)(
    'S3 (%s transport): the thread sends the signed GET itself; large footers, corrupt files, missing objects and a failing GET end as on the main thread',
    async (transport) => {
      const pool = new FooterThreads(2, await transportAbStart(transport));
      const remote = jest.spyOn(pool, 'statsRemote');
      try {
        const inline = new ParquetFooterReader(fx.store());
        const threaded = new ParquetFooterReader(fx.store(), DEFAULT_TAIL_BYTES, pool);
        for (const name of ['basic.parquet', 'dec_int.parquet', 'int96.parquet']) {
          const size = fx.facts[name]?.size ?? 0;
          const want = await inline.readStats(fx.uri(name), size, ctx);
          const gets = fx.gets();
          expect(await threaded.readStats(fx.uri(name), size, ctx)).toEqual(asThreaded(want));
          expect(fx.gets() - gets).toBe(1); // the thread's GET only: no fallback read
        }
        expect(remote).toHaveBeenCalledTimes(3);
        expect(await Promise.all(remote.mock.results.map((r) => r.value as Promise<{ kind: string }>))).toEqual([
          expect.objectContaining({ kind: 'stats' }),
          expect.objectContaining({ kind: 'stats' }),
          expect.objectContaining({ kind: 'stats' }),
        ]);
        // A footer larger than the tail: the thread hands the tail back, one more GET here: two in all.
        const big = fx.facts['bigfooter.parquet'];
        const bigSchema: Schema = {
          schemaId: 0,
          fields: Array.from({ length: 400 }, (_, i) =>
            f(i + 1, `column_with_a_rather_long_name_to_grow_the_footer_${String(i).padStart(4, '0')}`, prim.string),
          ),
        };
        const bigCtx = { schema: bigSchema, nameMapping: buildNameMapping(bigSchema) };
        const before = fx.gets();
        const bigStats = await threaded.readStats(fx.uri('bigfooter.parquet'), big?.size ?? 0, bigCtx);
        expect(fx.gets() - before).toBe(2);
        expect(bigStats).toEqual(asThreaded(await inline.readStats(fx.uri('bigfooter.parquet'), big?.size ?? 0, bigCtx)));
        // Corrupt files and a size larger than the object: the same coded error as inline, naming the file.
        const basicSize = fx.facts['basic.parquet']?.size ?? 0;
        for (const [name, size] of [
          ['truncated.parquet', basicSize - 100],
          ['badlen.parquet', 32],
          ['rows.avro', fx.facts['rows.avro']?.size ?? 0],
          ['basic.parquet', basicSize + 10],
        ] as const) {
          const [a, b] = await Promise.all([
            inline.readStats(fx.uri(name), size, ctx).catch((e: unknown) => e),
            threaded.readStats(fx.uri(name), size, ctx).catch((e: unknown) => e),
          ]);
          expect((b as MigrationError).code).toBe(ErrorCode.FORMAT_CORRUPT_FOOTER);
          expect((b as MigrationError).message).toBe((a as MigrationError).message);
        }
        // A missing object: the thread's GET fails (404), the store's own read maps it.
        const gone = await threaded.readStats(fx.uri('no-such-file.parquet'), basicSize, ctx).catch((e: unknown) => e);
        expect((gone as MigrationError).code).toBe(ErrorCode.STORAGE_NOT_FOUND);
        // A GET that cannot be sent at all (nothing listens there): falls back to the store's read.
        const store = fx.store();
        const broken: typeof store = Object.assign(Object.create(store) as typeof store, {
          signedRead: () => Promise.resolve({ url: 'http://127.0.0.1:9/x.parquet', headers: {}, timeoutMs: 2000 }),
        });
        const viaFallback = await new ParquetFooterReader(broken, DEFAULT_TAIL_BYTES, pool).readStats(
          fx.uri('basic.parquet'),
          basicSize,
          ctx,
        );
        expect(viaFallback).toEqual(asThreaded(await inline.readStats(fx.uri('basic.parquet'), basicSize, ctx)));
      } finally {
        await pool.close();
      }
    },
    60_000,
  );

  test('local files: the thread reads the footer itself (one or two preads) with the same stats and the same coded errors', async () => {
    const pool = new FooterThreads(1);
    const local = new LocalObjectStore({ metadataPrefixes: [] });
    const viaThread = jest.spyOn(pool, 'statsLocal');
    const scratch = mkdtempSync(join(tmpdir(), 'him-footer-local-'));
    try {
      const inline = new ParquetFooterReader(local);
      for (const tail of [DEFAULT_TAIL_BYTES, 64]) {
        const threaded = new ParquetFooterReader(local, tail, pool);
        for (const name of ['basic.parquet', 'dec_int.parquet', 'int96.parquet', 'bigfooter.parquet']) {
          const uri = `file://${join(fx.dir, name)}`;
          const size = fx.facts[name]?.size ?? 0;
          expect(await threaded.readStats(uri, size, ctx)).toEqual(asThreaded(await inline.readStats(uri, size, ctx)));
        }
      }
      expect(viaThread).toHaveBeenCalledTimes(8);
      // Truncated (the footer's second half gone) and missing files: coded errors naming the file.
      const whole = readFileSync(join(fx.dir, 'basic.parquet'));
      const cutPath = join(scratch, 'cut.parquet');
      writeFileSync(cutPath, whole.subarray(0, whole.length - 100));
      const threaded = new ParquetFooterReader(local, DEFAULT_TAIL_BYTES, pool);
      const cut = await threaded.readStats(`file://${cutPath}`, whole.length - 100, ctx).then(
        () => null,
        (e: unknown) => e,
      );
      expect((cut as MigrationError).code).toBe(ErrorCode.FORMAT_CORRUPT_FOOTER);
      expect((cut as MigrationError).message).toContain(`file://${cutPath}`);
      const shorter = await threaded.readStats(`file://${cutPath}`, whole.length, ctx).then(
        () => null,
        (e: unknown) => e,
      );
      expect((shorter as MigrationError).code).toBe(ErrorCode.FORMAT_CORRUPT_FOOTER);
      expect((shorter as MigrationError).message).toContain('shorter than listed');
      const gone = await threaded.readStats(`file://${join(scratch, 'gone.parquet')}`, 1000, ctx).then(
        () => null,
        (e: unknown) => e,
      );
      expect((gone as MigrationError).code).toBe(ErrorCode.STORAGE_NOT_FOUND);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
      await pool.close();
    }
  }, 60_000);
});
