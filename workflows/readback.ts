// The read-back proof of a wave (config `validation.readBack`, ops/readback.ts): once every
// table of the wave has ended, its migrated tables in batches, one engine job per batch; a table the
// proof fails is compensated as any failed table (unregistered without purge, our metadata deleted,
// recorded failed with READBACK_MISMATCH or READBACK_FAILED) and counts as failed in the wave.
// A batch whose job fails after its retries fails each of its tables with that code. Deterministic.
import { isCancellation } from '@temporalio/workflow';
import type { Timeouts } from './common';
import { activities, activityOptions, failureOf } from './common';
import type { Undo } from './table';
import { compensate } from './table';

export async function readBackWave(planHash: string, wave: number, timeouts?: Timeouts): Promise<{ tableId: string; code: string }[]> {
  const { short, long } = activities(timeouts);
  const o = activityOptions(timeouts);
  const batches = await short.readBackBatches(planHash, wave);
  const failed: { tableId: string; code: string }[] = [];
  for (const [i, batch] of batches.entries()) {
    let failures: readonly { tableId: string; code: string; message: string }[];
    try {
      ({ failures } = await long.readBackTables.executeWithOptions(
        {
          ...o.long,
          startToCloseTimeout: '7 days',
          summary: `read-back proof ${i + 1}/${batches.length}: ${batch.length} table(s) of wave ${wave} read through Iceberg and Hive in Spark`,
        },
        [planHash, batch],
      ));
    } catch (e) {
      if (isCancellation(e)) throw e;
      const f = failureOf(e);
      failures = batch.map((tableId) => ({ tableId, code: f.code, message: `${tableId}: ${f.message}` }));
    }
    for (const f of failures) {
      const out = await compensate(
        { planHash, tableId: f.tableId, timeouts },
        undoOf(planHash, f.tableId, timeouts),
        f,
        'markReadBackFailed',
      );
      failed.push({ tableId: f.tableId, code: out.status === 'failed' ? out.code : f.code });
    }
  }
  return failed;
}

/** A migrated table's undo, in the order the table workflow pushed it (compensate runs it reversed). */
function undoOf(planHash: string, tableId: string, timeouts?: Timeouts): Undo[] {
  const { short } = activities(timeouts);
  const o = activityOptions(timeouts);
  const ref = { planHash, tableId };
  return [
    {
      what: 'delete our metadata',
      run: () => short.deleteMetadata.executeWithOptions({ ...o.short, summary: `undo: delete our metadata of ${tableId}` }, [ref]),
    },
    {
      what: 'unregister',
      run: () => short.unregisterTable.executeWithOptions({ ...o.short, summary: `undo: unregister ${tableId} (no purge)` }, [ref]),
    },
  ];
}
