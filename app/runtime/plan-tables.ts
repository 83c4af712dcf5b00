// The in-process commands over a plan's migrated tables (`validate`, `sync`) share their setup: the
// state store, HMS reader, object stores and catalog opened from the config, the plan resolved from
// the id the user typed, the migrated records in scope (none → USAGE), and everything closed again.
import type { IcebergCatalog } from '../../core/catalog/catalog';
import type { MigrateConfig } from '../../core/config/schema';
import { ErrorCode, MigrationError } from '../../core/errors';
import type { HmsReader } from '../../core/hive/model';
import { planId } from '../../core/plan/ids';
import type { PlanFile } from '../../core/plan/plan-file';
import type { StateStore, TableRecord } from '../../core/state/store';
import { isLive } from '../../core/state/status';
import type { Stores } from './runtime';
import { openCatalog, openHmsReader, openState, openStores } from './runtime';

export interface PlanTables {
  readonly state: StateStore;
  readonly hms: HmsReader;
  readonly stores: Stores;
  readonly catalog: IcebergCatalog;
  readonly planHash: string;
  readonly plan: PlanFile;
  /** The plan's migrated records that `inScope` keeps (never empty). */
  readonly records: readonly TableRecord[];
}

export async function withMigratedTables<T>(
  config: MigrateConfig,
  plan: string,
  inScope: (r: TableRecord) => boolean,
  fn: (c: PlanTables) => Promise<T>,
): Promise<T> {
  const state = await openState(config);
  const hms = openHmsReader(config);
  const stores = openStores(config);
  let catalog: IcebergCatalog | undefined;
  try {
    catalog = await openCatalog(config, process.env, stores);
    const planHash = await state.resolvePlan(plan);
    const p = await state.getPlan(planHash);
    const records = (await state.listTables(planHash)).filter((t) => isLive(t.status) && inScope(t));
    if (records.length === 0) throw new MigrationError(ErrorCode.USAGE, `no migrated table of plan ${planId(planHash)} matches the scope`);
    return await fn({ state, hms, stores, catalog, planHash, plan: p, records });
  } finally {
    await catalog?.close?.();
    await state.close();
    await hms.close();
    stores.close();
  }
}
