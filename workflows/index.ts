// Deterministic orchestration only (ARCHITECTURE.md): migrationWorkflow runs a plan's waves in
// order behind an approval gate; waveWorkflow runs its tables as child tableWorkflows in a sliding
// window and continues-as-new before its history grows large; tableWorkflow runs the per-table
// steps with compensations in reverse on failure; rollbackWaveWorkflow undoes one wave.
// Plans travel by reference (hash); no credentials ever enter a payload.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import {
  ApplicationFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  executeChild,
  isCancellation,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ChildWorkflowHandle } from '@temporalio/workflow';
import type { Activities, TableOutcome } from '../activities/index';

export const SA = {
  plan: defineSearchAttributeKey('MigrationPlan', SearchAttributeType.KEYWORD),
  wave: defineSearchAttributeKey('MigrationWave', SearchAttributeType.INT),
  team: defineSearchAttributeKey('MigrationTeam', SearchAttributeType.KEYWORD_LIST),
  status: defineSearchAttributeKey('MigrationStatus', SearchAttributeType.KEYWORD),
};

/** Activity deadlines; a dead worker's activity is retried elsewhere after these. */
export interface Timeouts {
  /** startToClose of the short steps (snapshot, register, compensations), seconds. Default 120. */
  readonly stepSeconds?: number;
  /** heartbeat timeout of the long steps (footers, validation), seconds. Default 30. */
  readonly heartbeatSeconds?: number;
}

const retry = { initialInterval: '1s', maximumInterval: '30s', backoffCoefficient: 2, maximumAttempts: 10 } as const;
function activityOptions(t: Timeouts = {}) {
  return {
    short: { startToCloseTimeout: `${t.stepSeconds ?? 120} seconds`, retry },
    long: { startToCloseTimeout: '2 hours', heartbeatTimeout: `${t.heartbeatSeconds ?? 30} seconds`, retry },
  } as const;
}
function activities(t: Timeouts = {}) {
  const o = activityOptions(t);
  return { short: proxyActivities<Activities>(o.short), long: proxyActivities<Activities>(o.long) };
}

export const planId = (hash: string): string => hash.slice(0, 12);

// ---------------------------------------------------------------- table
export interface TableInput {
  readonly planHash: string;
  readonly tableId: string;
  readonly timeouts?: Timeouts;
}

function failureOf(e: unknown): { code: string; message: string } {
  let cur: unknown = e;
  while (cur !== undefined && cur !== null) {
    if (cur instanceof ApplicationFailure && cur.type) return { code: cur.type, message: cur.message };
    cur = (cur as { cause?: unknown }).cause;
  }
  return { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) };
}

export async function tableWorkflow(input: TableInput): Promise<TableOutcome> {
  const { short, long } = activities(input.timeouts);
  const o = activityOptions(input.timeouts);
  const ref = { planHash: input.planHash, tableId: input.tableId };
  const t = input.tableId;
  const undo: (() => Promise<unknown>)[] = [];
  try {
    // Each step carries a one-line summary for the Temporal UI's event history and timeline.
    // Since 0.2 the original is saved inside the write step (one workflow task fewer per table);
    // histories recorded before that keep the two-step path.
    if (patched('save-original-in-write-step')) {
      undo.push(() => short.deleteMetadata.executeWithOptions({ ...o.short, summary: `undo: delete our metadata of ${t}` }, [ref]));
      const w = await long.saveOriginalAndWrite.executeWithOptions({ ...o.long, summary: `save HMS original; list, read footers, write manifests + metadata.json for ${t}` }, [ref]);
      if (w.view) {
        await short.markSkipped(ref, 'VIEW');
        return { tableId: input.tableId, status: 'skipped', reason: 'VIEW' };
      }
    } else {
      const snap = await short.snapshotOriginal.executeWithOptions({ ...o.short, summary: `save HMS original of ${t}` }, [ref]);
      if (snap.view) {
        await short.markSkipped(ref, 'VIEW');
        return { tableId: input.tableId, status: 'skipped', reason: 'VIEW' };
      }
      undo.push(() => short.deleteMetadata.executeWithOptions({ ...o.short, summary: `undo: delete our metadata of ${t}` }, [ref]));
      await long.writeMetadata.executeWithOptions({ ...o.long, summary: `list, read footers, write manifests + metadata.json for ${t}` }, [ref]);
    }
    undo.push(() => short.unregisterTable.executeWithOptions({ ...o.short, summary: `undo: unregister ${t} (no purge)` }, [ref]));
    await short.registerTable.executeWithOptions({ ...o.short, summary: `register ${t} in the catalog` }, [ref]);
    await long.validateTable.executeWithOptions({ ...o.long, summary: `validate ${t}: rows, files, schema` }, [ref]);
    return { tableId: input.tableId, status: 'migrated' };
  } catch (e) {
    if (isCancellation(e)) throw e;
    const f = failureOf(e);
    for (const step of undo.reverse()) await step();
    await short.markFailed.executeWithOptions({ ...o.short, summary: `${t} failed: ${f.code}` }, [ref, f.code, f.message]);
    return { tableId: input.tableId, status: 'failed', code: f.code, message: f.message };
  }
}

// ---------------------------------------------------------------- wave
export interface WaveInput {
  readonly planHash: string;
  readonly wave: number;
  readonly teams: readonly string[];
  /** Tables migrating at once (sliding window of child workflows). */
  readonly concurrency: number;
  readonly timeouts?: Timeouts;
  /** Carried across continue-as-new. */
  readonly cursor?: number;
  readonly done?: number;
  readonly skipped?: number;
  readonly failed?: readonly { tableId: string; code: string }[];
}

export interface WaveResult {
  readonly wave: number;
  readonly tables: number;
  readonly migrated: number;
  readonly skipped: number;
  readonly failed: readonly { tableId: string; code: string }[];
  readonly status: 'succeeded' | 'failed';
}

export const waveStatusQuery = defineQuery<{ wave: number; tables: number; done: number; failed: number; running: number }>('waveStatus');

export async function waveWorkflow(input: WaveInput): Promise<WaveResult> {
  const { short } = activities(input.timeouts);
  const tables = await short.waveTables(input.planHash, input.wave);
  let cursor = input.cursor ?? 0;
  let done = input.done ?? 0;
  let skipped = input.skipped ?? 0;
  const failed = [...(input.failed ?? [])];
  const running = new Map<string, Promise<TableOutcome>>();
  setHandler(waveStatusQuery, () => ({ wave: input.wave, tables: tables.length, done, failed: failed.length, running: running.size }));
  upsertSearchAttributes([{ key: SA.status, value: 'running' }]);
  const details = (): void =>
    setCurrentDetails(`**Wave ${input.wave}** of plan \`${planId(input.planHash)}\`\n\n| tables | migrated | views (unchanged) | failed | running |\n|---|---|---|---|---|\n| ${tables.length} | ${done - failed.length - skipped} | ${skipped} | ${failed.length} | ${running.size} |\n${failed.length > 0 ? `\nFailed: ${failed.slice(0, 20).map((f) => `\`${f.tableId}\` (${f.code})`).join(', ')}\n` : ''}`);
  details();
  const limit = Math.max(1, Math.min(input.concurrency, 200));
  while (cursor < tables.length || running.size > 0) {
    while (cursor < tables.length && running.size < limit) {
      const tableId = tables[cursor++] as string;
      const handle: ChildWorkflowHandle<typeof tableWorkflow> = await startChild(tableWorkflow, {
        args: [{ planHash: input.planHash, tableId, timeouts: input.timeouts }],
        workflowId: `migrate/${planId(input.planHash)}/wave-${input.wave}/${tableId}`,
        staticSummary: `migrate ${tableId}`,
      });
      running.set(tableId, handle.result().then((r) => r));
    }
    const r = await Promise.race(running.values());
    running.delete(r.tableId);
    done++;
    if (r.status === 'failed') failed.push({ tableId: r.tableId, code: r.code });
    if (r.status === 'skipped') skipped++;
    details();
    if (workflowInfo().continueAsNewSuggested && cursor < tables.length) {
      // Drain the window, then start over with a cursor (the table list is re-read by reference).
      while (running.size > 0) {
        const x = await Promise.race(running.values());
        running.delete(x.tableId);
        done++;
        if (x.status === 'failed') failed.push({ tableId: x.tableId, code: x.code });
        if (x.status === 'skipped') skipped++;
      }
      await continueAsNew<typeof waveWorkflow>({ ...input, cursor, done, skipped, failed });
    }
  }
  const status = failed.length === 0 ? 'succeeded' : 'failed';
  upsertSearchAttributes([{ key: SA.status, value: status }]);
  details();
  return { wave: input.wave, tables: tables.length, migrated: done - failed.length - skipped, skipped, failed, status };
}

// ---------------------------------------------------------------- plan
export interface MigrationInput {
  readonly planHash: string;
  readonly autoApprove: boolean;
  /** Stop the plan when a wave has more failed tables than this (default 0: any failure stops). */
  readonly maxFailedPerWave?: number;
  readonly concurrency?: number;
  readonly timeouts?: Timeouts;
}

export interface MigrationStatus {
  readonly planHash: string;
  readonly state: 'waiting-approval' | 'running' | 'paused' | 'succeeded' | 'failed' | 'cancelled';
  readonly currentWave: number | null;
  readonly approved: readonly number[];
  readonly waves: readonly WaveResult[];
  readonly totalWaves: number;
}

export const approveUpdate = defineUpdate<{ approved: number[] }, [{ wave: number; by: string }]>('approve');
export const pauseSignal = defineSignal('pause');
export const resumeSignal = defineSignal('resume');
export const cancelSignal = defineSignal('cancel');
export const statusQuery = defineQuery<MigrationStatus>('status');

export async function migrationWorkflow(input: MigrationInput): Promise<MigrationStatus> {
  const { short } = activities(input.timeouts);
  const outline = await short.planOutline(input.planHash);
  const approved = new Set<number>();
  const results: WaveResult[] = [];
  let paused = false;
  let cancelled = false;
  let current: number | null = null;
  let state: MigrationStatus['state'] = 'running';
  const status = (): MigrationStatus => ({ planHash: input.planHash, state: paused && state === 'running' ? 'paused' : state, currentWave: current, approved: [...approved].sort((a, b) => a - b), waves: results, totalWaves: outline.waves.length });
  setHandler(statusQuery, status);
  setHandler(pauseSignal, () => void (paused = true));
  setHandler(resumeSignal, () => void (paused = false));
  setHandler(cancelSignal, () => void (cancelled = true));
  setHandler(
    approveUpdate,
    async ({ wave, by }) => {
      if (!approved.has(wave)) {
        approved.add(wave);
        await short.recordApproval(input.planHash, wave, by);
      }
      return { approved: [...approved].sort((a, b) => a - b) };
    },
    {
      validator: ({ wave, by }) => {
        if (!outline.waves.some((w) => w.number === wave)) throw new Error(`plan has no wave ${wave}`);
        if (typeof by !== 'string' || by.trim() === '') throw new Error('approval needs the approver (by)');
        if (results.some((r) => r.wave === wave)) throw new Error(`wave ${wave} already ran`);
      },
    },
  );
  const maxFailed = input.maxFailedPerWave ?? 0;
  for (const w of outline.waves) {
    current = w.number;
    if (!input.autoApprove && !approved.has(w.number)) {
      state = 'waiting-approval';
      setCurrentDetails(`Waiting for approval of wave ${w.number} (${w.tables} tables; teams ${w.teams.join(', ')}): \`migrate approve ${planId(input.planHash)} --wave ${w.number}\``);
      await condition(() => approved.has(w.number) || cancelled);
    } else if (input.autoApprove && !approved.has(w.number)) {
      approved.add(w.number);
      await short.recordApproval(input.planHash, w.number, 'auto-approve');
    }
    await condition(() => !paused || cancelled);
    if (cancelled) {
      state = 'cancelled';
      return status();
    }
    state = 'running';
    setCurrentDetails(`Running wave ${w.number} of ${outline.waves.length}`);
    const r = await executeChild(waveWorkflow, {
      args: [{ planHash: input.planHash, wave: w.number, teams: w.teams, concurrency: input.concurrency ?? 8, timeouts: input.timeouts }],
      workflowId: `migrate/${planId(input.planHash)}/wave-${w.number}`,
      typedSearchAttributes: [
        { key: SA.plan, value: planId(input.planHash) },
        { key: SA.wave, value: w.number },
        { key: SA.team, value: [...w.teams] },
        { key: SA.status, value: 'pending' },
      ],
      staticSummary: `plan ${planId(input.planHash)} · wave ${w.number}/${outline.waves.length} · ${w.tables} tables`,
      staticDetails: `### Wave ${w.number} of plan \`${planId(input.planHash)}\`\n\n| tables | files | bytes | expected |\n|---|---|---|---|\n| ${w.tables} | ${w.files} | ${w.bytes} | ${w.expectedSeconds} s |\n\nTeams: ${w.teams.map((t) => `\`${t}\``).join(', ')}\n`,
    });
    results.push(r);
    if (r.failed.length > maxFailed) {
      state = 'failed';
      return status();
    }
  }
  current = null;
  state = 'succeeded';
  return status();
}

// ---------------------------------------------------------------- rollback
export interface RollbackInput {
  readonly timeouts?: Timeouts;
  readonly planHash: string;
  readonly wave: number;
  readonly force: boolean;
  readonly by: string;
}

export interface RollbackResult {
  readonly wave: number;
  readonly rolledBack: readonly string[];
  readonly refused: readonly { tableId: string; code: string; message: string }[];
}

export async function rollbackWaveWorkflow(input: RollbackInput): Promise<RollbackResult> {
  const { short } = activities(input.timeouts);
  const tables = await short.migratedTables(input.planHash, input.wave);
  const rolledBack: string[] = [];
  const refused: { tableId: string; code: string; message: string }[] = [];
  // Reverse order of the wave (dependents first), one at a time: rollback is rare and careful.
  for (const tableId of [...tables].reverse()) {
    try {
      await short.rollbackTable({ planHash: input.planHash, tableId }, input.force, input.by);
      rolledBack.push(tableId);
    } catch (e) {
      refused.push({ tableId, ...failureOf(e) });
    }
  }
  upsertSearchAttributes([{ key: SA.status, value: refused.length === 0 ? 'rolled-back' : 'rollback-incomplete' }]);
  return { wave: input.wave, rolledBack, refused };
}

// ---------------------------------------------------------------- nightly validation
export interface NightlyInput {
  readonly planHash: string;
  /** Limit the run to these waves / tables (default: every migrated table of the plan). */
  readonly waves?: readonly number[];
  readonly tables?: readonly string[];
  /** Tables checked at once (default 16; each check bounds its own footer reads). */
  readonly concurrency?: number;
  readonly timeouts?: Timeouts;
  /** Carried across continue-as-new. */
  readonly cursor?: number;
  readonly counts?: { readonly validated: number; readonly drifted: number; readonly failed: number };
  readonly runId?: string;
}

export interface NightlyResult {
  readonly planHash: string;
  readonly runId: string;
  readonly status: 'validated' | 'drifted' | 'failed';
  readonly tables: number;
  readonly counts: { readonly validated: number; readonly drifted: number; readonly failed: number };
  readonly results: string | null;
  readonly report: string | null;
  readonly previousRunId: string | null;
}

export const nightlyStatusQuery = defineQuery<{ runId: string; tables: number; checked: number; validated: number; drifted: number; failed: number }>('validationStatus');

export async function nightlyValidationWorkflow(input: NightlyInput): Promise<NightlyResult> {
  const { short, long } = activities(input.timeouts);
  const info = workflowInfo();
  // One run id across continue-as-new: the first execution's run id.
  const runId = input.runId ?? `${planId(input.planHash)}-${info.firstExecutionRunId}`;
  const scope = await short.validationScope(input.planHash, input.waves ?? [], input.tables ?? []);
  const { previousRunId } = await short.startValidationRun(input.planHash, runId);
  const counts = { validated: 0, drifted: 0, failed: 0, ...input.counts };
  let cursor = input.cursor ?? 0;
  const running = new Map<string, Promise<{ tableId: string; status: 'validated' | 'drifted' | 'failed' }>>();
  setHandler(nightlyStatusQuery, () => ({ runId, tables: scope.tables.length, checked: counts.validated + counts.drifted + counts.failed, ...counts }));
  upsertSearchAttributes([{ key: SA.plan, value: planId(input.planHash) }, { key: SA.team, value: scope.teams }, { key: SA.status, value: 'running' }]);
  const limit = Math.max(1, Math.min(input.concurrency ?? 16, 200));
  const settle = async (): Promise<void> => {
    const r = await Promise.race(running.values());
    running.delete(r.tableId);
    counts[r.status]++;
  };
  while (cursor < scope.tables.length || running.size > 0) {
    while (cursor < scope.tables.length && running.size < limit) {
      const tableId = scope.tables[cursor++] as string;
      running.set(
        tableId,
        long.checkTable(input.planHash, tableId, runId).catch((e: unknown) => {
          if (isCancellation(e)) throw e;
          return { tableId, status: 'failed' as const, codes: [failureOf(e).code] };
        }),
      );
    }
    await settle();
    setCurrentDetails(`Validating plan \`${planId(input.planHash)}\`: ${counts.validated + counts.drifted + counts.failed}/${scope.tables.length} tables · ${counts.drifted} drifted · ${counts.failed} failed`);
    if (workflowInfo().continueAsNewSuggested && cursor < scope.tables.length) {
      while (running.size > 0) await settle();
      await continueAsNew<typeof nightlyValidationWorkflow>({ ...input, cursor, counts, runId });
    }
  }
  const published = await short.publishValidationRun(input.planHash, runId, previousRunId);
  const status = published.status as NightlyResult['status'];
  upsertSearchAttributes([{ key: SA.status, value: status }]);
  setCurrentDetails(published.summary);
  return { planHash: input.planHash, runId, status, tables: scope.tables.length, counts, results: published.results, report: published.report, previousRunId };
}
