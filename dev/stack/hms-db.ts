// The HMS backing database of the local stack (Postgres or MariaDB): create it when missing, tell a
// finished schema from an empty or half-made one, re-create it after an interrupted init. Dev tooling.
import { Client as PgClient } from 'pg';
import { createConnection as mysqlConnect } from 'mysql2/promise';
import type { StackContext } from './types';

/** Which database server and database an HMS component keeps its schema in. */
export interface BackingDb {
  readonly backend: 'postgres' | 'mariadb';
  readonly database: string;
}

/** What the backing database holds: a finished schema (its version), nothing, or a half-made one. */
export type SchemaState = { kind: 'ready'; version: string } | { kind: 'empty' } | { kind: 'partial'; tables: number };

export async function schemaState(ctx: StackContext, s: BackingDb): Promise<SchemaState> {
  if (s.backend === 'postgres') {
    const c = new PgClient({
      host: '127.0.0.1',
      port: ctx.port('postgres'),
      user: 'postgres',
      database: s.database,
      connectionTimeoutMillis: 5000,
    });
    await c.connect();
    try {
      const n = Number(
        (await c.query("SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'public'")).rows[0]?.n ?? 0,
      );
      if (n === 0) return { kind: 'empty' };
      const v = await c.query('SELECT "SCHEMA_VERSION" AS v FROM "VERSION"').catch(() => undefined);
      const version = v?.rows[0]?.v as string | undefined;
      return version ? { kind: 'ready', version } : { kind: 'partial', tables: n };
    } finally {
      await c.end();
    }
  }
  const c = await mysqlConnect({ host: '127.0.0.1', port: ctx.port('mariadb'), user: 'root', database: s.database, connectTimeout: 5000 });
  try {
    const [rows] = await c.query('SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = ?', [s.database]);
    const n = Number((rows as Array<{ n: number }>)[0]?.n ?? 0);
    if (n === 0) return { kind: 'empty' };
    const version = await c
      .query('SELECT SCHEMA_VERSION AS v FROM VERSION')
      .then(([r]) => (r as Array<{ v: string }>)[0]?.v)
      .catch(() => undefined);
    return version ? { kind: 'ready', version } : { kind: 'partial', tables: n };
  } finally {
    await c.end();
  }
}

/** Run admin statements on the database server of `s` (as its superuser, outside the HMS database). */
async function onServer(
  ctx: StackContext,
  s: BackingDb,
  statements: (q: (sql: string, params?: unknown[]) => Promise<number>) => Promise<void>,
): Promise<void> {
  if (s.backend === 'postgres') {
    const c = new PgClient({
      host: '127.0.0.1',
      port: ctx.port('postgres'),
      user: 'postgres',
      database: 'postgres',
      connectionTimeoutMillis: 5000,
    });
    await c.connect();
    try {
      await statements(async (sql, params = []) => (await c.query(sql, params)).rowCount ?? 0);
    } finally {
      await c.end();
    }
    return;
  }
  const c = await mysqlConnect({ host: '127.0.0.1', port: ctx.port('mariadb'), user: 'root', connectTimeout: 5000 });
  try {
    await statements(async (sql, params = []) => {
      await c.query(sql, params);
      return 0;
    });
  } finally {
    await c.end();
  }
}

/** The database name quoted for the server's dialect. */
const quoted = (s: BackingDb): string => (s.backend === 'postgres' ? `"${s.database}"` : `\`${s.database}\``);

/**
 * Create the backing database when missing: the database server may already be running from before
 * this component was added to the manifest, so its own start-up list was never applied.
 */
export async function ensureDatabase(ctx: StackContext, s: BackingDb): Promise<void> {
  await onServer(ctx, s, async (q) => {
    if (s.backend === 'mariadb') await q(`CREATE DATABASE IF NOT EXISTS ${quoted(s)}`);
    else if ((await q('SELECT 1 FROM pg_database WHERE datname = $1', [s.database])) === 0) await q(`CREATE DATABASE ${quoted(s)}`);
  });
}

/** Drop and re-create the (dev-only) HMS database after an interrupted schema init. */
export async function recreateDatabase(ctx: StackContext, s: BackingDb): Promise<void> {
  await onServer(ctx, s, async (q) => {
    await q(`DROP DATABASE IF EXISTS ${quoted(s)}`);
    await q(`CREATE DATABASE ${quoted(s)}`);
  });
}
