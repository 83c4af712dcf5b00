// ORC tails (none/zlib/snappy; zstd where node:zlib has it, else refused with a code) and Avro record counts against real
// pyarrow/avsc-written files on the stack's S3, compared with what pyarrow reports.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import * as avro from 'avsc';
import { AvroFooterReader, avroRecordCount } from '../../../adapters/formats/avro';
import { ORC_ZSTD_AVAILABLE, OrcFooterReader, parseDecimal } from '../../../adapters/formats/orc';
import { ErrorCode, MigrationError } from '../../../core/errors';
import { serializeBound } from '../../../core/iceberg/bounds';
import { buildNameMapping } from '../../../core/iceberg/name-mapping';
import { prim } from '../../../core/iceberg/types';
import type { NestedField, PrimitiveType, Schema } from '../../../core/iceberg/types';
import { BUCKET, createFixture } from './fixture';
import type { Fixture } from './fixture';

const f = (id: number, name: string, type: NestedField['type']): NestedField => ({ id, name, required: false, type });
const schema: Schema = {
  schemaId: 0,
  fields: [
    f(1, 'id', prim.long),
    f(2, 'small', prim.int),
    f(3, 'name', prim.string),
    f(4, 'd', prim.date),
    f(5, 'flag', prim.boolean),
    f(6, 'dbl', prim.double),
  ],
};
const ctx = { schema, nameMapping: buildNameMapping(schema) };
const COLS: Record<string, [number, PrimitiveType]> = {
  id: [1, prim.long],
  small: [2, prim.int],
  name: [3, prim.string],
  d: [4, prim.date],
  flag: [5, prim.boolean],
  dbl: [6, prim.double],
};

let fx: Fixture;
beforeAll(async () => {
  fx = await createFixture();
}, 120_000);
afterAll(async () => fx?.cleanup());

const hex = (b: Uint8Array | null | undefined): string | undefined =>
  b === undefined || b === null ? undefined : Buffer.from(b).toString('hex');

describe('ORC tails', () => {
  test.each(['uncompressed.orc', 'zlib.orc', 'snappy.orc', ...(ORC_ZSTD_AVAILABLE ? ['zstd.orc'] : [])])(
    '%s: rows, stripes, column stats equal pyarrow',
    async (name) => {
      const facts = fx.facts[name] as unknown as { num_rows: number; nstripes: number; size: number };
      const before = fx.gets();
      const stats = await new OrcFooterReader(fx.store()).readStats(fx.uri(name), facts.size, ctx);
      expect(fx.gets() - before).toBe(1);
      expect(stats.recordCount).toBe(facts.num_rows);
      expect(stats.splitOffsets).toHaveLength(facts.nstripes);
      expect(stats.splitOffsets?.[0]).toBe(3); // the first stripe follows the "ORC" header
      for (const [col, e] of Object.entries(fx.facts.orc_columns)) {
        const [id, type] = COLS[col] ?? [0, prim.int];
        expect([col, stats.nullValueCounts?.get(id), stats.valueCounts?.get(id)]).toEqual([col, e.nulls, e.values + e.nulls]);
        if (type.kind === 'boolean') {
          expect(stats.lowerBounds?.has(id)).toBe(false);
          continue;
        }
        const conv = (v: unknown): number | bigint | string =>
          type.kind === 'long' ? BigInt(v as string) : type.kind === 'string' || type.kind === 'double' ? (v as string) : Number(v);
        expect([col, hex(stats.lowerBounds?.get(id))]).toEqual([col, hex(serializeBound(type, conv(e.min), 'lower'))]);
        expect([col, hex(stats.upperBounds?.get(id))]).toEqual([col, hex(serializeBound(type, conv(e.max), 'upper'))]);
      }
      // The C++ ORC writer records no bytesOnDisk, so there are no column sizes (as Iceberg's OrcMetrics).
      expect(stats.columnSizes?.size).toBe(0);
    },
  );

  (ORC_ZSTD_AVAILABLE ? test.skip : test)(
    'zstd without node:zlib zstd (Node 20) → FORMAT_UNSUPPORTED naming the file and codec',
    async () => {
      const facts = fx.facts['zstd.orc'] as unknown as { size: number };
      const err = await new OrcFooterReader(fx.store()).readStats(fx.uri('zstd.orc'), facts.size, ctx).catch((e: unknown) => e);
      expect((err as MigrationError).code).toBe(ErrorCode.FORMAT_UNSUPPORTED);
      expect((err as MigrationError).message).toContain(fx.uri('zstd.orc'));
      expect((err as MigrationError).message).toContain('ZSTD');
    },
  );

  test('not ORC → FORMAT_CORRUPT_FOOTER', async () => {
    const err = await new OrcFooterReader(fx.store())
      .readStats(fx.uri('basic.parquet'), fx.facts['basic.parquet']?.size ?? 0, ctx)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationError);
    expect((err as MigrationError).code).toBe(ErrorCode.FORMAT_CORRUPT_FOOTER);
  });

  test('decimal statistics strings → unscaled values', () => {
    expect(parseDecimal('-12.3', 2)).toBe(-1230n);
    expect(parseDecimal('12.340', 2)).toBe(1234n);
    expect(parseDecimal('1.234', 2)).toBeUndefined();
    expect(parseDecimal('7', 0)).toBe(7n);
  });
});

describe('Avro record counts', () => {
  test('null codec, 24 blocks (dev/seed writer): count equals the rows written', async () => {
    const facts = fx.facts['rows.avro'] as unknown as { num_rows: number; size: number };
    const r = await avroRecordCount(fx.store(), fx.uri('rows.avro'), facts.size, 4096);
    expect(r.records).toBe(facts.num_rows);
    expect(r.blocks).toBe(24);
    const stats = await new AvroFooterReader(fx.store()).readStats(fx.uri('rows.avro'), facts.size, ctx);
    expect(stats.recordCount).toBe(facts.num_rows);
  });

  test('deflate codec (avsc), small windows', async () => {
    const type = avro.Type.forSchema({
      type: 'record',
      name: 'r',
      fields: [
        { name: 'id', type: 'long' },
        { name: 's', type: 'string' },
      ],
    });
    const path = join(fx.dir, 'deflate.avro');
    await new Promise<void>((resolve, reject) => {
      const enc = avro.createFileEncoder(path, type, { codec: 'deflate', blockSize: 2048 });
      enc.on('finish', resolve).on('error', reject);
      for (let i = 0; i < 5000; i++) enc.write({ id: i, s: `value-${i}-${'x'.repeat(i % 50)}` });
      enc.end();
    });
    await new Promise((r) => setTimeout(r, 200));
    const body = readFileSync(path);
    const key = `${fx.prefix}/deflate.avro`;
    await fx.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
    fx.keys.push(key);
    const r = await avroRecordCount(fx.store(), `s3://${BUCKET}/${key}`, body.length, 1024);
    expect(r.records).toBe(5000);
    expect(r.blocks).toBeGreaterThan(5);
  });

  test('truncated Avro → FORMAT_CORRUPT_FOOTER', async () => {
    const facts = fx.facts['rows.avro'] as unknown as { size: number };
    // Pretend the file ends 50 bytes early: the last block's sync marker is missing.
    const err = await avroRecordCount(fx.store(), fx.uri('rows.avro'), facts.size - 50).catch((e: unknown) => e);
    expect((err as MigrationError).code).toBe(ErrorCode.FORMAT_CORRUPT_FOOTER);
    expect((err as MigrationError).message).toContain(fx.uri('rows.avro'));
  });
});
