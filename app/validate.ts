// `validate` on demand, in this process: the nightly drift checks (engine/drift-check.ts) over the
// migrated tables of a plan, scoped by wave and table.
import type { MigrateConfig } from '../core/config/schema';
import { planId } from '../core/plan/ids';
import type { ValidationRow } from '../core/validate/drift';
import { mapOrdered } from '../engine/ordered-pool';
import { checkTableDrift } from '../engine/drift-check';
import { withMigratedTables } from './plan-tables';
import { toolVersion } from './runtime';

export interface ValidateScope {
  readonly waves: readonly number[];
  readonly tables: readonly string[];
  readonly concurrency: number;
}

/** Every check's row for the migrated tables of `plan` in scope; none in scope is a USAGE error. */
export async function validateNow(config: MigrateConfig, plan: string, scope: ValidateScope): Promise<ValidationRow[]> {
  const inScope = (t: { wave: number; tableId: string }): boolean =>
    (scope.waves.length === 0 || scope.waves.includes(t.wave)) && (scope.tables.length === 0 || scope.tables.includes(t.tableId));
  return withMigratedTables(config, plan, inScope, async ({ hms, catalog, stores, planHash, plan: p, records }) => {
    const runId = `${planId(planHash)}-cli-${Date.now()}`;
    const rows: ValidationRow[] = [];
    const deps = {
      hms,
      catalog,
      storeFor: stores.storeFor,
      namespacePrefix: config.catalog?.namespacePrefix ?? '',
      toolVersion: toolVersion(),
    };
    for await (const r of mapOrdered(records, scope.concurrency, (rec) => checkTableDrift(deps, p, rec, runId, () => new Date())))
      rows.push(...r);
    return rows;
  });
}
