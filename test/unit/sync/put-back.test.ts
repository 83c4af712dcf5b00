// The pure half of rollback's put-back (core/sync/put-back.ts): which commits since our snapshot
// can go back into Hive (appends of Parquet/ORC data files under our spec and columns) and which
// block it (delete, overwrite, replace, delete files, partition evolution, schema change, Avro), and
// where the appended files go in Hive (visible in their partition, a new partition at their
// directory, or refused naming them).
import { ErrorCode } from '../../../core/errors';
import type { HivePartition, HiveTable, TableInventory } from '../../../core/hive/model';
import { parseHiveType } from '../../../core/hive/types';
import type { Snapshot, TableMetadata } from '../../../core/iceberg/metadata';
import type { SnapshotOperation } from '../../../core/iceberg/spec-constants';
import { buildInitialMetadata } from '../../../core/iceberg/metadata';
import { identitySpec, UNPARTITIONED_SPEC } from '../../../core/iceberg/partition-spec';
import { convertHiveSchemaOrThrow } from '../../../core/iceberg/schema';
import type { AppendedFile, SnapshotEntry, SnapshotFacts } from '../../../core/sync/put-back';
import {
  classifySince,
  hivePartitionOf,
  partitionOfDir,
  placeFiles,
  putBackBlocked,
  snapshotsSinceOurs,
} from '../../../core/sync/put-back';
import { parquetSd } from '../../helpers/hive-sd';

const p = parseHiveType;
const { schema } = convertHiveSchemaOrThrow(
  [{ name: 'id', type: p('bigint'), comment: null }],
  [
    { name: 'year', type: p('int'), comment: null },
    { name: 'region', type: p('string'), comment: null },
  ],
  { timestamp: 'timestamp' },
);
const spec = identitySpec(schema, ['year', 'region']);
const LOC = 's3a://w/db/orders';
const { metadata: initial } = buildInitialMetadata({
  uuid: '8c4b2a2e-0000-8000-8000-000000000002',
  location: LOC,
  schema,
  spec,
  properties: {},
  snapshot: {
    snapshotId: 42n,
    manifestList: `${LOC}/metadata/snap-42.avro`,
    totals: { addedDataFiles: 2, addedRecords: 20, addedFilesSize: 200, changedPartitionCount: 2 },
    summaryExtra: { 'engine-name': 'hms-iceberg-migrator', 'him.source.hms-table': 'db.orders' },
  },
  timestampMs: 1_000,
});

const snap = (id: bigint, parent: bigint, operation: string, extra: Record<string, string> = {}): Snapshot => ({
  snapshotId: id,
  parentSnapshotId: parent,
  sequenceNumber: Number(id),
  timestampMs: 2_000 + Number(id),
  manifestList: `${LOC}/metadata/snap-${id}.avro`,
  summary: { operation: operation as SnapshotOperation, 'engine-name': 'spark', ...extra },
  schemaId: schema.schemaId,
});

/** `initial` with `snaps` appended on main (the last one current). */
const withSnaps = (snaps: Snapshot[], over: Partial<TableMetadata> = {}): TableMetadata => ({
  ...initial,
  snapshots: [...initial.snapshots, ...snaps],
  currentSnapshotId: snaps.at(-1)?.snapshotId ?? initial.currentSnapshotId,
  ...over,
});

const entry = (path: string, partition: (number | string | null)[], over: Partial<SnapshotEntry> = {}): SnapshotEntry => ({
  status: 1,
  content: 0,
  filePath: path,
  fileFormat: 'PARQUET',
  recordCount: 3,
  fileSizeInBytes: 100,
  partition,
  ...over,
});

const facts = (s: Snapshot, entries: SnapshotEntry[], manifests: SnapshotFacts['manifests'] = []): SnapshotFacts => ({
  snapshot: s,
  manifests:
    manifests.length > 0
      ? manifests
      : [{ path: `${LOC}/metadata/m-${s.snapshotId}.avro`, content: 0, addedSnapshotId: s.snapshotId, partitionSpecId: spec.specId }],
  entries,
});

const ctx = (m: TableMetadata) => ({ metadata: m, spec, schema });

const table: HiveTable = {
  database: 'db',
  name: 'orders',
  owner: 'hive',
  ownerType: 'USER',
  createTime: 1,
  lastAccessTime: 0,
  retention: 0,
  tableType: 'EXTERNAL_TABLE',
  sd: parquetSd(LOC, [{ name: 'id', type: 'bigint', comment: null }]),
  partitionKeys: [
    { name: 'year', type: 'int', comment: null },
    { name: 'region', type: 'string', comment: null },
  ],
  parameters: {},
  viewOriginalText: null,
  viewExpandedText: null,
  temporary: false,
};
const part = (values: (string | null)[], location: string): HivePartition => ({
  values,
  name: `year=${values[0] ?? ''}/region=${values[1] ?? '__HIVE_DEFAULT_PARTITION__'}`,
  createTime: 1,
  lastAccessTime: 0,
  sd: { ...table.sd, location },
  parameters: {},
});
const inv: TableInventory = {
  table,
  partitions: [part(['2024', 'us'], `${LOC}/year=2024/region=us`), part(['2023', 'eu'], 's3a://w/outside/orders_2023_eu')],
};
const file = (path: string, partition: (number | string | null)[], over: Partial<AppendedFile> = {}): AppendedFile => ({
  snapshotId: '100',
  path,
  format: 'PARQUET',
  records: 3,
  size: 100,
  partition,
  ...over,
});

describe('snapshotsSinceOurs', () => {
  it('walks main back to our marker: the snapshots after ours, oldest first', () => {
    const a = snap(100n, 42n, 'append');
    const b = snap(101n, 100n, 'append');
    const r = snapshotsSinceOurs(withSnaps([a, b]), 'db.orders');
    expect(r.ok && [r.ours.snapshotId, r.since.map((s) => s.snapshotId)]).toEqual([42n, [100n, 101n]]);
  });

  it('our snapshot current: nothing since; none of ours an ancestor (rolled back in Iceberg): blocked, naming the head', () => {
    const r = snapshotsSinceOurs(initial, 'db.orders');
    expect(r.ok && r.since).toEqual([]);
    const orphan = { ...snap(200n, 0n, 'append'), parentSnapshotId: undefined } as Snapshot;
    const blocked = snapshotsSinceOurs(withSnaps([orphan]), 'db.orders');
    expect(!blocked.ok && blocked.blockers.map((b) => [b.snapshotId, b.operation])).toEqual([['200', 'append']]);
  });
});

describe('classifySince', () => {
  it('appends of Parquet and ORC data files → the files they added (EXISTING entries of merged manifests are not re-added)', () => {
    const a = snap(100n, 42n, 'append');
    const b = snap(101n, 100n, 'append');
    const d = classifySince(ctx(withSnaps([a, b])), [
      facts(a, [entry(`${LOC}/year=2024/region=us/a.parquet`, [2024, 'us'])]),
      facts(b, [
        entry(`${LOC}/year=2026/region=eu/b.orc`, [2026, 'eu'], { fileFormat: 'ORC' }),
        entry(`${LOC}/year=2024/region=us/a.parquet`, [2024, 'us'], { status: 0 }),
      ]),
    ]);
    expect(d.ok && d.files.map((f) => [f.snapshotId, f.path, f.format])).toEqual([
      ['100', `${LOC}/year=2024/region=us/a.parquet`, 'PARQUET'],
      ['101', `${LOC}/year=2026/region=eu/b.orc`, 'ORC'],
    ]);
  });

  it('delete, overwrite and replace snapshots block, each named with its operation; a mixed history lists only the blocking ones', () => {
    const a = snap(100n, 42n, 'append');
    const del = snap(101n, 100n, 'delete', { 'deleted-data-files': '1' });
    const ow = snap(102n, 101n, 'overwrite');
    const rep = snap(103n, 102n, 'replace');
    const d = classifySince(ctx(withSnaps([a, del, ow, rep])), [
      facts(a, [entry(`${LOC}/year=2024/region=us/a.parquet`, [2024, 'us'])]),
      facts(del, [entry(`${LOC}/year=2024/region=us/a.parquet`, [2024, 'us'], { status: 2 })]),
      facts(ow, []),
      facts(rep, []),
    ]);
    expect(!d.ok && d.blockers.map((b) => [b.snapshotId, b.operation])).toEqual([
      ['101', 'delete'],
      ['102', 'overwrite'],
      ['103', 'replace'],
    ]);
    expect(!d.ok && d.blockers[0]?.reason).toMatch(/removes data files.*removes data file s3a/);
  });

  it('position/equality delete files block (in a delete manifest, as entries, or in the summary), even under an append', () => {
    const a = snap(100n, 42n, 'append', { 'added-delete-files': '1' });
    const m = [{ path: 'm-del', content: 1, addedSnapshotId: 100n, partitionSpecId: spec.specId }];
    const d = classifySince(ctx(withSnaps([a])), [
      facts(a, [entry(`${LOC}/year=2024/region=us/del.parquet`, [2024, 'us'], { content: 1 })], m),
    ]);
    expect(d.ok).toBe(false);
    expect(!d.ok && d.blockers[0]?.reason).toMatch(/adds delete files.*delete manifest.*adds delete file/);
  });

  it('partition evolution (a manifest under another spec, a new default spec) and a schema change block', () => {
    const a = snap(100n, 42n, 'append');
    const evolved = withSnaps([a], {
      partitionSpecs: [...initial.partitionSpecs, { ...UNPARTITIONED_SPEC, specId: 1 }],
      defaultSpecId: 1,
      schemas: [
        ...initial.schemas,
        {
          ...schema,
          schemaId: 1,
          fields: [...schema.fields, { id: 99, name: 'extra', required: false, type: { kind: 'string' as const } }],
        },
      ],
      currentSchemaId: 1,
    });
    const m = [{ path: 'm1', content: 0, addedSnapshotId: 100n, partitionSpecId: 1 }];
    const d = classifySince(ctx(evolved), [facts({ ...a, schemaId: 1 }, [], m)]);
    expect(!d.ok && d.blockers.map((b) => b.snapshotId)).toEqual(['100', '100']);
    expect(!d.ok && d.blockers.map((b) => b.reason).join(' ')).toMatch(
      /partition spec 1.*partition evolution.*schema 1.*default partition spec is now 1.*current schema 1/,
    );
  });

  it('an Avro data file blocks; the error names every blocking snapshot, is ROLLBACK_BLOCKED and not retryable', () => {
    const a = snap(100n, 42n, 'append');
    const d = classifySince(ctx(withSnaps([a])), [
      facts(a, [entry(`${LOC}/year=2024/region=us/x.avro`, [2024, 'us'], { fileFormat: 'AVRO' })]),
    ]);
    expect(!d.ok && d.blockers[0]?.reason).toMatch(/in AVRO; only Parquet and ORC/);
    const e = putBackBlocked('db.orders', !d.ok ? d.blockers : []);
    expect([e.code, e.retryable]).toEqual([ErrorCode.ROLLBACK_BLOCKED, false]);
    expect(e.message).toContain('snapshot 100 (append)');
    expect(e.message).toContain('--force');
  });
});

describe('placeFiles', () => {
  it('files in an existing partition’s directory are visible; a new partition’s files → add at their directory (values from the k=v names)', () => {
    const r = placeFiles(inv, spec, schema, [
      file(`${LOC}/year=2024/region=us/a.parquet`, [2024, 'us']),
      file(`s3://w/db/orders/year=2026/region=eu/b.parquet`, [2026, 'eu']),
      file(`s3://w/db/orders/year=2026/region=eu/c.parquet`, [2026, 'eu'], { records: 4 }),
    ]);
    expect(r.blockers).toEqual([]);
    expect(r.visible.map((g) => [g.name, g.files.length, g.records])).toEqual([['year=2024/region=us', 1, 3]]);
    expect(r.add.map((g) => [g.name, g.values, g.location, g.files.length, g.records])).toEqual([
      ['year=2026/region=eu', ['2026', 'eu'], `${LOC}/year=2026/region=eu`, 2, 7],
    ]);
    const hp = hivePartitionOf(table, r.add[0] as never, 5);
    expect([hp.values, hp.sd.location, hp.sd.serde.serializationLib, hp.createTime]).toEqual([
      ['2026', 'eu'],
      `${LOC}/year=2026/region=eu`,
      table.sd.serde.serializationLib,
      5,
    ]);
  });

  it('an existing partition whose appended files sit elsewhere (Iceberg’s default data/ path) is refused, naming the files', () => {
    const r = placeFiles(inv, spec, schema, [file(`${LOC}/data/year=2024/region=us/a.parquet`, [2024, 'us'])]);
    expect(r.blockers.map((b) => b.reason).join()).toMatch(
      /partition year=2024\/region=us is at .* Hive would not read them: s3a:\/\/w\/db\/orders\/data\/year=2024/,
    );
  });

  it('a new partition split over two directories, a directory that does not name it, or another partition’s directory is refused', () => {
    const split = placeFiles(inv, spec, schema, [
      file(`${LOC}/year=2026/region=eu/a.parquet`, [2026, 'eu']),
      file(`${LOC}/x/year=2026/region=eu/b.parquet`, [2026, 'eu']),
    ]);
    expect(split.blockers[0]?.reason).toMatch(/in 2 directories/);
    const wrong = placeFiles(inv, spec, schema, [file(`${LOC}/year=2027/region=eu/a.parquet`, [2026, 'eu'])]);
    expect(wrong.blockers[0]?.reason).toMatch(/does not name the partition/);
    const odd = { ...inv, partitions: [...inv.partitions, part(['2020', 'xx'], `${LOC}/year=2026/region=eu`)] };
    expect(placeFiles(odd, spec, schema, [file(`${LOC}/year=2026/region=eu/a.parquet`, [2026, 'eu'])]).blockers[0]?.reason).toMatch(
      /already partition year=2020/,
    );
  });

  it('ORC files into a Parquet partition are refused; a null value maps from __HIVE_DEFAULT_PARTITION__', () => {
    expect(
      placeFiles(inv, spec, schema, [file(`${LOC}/year=2024/region=us/a.orc`, [2024, 'us'], { format: 'ORC' })]).blockers[0]?.reason,
    ).toMatch(/ORC files in partition/);
    const r = placeFiles(inv, spec, schema, [file(`${LOC}/year=2025/region=__HIVE_DEFAULT_PARTITION__/a.parquet`, [2025, null])]);
    expect(r.add.map((g) => g.values)).toEqual([['2025', null]]);
  });

  it('unpartitioned: files directly in the table location are visible; anywhere else refused', () => {
    const flat: TableInventory = { table: { ...table, partitionKeys: [] }, partitions: [] };
    const ok = placeFiles(flat, UNPARTITIONED_SPEC, schema, [file(`${LOC}/a.parquet`, [])]);
    expect([ok.blockers, ok.visible.map((g) => g.name), ok.add]).toEqual([[], [''], []]);
    const away = placeFiles(flat, UNPARTITIONED_SPEC, schema, [file(`${LOC}/data/a.parquet`, [])]);
    expect(away.blockers[0]?.reason).toMatch(/outside the table location.*write.data.path/);
  });

  it('partitionOfDir reads Hive-escaped k=v names, and refuses other keys', () => {
    const keys = [
      { name: 'year', type: { kind: 'int' as const } },
      { name: 'region', type: { kind: 'string' as const } },
    ];
    expect(partitionOfDir('s3://w/t/year=2024/region=a%2Fb', keys)).toEqual(['2024', 'a/b']);
    expect(partitionOfDir('s3://w/t/yr=2024/region=eu', keys)).toBeNull();
  });
});
