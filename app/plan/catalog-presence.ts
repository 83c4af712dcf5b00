// What the target catalog already holds: a table whose target name (targetOf: the name apply
// registers it under) is taken gets IN_TARGET_CATALOG (skip), so a new plan over a partly migrated
// warehouse leaves out what an earlier plan migrated instead of failing those tables with
// CATALOG_CONFLICT at apply. One listing per target namespace; views are never registered, so
// never checked.
import type { IcebergCatalog } from '../../core/catalog/catalog';
import { formatTableIdent } from '../../core/catalog/catalog';
import type { TableInventory } from '../../core/hive/model';
import { TableType } from '../../core/hive/model';
import type { AssessFinding } from '../../core/assess/types';
import { AssessCode, finding } from '../../core/assess/types';
import { targetOf } from '../../core/convert/plan-conversion';

const isView = (t: TableInventory): boolean =>
  t.table.tableType === TableType.VIRTUAL_VIEW || t.table.tableType === TableType.MATERIALIZED_VIEW;

/** Findings by table id (`db.table`, lower case) for the tables whose target name is taken. */
export async function targetCatalogFindings(
  catalog: IcebergCatalog,
  inventory: readonly TableInventory[],
  namespacePrefix: string,
): Promise<Map<string, AssessFinding[]>> {
  // Target namespace (joined) → [table id, target] of the tables that would land in it.
  const byNamespace = new Map<string, [string, ReturnType<typeof targetOf>][]>();
  for (const t of inventory) {
    if (isView(t)) continue;
    const id = `${t.table.database}.${t.table.name}`.toLowerCase();
    const target = targetOf(id, namespacePrefix);
    const key = target.namespace.join('.');
    const list = byNamespace.get(key);
    if (list === undefined) byNamespace.set(key, [[id, target]]);
    else list.push([id, target]);
  }
  const out = new Map<string, AssessFinding[]>();
  for (const key of [...byNamespace.keys()].sort()) {
    const tables = byNamespace.get(key) ?? [];
    const ns = tables[0]?.[1].namespace ?? [];
    if (!(await catalog.namespaceExists(ns))) continue;
    const taken = new Set((await catalog.listTables(ns)).map((i) => i.name.toLowerCase()));
    for (const [id, target] of tables) {
      if (!taken.has(target.name)) continue;
      const evidence = `catalog ${catalog.name} already has ${formatTableIdent(target)}`;
      out.set(id, [
        finding(
          AssessCode.IN_TARGET_CATALOG,
          'skip',
          evidence,
          'nothing to do if an earlier plan migrated it (migrate validate checks it); to plan it again, roll that wave back or drop the entry there (never with purge)',
        ),
      ]);
    }
  }
  return out;
}
