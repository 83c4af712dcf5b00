// What `migrate rollback` prints (cli/commands/rollback.ts renderRollback): a result whose lists hold
// every outcome prints as it always has; a result of a wave whose lists reached their budget
// (workflows/rollback-tally.ts) prints the full count and how many refusals and put-backs it left out.
import { renderRollback } from '../../../cli/commands/rollback';
import type { WaveRollback } from '../../../app/rollback/rollback';

const putBack = { tableId: 'db.a', snapshots: ['7'], partitionsAdded: ['y=1'], partitionsVisible: [], files: 2, records: 3 };

describe('migrate rollback text', () => {
  it('every outcome listed: the count, the refusals, the put-backs — the same text with or without counts', () => {
    const base: WaveRollback = {
      wave: 2,
      applying: 'idle',
      rolledBack: ['db.b', 'db.a'],
      refused: [{ tableId: 'db.c', code: 'ROLLBACK_NOT_OURS', message: 'db.c is not ours' }],
      putBack: [putBack],
    };
    const text =
      'wave 2: rolled back 2 table(s); refused: db.c (ROLLBACK_NOT_OURS: db.c is not ours)\n' +
      '  db.a: put back 2 file(s), 3 row(s) of snapshot(s) 7; partitions added: y=1; already visible: none\n';
    expect(renderRollback(base)).toBe(text);
    expect(renderRollback({ ...base, counts: { tables: 3, rolledBack: 2, refused: 1, putBack: 1, runs: 1 } })).toBe(text);
  });

  it('lists at their budget: the count of every table rolled back, and the refusals and put-backs left out, by code', () => {
    const r: WaveRollback = {
      wave: 8,
      applying: 'idle',
      rolledBack: ['db.a'],
      refused: [{ tableId: 'db.c', code: 'ROLLBACK_ORDER', message: 'db.c: not rolled back' }],
      putBack: [putBack],
      counts: { tables: 40_000, rolledBack: 30_000, refused: 10_000, putBack: 5, runs: 160 },
      notListed: { rolledBack: 29_999, refused: { ROLLBACK_ORDER: 9_998, ROLLBACK_BLOCKED: 1 }, putBack: 4 },
    };
    const lines = renderRollback(r).split('\n');
    expect(lines[0]).toBe('wave 8: rolled back 30000 table(s); refused: db.c (ROLLBACK_ORDER: db.c: not rolled back)');
    expect(lines.slice(2)).toEqual([
      '  and 9998 ROLLBACK_ORDER, 1 ROLLBACK_BLOCKED more refused, not listed here (migrate status <plan> shows where each table stands)',
      '  and 4 more table(s) put back, not listed here',
      '',
    ]);
  });
});
