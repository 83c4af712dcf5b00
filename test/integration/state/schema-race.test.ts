// Opening the state store creates its schema. Several processes opening a fresh state database at
// once (migrate apply and its workers, after a stack reset) must all succeed: CREATE TABLE IF NOT
// EXISTS alone races in Postgres (23505 on pg_type_typname_nsp_index; seen in a cold CI run).
// Real Postgres from the stack; each round uses a database of its own.
import pg from 'pg';
import { PostgresStateStore } from '../../../adapters/state/postgres';
import { testStack, uniqueName } from '../../helpers/stack-env';

const env = testStack();
const adminUrl = env.HIM_POSTGRES_URL as string;
const urlFor = (db: string): string => {
  const u = new URL(adminUrl);
  u.pathname = `/${db}`;
  return u.toString();
};

test('8 stores opening one fresh state database at once: all open, one schema', async () => {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const dbs = Array.from({ length: 5 }, () => uniqueName('himstate').toLowerCase());
  try {
    for (const db of dbs) {
      await admin.query(`CREATE DATABASE "${db}"`);
      // Each open runs on its own pool (its own connection), as separate processes would.
      const stores = await Promise.all(Array.from({ length: 8 }, () => PostgresStateStore.open(urlFor(db), { max: 1 })));
      await Promise.all(stores.map((s) => s.close()));
      const c = new pg.Client({ connectionString: urlFor(db) });
      await c.connect();
      const t = await c.query<{ n: string }>("SELECT count(*) AS n FROM pg_tables WHERE tablename LIKE 'him\\_%'");
      await c.end();
      expect(Number(t.rows[0]?.n)).toBe(6);
    }
  } finally {
    for (const db of dbs) await admin.query(`DROP DATABASE IF EXISTS "${db}"`).catch(() => undefined);
    await admin.end();
  }
}, 120_000);
