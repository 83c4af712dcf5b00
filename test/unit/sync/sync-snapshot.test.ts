// The pure half of `migrate sync` (core/sync): which files a sync adds and removes, which manifests
// it rewrites, the snapshot's operation, id, summary and the metadata it produces, and the marker
// that tells our snapshots from another writer's.
import { ErrorCode } from '../../../core/errors';
import { buildInitialMetadata } from '../../../core/iceberg/metadata';
import { identitySpec } from '../../../core/iceberg/partition-spec';
import { convertHiveSchemaOrThrow } from '../../../core/iceberg/schema';
import { parseHiveType } from '../../../core/hive/types';
import type { HiveFile, IcebergFile } from '../../../core/sync/diff';
import { diffFiles, isInSync, manifestsToRewrite, tupleKey } from '../../../core/sync/diff';
import {
  ourCurrentSnapshot,
  syncMetadataLocation,
  syncOperation,
  syncSnapshot,
  syncSnapshotId,
  syncSummary,
  withSyncSnapshot,
} from '../../../core/sync/snapshot';
import { errorOf } from '../../helpers/errors';

const ice = (path: string, manifest: string, records = 10, size = 100): IcebergFile => ({
  path,
  size,
  records,
  manifest,
  partition: tupleKey([path.split('/')[3] ?? '']),
});
const hive = (path: string, location = 0, size = 100): HiveFile => ({ path, size, location });

describe('diffFiles', () => {
  const current = [ice('s3://w/t/d=1/a.parquet', 'm0'), ice('s3://w/t/d=1/b.parquet', 'm0'), ice('s3://w/t/d=2/c.parquet', 'm1')];

  it('the same files (s3a:// spelling included) are in sync', () => {
    const d = diffFiles('db.t', current, [hive('s3a://w/t/d=1/a.parquet'), hive('s3://w/t/d=1/b.parquet'), hive('s3://w/t/d=2/c.parquet')]);
    expect(isInSync(d)).toBe(true);
    expect(d.kept).toBe(3);
  });

  it('new partitions and files are added; nothing removed → append', () => {
    const d = diffFiles('db.t', current, [
      hive('s3://w/t/d=1/a.parquet'),
      hive('s3://w/t/d=1/b.parquet'),
      hive('s3://w/t/d=2/c.parquet'),
      hive('s3://w/t/d=3/x.parquet', 2),
      hive('s3://w/t/d=3/y.parquet', 2),
    ]);
    expect(d.added.map((f) => f.path)).toEqual(['s3://w/t/d=3/x.parquet', 's3://w/t/d=3/y.parquet']);
    expect(d.removed).toEqual([]);
    expect(syncOperation(d)).toBe('append');
    expect(manifestsToRewrite(d).size).toBe(0);
  });

  it('an overwritten partition (files replaced) and a dropped one → overwrite; only their manifests are rewritten', () => {
    const d = diffFiles('db.t', current, [hive('s3://w/t/d=1/new.parquet')]);
    expect(d.added.map((f) => f.path)).toEqual(['s3://w/t/d=1/new.parquet']);
    expect(d.removed.map((f) => f.path)).toEqual(['s3://w/t/d=1/a.parquet', 's3://w/t/d=1/b.parquet', 's3://w/t/d=2/c.parquet']);
    expect(syncOperation(d)).toBe('overwrite');
    const partial = diffFiles('db.t', current, [hive('s3://w/t/d=1/a.parquet'), hive('s3://w/t/d=1/b.parquet')]);
    expect(syncOperation(partial)).toBe('delete');
    expect([...manifestsToRewrite(partial)]).toEqual([['m1', new Set(['s3://w/t/d=2/c.parquet'])]]);
  });

  it('a file rewritten in place (same path, other size) is SYNC_FILE_REWRITTEN', () => {
    expect(errorOf(() => diffFiles('db.t', current, [hive('s3://w/t/d=1/a.parquet', 0, 999)])).code).toBe(ErrorCode.SYNC_FILE_REWRITTEN);
  });
});

describe('sync snapshot composition', () => {
  const p = parseHiveType;
  const { schema } = convertHiveSchemaOrThrow(
    [{ name: 'id', type: p('bigint'), comment: null }],
    [{ name: 'd', type: p('string'), comment: null }],
    {
      timestamp: 'timestamp',
    },
  );
  const totals = { addedDataFiles: 3, addedRecords: 30, addedFilesSize: 300, changedPartitionCount: 2 };
  const { metadata: base } = buildInitialMetadata({
    uuid: '8c4b2a2e-0000-8000-8000-000000000001',
    location: 's3://w/t',
    schema,
    spec: identitySpec(schema, ['d']),
    properties: {},
    snapshot: {
      snapshotId: 42n,
      manifestList: 's3://w/t/metadata/snap-42-1-x.avro',
      totals,
      summaryExtra: { 'engine-name': 'hms-iceberg-migrator', 'him.source.hms-table': 'db.t' },
    },
    timestampMs: 1_000,
  });
  const baseLocation = 's3://w/t/metadata/00000-abc.metadata.json';

  it('our snapshot passes the marker check; another writer’s is SYNC_FOREIGN_COMMITS; a table without one has none', () => {
    expect(ourCurrentSnapshot(base, 'db.t')?.snapshotId).toBe(42n);
    expect(errorOf(() => ourCurrentSnapshot(base, 'db.other')).code).toBe(ErrorCode.SYNC_FOREIGN_COMMITS);
    const foreign = withSyncSnapshot(
      base,
      baseLocation,
      syncSnapshot(base, 7n, 'l', { operation: 'append', 'engine-name': 'spark' }, 2_000),
    );
    expect(() => ourCurrentSnapshot(foreign, 'db.t')).toThrow(/not committed by this tool/);
    expect(ourCurrentSnapshot({ ...base, currentSnapshotId: null }, 'db.t')).toBeNull();
  });

  it('the id is a function of table, parent and change only', () => {
    const d = diffFiles('db.t', [ice('s3://w/t/d=1/a.parquet', 'm0')], [hive('s3://w/t/d=1/n.parquet')]);
    const same = diffFiles('db.t', [ice('s3a://w/t/d=1/a.parquet', 'm0')], [hive('s3a://w/t/d=1/n.parquet')]);
    expect(syncSnapshotId(base.tableUuid, 42n, d)).toBe(syncSnapshotId(base.tableUuid, 42n, same));
    expect(syncSnapshotId(base.tableUuid, 42n, d)).not.toBe(syncSnapshotId(base.tableUuid, 43n, d));
    expect(syncSnapshotId(base.tableUuid, 42n, d) > 0n).toBe(true);
  });

  it('summary: counters, totals from the parent, the marker; metadata: next sequence number, parent, main, logs', () => {
    const parent = base.snapshots[0]?.summary;
    const t = {
      addedFiles: 2,
      addedRecords: 25,
      addedSize: 210,
      deletedFiles: 1,
      deletedRecords: 10,
      deletedSize: 100,
      changedPartitions: 1,
    };
    const s = syncSummary('overwrite', parent, t, 'db.t');
    expect(s).toMatchObject({
      operation: 'overwrite',
      'added-data-files': '2',
      'deleted-data-files': '1',
      'added-records': '25',
      'deleted-records': '10',
      'added-files-size': '210',
      'removed-files-size': '100',
      'changed-partition-count': '1',
      'total-records': '45',
      'total-data-files': '4',
      'total-files-size': '410',
      'total-delete-files': '0',
      'engine-name': 'hms-iceberg-migrator',
      'him.source.hms-table': 'db.t',
      'him.sync': 'true',
    });
    const snap = syncSnapshot(base, 99n, 's3://w/t/metadata/snap-99-1-sync.avro', s, 500);
    expect(snap).toMatchObject({ snapshotId: 99n, parentSnapshotId: 42n, sequenceNumber: 2, schemaId: base.currentSchemaId });
    expect(snap.timestampMs).toBeGreaterThan(base.lastUpdatedMs);
    const m = withSyncSnapshot(base, baseLocation, snap);
    expect(m.currentSnapshotId).toBe(99n);
    expect(m.refs.main).toEqual({ snapshotId: 99n, type: 'branch' });
    expect(m.lastSequenceNumber).toBe(2);
    expect(m.snapshots.map((x) => x.snapshotId)).toEqual([42n, 99n]);
    expect(m.metadataLog).toEqual([{ timestampMs: base.lastUpdatedMs, metadataFile: baseLocation }]);
    expect(syncMetadataLocation('s3://w/t', baseLocation, 99n)).toMatch(/^s3:\/\/w\/t\/metadata\/00001-[0-9a-f-]{36}\.metadata\.json$/);
  });
});
