// A created Iceberg view, run: when the worker has a `rewrite:` section (the
// spark-submit command line) the shipped job jobs/view_check.py runs the view in Spark through the
// target catalog and the Hive view's SQL over the Hive tables' own files (every Hive view it reads
// registered from its own SQL, in dependency order), and returns both sides' rows and content
// checksums. validateIcebergView records the outcome under `validation.spark` and audits it; this
// module decides what runs and reads the result. Reads only: the job writes nothing but its result file.
import type { TableIdent } from '../core/catalog/catalog';
import { ErrorCode, MigrationError } from '../core/errors';
import type { TableInventory } from '../core/hive/model';
import { viewReferences } from '../core/view/view-deps';
import type { ViewCheckSide, ViewCheckSpec } from '../core/view/check-spec';
import { inputOrder, viewCheckEqual, viewCheckSpec } from '../core/view/check-spec';
import type { Ctx, TableRef } from './context';

/** What `validation.spark` holds: both sides and whether they agree, or why the check did not run. */
export type SparkViewCheck =
  | { readonly skipped: string }
  | {
      readonly jobId: string;
      readonly iceberg: ViewCheckSide;
      readonly hive: ViewCheckSide;
      readonly equal: boolean;
      readonly seconds: number;
    };

export const NO_SPARK = 'no spark-submit configured';

const nameOf = (inv: TableInventory): string => `${inv.table.database}.${inv.table.name}`.toLowerCase();

/** The view and everything it reads (through the views it reads), live from HMS, in dependency order. */
async function inputsOf(c: Ctx, view: TableInventory): Promise<{ inputs: TableInventory[] } | { skipped: string }> {
  const parser = c.deps.viewSql;
  if (parser === undefined) return { skipped: 'this worker has no SQL parser for views' };
  const byName = new Map<string, TableInventory>([[nameOf(view), view]]);
  const readsOf = new Map<string, readonly string[]>();
  const queue = [view];
  for (let inv = queue.shift(); inv !== undefined; inv = queue.shift()) {
    if (inv.table.tableType !== 'VIRTUAL_VIEW') continue;
    const t = inv.table;
    const refs = viewReferences(parser, t.database, t.viewExpandedText, t.viewOriginalText);
    if (!refs.ok) return { skipped: `${nameOf(inv)}: the SQL does not parse: ${refs.error}` };
    readsOf.set(nameOf(inv), refs.tables);
    for (const r of refs.tables) {
      if (byName.has(r)) continue;
      const [db = '', name = ''] = r.split('.');
      const [found] = await c.deps.hms.getTables(db, [name]);
      if (found === undefined) return { skipped: `${r} is not in HMS` };
      byName.set(r, found);
      queue.push(found);
    }
  }
  const order = inputOrder(nameOf(view), readsOf);
  if (!order.ok) return { skipped: order.error };
  return { inputs: order.order.map((n) => byName.get(n) as TableInventory) };
}

async function runJob(c: Ctx, ref: TableRef, spec: ViewCheckSpec): Promise<SparkViewCheck> {
  const r = c.deps.rewrite!;
  // The running activity, or none (called outside an activity: no heartbeats, no cancel).
  const running = c.runtime.current();
  const res = await c.deps.engine.runViewCheckJob(spec, ref.tableId, {
    command: r.command,
    env: r.env,
    workDir: r.workDir,
    timeoutMs: r.timeoutMinutes * 60_000,
    ...(running === undefined ? {} : { signal: running.signal }),
    onEvent: (e) => running?.heartbeat({ job: spec.jobId, ...e }),
  });
  if (res.status !== 'checked' || res.iceberg === undefined || res.hive === undefined)
    throw new MigrationError(
      ErrorCode.VIEW_CHECK_FAILED,
      `${ref.tableId}: view check job ${spec.jobId} ${res.status === 'bad-spec' ? `refused its spec: ${res.error ?? ''}` : 'returned no result for a side'}`,
      { tableId: ref.tableId, jobId: spec.jobId },
      { retryable: false },
    );
  return { jobId: spec.jobId, iceberg: res.iceberg, hive: res.hive, equal: viewCheckEqual(res), seconds: res.seconds ?? 0 };
}

/** Run the created view in Spark and its Hive SQL over the Hive files (or say why not). */
export async function sparkCheckView(c: Ctx, ref: TableRef, view: TableInventory, ident: TableIdent): Promise<SparkViewCheck> {
  const r = c.deps.rewrite;
  if (r === undefined) return { skipped: NO_SPARK };
  if (r.viewCheck === false) return { skipped: 'turned off (rewrite.viewCheck: false)' };
  const inputs = await inputsOf(c, view);
  if ('skipped' in inputs) return inputs;
  const plan = await c.plan(ref.planHash);
  const built = viewCheckSpec({
    planHash: ref.planHash,
    tableId: ref.tableId,
    view,
    inputs: inputs.inputs,
    target: { namespace: ident.namespace.join('.'), name: ident.name },
    catalogName: plan.targetCatalog,
    catalogProperties: r.catalogProperties,
  });
  if (!built.ok) return { skipped: built.why };
  return runJob(c, ref, built.spec);
}
