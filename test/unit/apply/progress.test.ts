// apply --wait's progress (core/apply/progress.ts): the events between two snapshots of a plan, and
// their lines. A run seen as the CLI polls it: waiting for approval of wave 1, wave 1 running with
// tables finishing one by one, wave 1 ended, wave 2 running and ending with a failed table.
import type { ProgressSnapshot, ProgressTable } from '../../../core/apply/progress';
import { progressEvents, progressLine } from '../../../core/apply/progress';

const t = (tableId: string, wave: number, status: ProgressTable['status'], errorCode: string | null = null): ProgressTable => ({
  tableId,
  wave,
  status,
  errorCode,
  errorMessage: errorCode === null ? null : `${errorCode}: what happened\nmore detail`,
});
const snap = (s: Partial<ProgressSnapshot>): ProgressSnapshot => ({
  plan: 'abcdef123456',
  state: 'running',
  currentWave: 1,
  waves: [],
  tables: [],
  ...s,
});
const w1 = { wave: 1, status: 'succeeded', migrated: 2, skipped: 0, failed: 0 };

describe('apply --wait progress', () => {
  const s0 = snap({ state: 'waiting-approval', tables: [t('db.a', 1, 'pending'), t('db.b', 1, 'pending'), t('db.c', 2, 'pending')] });
  const s1 = snap({ tables: [t('db.a', 1, 'migrated'), t('db.b', 1, 'written'), t('db.c', 2, 'pending')] });
  const s2 = snap({ currentWave: 2, waves: [w1], tables: [t('db.a', 1, 'migrated'), t('db.b', 1, 'migrated'), t('db.c', 2, 'pending')] });
  const s3 = snap({
    state: 'failed',
    currentWave: 2,
    waves: [w1, { wave: 2, status: 'failed', migrated: 0, skipped: 0, failed: 1 }],
    tables: [t('db.a', 1, 'migrated'), t('db.b', 1, 'migrated'), t('db.c', 2, 'failed', 'CONVERT_READER_MISREAD')],
  });

  it('reports each change once, in order, and nothing when nothing changed', () => {
    expect(progressEvents(undefined, s0)).toEqual([{ event: 'approval-needed', plan: 'abcdef123456', wave: 1 }]);
    expect(progressEvents(s0, s0)).toEqual([]);
    expect(progressEvents(s0, s1)).toEqual([
      { event: 'wave-started', wave: 1, tables: 2 },
      { event: 'table', wave: 1, table: 'db.a', status: 'migrated' },
    ]);
    expect(progressEvents(s1, s1)).toEqual([]);
    expect(progressEvents(s1, s2)).toEqual([
      { event: 'wave-started', wave: 2, tables: 1 },
      { event: 'table', wave: 1, table: 'db.b', status: 'migrated' },
      { event: 'wave-ended', ...w1 },
    ]);
    expect(progressEvents(s2, s3)).toEqual([
      {
        event: 'table',
        wave: 2,
        table: 'db.c',
        status: 'failed',
        code: 'CONVERT_READER_MISREAD',
        message: 'CONVERT_READER_MISREAD: what happened\nmore detail',
      },
      { event: 'wave-ended', wave: 2, status: 'failed', migrated: 0, skipped: 0, failed: 1 },
    ]);
  });

  it('attached to a plan already under way: every table already done, once', () => {
    const events = progressEvents(undefined, s2);
    expect(events.filter((e) => e.event === 'table').map((e) => (e as { table: string }).table)).toEqual(['db.a', 'db.b']);
    expect(events.filter((e) => e.event === 'wave-ended')).toHaveLength(1);
  });

  it('lines: the approval names the command; a failure its code and first message line', () => {
    const approve = (plan: string, wave: number): string => `migrate approve ${plan} --wave ${wave} -c m.yaml`;
    const lines = [...progressEvents(undefined, s0), ...progressEvents(s0, s1), ...progressEvents(s2, s3)].map((e) =>
      progressLine(e, approve),
    );
    expect(lines).toEqual([
      'wave 1: waiting for approval — migrate approve abcdef123456 --wave 1 -c m.yaml',
      'wave 1: started (2 tables)',
      '  db.a: migrated',
      '  db.c: failed [CONVERT_READER_MISREAD] CONVERT_READER_MISREAD: what happened',
      'wave 2: failed — 0 migrated, 0 skipped, 1 failed',
    ]);
  });
});

describe('apply --wait progress between two distant polls', () => {
  it('a wave that started and ended between them is reported started, then its tables, then ended', () => {
    const before = snap({ state: 'running', currentWave: 1, tables: [t('db.a', 1, 'written'), t('db.b', 2, 'pending')] });
    const after = snap({
      state: 'succeeded',
      currentWave: 2,
      waves: [w1, { ...w1, wave: 2, migrated: 1 }],
      tables: [t('db.a', 1, 'migrated'), t('db.b', 2, 'migrated')],
    });
    expect(progressEvents(before, after).map((e) => `${e.event} ${'table' in e ? e.table : e.wave}`)).toEqual([
      'wave-started 2',
      'table db.a',
      'table db.b',
      'wave-ended 1',
      'wave-ended 2',
    ]);
  });
});
