// Schema additions a sync carries (core/sync/schema.ts) and sync's source check
// (core/plan/source-check.ts syncSourceChange): columns added at the end become new optional fields
// with fresh ids after last-column-id (top-level first, then nested), the name mapping gains them and
// keeps what it had; a type change, a drop, a rename or a column added in the middle stays
// SOURCE_CHANGED naming the difference, and apply's check is unchanged (any added column refused).
import { tableFingerprint } from '../../../core/hive/fingerprint';
import type { HiveColumn, TableInventory } from '../../../core/hive/model';
import { parseHiveType } from '../../../core/hive/types';
import { buildInitialMetadata } from '../../../core/iceberg/metadata';
import { nameMappingFromJson } from '../../../core/iceberg/name-mapping';
import { identitySpec } from '../../../core/iceberg/partition-spec';
import { convertHiveSchemaOrThrow } from '../../../core/iceberg/schema';
import { conversionPin } from '../../../core/plan/pin';
import { sourceChange, syncSourceChange } from '../../../core/plan/source-check';
import { schemaAddition, withSchemaAddition } from '../../../core/sync/schema';
import { PARQUET_SD, inv, partition, table } from '../assess/fixture';

const col = (name: string, type: string): HiveColumn => ({ name, type, comment: null });
const DT = [col('dt', 'string')];
const convert = (cols: HiveColumn[]) =>
  convertHiveSchemaOrThrow(
    cols.map((c) => ({ name: c.name, type: parseHiveType(c.type, c.name), comment: null })),
    DT.map((c) => ({ name: c.name, type: parseHiveType(c.type, c.name), comment: null })),
    { timestamp: 'timestamp' },
  ).schema;

function metadataOf(cols: HiveColumn[]) {
  const schema = convert(cols);
  return buildInitialMetadata({
    uuid: '8c4b2a2e-0000-8000-8000-000000000001',
    location: 's3://w/t',
    schema,
    spec: identitySpec(schema, ['dt']),
    properties: {
      'schema.name-mapping.default': JSON.stringify([
        { 'field-id': 1, names: ['id', 'ID'] },
        { 'field-id': 2, names: ['v'] },
        { 'field-id': 3, names: ['dt'] },
      ]),
    },
    timestampMs: 1_700_000_000_000,
  }).metadata;
}

describe('schemaAddition', () => {
  const before = [col('id', 'bigint'), col('v', 'string')];

  it('nothing new → null', () => {
    expect(schemaAddition(metadataOf(before), convert(before))).toBeNull();
  });

  it('trailing columns → a new current schema: the old fields as they were, then the new ones optional with fresh ids', () => {
    const m = metadataOf(before);
    expect(m.lastColumnId).toBe(3);
    const live = convert([...before, col('note', 'string'), col('tags', 'array<struct<k:string,n:int>>')]);
    const a = schemaAddition(m, live);
    expect(a?.added).toEqual(['note', 'tags']);
    expect(a?.base).toEqual({ schemaId: 0, lastColumnId: 3 });
    expect(a?.schema.schemaId).toBe(1);
    const current = m.schemas[0]?.fields ?? [];
    expect(a?.schema.fields.slice(0, current.length)).toEqual(current);
    const [note, tags] = a?.schema.fields.slice(current.length) ?? [];
    expect([note?.id, note?.name, note?.required, tags?.id, tags?.required]).toEqual([4, 'note', false, 5, false]);
    // Top-level first (note 4, tags 5), then nested: the list element 6, its struct's fields 7 and 8.
    expect(tags?.type).toMatchObject({
      kind: 'list',
      elementId: 6,
      element: {
        kind: 'struct',
        fields: [
          { id: 7, name: 'k' },
          { id: 8, name: 'n' },
        ],
      },
    });
    expect(a?.lastColumnId).toBe(8);
    // The name mapping keeps its entries (aliases included) and gains the new fields by name.
    const mapping = nameMappingFromJson(a?.nameMapping ?? '[]');
    expect(mapping.map((f) => [f.fieldId, f.names])).toEqual([
      [1, ['id', 'ID']],
      [2, ['v']],
      [3, ['dt']],
      [4, ['note']],
      [5, ['tags']],
    ]);
    expect(mapping[4]?.fields?.[0]).toMatchObject({ fieldId: 6, names: ['element'] });
    const evolved = withSchemaAddition(m, a!);
    expect([evolved.currentSchemaId, evolved.lastColumnId, evolved.schemas.length]).toEqual([1, 8, 2]);
    expect(evolved.properties['schema.name-mapping.default']).toBe(a?.nameMapping);
    // Once the table has them, the same live table adds nothing.
    expect(schemaAddition(evolved, live)).toBeNull();
  });
});

describe('syncSourceChange (sync only)', () => {
  const partitioned = (columns: readonly HiveColumn[]) => table({ partitionKeys: DT, sd: { columns: [...columns] } });
  const planned: TableInventory = inv(partitioned(PARQUET_SD.columns), [partition('dt=1')]);
  const entry = { fingerprint: tableFingerprint(planned), pin: conversionPin(planned) };
  const withCols = (columns: HiveColumn[], newPartCols?: HiveColumn[]): TableInventory =>
    inv(partitioned(columns), [partition('dt=1'), ...(newPartCols ? [partition('dt=2', { sd: { columns: newPartCols } })] : [])]);

  it('columns added at the end (old partitions without them, a new one with them) → accepted and named; apply still refuses', () => {
    const cols = [...PARQUET_SD.columns, col('note', 'string'), col('score', 'double')];
    const live = withCols(cols, cols);
    expect(syncSourceChange('db.t', entry, live)).toEqual({ error: null, added: ['note', 'score'] });
    expect(sourceChange('db.t', entry, live)?.message).toContain('column added: note string');
    expect(syncSourceChange('db.t', entry, planned)).toEqual({ error: null, added: [] });
  });

  it('a type change, a drop, a rename or a column added in the middle → SOURCE_CHANGED naming it', () => {
    const [id, v] = PARQUET_SD.columns as [HiveColumn, HiveColumn];
    const cases: [HiveColumn[], string][] = [
      [[col('id', 'int'), v, col('note', 'string')], 'column id: bigint → int'],
      [[id], 'column removed: v string'],
      [[id, col('value', 'string')], 'column added: value string'],
      [[id, col('note', 'string'), v], 'column added: note string'],
    ];
    for (const [cols, named] of cases) {
      const r = syncSourceChange('db.t', entry, withCols(cols));
      expect({ named, code: r.error?.code, has: r.error?.message.includes(named), added: r.added }).toEqual({
        named,
        code: 'SOURCE_CHANGED',
        has: true,
        added: [],
      });
    }
    expect(syncSourceChange('db.t', entry, withCols([id, col('note', 'string'), v])).error?.message).toContain(
      'a sync accepts only columns added at the end',
    );
  });

  it('an added column that brings a finding of its own (a partition key name again) is refused', () => {
    const r = syncSourceChange('db.t', entry, withCols([...PARQUET_SD.columns, col('dt', 'string')]));
    expect(r.error?.code).toBe('SOURCE_CHANGED');
  });
});
