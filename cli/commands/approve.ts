// `migrate approve <plan> --wave N`: the plan workflow's `approve` update, recorded in the audit
// log with who approved. Idempotent: a wave approved before (or already run) is "already approved".
import type { Command } from 'commander';
import { ApplicationFailure, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { ApproveResult, MigrationStatus } from '../../workflows/index';
import { approveUpdate, planId, statusQuery } from '../../workflows/index';
import { ExitCode } from '../exit-codes';
import { actorOf, checkApprover } from '../identity';
import { FLAG_RANGES, intFlag } from '../flags';
import { configOf } from '../output';
import type { IO } from '../output';
import { openTemporal } from '../runtime';
import type { TemporalHandle } from '../runtime';
import { CALL_MS, describePlan, planArg, planFinished, planHandle, planResult, QUERY_MS, temporalError } from './plan-workflow';

const HELP = `
Examples:
  migrate approve 3f2a9c1b7d4e --wave 2
  MIGRATE_ACTOR=alice migrate approve 3f2a9c1b7d4e --wave 3 --json

Approving a wave twice, or a wave that already ran (also once the plan has ended), is "already
approved" (exit 0). Approving a
later wave early pre-approves it: it starts without asking once the waves before it have run.
Exit codes: 0 approved or already approved; 1 Temporal unreachable, no worker answered, or an
approver not on audit.approvers (AUDIT_APPROVER_REFUSED);
2 bad flag or configuration, unknown plan (never applied), unknown wave (WAVE_UNKNOWN), or a plan
that has already finished (PLAN_FINISHED).`;

interface Approval {
  readonly wave: number;
  readonly approved: readonly number[];
  readonly already: boolean;
  /** The plan is at an earlier wave: this one starts without asking when its turn comes. */
  readonly preApproval: boolean;
}

/** The update's refusal, from the workflow's validator (ApplicationFailure type, or the older plain message). */
function refusal(e: unknown, plan: string, wave: number): MigrationError | 'already-ran' | undefined {
  if (!(e instanceof WorkflowUpdateFailedError)) return undefined;
  const type = e.cause instanceof ApplicationFailure ? e.cause.type : undefined;
  const msg = e.cause?.message ?? e.message;
  if (type === ErrorCode.WAVE_ALREADY_RAN || /already ran/.test(msg)) return 'already-ran';
  if (type === ErrorCode.WAVE_UNKNOWN || /has no wave/.test(msg)) return new MigrationError(ErrorCode.WAVE_UNKNOWN, /has no wave/.test(msg) ? msg : `plan ${planId(plan)} has no wave ${wave}`, { plan: planId(plan), wave });
  return new MigrationError(ErrorCode.USAGE, `approval of wave ${wave} refused: ${msg}`, { plan: planId(plan), wave, ...(type !== undefined ? { type } : {}) });
}

/** A plan that has ended: a wave it had approved is "already approved" (idempotent), anything else PLAN_FINISHED. */
async function approvedWhenEnded(tmp: TemporalHandle, h: WorkflowHandle, plan: string, wave: number): Promise<Approval> {
  const { status } = await describePlan(tmp, h, plan);
  const final = status === 'COMPLETED' ? await tmp.deadline(CALL_MS, () => planResult(h)).catch(() => undefined) : undefined;
  if (final?.approved.includes(wave)) return { wave, approved: final.approved, already: true, preApproval: false };
  throw planFinished(plan, status, `approve (wave ${wave} was not approved before it ended)`);
}

async function approveWave(tmp: TemporalHandle, h: WorkflowHandle, plan: string, wave: number, by: string): Promise<Approval> {
  if ((await describePlan(tmp, h, plan)).status !== 'RUNNING') return approvedWhenEnded(tmp, h, plan, wave);
  let before: MigrationStatus;
  try {
    before = await tmp.deadline(QUERY_MS, () => h.query(statusQuery));
  } catch (e) {
    throw new MigrationError(ErrorCode.TEMPORAL_NO_WORKER, `plan workflow ${h.workflowId} is running but no worker answered (task queue ${tmp.taskQueue}): start one with migrate worker -c <config>`, { workflowId: h.workflowId, taskQueue: tmp.taskQueue }, { cause: e });
  }
  const early = before.currentWave !== null && wave > before.currentWave;
  if (before.approved.includes(wave)) return { wave, approved: before.approved, already: true, preApproval: false };
  try {
    const r: ApproveResult = await tmp.deadline(CALL_MS, () => h.executeUpdate(approveUpdate, { args: [{ wave, by }] }));
    return { wave, approved: r.approved, already: r.already === true, preApproval: r.already !== true && (r.early === true || early) };
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return approvedWhenEnded(tmp, h, plan, wave); // it ended meanwhile
    const r = refusal(e, plan, wave);
    if (r === 'already-ran') return { wave, approved: before.approved, already: true, preApproval: false };
    throw r ?? temporalError(e, tmp, `approve wave ${wave} of ${h.workflowId}`);
  }
}

function renderApproval(a: Approval, plan: string): string {
  const so = `approved so far: ${a.approved.join(', ') || 'none'}`;
  if (a.already) return `wave ${a.wave} of plan ${planId(plan)} was already approved (${so})\n`;
  if (a.preApproval) return `pre-approved wave ${a.wave} of plan ${planId(plan)}: it starts without asking once the waves before it have run (${so})\n`;
  return `approved wave ${a.wave} (${so})\nnext: migrate status ${planId(plan)}\n`;
}

export function registerApprove(program: Command, io: IO): void {
  program
    .command('approve')
    .description('approve the next wave of a running plan (recorded in the audit log with who approved)')
    .argument('<plan>', 'plan id (first 12 hex of the hash) or full hash')
    .requiredOption('--wave <n>', 'wave number', intFlag('--wave', FLAG_RANGES.wave))
    .option('--json', 'machine-readable output')
    .addHelpText('after', HELP)
    .action(async (planText: string, opts: { wave: number; json?: boolean }, cmd: Command) => {
      const plan = planArg(planText);
      const config = configOf(cmd);
      // Before anything is sent: a refused approver (audit.approvers) records nothing (exit 1).
      const by = actorOf();
      checkApprover(config, by);
      const tmp = await openTemporal(config);
      try {
        const a = await approveWave(tmp, planHandle(tmp, plan), plan, opts.wave, by.actor);
        io.out(opts.json ? `${JSON.stringify({ ok: true, plan: planId(plan), ...a })}\n` : renderApproval(a, plan));
        io.setExit(ExitCode.OK);
      } finally {
        await tmp.close();
      }
    });
}
