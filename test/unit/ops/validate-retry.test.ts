// validateTable's retry after its passing result was recorded (the worker died before Temporal heard
// of the completion): the recorded evidence is the answer and nothing is validated again, so the
// table workflow never compensates a table its record calls migrated. A record that has not reached
// migrated, or whose recorded validation did not pass, is validated as on a first attempt.
import type { OpsDeps } from '../../../ops/context';
import { opsContext } from '../../../ops/context';
import { tableOps } from '../../../ops/table';
import type { TableRecord } from '../../../core/state/store';
import { BASE_DEPS, PLAN, migratedRecord } from '../activities/record';

const record = (o: Partial<TableRecord>): TableRecord =>
  migratedRecord({ validation: { ok: true, snapshotId: '7855056398878505237' }, ...o });

function setup(rec: TableRecord) {
  let validations = 0;
  const deps = {
    ...BASE_DEPS,
    engine: {
      validateConversion: () => {
        validations++;
        return Promise.reject(new Error('validated again'));
      },
    },
    state: {
      getPlan: () => Promise.reject(new Error('the plan is not needed by a recorded result')),
      getTable: () => Promise.resolve(rec),
    },
  } as unknown as OpsDeps;
  return { acts: tableOps(opsContext(deps)), validations: () => validations };
}

describe('validateTable retried after its result was recorded', () => {
  it.each(['migrated', 'fenced', 'cutover'] as const)(
    'status %s with a passing validation: the recorded result, nothing validated',
    async (status) => {
      const s = setup(record({ status: status as TableRecord['status'] }));
      await expect(s.acts.validateTable({ planHash: PLAN, tableId: 'db.t' })).resolves.toEqual({
        ok: true,
        snapshotId: '7855056398878505237',
      });
      expect(s.validations()).toBe(0);
    },
  );

  it.each([
    ['registered', { ok: true }],
    ['migrated', { ok: false }],
    ['migrated', null],
    ['rolled-back', { ok: true }],
  ] as const)('status %s, recorded validation %j: validated again', async (status, validation) => {
    const s = setup(record({ status: status as TableRecord['status'], validation }));
    await expect(s.acts.validateTable({ planHash: PLAN, tableId: 'db.t' })).rejects.toThrow();
    // `prepared` (the plan) is loaded before the engine: either way the first attempt's path ran.
  });
});
