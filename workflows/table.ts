// One table's steps with their compensations (docs/architecture.md "Habits" 8): save the HMS original and write our
// metadata, register, validate; on any failure — or a cancellation — the compensations run in
// reverse, in a scope that cannot be cancelled (docs/design/temporal-rules.md §4 "Saga"), and the
// table ends `failed` with its code.
// A compensation that cannot finish does not throw the workflow out: the table ends failed with
// COMPENSATION_INCOMPLETE and what is left (migrate repair removes it).
import { CancellationScope, isCancellation, patched, upsertSearchAttributes } from '@temporalio/workflow';
import type { TableOutcome } from '../activities/index';
import type { Timeouts } from './common';
import { compensationEnd } from '../core/state/compensation';
import { activities, activityOptions, failureOf, SA, UI_TRUTH_PATCH } from './common';

export interface TableInput {
  readonly planHash: string;
  readonly tableId: string;
  readonly timeouts?: Timeouts;
}

export type Undo = { readonly what: string; readonly run: () => Promise<unknown> };

/** A table's MigrationStatus once it ends: `succeeded`, `skipped` (a view left in Hive), `cancelled` or `failed`. */
export function tableStatus(o: TableOutcome): string {
  if (o.status === 'migrated') return 'succeeded';
  if (o.status === 'skipped') return 'skipped';
  return o.code === 'CANCELLED' ? 'cancelled' : 'failed';
}

/** The inverses of the metadata-only path's forward steps: delete our metadata files, unregister (no purge). */
export function forwardUndo(input: TableInput): { deleteOurs: Undo; unregister: Undo } {
  const { short } = activities(input.timeouts);
  const o = activityOptions(input.timeouts);
  const ref = { planHash: input.planHash, tableId: input.tableId };
  const t = input.tableId;
  return {
    deleteOurs: {
      what: 'delete our metadata',
      run: () => short.deleteMetadata.executeWithOptions({ ...o.short, summary: `undo: delete our metadata of ${t}` }, [ref]),
    },
    unregister: {
      what: 'unregister',
      run: () => short.unregisterTable.executeWithOptions({ ...o.short, summary: `undo: unregister ${t} (no purge)` }, [ref]),
    },
  };
}

/** The table's steps; then its MigrationStatus says how it ended (the wave started it `running`). */
export async function tableWorkflow(input: TableInput): Promise<TableOutcome> {
  const truth = patched(UI_TRUTH_PATCH);
  let out: TableOutcome;
  try {
    out = await tableSteps(input);
  } catch (e) {
    // Ending without an outcome (its compensations' last step failed): not `running` once closed.
    if (truth) upsertSearchAttributes([{ key: SA.status, value: 'failed' }]);
    throw e;
  }
  if (truth) upsertSearchAttributes([{ key: SA.status, value: tableStatus(out) }]);
  return out;
}

async function tableSteps(input: TableInput): Promise<TableOutcome> {
  const { short, long } = activities(input.timeouts);
  const o = activityOptions(input.timeouts);
  const ref = { planHash: input.planHash, tableId: input.tableId };
  const t = input.tableId;
  const undo: Undo[] = [];
  const { deleteOurs, unregister } = forwardUndo(input);
  try {
    // Each step carries a one-line summary for the Temporal UI's event history and timeline.
    // Since 0.2 the original is saved inside the write step (one workflow task fewer per table);
    // histories recorded before that keep the two-step path.
    if (patched('save-original-in-write-step')) {
      undo.push(deleteOurs);
      const w = await long.saveOriginalAndWrite.executeWithOptions(
        { ...o.long, summary: `save HMS original; list, read footers, write manifests + metadata.json for ${t}` },
        [ref],
      );
      if (w.view) {
        // Since 0.3 a view becomes an Iceberg view when it can (histories recorded before skip it).
        if (patched('iceberg-views')) return await viewSteps(input, undo);
        await short.markSkipped(ref, 'VIEW');
        return { tableId: input.tableId, status: 'skipped', reason: 'VIEW' };
      }
      // The rewrite path (decided by the recorded result of the step above: replay-safe without a patch,
      // histories recorded before it never carry `rewrite`).
      if (w.rewrite === true) return await rewritePath(input, undo);
    } else {
      const snap = await short.snapshotOriginal.executeWithOptions({ ...o.short, summary: `save HMS original of ${t}` }, [ref]);
      if (snap.view) {
        await short.markSkipped(ref, 'VIEW');
        return { tableId: input.tableId, status: 'skipped', reason: 'VIEW' };
      }
      undo.push(deleteOurs);
      await long.writeMetadata.executeWithOptions({ ...o.long, summary: `list, read footers, write manifests + metadata.json for ${t}` }, [
        ref,
      ]);
    }
    undo.push(unregister);
    await short.registerTable.executeWithOptions({ ...o.short, summary: `register ${t} in the catalog` }, [ref]);
    await long.validateTable.executeWithOptions({ ...o.long, summary: `validate ${t}: rows, files, schema` }, [ref]);
    return { tableId: input.tableId, status: 'migrated' };
  } catch (e) {
    const f = isCancellation(e) ? { code: 'CANCELLED', message: `${t}: cancelled while migrating; its steps were undone` } : failureOf(e);
    return CancellationScope.nonCancellable(() => compensate(input, undo, f));
  }
}

/**
 * A view: created as an Iceberg view (or skipped with its code: left in Hive), then read back. Its
 * undo drops the view (only ours); a failure here runs the table's compensations as any step's.
 */
async function viewSteps(input: TableInput, undo: Undo[]): Promise<TableOutcome> {
  const { short, long } = activities(input.timeouts);
  const o = activityOptions(input.timeouts);
  const ref = { planHash: input.planHash, tableId: input.tableId };
  const t = input.tableId;
  const made = await short.createIcebergView.executeWithOptions({ ...o.short, summary: `create the Iceberg view for ${t}` }, [ref]);
  if (!made.created) return { tableId: t, status: 'skipped', reason: made.code };
  undo.push({
    what: 'drop the view',
    run: () => short.dropIcebergView.executeWithOptions({ ...o.short, summary: `undo: drop the Iceberg view of ${t}` }, [ref]),
  });
  // Runs the view in Spark when the worker has a spark-submit command (a job: long, heartbeating; same command).
  await long.validateIcebergView.executeWithOptions(
    { ...o.long, startToCloseTimeout: '7 days', summary: `validate the Iceberg view of ${t}: read back, run in Spark against Hive` },
    [ref],
  );
  return { tableId: t, status: 'migrated' };
}

/**
 * A rewrite-path table: the Spark job writes a new Iceberg table (one long activity that heartbeats
 * the job's progress; cancelling it kills the job); its inverse drops that table and the files the
 * job wrote. Nothing of the metadata-only path applies.
 */
async function rewritePath(input: TableInput, undo: Undo[]): Promise<TableOutcome> {
  const { long } = activities(input.timeouts);
  const o = activityOptions(input.timeouts);
  const ref = { planHash: input.planHash, tableId: input.tableId };
  const t = input.tableId;
  undo.length = 0;
  undo.push({
    what: 'drop the rewritten table',
    run: () =>
      long.dropRewrite.executeWithOptions({ ...o.long, summary: `undo: drop ${t}'s rewritten table and the files its job wrote` }, [ref]),
  });
  await long.rewriteTable.executeWithOptions(
    {
      ...o.long,
      startToCloseTimeout: '7 days',
      summary: `rewrite ${t} through Spark: new Iceberg table, rows and checksums on both sides`,
    },
    [ref],
  );
  return { tableId: input.tableId, status: 'migrated' };
}

/**
 * Run every undo in reverse; each may fail on its own without skipping the others. `mark` records
 * the end: markFailed (a table in flight), or markReadBackFailed (a migrated table the read-back
 * proof failed, workflows/readback.ts).
 */
export async function compensate(
  input: TableInput,
  undo: readonly Undo[],
  f: { code: string; message: string },
  mark: 'markFailed' | 'markReadBackFailed' = 'markFailed',
): Promise<TableOutcome> {
  const { short } = activities(input.timeouts);
  const o = activityOptions(input.timeouts);
  const ref = { planHash: input.planHash, tableId: input.tableId };
  const incomplete: string[] = [];
  for (const step of [...undo].reverse()) {
    try {
      await step.run();
    } catch (e) {
      const c = failureOf(e);
      incomplete.push(`${step.what}: ${c.code}: ${c.message}`);
    }
  }
  const { code, message } = compensationEnd(f, incomplete, input.planHash);
  await short[mark].executeWithOptions({ ...o.short, summary: `${input.tableId} failed: ${code}` }, [ref, code, message]);
  return { tableId: input.tableId, status: 'failed', code, message };
}
