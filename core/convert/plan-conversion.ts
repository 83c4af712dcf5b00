// The conversion of one planned table, decided the same way by apply, rollback and validation:
// target identifier from the HMS name (with the configured namespace prefix), deterministic
// identity from (plan hash, source, target), snapshot time = plan time.
import type { TableIdent } from '../catalog/catalog';
import { formatTableIdent, tableIdent } from '../catalog/catalog';
import type { PreparedConversion } from './prepare';
import { prepareConversion } from './prepare';
import type { TableInventory } from '../hive/model';
import type { PlanFile } from '../plan/plan-file';

export const dbOf = (id: string): string => id.slice(0, id.indexOf('.'));
export const nameOf = (id: string): string => id.slice(id.indexOf('.') + 1);

export function targetOf(tableId: string, namespacePrefix: string): TableIdent {
  return tableIdent([`${namespacePrefix}${dbOf(tableId)}`], nameOf(tableId));
}

export function conversionFor(
  plan: Pick<PlanFile, 'hash' | 'targetCatalog' | 'createdAt'>,
  tableId: string,
  original: TableInventory,
  namespacePrefix: string,
  toolVersion: string,
): PreparedConversion {
  return prepareConversion({
    inventory: original,
    identity: {
      planHash: plan.hash,
      table: `hms:${tableId}->${plan.targetCatalog}:${formatTableIdent(targetOf(tableId, namespacePrefix))}`,
    },
    timestampMs: Date.parse(plan.createdAt),
    toolVersion,
    // A bucketed table is in a plan only when planning opted in (plan.assess.allowUnbucketed).
    allowUnbucketed: true,
  });
}
