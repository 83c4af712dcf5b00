// Field ids read out of footers: Parquet field_id on every schema element, nested
// included, carried beside the column paths through the stats and the footer threads' codec; Avro
// field-id / element-id / key-id / value-id; the plan's sample of the same ids; and a prepared
// conversion renumbered by them (the spec follows its source column to the adopted id).
import { avroFieldIds } from '../../../adapters/formats/avro';
import { decodeFileStats, encodeFileStats } from '../../../adapters/formats/file-stats-codec';
import { orcTopLevelIds } from '../../../adapters/formats/orc/footer';
import type { Message } from '../../../adapters/formats/orc/protobuf';
import { parquetStats } from '../../../adapters/formats/parquet';
import { PhysicalType } from '../../../adapters/formats/parquet/thrift';
import type { FileMetaData, SchemaElement } from '../../../adapters/formats/parquet/thrift';
import { parquetIdLayout } from '../../../app/plan/field-id-sample';
import { IdLayouts, adoptedConversion } from '../../../core/convert/adopt-ids';
import type { PreparedConversion } from '../../../core/convert/prepare';
import { manifestPath } from '../../../core/convert/prepare';
import { ErrorCode, MigrationError } from '../../../core/errors';
import { buildNameMapping } from '../../../core/iceberg/name-mapping';
import { identitySpec } from '../../../core/iceberg/partition-spec';
import { prim } from '../../../core/iceberg/types';
import type { Schema } from '../../../core/iceberg/types';

const el = (name: string, fieldId: number | undefined, numChildren?: number): SchemaElement => ({
  type: numChildren === undefined ? PhysicalType.INT32 : undefined,
  typeLength: undefined,
  repetition: 1,
  name,
  numChildren,
  convertedType: undefined,
  scale: undefined,
  precision: undefined,
  fieldId,
  logicalType: undefined,
});

/** id INT32, s { x INT32 }, dt INT32 — with the ids given (undefined: none). */
function footer(ids: { id?: number; s?: number; x?: number; dt?: number }): FileMetaData {
  const schema = [el('root', undefined, 3), el('id', ids.id), el('s', ids.s, 1), el('x', ids.x), el('dt', ids.dt)];
  const chunk = (i: number) => ({
    physicalType: PhysicalType.INT32,
    numValues: 2 + i,
    totalCompressedSize: 10,
    dataPageOffset: 4 + i * 10,
    dictionaryPageOffset: undefined,
    statistics: undefined,
  });
  return {
    schema,
    numRows: 2,
    rowGroups: [{ numRows: 2, columns: [0, 1, 2].map(chunk) }],
    createdBy: undefined,
    typeDefinedOrder: undefined,
  };
}

const schema: Schema = {
  schemaId: 0,
  fields: [
    { id: 1, name: 'id', required: false, type: prim.int },
    { id: 2, name: 's', required: false, type: { kind: 'struct', fields: [{ id: 4, name: 'x', required: false, type: prim.int }] } },
    { id: 3, name: 'dt', required: false, type: prim.int },
  ],
};
const ctx = { schema, nameMapping: buildNameMapping(schema) };

describe('Parquet field ids in the file stats', () => {
  test('every level of every path carries its field_id, and the footer threads codec keeps them', () => {
    const s = parquetStats('f.parquet', footer({ id: 7, s: 8, x: 9, dt: 10 }), ctx);
    expect(s.fileColumns).toEqual([['id'], ['s', 'x'], ['dt']]);
    expect(s.fileFieldIds).toEqual([[7], [8, 9], [10]]);
    // Metrics are keyed by the file's own ids (readers resolve the file by them), not the name mapping's.
    const swapped = parquetStats('f.parquet', footer({ id: 1, s: 2, x: 3, dt: 4 }), ctx);
    expect([...(swapped.valueCounts ?? new Map<number, number>())].sort((a, b) => a[0] - b[0])).toEqual([
      [1, 2],
      [3, 3],
      [4, 4],
    ]);
    const back = decodeFileStats(encodeFileStats(s));
    expect([back.fileColumns, back.fileFieldIds]).toEqual([s.fileColumns, s.fileFieldIds]);
  });

  test('a file without ids has none (and the codec sends the plain paths)', () => {
    const s = parquetStats('g.parquet', footer({}), ctx);
    expect(s.fileFieldIds).toBeUndefined();
    expect(decodeFileStats(encodeFileStats(s)).fileFieldIds).toBeUndefined();
    expect(decodeFileStats(encodeFileStats(s)).fileColumns).toEqual([['id'], ['s', 'x'], ['dt']]);
  });

  test('ids on some levels only: the others are null', () => {
    expect(parquetStats('h.parquet', footer({ x: 9 }), ctx).fileFieldIds).toEqual([[null], [null, 9], [null]]);
  });

  test("the plan's sample reads the same layout from the flattened schema", () => {
    expect(parquetIdLayout('f', footer({ id: 7, s: 8, x: 9, dt: 10 }).schema)).toEqual({
      file: 'f',
      columns: [['id'], ['s', 'x'], ['dt']],
      fieldIds: [[7], [8, 9], [10]],
    });
    expect(parquetIdLayout('g', footer({}).schema)).toBeUndefined();
  });
});

describe('ORC iceberg.id attributes', () => {
  const utf8 = (x: string): Uint8Array => new TextEncoder().encode(x);
  /** A protobuf StringPair { key = 1; value = 2 } (short strings: one-byte lengths). */
  const pair = (k: string, v: string): Uint8Array => Uint8Array.from([0x0a, k.length, ...utf8(k), 0x12, v.length, ...utf8(v)]);
  const type = (attrs: Uint8Array[]): Message => new Map([[7, attrs]]);
  const root: Message = new Map<number, Uint8Array[] | bigint[]>([
    [2, [1n, 2n]],
    [3, [utf8('a'), utf8('b')]],
  ]);

  test('each top-level column its iceberg.id (null where absent); none at all → undefined', () => {
    expect(orcTopLevelIds([root, type([pair('iceberg.id', '5')]), type([pair('other', 'x')])])).toEqual([[5], [null]]);
    expect(orcTopLevelIds([root, type([]), type([pair('other', 'x')])])).toBeUndefined();
  });
});

describe('Avro field ids', () => {
  test('field-id, element-id, key-id and value-id by path; none without ids', () => {
    const json = JSON.stringify({
      type: 'record',
      name: 'r',
      fields: [
        { name: 'id', type: 'long', 'field-id': 1 },
        { name: 'tags', type: ['null', { type: 'array', items: 'string', 'element-id': 5 }], 'field-id': 2 },
        { name: 'm', type: { type: 'map', values: 'int', 'key-id': 6, 'value-id': 7 }, 'field-id': 3 },
        { name: 's', type: { type: 'record', name: 's', fields: [{ name: 'x', type: 'int', 'field-id': 8 }] }, 'field-id': 4 },
      ],
    });
    expect(avroFieldIds(json)).toEqual({
      columns: [['id'], ['tags', 'array'], ['m', 'key_value', 'key'], ['m', 'key_value', 'value'], ['s', 'x']],
      fieldIds: [[1], [2, 5], [3, null, 6], [3, null, 7], [4, 8]],
    });
    expect(avroFieldIds(JSON.stringify({ type: 'record', name: 'r', fields: [{ name: 'id', type: 'long' }] }))).toBeUndefined();
    expect(avroFieldIds('{not json')).toBeUndefined();
  });
});

describe('a prepared conversion renumbered by the files ids', () => {
  // Hive: id, v, note (added by a sync after dt) and partition key dt → fresh ids 1 2 3 | 4.
  const hive: Schema = {
    schemaId: 0,
    fields: [
      { id: 1, name: 'id', required: false, type: prim.int },
      { id: 2, name: 'v', required: false, type: prim.string },
      { id: 3, name: 'note', required: false, type: prim.string },
      { id: 4, name: 'dt', required: false, type: prim.string },
    ],
  };
  const p = {
    source: 'db.t',
    identity: { planHash: 'a'.repeat(64), tableId: 'db.t', catalog: 'rest', targetIdent: 'db.t' },
    metadataDir: 's3://w/t/metadata/',
    schema: hive,
    spec: identitySpec(hive, ['dt']),
    baseNameMapping: buildNameMapping(hive),
  } as unknown as PreparedConversion;
  const iceberg = (file: string) => ({ file, columns: [['id'], ['v'], ['dt'], ['note']], fieldIds: [[1], [2], [3], [4]] });

  test('the Iceberg writer ids are adopted: dt keeps 3, note 4, the spec follows dt, manifests get their own names', () => {
    const ids = new IdLayouts();
    ids.add('s3://w/t/dt=2024-01-09/spark.parquet', iceberg('x').columns, iceberg('x').fieldIds);
    ids.add('s3://w/t/dt=2024-01-01/hive.parquet', [['id'], ['v']], undefined);
    const q = adoptedConversion(p, ids.layouts());
    expect(q.schema.fields.map((f) => [f.name, f.id])).toEqual([
      ['id', 1],
      ['v', 2],
      ['note', 4],
      ['dt', 3],
    ]);
    expect(q.spec.fields.map((f) => [f.name, f.sourceId])).toEqual([['dt', 3]]);
    expect(q.baseNameMapping.find((m) => m.names.includes('dt'))?.fieldId).toBe(3);
    expect(manifestPath(q, 0)).toMatch(/-m0-ids\.avro$/);
    expect(manifestPath(p, 0)).toMatch(/-m0\.avro$/);
    // Adopting again changes nothing.
    expect(adoptedConversion(q, ids.layouts())).toBe(q);
  });

  test('no ids, or ids equal to the fresh ones, leave the conversion as it is', () => {
    expect(adoptedConversion(p, [])).toBe(p);
    expect(adoptedConversion(p, [{ file: 'a', columns: [['id'], ['v'], ['note']], fieldIds: [[1], [2], [3]] }])).toBe(p);
  });

  test('ids that disagree across files are refused, naming files and columns', () => {
    const ids = new IdLayouts();
    ids.add('s3://w/t/dt=1/a.parquet', [['dt'], ['note']], [[3], [4]]);
    ids.add('s3://w/t/dt=2/b.parquet', [['dt'], ['note']], [[4], [3]]);
    let err: unknown;
    try {
      adoptedConversion(p, ids.layouts());
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MigrationError);
    const m = err as MigrationError;
    expect(m.code).toBe(ErrorCode.FIELD_IDS_INCONSISTENT);
    expect(m.message).toContain('s3://w/t/dt=2/b.parquet');
    expect(m.message).toContain("'note'");
  });

  test('the layout collector keeps distinct layouts with up to 3 files each', () => {
    const ids = new IdLayouts();
    for (let i = 0; i < 5; i++) ids.add(`f${i}`, [['a']], [[1]]);
    ids.add('g', [['a']], [[2]]);
    ids.add('h', [['a']], undefined);
    expect(ids.size).toBe(2);
    expect(ids.layouts().map((l) => l.file)).toEqual(['f0', 'f1', 'f2', 'g']);
  });
});
