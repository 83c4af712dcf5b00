// Plan diff (added / removed / moved / class and fingerprint changes, sorted) and wave estimates.
import { MigrationError } from '../../../core/errors';
import { diffPlans, isEmptyDiff } from '../../../core/plan/diff';
import { estimateWave, parseThroughput } from '../../../core/plan/estimates';
import type { PlanFile } from '../../../core/plan/plan-file';

type Entry = PlanFile['waves'][number]['tables'][number];
const t = (id: string, over: Partial<Entry> = {}): Entry => ({
  id,
  team: null,
  class: 'migrate',
  fingerprint: `fp-${id}`,
  files: 1,
  bytes: 1,
  pin: null,
  partitions: null,
  ...over,
});
const wave = (number: number, tables: Entry[]): PlanFile['waves'][number] => ({
  number,
  tables,
  estimates: { files: 0, bytes: 0, expectedSeconds: 0 },
});

describe('diffPlans', () => {
  it('lists added, removed (with the new reason), moved, class and fingerprint changes by id', () => {
    const before = { waves: [wave(1, [t('a.keep'), t('a.move'), t('a.drop'), t('a.gone')]), wave(2, [t('a.cls')])], notPlanned: [] };
    const after = {
      waves: [
        wave(1, [t('a.keep', { fingerprint: 'changed' }), t('a.new')]),
        wave(2, [t('a.cls', { class: 'migrate-with-warnings' })]),
        wave(3, [t('a.move')]),
      ],
      notPlanned: [{ id: 'a.drop', reason: 'CLASS_REWRITE_REQUIRED' as const }],
    };
    expect(diffPlans(before, after)).toEqual({
      added: [{ id: 'a.new', wave: 1 }],
      removed: [
        { id: 'a.drop', wave: 1, reason: 'CLASS_REWRITE_REQUIRED' },
        { id: 'a.gone', wave: 1, reason: null },
      ],
      moved: [{ id: 'a.move', from: 1, to: 3 }],
      classChanged: [{ id: 'a.cls', from: 'migrate', to: 'migrate-with-warnings' }],
      fingerprintChanged: ['a.keep'],
    });
    expect(isEmptyDiff(diffPlans(after, after))).toBe(true);
  });
});

describe('estimateWave', () => {
  const tp = { filesPerSecond: 100, bytesPerSecond: 1e6, perTableOverheadSeconds: 2 };

  it('adds file, byte and per-table time and rounds up to whole seconds', () => {
    expect(
      estimateWave(
        [
          { files: 150, bytes: 2e6 },
          { files: 50, bytes: 5e5 },
        ],
        tp,
      ),
    ).toEqual({ files: 200, bytes: 2.5e6, expectedSeconds: 9 });
    expect(estimateWave([], tp)).toEqual({ files: 0, bytes: 0, expectedSeconds: 0 });
    expect(estimateWave([{ files: 1, bytes: 1 }], tp).expectedSeconds).toBe(3);
  });

  it('refuses zero or negative throughput with PLAN_INVALID at the path', () => {
    try {
      parseThroughput({ ...tp, filesPerSecond: 0 });
      throw new Error('expected a throw');
    } catch (e) {
      expect(e).toBeInstanceOf(MigrationError);
      expect((e as MigrationError).context['paths']).toEqual(['throughput.filesPerSecond']);
    }
  });
});
