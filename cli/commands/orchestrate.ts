// The Temporal-backed commands: worker, apply, approve, pause/resume/cancel, status and rollback
// (`audit verify` is in ./audit.ts). apply accepts only a plan file (hash checked), stores it in the state store and
// starts `migrate/<plan>`; everything else addresses that workflow by the plan id (first 12 hex).
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { Option } from 'commander';
import type { Command } from 'commander';
import { NativeConnection, Worker } from '@temporalio/worker';
import { CancelledFailure, TerminatedFailure, TimeoutFailure, WorkflowExecutionAlreadyStartedError, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { AuditAction } from '../../core/audit/chain';
import { ErrorCode, MigrationError } from '../../core/errors';
import { parsePlan } from '../../core/plan/plan-file';
import { workerActivities } from '../../activities/index';
import type { MigrationStatus, RollbackResult } from '../../workflows/index';
import { approveUpdate, cancelSignal, migrationWorkflow, pauseSignal, planId, resumeSignal, rollbackWaveWorkflow, SA, statusQuery } from '../../workflows/index';
import { loadConfig } from '../config';
import { ExitCode } from '../exit-codes';
import { openCatalog, openHmsReader, openState, openStores, openTemporal, toolVersion } from '../runtime';
import { footerThreadsOnEveryCpu, sharedFooterThreads } from '../../adapters/formats/footer-threads';

type IO = { out: (s: string) => void; err: (s: string) => void; setExit: (c: number) => void };
interface GlobalOpts {
  config?: string;
  set: string[];
}
const cfg = (cmd: Command) => {
  const g = cmd.optsWithGlobals<GlobalOpts>();
  return loadConfig({ file: g.config, env: process.env, sets: g.set, cwd: process.cwd() }).config;
};
const CALL_MS = 30_000;
/** A status query waits this long for a worker before the workflow's own record is consulted. */
const QUERY_MS = 10_000;

/**
 * A query needs a worker. Without one, a finished plan still has its result on the server (the
 * workflow returns its final status); a running one gets a coded error naming the task queue.
 */
async function statusWithoutWorker(tmp: Awaited<ReturnType<typeof openTemporal>>, h: WorkflowHandle, cause: unknown): Promise<MigrationStatus> {
  const d = await tmp.deadline(CALL_MS, () => h.describe());
  const status = d.status.name;
  if (status === 'COMPLETED') return tmp.deadline(CALL_MS, () => h.result() as Promise<MigrationStatus>);
  if (status === 'RUNNING') {
    throw new MigrationError(ErrorCode.TEMPORAL_NO_WORKER, `plan workflow ${h.workflowId} is running but no worker answered (task queue ${d.taskQueue}): start one with migrate worker -c <config>`, { workflowId: h.workflowId, taskQueue: d.taskQueue }, { cause });
  }
  let reason = '';
  if (status === 'FAILED') reason = await h.result().then(() => '', (e: unknown) => `: ${(e as { cause?: Error }).cause?.message ?? (e as Error).message}`);
  throw workflowEnded(h.workflowId, status, reason);
}

function workflowEnded(workflowId: string, status: string, reason: string, cause?: unknown): MigrationError {
  return new MigrationError(ErrorCode.TEMPORAL_WORKFLOW_ENDED, `plan workflow ${workflowId} ended ${status.toLowerCase()}${reason}; see it in the Temporal UI, fix the cause, then migrate apply again`, { workflowId, status }, cause === undefined ? undefined : { cause });
}

/**
 * The plan workflow's result. It returns its status even when tables or waves failed; it only
 * throws when the workflow itself ended without a result (failed, terminated, cancelled, timed
 * out): that becomes TEMPORAL_WORKFLOW_ENDED with how and why, not an internal error.
 */
async function planResult(h: WorkflowHandle): Promise<MigrationStatus> {
  try {
    return (await h.result()) as MigrationStatus;
  } catch (e) {
    if (!(e instanceof WorkflowFailedError)) throw e;
    const status = e.cause instanceof TerminatedFailure ? 'TERMINATED' : e.cause instanceof CancelledFailure ? 'CANCELLED' : e.cause instanceof TimeoutFailure ? 'TIMED_OUT' : 'FAILED';
    const why = e.cause?.message;
    throw workflowEnded(h.workflowId, status, why ? `: ${why}` : '', e);
  }
}

const who = (): string => process.env.MIGRATE_ACTOR ?? `${os.userInfo().username}@${os.hostname()}`;
export const migrationWorkflowId = (planHash: string): string => `migrate/${planId(planHash)}`;

function readPlan(file: string) {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new MigrationError(ErrorCode.USAGE, `cannot read plan file ${file}: ${(e as Error).message}`);
  }
  return parsePlan(text);
}

function renderStatus(s: MigrationStatus): string {
  const lines = [`plan ${planId(s.planHash)}: ${s.state}${s.currentWave !== null ? ` (wave ${s.currentWave} of ${s.totalWaves})` : ''}`];
  for (const w of s.waves) {
    const parts = [`${w.migrated} migrated`, ...(w.skipped ? [`${w.skipped} view(s) unchanged`] : []), ...(w.failed.length ? [`${w.failed.length} failed: ${w.failed.map((f) => `${f.tableId} (${f.code})`).join(', ')}`] : [])];
    lines.push(`  wave ${w.wave}: ${w.status} (${w.tables} tables) — ${parts.join(', ')}`);
  }
  if (s.state === 'waiting-approval' && s.currentWave !== null) lines.push(`next: migrate approve ${planId(s.planHash)} --wave ${s.currentWave}`);
  return `${lines.join('\n')}\n`;
}

export function registerOrchestration(program: Command, io: IO): void {
  program
    .command('worker')
    .description('run a Temporal worker: the migration workflows and the per-table activities')
    .option('--concurrency <n>', 'activities at once', (v) => Number(v), 16)
    .addOption(new Option('--role <role>', 'what this process runs: both (default), only the workflows, or only the activities').choices(['all', 'workflows', 'activities']).default('all'))
    .addHelpText('after', '\nExamples:\n  migrate worker -c migrate.yaml\n  migrate worker -c migrate.yaml --role activities --concurrency 32   # more activity processes, one workflow process\n\nStops on SIGINT/SIGTERM after in-flight activities are handed back.\nWorkflow tasks are short but latency-bound; the activities are CPU-bound (footer decoding). In one\nprocess they share one event loop, and workflow tasks wait behind activity work; with --role the two\ncan run in separate processes (or hosts) on the same task queue.')
    .action(async (opts: { concurrency: number; role: 'all' | 'workflows' | 'activities' }, cmd: Command) => {
      const config = cfg(cmd);
      const t = config.temporal;
      if (t === undefined) throw new MigrationError(ErrorCode.CONFIG_INVALID, 'temporal is not configured');
      const withActivities = opts.role !== 'workflows';
      // No workflow tasks here: footer threads may take every CPU.
      if (opts.role === 'activities') footerThreadsOnEveryCpu();
      // Footer threads boot now, not inside the first conversion.
      if (withActivities) sharedFooterThreads();
      const closers: (() => Promise<unknown> | void)[] = [];
      let activities: ReturnType<typeof workerActivities> | undefined;
      if (withActivities) {
        const stores = openStores(config);
        const [state, catalog] = [await openState(config), await openCatalog(config, process.env, stores)];
        const hms = openHmsReader(config);
        closers.push(() => state.close(), () => hms.close(), async () => catalog.close?.(), () => stores.close());
        activities = workerActivities({ state, hms, catalog, storeFor: stores.storeFor, namespacePrefix: config.catalog?.namespacePrefix ?? '', actor: `worker:${os.hostname()}:${process.pid}`, toolVersion: toolVersion(), resultsLocation: config.validation?.resultsLocation });
      }
      const connection = await NativeConnection.connect({ address: t.address });
      closers.push(() => connection.close());
      const worker = await Worker.create({
        connection,
        namespace: t.namespace,
        taskQueue: t.taskQueue,
        ...(opts.role !== 'activities' ? { workflowsPath: require.resolve('../../workflows/index') } : {}),
        ...(activities !== undefined ? { activities, maxConcurrentActivityTaskExecutions: opts.concurrency } : {}),
      });
      io.err(`worker (${opts.role}) polling ${t.taskQueue} on ${t.address} (namespace ${t.namespace})\n`);
      try {
        await worker.run();
      } finally {
        await Promise.allSettled(closers.map(async (c) => c()));
      }
      io.setExit(ExitCode.OK);
    });

  program
    .command('apply')
    .description('start migrating a reviewed plan file on Temporal (one workflow per plan, a child per wave)')
    .argument('<plan>', 'plan file written by migrate plan')
    .option('--auto-approve', 'do not wait for approval before each wave (demo)')
    .option('--wait', 'wait for the plan to finish and print the per-wave result')
    .option('--concurrency <n>', 'tables migrating at once per wave', (v) => Number(v), 8)
    .option('--max-failed <n>', 'stop the plan when a wave has more failed tables', (v) => Number(v), 0)
    .option('--step-timeout <s>', 'deadline of one short step; a dead worker\'s step is retried after it', (v) => Number(v), 120)
    .option('--heartbeat-timeout <s>', 'heartbeat deadline of footer reading and validation', (v) => Number(v), 30)
    .option('--json', 'machine-readable output')
    .addHelpText('after', '\nExamples:\n  migrate apply plan.json -c migrate.yaml\n  migrate apply plan.json --auto-approve --wait\n\nExit code 1 when --wait and the plan did not succeed; 2 for a plan file that fails its hash or schema.')
    .action(async (file: string, opts: { autoApprove?: boolean; wait?: boolean; concurrency: number; maxFailed: number; stepTimeout: number; heartbeatTimeout: number; json?: boolean }, cmd: Command) => {
      const config = cfg(cmd);
      const plan = readPlan(file);
      const state = await openState(config);
      const tmp = await openTemporal(config);
      try {
        const { created } = await state.submitPlan(plan);
        if (created) await state.appendAudit({ at: new Date().toISOString(), actor: who(), action: AuditAction.PLAN_SUBMITTED, object: `plan:${plan.hash}`, planHash: plan.hash, beforeDigest: null, afterDigest: plan.hash, details: { waves: plan.waves.length, tables: plan.waves.reduce((n, w) => n + w.tables.length, 0), autoApprove: opts.autoApprove === true } });
        const workflowId = migrationWorkflowId(plan.hash);
        let started = true;
        try {
          await tmp.deadline(CALL_MS, () =>
            tmp.client.workflow.start(migrationWorkflow, {
              taskQueue: tmp.taskQueue,
              workflowId,
              args: [{ planHash: plan.hash, autoApprove: opts.autoApprove === true, concurrency: opts.concurrency, maxFailedPerWave: opts.maxFailed, timeouts: { stepSeconds: opts.stepTimeout, heartbeatSeconds: opts.heartbeatTimeout } }],
              typedSearchAttributes: [{ key: SA.plan, value: planId(plan.hash) }, { key: SA.status, value: 'running' }],
              staticSummary: `migration plan ${planId(plan.hash)} · ${plan.waves.length} waves`,
            }),
          );
        } catch (e) {
          if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
          started = false;
        }
        const ui = tmp.uiUrl === undefined ? undefined : `${tmp.uiUrl}/namespaces/${tmp.namespace}/workflows?query=${encodeURIComponent(`MigrationPlan="${planId(plan.hash)}"`)}`;
        if (!opts.wait) {
          io.out(opts.json ? `${JSON.stringify({ ok: true, plan: plan.hash, workflowId, started, ui })}\n` : `${started ? 'started' : 'already running'} ${workflowId}\n${ui ? `watch: ${ui}\n` : ''}next: migrate status ${planId(plan.hash)}${opts.autoApprove ? '' : ` · migrate approve ${planId(plan.hash)} --wave ${plan.waves[0]?.number ?? 1}`}\n`);
          return io.setExit(ExitCode.OK);
        }
        const result = await planResult(tmp.client.workflow.getHandle(workflowId));
        io.out(opts.json ? `${JSON.stringify({ ok: result.state === 'succeeded', result, ui })}\n` : `${renderStatus(result)}${ui ? `UI: ${ui}\n` : ''}`);
        io.setExit(result.state === 'succeeded' ? ExitCode.OK : ExitCode.FAILED);
      } finally {
        await state.close();
        await tmp.close();
      }
    });

  program
    .command('approve')
    .description('approve the next wave of a running plan (recorded in the audit log with who approved)')
    .argument('<plan>', 'plan id (first 12 hex of the hash) or full hash')
    .requiredOption('--wave <n>', 'wave number', (v) => Number(v))
    .addHelpText('after', '\nExamples:\n  migrate approve 3f2a9c1b7d4e --wave 2\n  MIGRATE_ACTOR=alice migrate approve 3f2a9c1b7d4e --wave 3')
    .action(async (plan: string, opts: { wave: number }, cmd: Command) => {
      const tmp = await openTemporal(cfg(cmd));
      try {
        const r = await tmp.deadline(CALL_MS, () => tmp.client.workflow.getHandle(`migrate/${plan.slice(0, 12)}`).executeUpdate(approveUpdate, { args: [{ wave: opts.wave, by: who() }] }));
        io.out(`approved wave ${opts.wave} (approved so far: ${r.approved.join(', ')})\n`);
        io.setExit(ExitCode.OK);
      } finally {
        await tmp.close();
      }
    });

  for (const [name, signal, what] of [['pause', pauseSignal, 'pause before the next wave starts'], ['resume', resumeSignal, 'resume a paused plan'], ['cancel', cancelSignal, 'stop the plan before the next wave (running waves finish)']] as const) {
    program
      .command(name)
      .description(what)
      .argument('<plan>', 'plan id')
      .action(async (plan: string, _o: unknown, cmd: Command) => {
        const tmp = await openTemporal(cfg(cmd));
        try {
          await tmp.deadline(CALL_MS, () => tmp.client.workflow.getHandle(`migrate/${plan.slice(0, 12)}`).signal(signal));
          io.out(`${name}: sent to migrate/${plan.slice(0, 12)}\n`);
          io.setExit(ExitCode.OK);
        } finally {
          await tmp.close();
        }
      });
  }

  program
    .command('status')
    .description('where a plan is: waves done, tables migrated/failed, what waits for approval')
    .argument('<plan>', 'plan id')
    .option('--json', 'machine-readable output')
    .option('--watch', 'refresh every 2 s until the plan ends')
    .action(async (plan: string, opts: { json?: boolean; watch?: boolean }, cmd: Command) => {
      const tmp = await openTemporal(cfg(cmd));
      try {
        const h = tmp.client.workflow.getHandle(`migrate/${plan.slice(0, 12)}`);
        for (;;) {
          let s: MigrationStatus;
          try {
            s = await tmp.deadline(QUERY_MS, () => h.query(statusQuery));
          } catch (e) {
            if (e instanceof WorkflowNotFoundError) throw new MigrationError(ErrorCode.USAGE, `no migration workflow for plan ${plan} (run migrate apply first)`);
            s = await statusWithoutWorker(tmp, h, e);
          }
          io.out(opts.json ? `${JSON.stringify(s)}\n` : renderStatus(s));
          const ended = ['succeeded', 'failed', 'cancelled'].includes(s.state);
          if (!opts.watch || ended) {
            io.setExit(s.state === 'failed' ? ExitCode.FAILED : ExitCode.OK);
            return;
          }
          await new Promise((r) => setTimeout(r, 2000));
        }
      } finally {
        await tmp.close();
      }
    });

  program
    .command('rollback')
    .description('undo one wave: unregister without purge, delete only our metadata, verify HMS equals the saved original')
    .argument('<plan>', 'plan id')
    .requiredOption('--wave <n>', 'wave number', (v) => Number(v))
    .option('--force', 'drop tables even when they have Iceberg commits after ours (audited)')
    .option('--json', 'machine-readable output')
    .addHelpText('after', '\nExamples:\n  migrate rollback 3f2a9c1b7d4e --wave 3\n  migrate rollback 3f2a9c1b7d4e --wave 3 --force\n\nData files are never deleted. Exit code 1 when any table was refused.')
    .action(async (plan: string, opts: { wave: number; force?: boolean; json?: boolean }, cmd: Command) => {
      const config = cfg(cmd);
      const state = await openState(config);
      const tmp = await openTemporal(config);
      try {
        const planHash = await state.resolvePlan(plan);
        const r = (await tmp.client.workflow.execute(rollbackWaveWorkflow, {
          taskQueue: tmp.taskQueue,
          workflowId: `migrate/${planId(planHash)}/rollback-wave-${opts.wave}-${Date.now()}`,
          args: [{ planHash, wave: opts.wave, force: opts.force === true, by: who() }],
          typedSearchAttributes: [{ key: SA.plan, value: planId(planHash) }, { key: SA.wave, value: opts.wave }, { key: SA.status, value: 'rolling-back' }],
          staticSummary: `rollback of wave ${opts.wave} of plan ${planId(planHash)}`,
        })) as RollbackResult;
        io.out(opts.json ? `${JSON.stringify({ ok: r.refused.length === 0, ...r })}\n` : `wave ${r.wave}: rolled back ${r.rolledBack.length} table(s)${r.refused.length ? `; refused: ${r.refused.map((x) => `${x.tableId} (${x.code}: ${x.message})`).join('; ')}` : ''}\n`);
        io.setExit(r.refused.length === 0 ? ExitCode.OK : ExitCode.FAILED);
      } finally {
        await state.close();
        await tmp.close();
      }
    });
}
