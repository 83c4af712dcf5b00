// The rehearsal's knobs (its command line) and the per-phase rates its estimates come from.
import path from 'node:path';
import { mixedDatabase } from '../../dev/seed/mixed';
import { flags } from '../common/flags';

export const A = flags(process.argv.slice(2));
export const num = (k: string, d: number): number => Number(A.get(k) ?? d);
export const TABLES = num('tables', 10_000);
export const BIG = num('big', Math.max(1, Math.round(TABLES / 3300)));
export const BIG_PARTS = num('big-partitions', 5000);
export const WAVES = num('waves', 5);
export const CONCURRENCY = num('concurrency', 32);
export const WORKERS = num('workers', 1);
export const SPLIT = A.get('split') === 'yes';
export const VALIDATE_CONCURRENCY = num('validate-concurrency', 16);
export const SYNC_EVERY = num('sync-every', 10);
export const SYNC_FILES = num('sync-files', 5);
export const SYNC_PER_WAVE = A.get('sync-per-wave') === 'yes';
/** More flags for `migrate apply` / `migrate sync`, space-separated (e.g. --apply-extra '--tables-per-activity 8'). */
export const extra = (k: string): string[] => (A.get(k) ?? '').split(' ').filter((x) => x !== '');
/** The phases after apply to run (--after-apply validate,sync,rollback; `none`: stop after apply). */
export const AFTER_APPLY = new Set((A.get('after-apply') ?? 'validate,sync,rollback').split(','));
export const SAMPLE_FILES = num('sample-files', 3);
export const HISTORIES = num('histories', 5);
export const PREFIX = A.get('prefix') ?? 'rehearsal';
export const CLEANUP = (A.get('cleanup') ?? 'yes') === 'yes';
export const root = path.resolve(__dirname, '..', '..');
export const shape = { tables: TABLES, big: BIG, bigPartitions: BIG_PARTS };
export const db = mixedDatabase({ prefix: PREFIX, ...shape });
export const log = (m: string): void => void process.stderr.write(`[rehearsal ${new Date().toISOString().slice(11, 19)}] ${m}\n`);

/**
 * Seconds per unit (a table; for the seed a data file) of each phase as this bench measured them
 * (2-core shared host, one worker process, 32 in flight; bench/RESULTS.md "rehearsal"), plus a fixed
 * part: the estimate printed before each phase.
 */
export const RATE: Record<string, { per: number; fixed: number; unit: string; at: string }> = {
  seed: { per: 0.0035, fixed: 5, unit: 'file', at: '1,000 tables' },
  plan: { per: 0.0085, fixed: 4, unit: 'table', at: '1,000 tables' },
  apply: { per: 0.195, fixed: 5, unit: 'table', at: '1,000 tables' },
  validate: { per: 0.032, fixed: 5, unit: 'table', at: '1,000 tables' },
  sync: { per: 0.017, fixed: 4, unit: 'table', at: '1,000 tables' },
  rollback: { per: 0.185, fixed: 4, unit: 'table', at: '1,000 tables' },
};

/** What the run was asked to do, as its report records it. */
export const asked = () => ({
  tables: TABLES,
  big: BIG,
  bigPartitions: BIG_PARTS,
  waves: WAVES,
  concurrency: CONCURRENCY,
  applyExtra: extra('apply-extra'),
  syncExtra: extra('sync-extra'),
  syncPerWave: SYNC_PER_WAVE,
  afterApply: [...AFTER_APPLY],
});
