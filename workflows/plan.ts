// A plan: its waves in order, each behind an approval gate, as child waveWorkflows. It always
// ends: a wave child that ends without a result fails the plan with the reason; `cancel` (signal)
// cancels the running wave — its tables in flight compensate — and ends the plan `cancelled`.
import {
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  executeChild,
  isCancellation,
  ParentClosePolicy,
  patched,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { PlanOutline } from '../activities/index';
import type { ActorSource } from '../core/audit/chain';
import { approvalInputProblem, approvalRefusal, approversFor } from '../core/audit/approval';
import type { Timeouts } from './common';
import { activities, failureOf, planId, refusal, SA, UI_TRUTH_PATCH, waveWorkflowId } from './common';
import type { WaveResult } from './wave-run';
import { waveWorkflow } from './wave';

export interface MigrationInput {
  readonly planHash: string;
  readonly autoApprove: boolean;
  /** Stop the plan when a wave has more failed tables than this (default 0: any failure stops). */
  readonly maxFailedPerWave?: number;
  readonly concurrency?: number;
  /** Tables per apply activity (1 or unset: each table in its own table workflow; see WaveInput). */
  readonly tablesPerActivity?: number;
  readonly timeouts?: Timeouts;
}

export interface MigrationStatus {
  readonly planHash: string;
  readonly state: 'waiting-approval' | 'running' | 'paused' | 'succeeded' | 'failed' | 'cancelled';
  readonly currentWave: number | null;
  readonly approved: readonly number[];
  readonly waves: readonly WaveResult[];
  readonly totalWaves: number;
  /** Failed tables over every wave so far, and how many per wave the plan tolerates. */
  readonly failedTables?: number;
  readonly maxFailedPerWave?: number;
  /** Why the plan failed when no wave result says it (a wave workflow that ended without one). */
  readonly reason?: string;
}

/** `already`: this wave was approved before; `early`: approved ahead of the wave it waits behind. */
export interface ApproveResult {
  approved: number[];
  already?: boolean;
  early?: boolean;
}

/** `by`: who approves; `source`: where that name came from (core/audit/chain.ts ActorSource); the worker's rules decide. */
export interface ApproveArgs {
  readonly wave: number;
  readonly by: string;
  readonly source?: ActorSource;
}

export const approveUpdate = defineUpdate<ApproveResult, [ApproveArgs]>('approve');
/** Approvals are decided by the rules the worker recorded in the plan's outline, and refusals audited. */
export const APPROVAL_RULES_PATCH = 'approval-rules-v1';
/**
 * A wave approved while the plan is paused shows `paused` (it showed `waiting-approval` until resume):
 * the plan now waits for resume, not for approval, and says so.
 */
export const PAUSED_AFTER_APPROVAL_PATCH = 'paused-after-approval';
export const pauseSignal = defineSignal('pause');
export const resumeSignal = defineSignal('resume');
export const cancelSignal = defineSignal('cancel');
export const statusQuery = defineQuery<MigrationStatus>('status');

export async function migrationWorkflow(input: MigrationInput): Promise<MigrationStatus> {
  const { short } = activities(input.timeouts);
  const truth = patched(UI_TRUTH_PATCH);
  const outline = await short.planOutline(input.planHash);
  const approved = new Set<number>();
  const results: WaveResult[] = [];
  let [paused, cancelled] = [false, false];
  let current: number | null = null;
  let state: MigrationStatus['state'] = 'running';
  let reason: string | undefined;
  let waveScope: CancellationScope | undefined;
  const maxFailed = input.maxFailedPerWave ?? 0;
  const status = (): MigrationStatus => ({
    planHash: input.planHash,
    state: paused && state === 'running' ? 'paused' : state,
    currentWave: current,
    approved: [...approved].sort((a, b) => a - b),
    waves: results,
    totalWaves: outline.waves.length,
    failedTables: results.reduce((n, r) => n + r.failed.length, 0),
    maxFailedPerWave: maxFailed,
    ...(reason === undefined ? {} : { reason }),
  });
  const mark = truth ? planMarker(input, outline, status) : () => undefined;
  const end = (s: MigrationStatus['state']): MigrationStatus => ((state = s), mark(), status());
  setHandler(statusQuery, status);
  const pausing = (p: boolean) => (): void => {
    paused = p;
    mark();
  };
  setHandler(pauseSignal, pausing(true));
  setHandler(resumeSignal, pausing(false));
  setHandler(cancelSignal, () => {
    cancelled = true;
    waveScope?.cancel();
  });
  registerApprove(input, outline, approved, results, () => current);
  for (const w of outline.waves) {
    current = w.number;
    if (!input.autoApprove && !approved.has(w.number)) {
      state = 'waiting-approval';
      mark();
      setCurrentDetails(
        `Waiting for approval of wave ${w.number} (${w.tables} tables; teams ${w.teams.join(', ')}): \`migrate approve ${planId(input.planHash)} --wave ${w.number}\``,
      );
      await condition(() => approved.has(w.number) || cancelled);
    } else if (input.autoApprove && !approved.has(w.number)) {
      if (ruledWave(outline, w.number)) {
        // The worker's approvers hold this wave: --auto-approve cannot stand in for them.
        state = 'waiting-approval';
        mark();
        setCurrentDetails(
          `Waiting for approval of wave ${w.number} by ${approversFor(outline.approval!, w.number).join(', ')} (the worker's approvers; --auto-approve does not count): \`migrate approve ${planId(input.planHash)} --wave ${w.number}\``,
        );
        await condition(() => approved.has(w.number) || cancelled);
      } else {
        approved.add(w.number);
        await short.recordApproval(input.planHash, w.number, 'auto-approve');
      }
    }
    if (paused && patched(PAUSED_AFTER_APPROVAL_PATCH)) state = 'running';
    mark(); // a no-op unless the line above changed the state
    await condition(() => !paused || cancelled);
    if (cancelled) return end('cancelled');
    state = 'running';
    mark();
    setCurrentDetails(`Running wave ${w.number} of ${outline.waves.length} · ${progress(outline, results)}`);
    waveScope = new CancellationScope();
    const r = await runWave(input, outline, w, waveScope);
    waveScope = undefined;
    if ('reason' in r) {
      reason = r.reason;
      return end('failed');
    }
    results.push(r);
    if (cancelled || r.status === 'cancelled') return end('cancelled');
    if (r.failed.length > maxFailed) return end('failed');
  }
  current = null;
  return end('succeeded');
}

/** Tables done of the plan's total, counted over the waves that ended. */
function progress(outline: PlanOutline, results: readonly WaveResult[]): string {
  const total = outline.waves.reduce((n, w) => n + w.tables, 0);
  const done = results.reduce((n, r) => n + r.tables - (r.notStarted ?? 0), 0);
  return `${done} of ${total} tables done`;
}

/**
 * Keeps the plan's search attributes on its state: MigrationTeam (every team of the plan),
 * MigrationWave (the wave it is at) and MigrationStatus (`paused` while paused), upserted only when
 * they change; the current details say where the plan ended once it has.
 */
function planMarker(input: MigrationInput, outline: PlanOutline, status: () => MigrationStatus): () => void {
  let last = '';
  upsertSearchAttributes([{ key: SA.team, value: [...new Set(outline.waves.flatMap((w) => w.teams))].sort() }]);
  return () => {
    const s = status();
    const key = `${s.state}/${s.currentWave ?? ''}`;
    if (key === last) return;
    last = key;
    upsertSearchAttributes([
      { key: SA.status, value: s.state },
      ...(s.currentWave === null ? [] : [{ key: SA.wave, value: s.currentWave }]),
    ]);
    if (['succeeded', 'failed', 'cancelled'].includes(s.state))
      setCurrentDetails(
        `Plan \`${planId(input.planHash)}\` ${s.state} · ${progress(outline, s.waves)}, ${s.failedTables ?? 0} failed${s.reason === undefined ? '' : ` · ${s.reason}`}`,
      );
  };
}

type OutlineWave = PlanOutline['waves'][number];

/** The wave child; a wave that ends without a result (terminated, failed) becomes a reason. */
async function runWave(
  input: MigrationInput,
  outline: PlanOutline,
  w: OutlineWave,
  scope: CancellationScope,
): Promise<WaveResult | { reason: string }> {
  try {
    return await scope.run(() =>
      executeChild(waveWorkflow, {
        args: [
          {
            planHash: input.planHash,
            wave: w.number,
            teams: w.teams,
            concurrency: input.concurrency ?? 8,
            timeouts: input.timeouts,
            ...(input.tablesPerActivity === undefined ? {} : { tablesPerActivity: input.tablesPerActivity }),
          },
        ],
        workflowId: waveWorkflowId(input.planHash, w.number),
        typedSearchAttributes: [
          { key: SA.plan, value: planId(input.planHash) },
          { key: SA.wave, value: w.number },
          { key: SA.team, value: [...w.teams] },
          { key: SA.status, value: 'pending' },
        ],
        staticSummary: `plan ${planId(input.planHash)} · wave ${w.number}/${outline.waves.length} · ${w.tables} tables`,
        staticDetails: `### Wave ${w.number} of plan \`${planId(input.planHash)}\`\n\n| tables | files | bytes | expected |\n|---|---|---|---|\n| ${w.tables} | ${w.files} | ${w.bytes} | ${w.expectedSeconds} s |\n\nTeams: ${w.teams.map((t) => `\`${t}\``).join(', ')}\n`,
        cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      }),
    );
  } catch (e) {
    if (isCancellation(e))
      return { wave: w.number, tables: w.tables, migrated: 0, skipped: 0, failed: [], notStarted: w.tables, status: 'cancelled' };
    const f = failureOf(e);
    return {
      reason: `wave ${w.number} workflow ended without a result (${f.code}: ${f.message}); its tables' state is in migrate status and migrate repair`,
    };
  }
}

/**
 * Approvals: an unknown wave or one that already ran is refused with a coded failure; approving
 * twice answers `already`; approving a wave behind one still waiting is a pre-approval (`early`).
 */
function registerApprove(
  input: MigrationInput,
  outline: PlanOutline,
  approved: Set<number>,
  results: readonly WaveResult[],
  current: () => number | null,
): void {
  const { short } = activities(input.timeouts);
  const sorted = (): number[] => [...approved].sort((a, b) => a - b);
  setHandler(
    approveUpdate,
    async ({ wave, by, source }) => {
      if (approved.has(wave)) return { approved: sorted(), already: true };
      if (outline.approval !== undefined && patched(APPROVAL_RULES_PATCH)) {
        const why = approvalRefusal(outline.approval, wave, by, source);
        if (why !== null) {
          await short.recordApprovalRefused(input.planHash, wave, by, source ?? 'unspecified', why);
          throw refusal('AUDIT_APPROVER_REFUSED', why);
        }
        approved.add(wave);
        await short.recordApproval(input.planHash, wave, by, source ?? 'unspecified');
        const cur = current();
        return { approved: sorted(), ...(cur !== null && wave > cur ? { early: true } : {}) };
      }
      approved.add(wave);
      await short.recordApproval(input.planHash, wave, by);
      const cur = current();
      return { approved: sorted(), ...(cur !== null && wave > cur ? { early: true } : {}) };
    },
    {
      validator: ({ wave, by, source }) => {
        const bad = approvalInputProblem(by, source);
        if (bad !== null) throw refusal('USAGE', bad);
        if (!outline.waves.some((w) => w.number === wave))
          throw refusal(
            'WAVE_UNKNOWN',
            `plan ${planId(input.planHash)} has no wave ${wave} (waves: ${outline.waves.map((w) => w.number).join(', ')})`,
          );
        if (results.some((r) => r.wave === wave))
          throw refusal('WAVE_ALREADY_RAN', `wave ${wave} of plan ${planId(input.planHash)} already ran`);
      },
    },
  );
}

/** Whether the worker's rules name approvers for `wave` (then only they can approve it). */
function ruledWave(outline: PlanOutline, wave: number): boolean {
  return outline.approval !== undefined && approversFor(outline.approval, wave).length > 0 && patched(APPROVAL_RULES_PATCH);
}
