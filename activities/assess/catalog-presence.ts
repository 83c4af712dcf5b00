// What the target catalog already holds: a table whose target name (`<namespacePrefix><db>.<name>`,
// as apply registers it) is taken gets IN_TARGET_CATALOG (skip), so a new plan over a partly
// migrated warehouse leaves out what an earlier plan migrated instead of failing those tables with
// CATALOG_CONFLICT at apply. One listing per database; views are never registered, so never checked.
import type { IcebergCatalog } from '../../core/catalog/catalog';
import type { TableInventory } from '../../core/hive/model';
import { TableType } from '../../core/hive/model';
import type { AssessFinding } from '../../core/plan/assess/types';
import { AssessCode, finding } from '../../core/plan/assess/types';

const isView = (t: TableInventory): boolean => t.table.tableType === TableType.VIRTUAL_VIEW || t.table.tableType === TableType.MATERIALIZED_VIEW;

/** Findings by table id (`db.table`, lower case) for the tables whose target name is taken. */
export async function targetCatalogFindings(catalog: IcebergCatalog, inventory: readonly TableInventory[], namespacePrefix: string): Promise<Map<string, AssessFinding[]>> {
  const byDb = new Map<string, TableInventory[]>();
  for (const t of inventory) {
    if (isView(t)) continue;
    const db = t.table.database.toLowerCase();
    const list = byDb.get(db);
    if (list === undefined) byDb.set(db, [t]);
    else list.push(t);
  }
  const out = new Map<string, AssessFinding[]>();
  for (const [db, tables] of [...byDb].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const ns = [`${namespacePrefix}${db}`];
    if (!(await catalog.namespaceExists(ns))) continue;
    const taken = new Set((await catalog.listTables(ns)).map((i) => i.name.toLowerCase()));
    for (const t of tables) {
      const name = t.table.name.toLowerCase();
      if (!taken.has(name)) continue;
      out.set(`${db}.${name}`, [
        finding(
          AssessCode.IN_TARGET_CATALOG,
          'skip',
          `catalog ${catalog.name} already has ${ns[0]}.${name}`,
          'nothing to do if an earlier plan migrated it (migrate validate checks it); to plan it again, roll that wave back or drop the entry there (never with purge)',
        ),
      ]);
    }
  }
  return out;
}
