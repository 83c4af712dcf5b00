// `repair`: find, and on request remove, the metadata this tool wrote for tables that did not end
// migrated (ops/repair.ts), leaving alone every table whose workflow Temporal still runs.
import { WorkflowNotFoundError } from '@temporalio/client';
import type { MigrateConfig } from '../core/config/schema';
import { ErrorCode, MigrationError } from '../core/errors';
import { tableWorkflowId } from '../core/plan/ids';
import type { OrphanReport, RepairReport } from '../ops/repair';
import { findOrphans, repairOrphans } from '../ops/repair';
import type { StateStore } from '../core/state/store';
import { actorOf } from './runtime/identity';
import type { TemporalHandle } from './runtime/runtime';
import { openCatalog, openState, openStores, openTemporal, toolVersion } from './runtime/runtime';

export type { OrphanReport, RepairReport, TableLeftovers } from '../ops/repair';

const CALL_MS = 30_000;

/** Temporal-backed isRunning: the table's child workflow is RUNNING; never started or closed → false. */
export function temporalIsRunning(tmp: TemporalHandle, state: StateStore): (planHash: string, tableId: string) => Promise<boolean> {
  return async (planHash, tableId) => {
    const { wave } = await state.getTable(planHash, tableId);
    try {
      const d = await tmp.deadline(CALL_MS, () => tmp.client.workflow.getHandle(tableWorkflowId(planHash, wave, tableId)).describe());
      return d.status.name === 'RUNNING';
    } catch (e) {
      if (e instanceof WorkflowNotFoundError) return false;
      throw new MigrationError(
        ErrorCode.TEMPORAL_UNREACHABLE,
        `cannot ask Temporal whether ${tableId} is still migrating: ${(e as Error).message}`,
        { tableId },
        { cause: e },
      );
    }
  };
}

async function resolve(state: StateStore, plan: string): Promise<string> {
  try {
    return await state.resolvePlan(plan);
  } catch (e) {
    if (e instanceof MigrationError && e.code === ErrorCode.PLAN_INVALID)
      throw new MigrationError(ErrorCode.USAGE, `${e.message} (migrate repair takes a plan id that migrate apply submitted)`, { plan });
    throw e;
  }
}

type Closer = () => Promise<unknown> | void;

/** Run `fn` with the repair's ports (state, catalog, stores, Temporal) open; all closed after. */
async function withRepairDeps<T>(
  config: MigrateConfig,
  plan: string,
  fn: (deps: Parameters<typeof findOrphans>[0], planHash: string) => Promise<T>,
): Promise<T> {
  const state = await openState(config);
  const closers: Closer[] = [() => state.close()];
  try {
    const planHash = await resolve(state, plan);
    const stores = openStores(config);
    closers.push(() => stores.close());
    const catalog = await openCatalog(config, process.env, stores);
    closers.push(async () => catalog.close?.());
    const tmp = await openTemporal(config);
    closers.push(() => tmp.close());
    const deps = {
      state,
      catalog,
      storeFor: stores.storeFor,
      namespacePrefix: config.catalog?.namespacePrefix ?? '',
      isRunning: temporalIsRunning(tmp, state),
      toolVersion: toolVersion(),
    };
    return await fn(deps, planHash);
  } finally {
    for (const c of closers.reverse()) await Promise.resolve(c()).catch(() => undefined);
  }
}

/** What the tables of `plan` that did not end migrated left behind. */
export function findPlanOrphans(config: MigrateConfig, plan: string): Promise<OrphanReport> {
  return withRepairDeps(config, plan, (deps, planHash) => findOrphans(deps, planHash));
}

/** Remove it (audited as the caller): our catalog entries unregistered, our metadata files deleted, never data. */
export function repairPlanOrphans(config: MigrateConfig, plan: string): Promise<RepairReport> {
  return withRepairDeps(config, plan, (deps, planHash) => repairOrphans(deps, planHash, { by: actorOf().actor }));
}
