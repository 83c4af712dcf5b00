import { ErrorCode, MigrationError } from '../../../core/errors';
import { parseHiveType } from '../../../core/hive/types';
import type { HiveColumnInput } from '../../../core/iceberg/hive-input';
import type { FileIdLayout } from '../../../core/iceberg/embedded-ids';
import { adoptEmbeddedIdsOrThrow, decideEmbeddedIds, idsByPath } from '../../../core/iceberg/embedded-ids';
import { buildNameMapping } from '../../../core/iceberg/name-mapping';
import { convertHiveSchemaOrThrow } from '../../../core/iceberg/schema';
import type { Schema } from '../../../core/iceberg/types';
import { fieldIdMismatches } from '../../../core/validate/field-ids';

const c = (name: string, type: string): HiveColumnInput => ({ name, type: parseHiveType(type), comment: null });
/** The finding's table: id, v, note (added after the partition key by a sync), partition dt. */
const flat = convertHiveSchemaOrThrow([c('id', 'bigint'), c('v', 'string'), c('note', 'string')], [c('dt', 'string')]);
const DATA = 3;

const ids = (s: Schema): Record<string, number> => Object.fromEntries(idsByPath(s.fields));
/** A flat file: top-level columns with one id each. */
const file = (name: string, cols: Record<string, number>): FileIdLayout => ({
  file: name,
  columns: Object.keys(cols).map((k) => [k]),
  fieldIds: Object.values(cols).map((id) => [id]),
});
const plain = (name: string, cols: string[]): FileIdLayout => ({ file: name, columns: cols.map((k) => [k]) });

describe('embedded field ids: adopt', () => {
  test('fresh ids follow Hive order (partition key last): the appended file disagrees for dt and note', () => {
    expect(ids(flat.schema)).toEqual({ id: 1, v: 2, note: 3, dt: 4 });
  });

  test('consistent ids across files are adopted: dt and note take the ids the Iceberg writer used', () => {
    const d = decideEmbeddedIds(flat.schema, DATA, [
      file('s3://w/t/dt=2024-01-09/a.parquet', { id: 1, v: 2, dt: 3, note: 4 }),
      file('s3://w/t/dt=2024-01-09/b.parquet', { id: 1, v: 2, dt: 3, note: 4 }),
    ]);
    expect(d.kind).toBe('adopt');
    if (d.kind !== 'adopt') return;
    expect(ids(d.schema)).toEqual({ id: 1, v: 2, note: 4, dt: 3 });
    expect(d.schema.fields.map((f) => f.name)).toEqual(['id', 'v', 'note', 'dt']);
    expect(d.lastColumnId).toBe(4);
    expect(d.filesWithIds).toBe(2);
  });

  test('no file with ids: none, the schema is left as converted', () => {
    expect(decideEmbeddedIds(flat.schema, DATA, [plain('a', ['id', 'v'])])).toEqual({ kind: 'none' });
    expect(adoptEmbeddedIdsOrThrow('db.t', flat.schema, flat.lastColumnId, DATA, [])).toEqual({
      schema: flat.schema,
      lastColumnId: 4,
      adopted: 0,
    });
  });

  test('columns no file names get fresh ids after every id a file uses (a dropped column keeps its id reserved)', () => {
    // `old` is not a Hive column any more: its id 7 is still taken in that file.
    const d = decideEmbeddedIds(flat.schema, DATA, [file('a', { id: 1, v: 2, old: 7 })]);
    expect(d.kind).toBe('adopt');
    if (d.kind !== 'adopt') return;
    expect(ids(d.schema)).toEqual({ id: 1, v: 2, note: 8, dt: 9 });
    expect(d.lastColumnId).toBe(9);
  });

  test('mixed: files without ids resolve through the name mapping of the adopted schema, id files by their ids', () => {
    const d = decideEmbeddedIds(flat.schema, DATA, [plain('hive-0', ['id', 'v', 'note']), file('ice-0', { id: 1, v: 2, dt: 3, note: 4 })]);
    expect(d.kind).toBe('adopt');
    if (d.kind !== 'adopt') return;
    const mapping = buildNameMapping(d.schema);
    expect(mapping.find((m) => m.names.includes('note'))?.fieldId).toBe(4);
    expect(mapping.find((m) => m.names.includes('dt'))?.fieldId).toBe(3);
    // Validation agrees with both kinds of file.
    expect(
      fieldIdMismatches(d.schema, DATA, [plain('hive-0', ['id', 'v', 'note']), file('ice-0', { id: 1, v: 2, dt: 3, note: 4 })]),
    ).toEqual([]);
  });

  test('names are matched as Hive reads them (case-insensitively)', () => {
    const d = decideEmbeddedIds(flat.schema, DATA, [file('a', { ID: 1, V: 2, Note: 4, DT: 3 })]);
    expect(d.kind === 'adopt' && ids(d.schema)).toEqual({ id: 1, v: 2, note: 4, dt: 3 });
  });

  test('nested: struct fields, list elements and map keys/values adopt their ids through the Parquet wrapper levels', () => {
    const nested = convertHiveSchemaOrThrow(
      [c('s', 'struct<x:int,y:string>'), c('arr', 'array<int>'), c('m', 'map<string,int>')],
      [c('dt', 'string')],
    );
    const layout: FileIdLayout = {
      file: 'n.parquet',
      columns: [
        ['s', 'y'],
        ['s', 'x'],
        ['arr', 'list', 'element'],
        ['m', 'key_value', 'key'],
        ['m', 'key_value', 'value'],
      ],
      fieldIds: [
        [1, 11],
        [1, 10],
        [2, null, 20],
        [3, null, 30],
        [3, null, 31],
      ],
    };
    const d = decideEmbeddedIds(nested.schema, 3, [layout]);
    expect(d.kind).toBe('adopt');
    if (d.kind !== 'adopt') return;
    expect(ids(d.schema)).toEqual({
      s: 1,
      's.x': 10,
      's.y': 11,
      arr: 2,
      'arr.element': 20,
      m: 3,
      'm.key': 30,
      'm.value': 31,
      dt: 32,
    });
    expect(fieldIdMismatches(d.schema, 3, [layout])).toEqual([]);
    expect(fieldIdMismatches(nested.schema, 3, [layout]).map((f) => f.path)).toEqual(expect.arrayContaining(['s.x', 's.y', 'arr.element']));
  });
});

describe('embedded field ids: refuse', () => {
  const refuse = (layouts: FileIdLayout[], schema = flat.schema) => {
    const d = decideEmbeddedIds(schema, DATA, layouts);
    if (d.kind !== 'refuse') throw new Error(`expected a refusal, got ${d.kind}`);
    return d.conflicts;
  };

  test('one id names different columns in different files', () => {
    const conflicts = refuse([file('a.parquet', { id: 1, v: 2, dt: 3 }), file('b.parquet', { id: 1, v: 2, note: 3 })]);
    expect(conflicts.map((x) => x.reason)).toContain('id-names-two-columns');
    const byId = conflicts.find((x) => x.reason === 'id-names-two-columns');
    expect(byId?.files).toEqual(expect.arrayContaining(['a.parquet', 'b.parquet']));
    expect(byId?.message).toMatch(/field id 3 names different columns: 'dt' in a\.parquet; 'note' in b\.parquet/);
  });

  test('one column carries different ids in different files', () => {
    const conflicts = refuse([file('a', { id: 1, note: 5 }), file('b', { id: 1, note: 6 })]);
    expect(conflicts).toEqual([expect.objectContaining({ reason: 'column-has-two-ids', column: 'note', files: ['a', 'b'] })]);
  });

  test("an undeclared column's id taken by a declared column elsewhere (readers would read one as the other)", () => {
    const conflicts = refuse([file('a', { id: 1, old: 4 }), file('b', { id: 1, note: 4 })]);
    expect(conflicts[0]?.message).toMatch(/field id 4 names different columns: '\?old' in a; 'note' in b/);
  });

  test('an id whose column has another shape than Hive declares (group where Hive has a primitive)', () => {
    const conflicts = refuse([
      {
        file: 'g.parquet',
        columns: [['note', 'a'], ['id']],
        fieldIds: [[4, 9], [1]],
      },
    ]);
    expect(conflicts).toEqual([expect.objectContaining({ reason: 'shape', column: 'note', files: ['g.parquet'] })]);
  });

  test('the refusal throws FIELD_IDS_INCONSISTENT naming files and columns', () => {
    let err: unknown;
    try {
      adoptEmbeddedIdsOrThrow('db.t', flat.schema, flat.lastColumnId, DATA, [file('a', { dt: 3 }), file('b', { note: 3 })]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MigrationError);
    const m = err as MigrationError;
    expect(m.code).toBe(ErrorCode.FIELD_IDS_INCONSISTENT);
    expect(m.message).toMatch(/^db\.t: /);
    expect(m.context).toEqual(expect.objectContaining({ files: ['a', 'b'] }));
  });
});

describe('validation: embedded ids against the schema', () => {
  test('the finding: fresh ids in Hive order, the appended file has dt=3 and note=4 → both columns fail', () => {
    const f = fieldIdMismatches(flat.schema, DATA, [file('s3://w/t/dt=2024-01-09/x.parquet', { id: 1, v: 2, dt: 3, note: 4 })]);
    expect(f.map((x) => [x.code, x.path])).toEqual([
      [ErrorCode.VALIDATION_FIELD_ID_MISMATCH, 'dt'],
      [ErrorCode.VALIDATION_FIELD_ID_MISMATCH, 'note'],
    ]);
    expect(f[0]?.message).toMatch(/carries field id 3, which the schema gives 'note', not 4/);
  });

  test("an undeclared id'd column carrying a schema field's id fails; one with an unused id does not", () => {
    expect(fieldIdMismatches(flat.schema, DATA, [file('a', { id: 1, gone: 3 })]).map((x) => x.path)).toEqual(['gone']);
    expect(fieldIdMismatches(flat.schema, DATA, [file('a', { id: 1, gone: 99 })])).toEqual([]);
  });

  test('files without ids are not judged here', () => {
    expect(fieldIdMismatches(flat.schema, DATA, [plain('a', ['note', 'id'])])).toEqual([]);
  });
});
