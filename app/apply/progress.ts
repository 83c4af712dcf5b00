// `apply --wait` while the plan runs: every `everyMs`, a snapshot of it — the plan workflow's status
// (Temporal) and its tables' records (state store) — and the events since the last one
// (core/apply/progress.ts) handed to `onEvent`, until `ended` settles; then one last snapshot, so
// every table's terminal outcome and every wave's end are reported before the result. A snapshot
// that cannot be taken (a query without a worker for a moment) is skipped, never fatal: the
// plan's result decides the command's outcome.
import type { WorkflowHandle } from '@temporalio/client';
import type { ProgressEvent, ProgressSnapshot } from '../../core/apply/progress';
import { progressEvents } from '../../core/apply/progress';
import { planId } from '../../core/plan/ids';
import type { StateStore } from '../../core/state/store';
import { planStatus } from './plan-workflow';
import type { TemporalHandle } from '../runtime/runtime';

async function snapshot(tmp: TemporalHandle, h: WorkflowHandle, state: StateStore, planHash: string): Promise<ProgressSnapshot> {
  const [s, tables] = await Promise.all([planStatus(tmp, h, planId(planHash)), state.listTableSummaries(planHash)]);
  return {
    plan: planId(planHash),
    state: s.state,
    currentWave: s.currentWave,
    waves: s.waves.map((w) => ({ wave: w.wave, status: w.status, migrated: w.migrated, skipped: w.skipped, failed: w.failed.length })),
    tables: tables.map((t) => ({
      tableId: t.tableId,
      wave: t.wave,
      status: t.status,
      errorCode: t.errorCode,
      errorMessage: t.errorMessage,
    })),
  };
}

export async function followPlan(
  f: { tmp: TemporalHandle; handle: WorkflowHandle; state: StateStore; planHash: string },
  ended: Promise<unknown>,
  onEvent: (e: ProgressEvent) => void,
  everyMs = 2000,
): Promise<void> {
  let done = false;
  const settled = ended.then(
    () => void (done = true),
    () => void (done = true),
  );
  let prev: ProgressSnapshot | undefined;
  for (;;) {
    const last = done;
    const next = await snapshot(f.tmp, f.handle, f.state, f.planHash).catch(() => undefined);
    if (next !== undefined) {
      for (const e of progressEvents(prev, next)) onEvent(e);
      prev = next;
    }
    if (last) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([settled, new Promise((r) => (timer = setTimeout(r, everyMs)))]);
    clearTimeout(timer);
  }
}
