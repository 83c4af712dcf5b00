// `validate` on demand, in this process: the nightly drift checks (engine/drift-check.ts) over the
// migrated tables of a plan, scoped by wave and table.
import type { IcebergCatalog } from '../core/catalog/catalog';
import type { MigrateConfig } from '../core/config/schema';
import { ErrorCode, MigrationError } from '../core/errors';
import { planId } from '../core/plan/ids';
import type { ValidationRow } from '../core/validate/drift';
import { mapOrdered } from '../engine/ordered-pool';
import { checkTableDrift } from '../engine/drift-check';
import { openCatalog, openHmsReader, openState, openStores, toolVersion } from './runtime';

export interface ValidateScope {
  readonly waves: readonly number[];
  readonly tables: readonly string[];
  readonly concurrency: number;
}

/** Every check's row for the migrated tables of `plan` in scope; none in scope is a USAGE error. */
export async function validateNow(config: MigrateConfig, plan: string, scope: ValidateScope): Promise<ValidationRow[]> {
  const state = await openState(config);
  const hms = openHmsReader(config);
  const stores = openStores(config);
  let catalog: IcebergCatalog | undefined;
  try {
    catalog = await openCatalog(config, process.env, stores);
    const planHash = await state.resolvePlan(plan);
    const p = await state.getPlan(planHash);
    const inScope = (t: { status: string; wave: number; tableId: string }): boolean =>
      t.status === 'migrated' &&
      (scope.waves.length === 0 || scope.waves.includes(t.wave)) &&
      (scope.tables.length === 0 || scope.tables.includes(t.tableId));
    const recs = (await state.listTables(planHash)).filter(inScope);
    if (recs.length === 0) throw new MigrationError(ErrorCode.USAGE, `no migrated table of plan ${planId(planHash)} matches the scope`);
    const runId = `${planId(planHash)}-cli-${Date.now()}`;
    const rows: ValidationRow[] = [];
    const deps = {
      hms,
      catalog,
      storeFor: stores.storeFor,
      namespacePrefix: config.catalog?.namespacePrefix ?? '',
      toolVersion: toolVersion(),
    };
    for await (const r of mapOrdered(recs, scope.concurrency, (rec) => checkTableDrift(deps, p, rec, runId, () => new Date())))
      rows.push(...r);
    return rows;
  } finally {
    await catalog?.close?.();
    await state.close();
    await hms.close();
    stores.close();
  }
}
