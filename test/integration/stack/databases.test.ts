// Smoke: both private databases answer a real query over TCP on loopback.
import { Client } from 'pg';
import { createConnection } from 'mysql2/promise';
import { testStack, uniqueName } from '../../helpers/stack-env';

describe('databases of the local stack', () => {
  const env = testStack();

  it('PostgreSQL answers SELECT version() and round-trips a row', async () => {
    const c = new Client({ connectionString: env.HIM_POSTGRES_URL, connectionTimeoutMillis: 5000 });
    await c.connect();
    try {
      const v = await c.query<{ version: string }>('SELECT version()');
      expect(v.rows[0]?.version).toMatch(/^PostgreSQL 15\./);
      const t = uniqueName('smoke');
      await c.query(`CREATE TEMP TABLE ${t} (id int, name text)`);
      await c.query(`INSERT INTO ${t} VALUES ($1, $2)`, [7, 'seven']);
      const r = await c.query<{ id: number; name: string }>(`SELECT id, name FROM ${t}`);
      expect(r.rows).toEqual([{ id: 7, name: 'seven' }]);
    } finally {
      await c.end();
    }
  });

  it('the HMS database exists in PostgreSQL', async () => {
    const c = new Client({ connectionString: env.HIM_HMS_POSTGRES_URL, connectionTimeoutMillis: 5000 });
    await c.connect();
    try {
      const r = await c.query<{ db: string }>('SELECT current_database() AS db');
      expect(r.rows[0]?.db).toBe('hms');
    } finally {
      await c.end();
    }
  });

  it('MariaDB answers SELECT version() and round-trips a row', async () => {
    const c = await createConnection({ uri: env.HIM_MARIADB_URL, connectTimeout: 5000 });
    try {
      const [v] = await c.query('SELECT version() AS v');
      expect((v as Array<{ v: string }>)[0]?.v).toMatch(/^10\.11\..*MariaDB/);
      const t = uniqueName('smoke');
      await c.query(`CREATE TEMPORARY TABLE ${t} (id INT, name VARCHAR(20))`);
      await c.query(`INSERT INTO ${t} VALUES (?, ?)`, [7, 'seven']);
      const [rows] = await c.query(`SELECT id, name FROM ${t}`);
      expect(rows).toEqual([{ id: 7, name: 'seven' }]);
      const [dbs] = await c.query('SELECT DATABASE() AS db');
      expect((dbs as Array<{ db: string }>)[0]?.db).toBe('hms');
    } finally {
      await c.end();
    }
  });
});
