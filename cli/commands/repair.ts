// `migrate repair <plan> [--apply]`: lists, and with --apply removes, the metadata this tool wrote
// for tables that did not end migrated (activities/repair.ts). A table whose workflow Temporal
// still runs (`migrate/<plan12>/wave-<n>/<table>`) is left alone. Exit 0: nothing left (or all of
// it removed); 1: orphans found (or some could not be removed); 2: usage.
import os from 'node:os';
import type { Command } from 'commander';
import { WorkflowNotFoundError } from '@temporalio/client';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { OrphanReport, RepairReport, TableLeftovers } from '../../activities/repair';
import { findOrphans, repairOrphans } from '../../activities/repair';
import type { PostgresStateStore } from '../../adapters/state/postgres';
import { planId, tableWorkflowId } from '../../core/plan/ids';
import { loadConfig } from '../config';
import { ExitCode } from '../exit-codes';
import type { TemporalHandle } from '../runtime';
import { openCatalog, openState, openStores, openTemporal, toolVersion } from '../runtime';

type IO = { out: (s: string) => void; err: (s: string) => void; setExit: (c: number) => void };
interface GlobalOpts {
  config?: string;
  set: string[];
}
const CALL_MS = 30_000;
const who = (): string => process.env.MIGRATE_ACTOR ?? `${os.userInfo().username}@${os.hostname()}`;

/** The table workflow's id, as the wave workflow starts it (workflows/index.ts waveWorkflow). */


/** Temporal-backed isRunning: the table's child workflow is RUNNING; never started or closed → false. */
export function temporalIsRunning(tmp: TemporalHandle, state: PostgresStateStore): (planHash: string, tableId: string) => Promise<boolean> {
  return async (planHash, tableId) => {
    const { wave } = await state.getTable(planHash, tableId);
    try {
      const d = await tmp.deadline(CALL_MS, () => tmp.client.workflow.getHandle(tableWorkflowId(planHash, wave, tableId)).describe());
      return d.status.name === 'RUNNING';
    } catch (e) {
      if (e instanceof WorkflowNotFoundError) return false;
      throw new MigrationError(ErrorCode.TEMPORAL_UNREACHABLE, `cannot ask Temporal whether ${tableId} is still migrating: ${(e as Error).message}`, { tableId }, { cause: e });
    }
  };
}

function leftoverText(t: TableLeftovers): string {
  const parts: string[] = [];
  if (t.files.length > 0) parts.push(`${t.files.length} metadata file(s) under ${t.metadataDir ?? '?'}`);
  if (t.entry?.state === 'ours') parts.push(`catalog entry ${t.target} → our ${t.entry.location ?? ''}`);
  if (t.entry?.state === 'unreadable') parts.push(`catalog entry ${t.target} unreadable (${t.entry.message ?? ''}); check it by hand`);
  if (t.entry?.state === 'foreign') parts.push(`catalog entry ${t.target} points at ${t.entry.location ?? '?'} (not ours; left alone)`);
  if (t.staleState && parts.length === 0) parts.push('record only (no files or entry left)');
  const status = t.errorCode === null ? t.status : `${t.status} ${t.errorCode}`;
  return `  ${t.tableId} (${status}${t.running ? ', workflow running: left alone' : ''}): ${parts.join('; ')}`;
}

function renderFound(r: OrphanReport): string {
  const orphans = r.tables.filter((t) => t.orphan);
  const lines = [`plan ${planId(r.planHash)}: ${orphans.length} orphan(s)${r.tables.some((t) => t.running) ? `, ${r.tables.filter((t) => t.running).length} still running` : ''}`];
  lines.push(...r.tables.map(leftoverText));
  if (orphans.length > 0) lines.push(`next: migrate repair ${planId(r.planHash)} --apply`);
  return `${lines.join('\n')}\n`;
}

function renderRepair(r: RepairReport): string {
  const lines = [`plan ${planId(r.planHash)}: repaired ${r.repaired.filter((x) => x.ok).length} of ${r.repaired.length} orphan(s)`];
  for (const x of r.repaired) {
    const what = `${x.removed.files.length} metadata file(s) deleted${x.removed.entry === null ? '' : `, ${x.removed.entry}`}`;
    lines.push(`  ${x.tableId}: ${what}${x.ok ? '' : ` — NOT finished: ${x.error ? `${x.error.code}: ${x.error.message}` : x.left ? leftoverText(x.left).trim() : ''}`}`);
  }
  for (const t of r.running) lines.push(`  ${t}: workflow still running: left alone`);
  for (const f of r.foreign) lines.push(`  ${f.tableId}: catalog entry ${f.target} points at ${f.location ?? '?'} (not ours; left alone)`);
  return `${lines.join('\n')}\n`;
}

async function resolve(state: PostgresStateStore, plan: string): Promise<string> {
  try {
    return await state.resolvePlan(plan);
  } catch (e) {
    if (e instanceof MigrationError && e.code === ErrorCode.PLAN_INVALID) throw new MigrationError(ErrorCode.USAGE, `${e.message} (migrate repair takes a plan id that migrate apply submitted)`, { plan });
    throw e;
  }
}

export function registerRepair(program: Command, io: IO): void {
  program
    .command('repair')
    .description('find (and with --apply remove) metadata this tool wrote for tables that did not end migrated')
    .argument('<plan>', 'plan id (first 12 hex of the hash) or full hash')
    .option('--apply', 'remove the orphans: unregister our entries, delete our metadata files (never data), audited')
    .option('--json', 'machine-readable output')
    .addHelpText('after', '\nExamples:\n  migrate repair 3f2a9c1b7d4e -c migrate.yaml            # list; exit 1 when orphans are found\n  migrate repair 3f2a9c1b7d4e --apply -c migrate.yaml    # remove them; exit 1 when any is left\n\nTables whose workflow still runs and catalog entries that point at metadata we did not write are\nnever touched. Data files are never deleted. See docs/repair.md.\nExit codes: 0 nothing left (or all of it removed); 1 orphans found (or some could not be removed); 2 usage or configuration.')
    .action(async (plan: string, opts: { apply?: boolean; json?: boolean }, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOpts>();
      const config = loadConfig({ file: g.config, env: process.env, sets: g.set, cwd: process.cwd() }).config;
      const state = await openState(config);
      const closers: (() => Promise<unknown> | void)[] = [() => state.close()];
      try {
        const planHash = await resolve(state, plan);
        const stores = openStores(config);
        closers.push(() => stores.close());
        const catalog = await openCatalog(config, process.env, stores);
        closers.push(async () => catalog.close?.());
        const tmp = await openTemporal(config);
        closers.push(() => tmp.close());
        const deps = { state, catalog, storeFor: stores.storeFor, namespacePrefix: config.catalog?.namespacePrefix ?? '', isRunning: temporalIsRunning(tmp, state), toolVersion: toolVersion() };
        if (opts.apply === true) {
          const r = await repairOrphans(deps, planHash, { by: who() });
          const ok = r.repaired.every((x) => x.ok);
          io.out(opts.json ? `${JSON.stringify({ ok, ...r })}\n` : renderRepair(r));
          io.setExit(ok ? ExitCode.OK : ExitCode.FAILED);
        } else {
          const r = await findOrphans(deps, planHash);
          const orphans = r.tables.filter((t) => t.orphan).length;
          io.out(opts.json ? `${JSON.stringify({ ok: orphans === 0, orphans, ...r })}\n` : renderFound(r));
          io.setExit(orphans === 0 ? ExitCode.OK : ExitCode.FAILED);
        }
      } finally {
        for (const c of closers.reverse()) await Promise.resolve(c()).catch(() => undefined);
      }
    });
}
