// The rehearsal's check after `migrate rollback --wave <last>`: every table of the wave is still a
// plain Hive table (read live over Thrift: external, no Iceberg parameters, its location as
// planned), gone from the target catalog's namespace, and rolled back in the state store.
import { Client as PgClient } from 'pg';
import { RestCatalog } from '../../adapters/catalog/rest';
import { ThriftHmsReader } from '../../adapters/hms/thrift/reader';

export interface RollbackCheck {
  readonly checked: number;
  readonly stillInCatalog: number;
  readonly catalogLeft: number;
  readonly bad: string[];
}

const ICEBERG_PARAMS = ['metadata_location', 'table_type'];

export async function checkRollback(
  env: Record<string, string>,
  planHash: string,
  namespace: string,
  tableIds: readonly string[],
): Promise<RollbackCheck> {
  const bad: string[] = [];
  const catalog = await RestCatalog.connect({ uri: env.HIM_ICEBERG_REST_URI as string });
  const inCatalog = new Set((await catalog.listTables([namespace])).map((t) => t.name));
  const stillInCatalog = tableIds.filter((t) => inCatalog.has(t.slice(t.indexOf('.') + 1)));
  for (const t of stillInCatalog) bad.push(`${t}: still in the catalog`);

  const pg = new PgClient({ connectionString: env.HIM_POSTGRES_URL });
  await pg.connect();
  try {
    const r = await pg.query('SELECT table_id, status FROM him_tables WHERE plan_hash = $1 AND table_id = ANY($2)', [
      planHash,
      [...tableIds],
    ]);
    const status = new Map(r.rows.map((x: { table_id: string; status: string }) => [x.table_id, x.status]));
    for (const t of tableIds) if (status.get(t) !== 'rolled-back') bad.push(`${t}: record ${status.get(t) ?? 'missing'}`);
  } finally {
    await pg.end();
  }

  const hms = new ThriftHmsReader({ uri: env.HIM_HMS_PG_URI as string, poolSize: 4, concurrency: 4 });
  try {
    const byDb = new Map<string, string[]>();
    for (const t of tableIds) {
      const [d, name] = [t.slice(0, t.indexOf('.')), t.slice(t.indexOf('.') + 1)];
      byDb.set(d, [...(byDb.get(d) ?? []), name]);
    }
    for (const [d, names] of byDb) {
      for (let i = 0; i < names.length; i += 100) {
        const chunk = names.slice(i, i + 100);
        const got = new Map((await hms.getTables(d, chunk)).map((inv) => [inv.table.name, inv]));
        for (const name of chunk) {
          const inv = got.get(name);
          if (inv === undefined) bad.push(`${d}.${name}: not in HMS`);
          else if (inv.table.tableType !== 'EXTERNAL_TABLE') bad.push(`${d}.${name}: ${inv.table.tableType}`);
          else if (
            ICEBERG_PARAMS.some((k) => inv.table.parameters[k] !== undefined && /iceberg|metadata/i.test(`${k}=${inv.table.parameters[k]}`))
          )
            bad.push(`${d}.${name}: Iceberg parameters left in HMS`);
        }
      }
    }
  } finally {
    await hms.close();
  }
  return { checked: tableIds.length, stillInCatalog: stillInCatalog.length, catalogLeft: inCatalog.size, bad };
}
