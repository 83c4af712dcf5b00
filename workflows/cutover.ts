// `migrate cutover <plan> --wave N`: the switch from Hive to Iceberg, per table of the wave in plan
// order, one activity per step (ops/cutover.ts): fence the Hive writers → final sync →
// final validation → mark cut over. Every step finds out first whether it already happened, so a
// rerun (or a retried step after a killed worker) ends as one clean run; a table that is refused
// stays where its last step left it (fenced: rerun cutover, or rollback to unfence) and the others
// go on. Id `migrate/<plan id>/cutover-wave-<n>`; MigrationStatus 'cutover' when every table is.
import { defineQuery, patched, setCurrentDetails, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { CutoverStep } from '../activities/index';
import type { Timeouts } from './common';
import { activities, failureOf, markTeams, planId, SA, UI_TRUTH_PATCH } from './common';

export interface CutoverInput {
  readonly planHash: string;
  readonly wave: number;
  /** Only these tables of the wave (default: every migrated one). */
  readonly tables?: readonly string[];
  readonly by: string;
  readonly timeouts?: Timeouts;
}

export interface TableCutover {
  readonly table: string;
  readonly ok: boolean;
  /** What each step did (`now`, `already`, `not-needed`) and its detail; up to the one that failed. */
  readonly steps: readonly { readonly step: string; readonly done: string; readonly detail: string }[];
  readonly error?: { readonly code: string; readonly message: string };
}

export interface CutoverResult {
  readonly plan: string;
  readonly wave: number;
  readonly status: 'cutover' | 'cutover-incomplete';
  readonly tables: readonly TableCutover[];
}

export const cutoverStatusQuery = defineQuery<{ tables: number; done: number; refused: number }>('cutoverStatus');

const stepOf = (step: string, r: CutoverStep | { snapshotId: string | null; files: number; records: number }) =>
  'done' in r
    ? { step, done: r.done, detail: r.detail }
    : { step, done: 'now', detail: `snapshot ${r.snapshotId ?? 'none'}: ${r.files} file(s), ${r.records} row(s) on both sides` };

async function cutOne(input: CutoverInput, table: string): Promise<TableCutover> {
  const { short, long } = activities(input.timeouts);
  const ref = { planHash: input.planHash, tableId: table };
  const steps: TableCutover['steps'][number][] = [];
  try {
    steps.push(stepOf('fence', await short.fenceTable(ref, input.by)));
    steps.push(stepOf('final-sync', await long.finalSync(ref)));
    const validation = await long.finalValidation(ref);
    steps.push(stepOf('final-validation', validation));
    steps.push(stepOf('mark', await short.markCutOver(ref, validation, input.by)));
    return { table, ok: true, steps };
  } catch (e) {
    return { table, ok: false, steps, error: failureOf(e) };
  }
}

export async function cutoverWorkflow(input: CutoverInput): Promise<CutoverResult> {
  const { short } = activities(input.timeouts);
  const truth = patched(UI_TRUTH_PATCH);
  const scope = await short.cutoverScope(input.planHash, input.wave, input.tables ?? []);
  const done: TableCutover[] = scope.refused.map((r) => ({
    table: r.tableId,
    ok: false,
    steps: [],
    error: { code: r.code, message: r.message },
  }));
  const total = scope.tables.length + done.length;
  setHandler(cutoverStatusQuery, () => ({ tables: total, done: done.length, refused: done.filter((t) => !t.ok).length }));
  upsertSearchAttributes([
    { key: SA.plan, value: planId(input.planHash) },
    { key: SA.wave, value: input.wave },
    { key: SA.status, value: 'cutting-over' },
  ]);
  if (truth) await markTeams(input.planHash, input.wave, [...scope.tables, ...scope.refused.map((r) => r.tableId)], input.timeouts);
  // One table at a time, in plan order: a cutover is rare and careful, like a rollback.
  for (const table of scope.tables) {
    setCurrentDetails(`Cutting over wave ${input.wave} of plan \`${planId(input.planHash)}\`: ${done.length}/${total} · now ${table}`);
    done.push(await cutOne(input, table));
  }
  const status = done.every((t) => t.ok) ? 'cutover' : 'cutover-incomplete';
  setCurrentDetails(`Wave ${input.wave} of plan \`${planId(input.planHash)}\`: ${done.filter((t) => t.ok).length}/${total} cut over`);
  upsertSearchAttributes([{ key: SA.status, value: status }]);
  return { plan: planId(input.planHash), wave: input.wave, status, tables: done };
}
