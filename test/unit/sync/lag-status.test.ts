// `migrate status`'s tables: the mark a sync leaves (core/sync/lag.ts syncMarkOf),
// the live lag (Hive's partitions now against the last synced state: new, dropped, rewritten), the
// phase of a table (migrated / syncing / anything else as recorded, e.g. a cut-over table from
// another branch), the per-wave counts, and how cli/render-tables.ts writes all of it.
import type { TableLag, TableStatusRow } from '../../../core/sync/lag';
import { isBehind, LAG_NAMES, partitionLag, syncMarkOf, tablePhase, waveCounts } from '../../../core/sync/lag';
import { lagText, renderTables, syncText, TABLE_LINES, tableLine, waveCountsLine } from '../../../cli/render-tables';
import { partition } from '../assess/fixture';

const T0 = new Date('2026-12-05T01:02:03.456Z');
const T1 = new Date('2026-12-05T02:00:00.000Z');
const stats = (numFiles: string) => ({ parameters: { numFiles, totalSize: String(Number(numFiles) * 100) } });
const synced = { partitions: [partition('dt=1', stats('2')), partition('dt=2', stats('2')), partition('dt=3', stats('2'))] };
const committed = { commit: 'committed', snapshotId: '42', filesAdded: 20, filesRemoved: 0, partitionsAdded: 1, partitionsChanged: 1 };

const row = (table: string, wave: number, o: Partial<TableStatusRow> = {}): TableStatusRow => ({
  table,
  wave,
  status: 'migrated',
  phase: 'migrated',
  snapshotId: '1',
  lastSync: null,
  ...o,
});
const lagOf = (newCount: number, files: number, o: Partial<TableLag> = {}): TableLag => ({
  checkedAt: T1.toISOString(),
  partitionsNew: { count: newCount, names: Array.from({ length: newCount }, (_, i) => `dt=${10 + i}`) },
  partitionsDropped: { count: 0, names: [] },
  partitionsChanged: { count: 0, names: [] },
  filesInNewPartitions: files,
  storage: null,
  exact: false,
  ...o,
});

describe('sync marks', () => {
  it('a commit: when, the snapshot, what it added; lastCommitAt is this sync', () => {
    expect(syncMarkOf(T0, committed, 4, null)).toEqual({
      at: '2026-12-05T01:02:03.456Z',
      outcome: 'committed',
      snapshotId: '42',
      filesAdded: 20,
      filesRemoved: 0,
      partitionsAdded: 1,
      partitionsChanged: 1,
      hivePartitions: 4,
      lastCommitAt: '2026-12-05T01:02:03.456Z',
    });
  });

  it('in sync keeps the last commit time; a refusal keeps the snapshot and names the code', () => {
    const first = syncMarkOf(T0, committed, 4, null);
    const again = syncMarkOf(T1, { ...committed, commit: null, filesAdded: 0, partitionsAdded: 0, partitionsChanged: 0 }, 4, first);
    expect([again.outcome, again.at, again.lastCommitAt, again.snapshotId]).toEqual(['in-sync', T1.toISOString(), T0.toISOString(), '42']);
    const refused = syncMarkOf(T1, { error: { code: 'SYNC_FOREIGN_COMMITS', message: 'snapshot 777 is not ours' } }, null, first);
    expect(refused).toMatchObject({
      outcome: 'refused',
      snapshotId: '42',
      lastCommitAt: T0.toISOString(),
      error: { code: 'SYNC_FOREIGN_COMMITS' },
    });
  });

  it('the phase: migrated until the first sync, syncing after; any other status as recorded', () => {
    expect(tablePhase('migrated', null)).toBe('migrated');
    expect(tablePhase('migrated', syncMarkOf(T0, committed, 1, null))).toBe('syncing');
    expect(tablePhase('cutover', syncMarkOf(T0, committed, 1, null))).toBe('cutover');
    expect(tablePhase('failed', null)).toBe('failed');
  });
});

describe('live lag', () => {
  it('new partitions with their files; none behind when Hive is as synced', () => {
    expect(isBehind(partitionLag(synced, synced, 0, T1))).toBe(false);
    const l = partitionLag(synced, { partitions: [...synced.partitions, partition('dt=4', stats('20'))] }, 20, T1);
    expect(l).toEqual({
      checkedAt: T1.toISOString(),
      partitionsNew: { count: 1, names: ['dt=4'] },
      partitionsDropped: { count: 0, names: [] },
      partitionsChanged: { count: 0, names: [] },
      filesInNewPartitions: 20,
      storage: null,
      exact: false,
    });
    expect(isBehind(l)).toBe(true);
  });

  it('exact only when storage was listed: files added to an existing partition show there and nowhere in HMS', () => {
    const hmsOnly = partitionLag(synced, synced, 0, T1);
    expect([isBehind(hmsOnly), hmsOnly.exact]).toEqual([false, false]);
    const listed = partitionLag(synced, synced, 0, T1, { filesAdded: 3, filesRemoved: 0 });
    expect([listed.storage, listed.exact, isBehind(listed)]).toEqual([{ filesAdded: 3, filesRemoved: 0 }, true, true]);
    const inSync = partitionLag(synced, synced, 0, T1, { filesAdded: 0, filesRemoved: 0 });
    expect([inSync.exact, isBehind(inSync)]).toEqual([true, false]);
  });

  it('a dropped partition and a rewritten one (file statistics changed): named, not exact', () => {
    const live = { partitions: [synced.partitions[0], partition('dt=2', stats('3'))].map((p) => p as (typeof synced.partitions)[number]) };
    const l = partitionLag(synced, live, 0, T1);
    expect([l.partitionsDropped, l.partitionsChanged, l.exact]).toEqual([
      { count: 1, names: ['dt=3'] },
      { count: 1, names: ['dt=2'] },
      false,
    ]);
  });

  it('names are bounded, counts are whole', () => {
    const many = Array.from({ length: LAG_NAMES + 5 }, (_, i) => partition(`dt=n${String(i).padStart(3, '0')}`));
    const l = partitionLag(synced, { partitions: [...synced.partitions, ...many] }, 0, T1);
    expect([l.partitionsNew.count, l.partitionsNew.names.length, l.partitionsNew.names[0]]).toEqual([LAG_NAMES + 5, LAG_NAMES, 'dt=n000']);
  });
});

describe('wave counts and rendering', () => {
  const mark = syncMarkOf(T0, committed, 4, null);
  const rows = [
    row('s.a', 1),
    row('s.b', 1, { phase: 'syncing', lastSync: mark, lag: lagOf(2, 40) }),
    row('s.c', 1, { phase: 'syncing', lastSync: mark, lag: lagOf(0, 0) }),
    row('s.d', 2, { status: 'cutover' as never, phase: 'cutover' }),
    row('s.e', 2, { status: 'failed', phase: 'failed', error: { code: 'SOURCE_CHANGED', message: 'column a: int → bigint' } }),
  ];

  it('per wave: migrated, syncing, behind with the partitions and files, cut over and others by name', () => {
    expect(waveCounts(rows)).toEqual([
      { wave: 1, tables: 3, migrated: 1, syncing: 2, behind: 1, partitionsBehind: 2, filesBehind: 40, other: {} },
      {
        wave: 2,
        tables: 2,
        migrated: 0,
        syncing: 0,
        behind: null,
        partitionsBehind: null,
        filesBehind: null,
        other: { cutover: 1, failed: 1 },
      },
    ]);
    const [w1, w2] = waveCounts(rows);
    expect(waveCountsLine(w1 as never)).toBe(
      '  wave 1: 3 tables — 1 migrated, 2 syncing, 1 behind (2 partitions, 40 files in new partitions)',
    );
    expect(waveCountsLine(w2 as never)).toBe('  wave 2: 2 tables — 0 migrated, 0 syncing, 1 cut over, 1 failed');
  });

  it('a table line: its last sync and lag; a refusal; a failed table its code', () => {
    expect(syncText(null)).toBe('never synced');
    expect(syncText(mark)).toBe('last sync 2026-12-05 01:02:03Z (committed +20 files, 1 partition), snapshot 42');
    const hms = ' (from HMS; --list-storage for files added to existing partitions)';
    expect(lagText(lagOf(2, 40))).toBe(`lag: 2 new partitions (40 files)${hms} (checked 2026-12-05 02:00:00Z)`);
    expect(lagText(lagOf(0, 0))).toBe(`lag: none${hms} (checked 2026-12-05 02:00:00Z)`);
    expect(lagText(lagOf(0, 0, { partitionsChanged: { count: 1, names: ['dt=2'] } }))).toBe(
      `lag: 1 changed partition${hms} (checked 2026-12-05 02:00:00Z)`,
    );
    expect(lagText(lagOf(0, 0, { storage: { filesAdded: 0, filesRemoved: 0 }, exact: true }))).toBe(
      'lag: storage listed: in sync (checked 2026-12-05 02:00:00Z)',
    );
    expect(lagText(lagOf(1, 2, { storage: { filesAdded: 5, filesRemoved: 1 }, exact: true }))).toBe(
      'lag: 1 new partition (2 files), storage listed: 5 files to add, 1 to remove (checked 2026-12-05 02:00:00Z)',
    );
    expect(tableLine(rows[1] as TableStatusRow, 3)).toBe(
      '    s.b  syncing   last sync 2026-12-05 01:02:03Z (committed +20 files, 1 partition), snapshot 42 · lag: 2 new partitions (40 files) (from HMS; --list-storage for files added to existing partitions) (checked 2026-12-05 02:00:00Z)',
    );
    expect(tableLine(rows[3] as TableStatusRow, 3)).toBe('    s.d  cut over  snapshot 1');
    expect(tableLine(rows[4] as TableStatusRow, 3)).toBe('    s.e  failed    SOURCE_CHANGED: column a: int → bigint');
  });

  it('few tables: every one listed; without --lag a hint; with a validation record the partitions since the plan', () => {
    const text = renderTables(
      rows.map(({ lag: _l, ...r }) => r),
      waveCounts(rows.map(({ lag: _l, ...r }) => r)),
      {
        partitions: { planned: 3, converted: 5, added: { count: 2, names: ['dt=4', 'dt=5'], exact: true } },
        files: { planned: 6, converted: 10 },
      },
    );
    expect(text.split('\n').filter((l) => l.startsWith('    s.'))).toHaveLength(5);
    expect(text).toContain('  since the plan: 2 partitions added: dt=4, dt=5');
    expect(text).toContain('  partitions planned 3, converted 5; files planned 6, converted 10');
    expect(text).toContain('(lag not checked: add --lag');
  });

  it('many tables: only the ones behind or refused are listed, and how many more there are', () => {
    const many = Array.from({ length: TABLE_LINES + 10 }, (_, i) =>
      row(`s.t${String(i).padStart(3, '0')}`, 1, { phase: 'syncing', lastSync: mark, lag: lagOf(0, 0) }),
    );
    many[7] = { ...(many[7] as TableStatusRow), lag: lagOf(1, 20) };
    const text = renderTables(many, waveCounts(many));
    const listed = text.split('\n').filter((l) => l.startsWith('    s.'));
    expect(listed.map((l) => l.trim().split(' ')[0])).toEqual(['s.t007']);
    expect(text).toContain(`… ${TABLE_LINES + 9} more tables (--table <db.t> for one, --json for all)`);
    expect(text).not.toContain('lag not checked');
  });
});
