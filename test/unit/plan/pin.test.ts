// The conversion pin (core/plan/pin.ts), its diff and apply's source check (core/plan/source-check.ts):
// additive changes (new partitions, stats, DDL times, owner, comments) leave the pin equal; every
// pinned part, changed, gives one readable line naming it; an unpinned (version 2) entry keeps the
// strict fingerprint rule.
import type { HivePartition, HiveTable, StorageDescriptor, TableInventory } from '../../../core/hive/model';
import { tableFingerprint } from '../../../core/hive/fingerprint';
import { conversionPin, diffPins } from '../../../core/plan/pin';
import { conversionPinSchema } from '../../../core/plan/types';
import { sourceChange } from '../../../core/plan/source-check';
import { PARQUET_SD, TEXT_SD, inv, partition, table } from '../assess/fixture';

const ORC_SD: Partial<StorageDescriptor> = {
  inputFormat: 'org.apache.hadoop.hive.ql.io.orc.OrcInputFormat',
  outputFormat: 'org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat',
  serde: { name: null, serializationLib: 'org.apache.hadoop.hive.ql.io.orc.OrcSerde', parameters: {} },
};

const partitioned = (over: Partial<Omit<HiveTable, 'sd'>> & { sd?: Partial<StorageDescriptor> } = {}): HiveTable =>
  table({ partitionKeys: [{ name: 'dt', type: 'string', comment: null }], ...over });
const parts = (...names: string[]): HivePartition[] => names.map((n) => partition(n));
const base = (): TableInventory => inv(partitioned(), parts('dt=1', 'dt=2'));
const diff = (before: TableInventory, after: TableInventory): string[] => diffPins(conversionPin(before), conversionPin(after));

describe('conversion pin', () => {
  it('records columns, partition keys, formats, location, type, bucketing and the assessment, and is schema-valid', () => {
    const pin = conversionPin(base());
    expect(pin).toEqual({
      tableType: 'EXTERNAL_TABLE',
      columns: [
        { name: 'id', type: 'bigint' },
        { name: 'v', type: 'string' },
      ],
      partitionKeys: [{ name: 'dt', type: 'string' }],
      location: 's3a://wh/db/t',
      format: 'parquet',
      partitionFormats: [],
      inputFormat: PARQUET_SD.inputFormat,
      outputFormat: PARQUET_SD.outputFormat,
      serde: PARQUET_SD.serde.serializationLib,
      bucketing: { buckets: 0, columns: [] },
      viewText: null,
      assessment: { class: 'migrate', findings: [] },
    });
    expect(conversionPinSchema.parse(pin)).toEqual(pin);
  });

  it('is unchanged by new partitions, stats, DDL times, owners, comments and a table that was empty', () => {
    const later = inv(
      partitioned({
        owner: 'bob',
        parameters: { numFiles: '9', totalSize: '9000', numRows: '12345', transient_lastDdlTime: '1790000000' },
        sd: { columns: PARQUET_SD.columns.map((c) => ({ ...c, comment: 'documented' })), location: 's3a://wh/db/t/' },
      }),
      [
        ...parts('dt=1', 'dt=2', 'dt=3'),
        partition('dt=4', { parameters: { numRows: '7', COLUMN_STATS_ACCURATE: '{"BASIC_STATS":"true"}' } }),
      ],
    );
    expect(diff(base(), later)).toEqual([]);
    // Empty at plan time (EMPTY_TABLE), partitions at apply; missing stats filled in (STATS_MISSING).
    expect(diff(inv(partitioned(), []), base())).toEqual([]);
    const noStats = inv(partitioned({ parameters: {} }), [partition('dt=1', { parameters: {} })]);
    expect(diff(noStats, base())).toEqual([]);
  });

  it('names a column type change with both types, and added, removed and reordered columns', () => {
    const cols = (...c: [string, string][]) => ({ sd: { columns: c.map(([name, type]) => ({ name, type, comment: null })) } });
    const before = inv(partitioned(cols(['id', 'bigint'], ['amount', 'decimal(10,2)'], ['v', 'string'])));
    expect(diff(before, inv(partitioned(cols(['id', 'bigint'], ['amount', 'decimal(12,2)'], ['v', 'string']))))).toEqual([
      'column amount: decimal(10,2) → decimal(12,2)',
    ]);
    expect(
      diff(before, inv(partitioned(cols(['id', 'bigint'], ['amount', 'decimal(10,2)'], ['v', 'string'], ['note', 'string'])))),
    ).toEqual(['column added: note string']);
    expect(diff(before, inv(partitioned(cols(['id', 'bigint'], ['v', 'string']))))).toEqual(['column removed: amount decimal(10,2)']);
    expect(diff(before, inv(partitioned(cols(['amount', 'decimal(10,2)'], ['id', 'bigint'], ['v', 'string']))))).toEqual([
      'column order: id, amount, v → amount, id, v',
    ]);
  });

  it('names partition key changes: added, removed, retyped', () => {
    const keys = (...k: [string, string][]) => ({ partitionKeys: k.map(([name, type]) => ({ name, type, comment: null })) });
    const before = inv(table(keys(['dt', 'string'])));
    expect(diff(before, inv(table(keys(['dt', 'string'], ['region', 'string']))))).toEqual(['partition key added: region string']);
    expect(diff(before, inv(table(keys(['dt', 'date']))))).toEqual(['partition key dt: string → date']);
    expect(diff(inv(table(keys(['dt', 'string'], ['region', 'string']))), before)).toEqual(['partition key removed: region string']);
  });

  it('names a format, input/output format and serde change, and partitions in another format', () => {
    expect(diff(base(), inv(partitioned({ sd: ORC_SD }), parts('dt=1', 'dt=2')))).toEqual([
      'format: parquet → orc',
      'partitions in other formats: (none) → parquet',
      `input format: ${PARQUET_SD.inputFormat} → ${ORC_SD.inputFormat}`,
      `output format: ${PARQUET_SD.outputFormat} → ${ORC_SD.outputFormat}`,
      `serde: ${PARQUET_SD.serde.serializationLib} → ${ORC_SD.serde?.serializationLib}`,
    ]);
    // One new partition stored as ORC in a Parquet table.
    expect(diff(base(), inv(partitioned(), [...parts('dt=1', 'dt=2'), partition('dt=3', { sd: ORC_SD })]))).toEqual([
      'partitions in other formats: (none) → orc',
    ]);
  });

  it('names a text table that became comma-delimited (the SerDe parameter that matters) as a format change', () => {
    const text = (params: Record<string, string>) =>
      inv(table({ sd: { ...TEXT_SD, serde: { name: null, serializationLib: TEXT_SD.serde!.serializationLib, parameters: params } } }));
    expect(diff(text({ 'field.delim': '\t' }), text({ 'field.delim': ',' }))).toEqual(['format: text → csv']);
    expect(diff(text({ 'field.delim': '\t' }), text({ 'field.delim': '|' }))).toEqual([]);
  });

  it('names a location change, a table type change and a bucketing change', () => {
    expect(diff(base(), inv(partitioned({ sd: { location: 's3a://wh/db/t2' } }), parts('dt=1', 'dt=2')))).toContain(
      'location: s3a://wh/db/t → s3a://wh/db/t2',
    );
    const managed = diff(base(), inv(partitioned({ tableType: 'MANAGED_TABLE' }), parts('dt=1', 'dt=2')));
    expect(managed[0]).toBe('table type: EXTERNAL_TABLE → MANAGED_TABLE');
    expect(managed).toContain('class: migrate → migrate-with-warnings (MANAGED_TABLE)');
    const bucketed = diff(base(), inv(partitioned({ sd: { numBuckets: 4, bucketColumns: ['id'] } }), parts('dt=1', 'dt=2')));
    expect(bucketed).toEqual(['bucketing: none → 4 buckets on (id)', 'class: migrate → rewrite-required (BUCKETED)']);
  });

  it('names a class change with the finding codes behind it, and finding changes within a class', () => {
    const acid = inv(partitioned({ parameters: { transactional: 'true' } }), parts('dt=1', 'dt=2'));
    expect(diff(base(), acid)).toEqual([expect.stringMatching(/^class: migrate → (skip|rewrite-required) \(ACID_TABLE/)]);
    expect(diff(acid, base())).toEqual([expect.stringMatching(/^class: (skip|rewrite-required) → migrate \(no longer ACID_TABLE/)]);
    // A new partition outside the table location: a warning (a finding of its own) in a table that had one already.
    const managed = inv(partitioned({ tableType: 'MANAGED_TABLE' }), parts('dt=1'));
    const outside = inv(partitioned({ tableType: 'MANAGED_TABLE' }), [
      ...parts('dt=1'),
      partition('dt=2', { sd: { ...PARQUET_SD, location: 's3a://elsewhere/dt=2' } }),
    ]);
    expect(diff(managed, outside)).toEqual(['finding added: PARTITION_OUTSIDE_LOCATION']);
  });

  it('a view pins its text', () => {
    const view = (text: string) => inv(table({ tableType: 'VIRTUAL_VIEW', viewExpandedText: text, viewOriginalText: text }));
    expect(diff(view('SELECT 1'), view('SELECT 1'))).toEqual([]);
    expect(diff(view('SELECT 1'), view('SELECT 2'))).toEqual(['view text changed']);
  });
});

describe('sourceChange (apply)', () => {
  it('pinned: accepts additive changes, refuses a conversion change with SOURCE_CHANGED naming it', () => {
    const planned = base();
    const entry = { fingerprint: tableFingerprint(planned), pin: conversionPin(planned) };
    const added = inv(partitioned({ parameters: { numRows: '5', transient_lastDdlTime: '1800000000' } }), parts('dt=1', 'dt=2', 'dt=3'));
    expect(sourceChange('db.t', entry, added)).toBeNull();
    const retyped = inv(
      partitioned({ sd: { columns: [{ name: 'id', type: 'int', comment: null }, PARQUET_SD.columns[1]!] } }),
      parts('dt=1'),
    );
    const e = sourceChange('db.t', entry, retyped);
    expect(e?.code).toBe('SOURCE_CHANGED');
    expect(e?.message).toContain('column id: bigint → int');
    // The partitions kept the old type (ALTER without CASCADE): the live assessment says so too.
    expect(e?.context).toMatchObject({
      tableId: 'db.t',
      differences: ['column id: bigint → int', 'class: migrate → rewrite-required (PARTITION_SCHEMA_DRIFT, PARTITION_TYPE_INCOMPATIBLE)'],
    });
  });

  it('lists at most 20 differences in the message, all of them in the context', () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ name: `c${i}`, type: 'int', comment: null }));
    const planned = inv(table({ sd: { columns: many } }));
    const live = inv(table({ sd: { columns: many.map((c) => ({ ...c, type: 'bigint' })) } }));
    const e = sourceChange('db.t', { fingerprint: '', pin: conversionPin(planned) }, live);
    expect(e?.message).toContain('; and 10 more;');
    expect((e?.context['differences'] as string[]).length).toBe(30);
  });

  it('unpinned (a version 2 plan): the whole inventory fingerprint — a stats refresh is a change', () => {
    const planned = base();
    const entry = { fingerprint: tableFingerprint(planned), pin: null };
    expect(sourceChange('db.t', entry, base())).toBeNull();
    const refreshed = inv(partitioned({ parameters: { numFiles: '3', totalSize: '3000', numRows: '1' } }), parts('dt=1', 'dt=2'));
    const e = sourceChange('db.t', entry, refreshed);
    expect(e?.code).toBe('SOURCE_CHANGED');
    expect(e?.message).toMatch(/fingerprint .* version 2 plan/);
  });
});
