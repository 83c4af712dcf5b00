// The one way a table's state change and its audit event are recorded: the step's row in the
// lifecycle table (core/state/lifecycle.ts) checked against the record as the step read it, the
// update and the event built there, then StateStore.recordStep (one transaction, both or neither).
// Used by every table operation that moves a table (ops/ may import this module as a value: it
// holds no I/O of its own, only the state store port it is given) and by engine/sync-record.ts.
import type { AuditEvent } from '../core/audit/chain';
import type { Recorder, TableStep, TransitionFacts } from '../core/state/lifecycle';
import { planTransition } from '../core/state/lifecycle';
import type { StateStore, TableRecord } from '../core/state/store';

/**
 * Record `step` of the table `ref`, whose record the step read as `rec`: TABLE_TRANSITION_REFUSED
 * (nothing recorded) when its row does not allow it; else the store's answer (TABLE_RUN_FENCED,
 * SYNC_RECORD_MOVED, or the event — an earlier attempt's, when its idempotency key is in the chain).
 */
export async function recordTransition(
  state: Pick<StateStore, 'recordStep'>,
  ref: { readonly planHash: string; readonly tableId: string },
  rec: Pick<TableRecord, 'status' | 'snapshotId'>,
  step: TableStep,
  facts: TransitionFacts,
  who: Recorder,
): Promise<AuditEvent> {
  const p = planTransition(ref, rec, step, facts, who);
  return p.opts === undefined
    ? state.recordStep(ref.planHash, ref.tableId, p.update, p.event)
    : state.recordStep(ref.planHash, ref.tableId, p.update, p.event, p.opts);
}
