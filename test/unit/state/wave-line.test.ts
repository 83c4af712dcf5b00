// A wave's status line from where its tables stand (core/state/wave-line.ts) and how
// cli/render-status.ts prints it: a wave that succeeded and was then rolled back or cut over says
// so, never "succeeded — 4 migrated"; without table rows the run's own result is printed as before.
import { renderStatus, wavesJson } from '../../../cli/render-status';
import { ExitCode } from '../../../core/exit-codes';
import { waveLine } from '../../../core/state/wave-line';
import type { MigrationStatus } from '../../../app/apply/plan-workflow';

const t = (table: string, status: string, code?: string) => ({ table, status, ...(code ? { error: { code } } : {}) });
const four = (status: string) => ['a', 'b', 'c', 'd'].map((x) => t(`db.${x}`, status));

describe('wave line from table states', () => {
  it('migrated tables keep the run status; rolled back, cut over and partial states say so', () => {
    expect(waveLine('succeeded', four('migrated'))).toEqual({ status: 'succeeded', parts: ['4 migrated'] });
    expect(waveLine('succeeded', four('rolled-back'))).toEqual({ status: 'rolled back', parts: ['4 rolled back'] });
    expect(waveLine('succeeded', four('cutover'))).toEqual({ status: 'cut over', parts: ['4 cut over'] });
    expect(waveLine('succeeded', [t('db.a', 'cutover'), t('db.b', 'fenced'), t('db.c', 'migrated')])).toEqual({
      status: 'succeeded, partly cut over',
      parts: ['1 migrated', '1 fenced', '1 cut over'],
    });
    expect(waveLine('succeeded', [t('db.a', 'rolled-back'), t('db.b', 'migrated')]).status).toBe('succeeded, partly rolled back');
    expect(waveLine('failed', [t('db.a', 'rolled-back'), t('db.b', 'failed', 'SOURCE_CHANGED')])).toEqual({
      status: 'rolled back',
      parts: ['1 rolled back', '1 failed: db.b (SOURCE_CHANGED)'],
    });
    expect(waveLine('running', [t('db.a', 'written'), t('db.b', 'pending'), t('db.c', 'view-created')]).parts).toEqual([
      '1 view(s) created',
      '1 in flight',
      '1 not started',
    ]);
    expect(waveLine('cancelled', [])).toEqual({ status: 'cancelled', parts: [] });
  });

  it('status prints the derived line; apply --wait (no rows) prints the run result; --json carries tableStatus', () => {
    const s: MigrationStatus = {
      planHash: 'ab'.repeat(32),
      state: 'succeeded',
      currentWave: null,
      approved: [1, 2],
      totalWaves: 2,
      waves: [
        { wave: 1, tables: 4, migrated: 4, skipped: 0, failed: [], status: 'succeeded' },
        { wave: 2, tables: 4, migrated: 4, skipped: 0, failed: [], status: 'succeeded' },
      ],
    };
    const rows = [...four('migrated').map((r) => ({ ...r, wave: 1 })), ...four('rolled-back').map((r) => ({ ...r, wave: 2 }))];
    const o = { exit: ExitCode.OK, failedTables: 0 };
    const text = renderStatus(s, o, rows);
    expect(text).toContain('  wave 1: succeeded (4 tables) — 4 migrated\n');
    expect(text).toContain('  wave 2: rolled back (4 tables) — 4 rolled back\n');
    expect(text).not.toMatch(/wave 2: succeeded/);
    expect(renderStatus(s, o)).toContain('  wave 2: succeeded (4 tables) — 4 migrated\n');
    expect(wavesJson(s, rows)[1]).toMatchObject({
      wave: 2,
      status: 'succeeded',
      tableStatus: { status: 'rolled back', parts: ['4 rolled back'] },
    });
  });
});
